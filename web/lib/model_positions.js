// A real model's positional layer from its config.json, read as HF transformers reads it: v4 `rope_scaling`
// (`type` or `rope_type`), v5 `rope_parameters` (also one per layer type), `text_config` of multimodal configs, the
// rotary size keys, the layout and per-layer scheme of each model_type, and the non-RoPE kinds (ALiBi, T5, learned,
// sinusoidal). Every key that shapes positions is checked; an unknown or contradictory one is named in the error.
import { describe } from './validate.js';
import { ropeScaling } from './rope.js';
import { MODEL_PRESETS } from './model_presets.js';

class ConfigError extends TypeError {
  constructor(message) {
    super(`config: ${message}`);
    this.name = 'ConfigError';
  }
}

// The keys of a v4 rope_scaling / v5 rope_parameters entry, by what reads them; posembed's option names beside.
const ROPE_KEYS = {
  rope_type: null, type: null, rope_theta: null, partial_rotary_factor: null, mrope_section: null, mrope_interleaved: null, llama_4_scaling_beta: null,
  factor: 'factor', original_max_position_embeddings: 'originalMaxPositions', attention_factor: 'attentionFactor', beta_fast: 'betaFast',
  beta_slow: 'betaSlow', mscale: 'mscale', mscale_all_dim: 'mscaleAllDim', truncate: 'truncate', short_factor: 'shortFactor',
  long_factor: 'longFactor', low_freq_factor: 'lowFreqFactor', high_freq_factor: 'highFreqFactor',
};
// Which of those each rule reads (HF's _validate_*_rope_parameters); any other is refused as not applying.
const RULE_KEYS = {
  default: [],
  linear: ['factor'],
  dynamic: ['factor', 'original_max_position_embeddings'],
  llama3: ['factor', 'original_max_position_embeddings', 'low_freq_factor', 'high_freq_factor'],
  yarn: ['factor', 'original_max_position_embeddings', 'attention_factor', 'beta_fast', 'beta_slow', 'mscale', 'mscale_all_dim', 'truncate'],
  longrope: ['factor', 'original_max_position_embeddings', 'attention_factor', 'short_factor', 'long_factor'],
  proportional: ['factor'],
};
const COMMON_KEYS = ['rope_type', 'type', 'rope_theta', 'partial_rotary_factor', 'mrope_section', 'mrope_interleaved', 'llama_4_scaling_beta'];

// Per model_type: how its attention lays out RoPE pairs and what HF's config class supplies when the file is silent.
// kind: the positional scheme; layout: 'half' (rotate_half) or 'interleaved' (pairs 2i, 2i+1).
const HALF = { kind: 'rope', layout: 'half' };
const INTERLEAVED = { kind: 'rope', layout: 'interleaved' };
export const MODEL_TYPES = {
  llama: HALF, mistral: HALF, mixtral: HALF, ministral: HALF, ministral3: HALF, qwen2: HALF, qwen2_moe: HALF, qwen3: HALF, qwen3_moe: HALF,
  olmo: HALF, olmo2: HALF, granite: HALF, starcoder2: HALF, stablelm: HALF, phi: HALF, phi3: HALF, gemma: HALF,
  gemma2: { ...HALF, queryPreAttnScalar: 256 },
  gemma3_text: { ...HALF, theta: 1e6, localTheta: 10000, slidingWindowPattern: 6, queryPreAttnScalar: 256, headDim: 256 },
  qwen2_vl: HALF, qwen2_5_vl: HALF, qwen3_vl_text: HALF, qwen3_vl: HALF, gpt_oss: HALF,
  gpt_neox: { ...HALF, theta: 10000 }, gptj: { ...INTERLEAVED, theta: 10000 },
  cohere: INTERLEAVED, cohere2: INTERLEAVED, llama4_text: { ...INTERLEAVED, nopeLayerInterval: 4 },
  deepseek_v2: INTERLEAVED, deepseek_v3: INTERLEAVED,
  modernbert: { ...HALF, globalTheta: 160000, localTheta: 10000, globalEvery: 3 },
  falcon: HALF,
  bloom: { kind: 'alibi', slopes: 'bloom' }, mpt: { kind: 'alibi', slopes: 'mpt' },
  t5: { kind: 't5' }, mt5: { kind: 't5' }, umt5: { kind: 't5' },
  gpt2: { kind: 'learned', offset: 0 }, bert: { kind: 'learned', offset: 0 }, opt: { kind: 'learned', offset: 2 },
  bart: { kind: 'learned', offset: 2 }, mbart: { kind: 'learned', offset: 2 }, roberta: { kind: 'learned', offset: 2 },
  m2m_100: { kind: 'sinusoidal', timescale: 't2t', layout: 'split', paddingOffset: true },
  marian: { kind: 'sinusoidal', timescale: 'standard', layout: 'split', paddingOffset: false },
};
// Multimodal wrappers whose text model sits in text_config, and the model_type that text model has.
const TEXT_MODEL_TYPES = { gemma3: 'gemma3_text', llama4: 'llama4_text', mistral3: 'ministral3', qwen3_vl: 'qwen3_vl_text' };

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

function positiveNumber(key, value) {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new ConfigError(`${key} must be a positive number, got ${describe(value)}`);
  return value;
}

function positiveInteger(key, value) {
  if (!Number.isInteger(value) || value < 1) throw new ConfigError(`${key} must be a positive integer, got ${describe(value)}`);
  return value;
}

// The first of several spellings a config may use for one value; two that disagree are a contradiction.
function either(config, keys, fallback) {
  const present = keys.filter((key) => config[key] !== undefined && config[key] !== null);
  for (const key of present.slice(1)) {
    if (config[key] !== config[present[0]]) {
      throw new ConfigError(`${present[0]} (${describe(config[present[0]])}) and ${key} (${describe(config[key])}) disagree`);
    }
  }
  return present.length > 0 ? config[present[0]] : fallback;
}

// One rope_scaling / rope_parameters entry → { type, scaling (posembed's), theta?, partialRotaryFactor?, mrope }.
function readRopeEntry(entry, where, config) {
  if (!isObject(entry)) throw new ConfigError(`${where} must be an object, got ${describe(entry)}`);
  for (const key of Object.keys(entry)) {
    if (!(key in ROPE_KEYS)) throw new ConfigError(`${where}.${key} is not a key posembed knows (known: ${Object.keys(ROPE_KEYS).join(', ')})`);
  }
  if (entry.type !== undefined && entry.rope_type !== undefined && entry.type !== entry.rope_type) {
    throw new ConfigError(`${where}.type ('${entry.type}') and ${where}.rope_type ('${entry.rope_type}') disagree`);
  }
  let type = entry.rope_type ?? entry.type ?? 'default';
  // Qwen2-VL's configs say 'mrope': HF reads it as the default rule with sections.
  if (type === 'mrope') type = 'default';
  if (!(type in RULE_KEYS)) throw new ConfigError(`${where}.rope_type must be one of ${Object.keys(RULE_KEYS).map((t) => `'${t}'`).join(', ')} or 'mrope', got ${describe(type)}`);
  for (const key of Object.keys(entry)) {
    if (!COMMON_KEYS.includes(key) && !RULE_KEYS[type].includes(key)) {
      throw new ConfigError(`${where}.${key} does not apply to rope_type '${type}' (it reads ${RULE_KEYS[type].join(', ') || 'no parameters'})`);
    }
  }
  const scaling = { type };
  for (const key of RULE_KEYS[type]) {
    if (entry[key] !== undefined && entry[key] !== null) scaling[ROPE_KEYS[key]] = entry[key];
  }
  // HF moves a top-level original_max_position_embeddings into the entry, and gives it priority (Phi-3).
  if (['llama3', 'yarn', 'longrope'].includes(type)) {
    if (config.original_max_position_embeddings !== undefined) scaling.originalMaxPositions = config.original_max_position_embeddings;
    scaling.originalMaxPositions ??= config.max_position_embeddings;
    if (scaling.originalMaxPositions === undefined) throw new ConfigError(`${where}: rope_type '${type}' needs original_max_position_embeddings or max_position_embeddings`);
  }
  if (type === 'dynamic') scaling.originalMaxPositions = positiveInteger('max_position_embeddings', config.max_position_embeddings);
  // YaRN and LongRoPE without a factor take max / original max, as HF does.
  if ((type === 'yarn' || type === 'longrope') && scaling.factor === undefined) {
    scaling.factor = positiveInteger('max_position_embeddings', config.max_position_embeddings) / scaling.originalMaxPositions;
  }
  if (type === 'longrope') {
    // HF: the factor for the attention factor is max / original max where both exist (Phi-3), whatever `factor` says.
    if (config.original_max_position_embeddings !== undefined) scaling.factor = config.max_position_embeddings / config.original_max_position_embeddings;
  }
  for (const [key, option] of [['beta_fast', 'betaFast'], ['beta_slow', 'betaSlow']]) {
    if (entry[key] === 0) delete scaling[option];  // HF: `get(...) or default`
  }
  let mrope = null;
  if (entry.mrope_section !== undefined) {
    const section = entry.mrope_section;
    if (!Array.isArray(section) || section.length !== 3 || !section.every((n) => Number.isInteger(n) && n >= 0)) {
      throw new ConfigError(`${where}.mrope_section must be 3 whole numbers (time, height, width), got ${describe(section)}`);
    }
    mrope = { section: [...section], interleaved: entry.mrope_interleaved === true };
  } else if (entry.mrope_interleaved !== undefined) {
    throw new ConfigError(`${where}.mrope_interleaved needs ${where}.mrope_section`);
  }
  return {
    type, scaling, mrope,
    theta: entry.rope_theta, partialRotaryFactor: entry.partial_rotary_factor,
    queryScale: entry.llama_4_scaling_beta !== undefined ? { beta: entry.llama_4_scaling_beta, floor: scaling.originalMaxPositions ?? config.original_max_position_embeddings, shift: 0 } : null,
  };
}

// The rope entries of a config: { [layerType | 'all']: entry }.
function ropeEntries(config) {
  const v4 = config.rope_scaling;
  const v5 = config.rope_parameters;
  if (v4 !== undefined && v4 !== null && v5 !== undefined && v5 !== null) throw new ConfigError('rope_scaling (v4) and rope_parameters (v5) are both given: keep one');
  const given = v5 ?? v4;
  const where = v5 ? 'rope_parameters' : 'rope_scaling';
  if (given === undefined || given === null) return { all: readRopeEntry({}, where, config) };
  const layerTypes = config.layer_types;
  if (isObject(given) && Array.isArray(layerTypes) && Object.keys(given).length > 0 && Object.keys(given).every((key) => layerTypes.includes(key))) {
    return Object.fromEntries(Object.entries(given).map(([layerType, entry]) => [layerType, readRopeEntry(entry, `${where}.${layerType}`, config)]));
  }
  return { all: readRopeEntry(given, where, config) };
}

// ALiBi slopes as each model builds them, in float64.
export function alibiSlopesFor(rule, numHeads, alibiBiasMax = 8) {
  const slopes = new Float64Array(numHeads);
  if (rule === 'mpt') {
    // MPT's gen_slopes: 2^-(m · max / n') over the next power of two n', odd entries first where n is not one.
    const padded = 2 ** Math.ceil(Math.log2(numHeads));
    const all = Array.from({ length: padded }, (_, i) => 1 / 2 ** ((i + 1) * (alibiBiasMax / padded)));
    const ordered = padded === numHeads ? all : [...all.filter((_, i) => i % 2 === 1), ...all.filter((_, i) => i % 2 === 0)];
    slopes.set(ordered.slice(0, numHeads));
    return slopes;
  }
  // BLOOM's build_alibi_tensor (the paper's rule): powers of 2^(-8/n) for the largest power of two n, then odd powers
  // of the next one's base for the remaining heads.
  const closest = 2 ** Math.floor(Math.log2(numHeads));
  const base = 2 ** -(2 ** -(Math.log2(closest) - 3));
  for (let i = 0; i < closest; i++) slopes[i] = base ** (i + 1);
  const extraBase = 2 ** -(2 ** -(Math.log2(2 * closest) - 3));
  for (let i = 0; i < numHeads - closest; i++) slopes[closest + i] = extraBase ** (2 * i + 1);
  return slopes;
}

// The RoPE spec of one layer (frequencies in float64 at the trained length, as the model's buffer starts).
function ropeSpec(core, { type, headDim, rotaryDim, layout, base, scaling, mrope, queryScale }) {
  const checked = ropeScaling(scaling);
  const atTrainedLength = { ...checked };
  if (checked.type === 'longrope') atTrainedLength.sequenceLength = checked.originalMaxPositions;
  const half = rotaryDim / 2;
  const invFreq = core.produce({ elements: half, what: 'the inverse frequencies', type: Float64Array },
    (pointer) => core.module.ropeInvFreq(rotaryDim, base, atTrainedLength, pointer));
  const spec = {
    type, headDim, rotaryDim, layout, base, invFreq, attentionFactor: core.module.ropeAttentionFactor(atTrainedLength), scaling: checked,
  };
  if (checked.originalMaxPositions !== undefined) spec.originalMaxPositions = checked.originalMaxPositions;
  if (mrope) Object.assign(spec, { mropeSection: mrope.section, mropeInterleaved: mrope.interleaved });
  if (queryScale) spec.queryScale = queryScale;
  return spec;
}

function textConfig(config) {
  if (config.text_config === undefined) return config;
  if (!isObject(config.text_config)) throw new ConfigError(`text_config must be an object, got ${describe(config.text_config)}`);
  return { ...config.text_config, model_type: config.text_config.model_type ?? TEXT_MODEL_TYPES[config.model_type] ?? config.model_type };
}

export function modelPositions(core, given) {
  let config = given;
  if (typeof given === 'string') {
    if (!(given in MODEL_PRESETS)) throw new RangeError(`config: no preset named '${given}'; presets: ${Object.keys(MODEL_PRESETS).join(', ')}`);
    config = MODEL_PRESETS[given];
  }
  if (!isObject(config)) throw new TypeError(`config must be a parsed config.json (an object) or a preset name, got ${describe(config)}`);
  const text = textConfig(config);
  const modelType = text.model_type;
  if (typeof modelType !== 'string') throw new ConfigError('model_type is missing: it says which model\'s attention (and positions) the config is for');
  const family = MODEL_TYPES[modelType];
  if (!family) throw new ConfigError(`model_type '${modelType}' is not one posembed reads; known: ${Object.keys(MODEL_TYPES).join(', ')}`);
  const numLayers = positiveInteger('num_hidden_layers', either(text, ['num_hidden_layers', 'n_layer', 'num_layers', 'n_layers'], undefined));
  const maxPositions = either(text, ['max_position_embeddings', 'n_positions', 'max_seq_len'], family.kind === 't5' || family.kind === 'alibi' ? null : undefined);
  if (maxPositions !== null) positiveInteger('max_position_embeddings', maxPositions);
  const hidden = either(text, ['hidden_size', 'n_embd', 'd_model'], undefined);
  const heads = either(text, ['num_attention_heads', 'n_head', 'num_heads', 'n_heads'], undefined);
  const kind = family.kind === 'rope' && modelType === 'falcon' && text.alibi === true ? 'alibi' : family.kind;

  const layers = kind === 'rope' ? ropeLayers(core, text, family, modelType, { numLayers, hidden, heads })
    : otherLayers(text, { ...family, kind }, modelType, { numLayers, hidden, heads, maxPositions });
  return {
    modelType, numLayers: layers.length, maxPositions,
    layerTypes: layers.map((layer) => layer.layerType),
    layer(i = 0) {
      if (!Number.isInteger(i) || i < 0 || i >= layers.length) throw new RangeError(`layer must be an integer in [0, ${layers.length - 1}], got ${describe(i)}`);
      const { layerType, ...layer } = layers[i];
      return layer;
    },
  };
}

function headDimOf(text, family, hidden, heads) {
  const explicit = text.head_dim ?? family.headDim;
  if (explicit !== undefined && explicit !== null) return positiveInteger('head_dim', explicit);
  positiveInteger('hidden_size', hidden);
  positiveInteger('num_attention_heads', heads);
  return Math.floor(hidden / heads);
}

function ropeLayers(core, text, family, modelType, { numLayers, hidden, heads }) {
  const deepseek = modelType.startsWith('deepseek');
  const headDim = deepseek ? positiveInteger('qk_rope_head_dim', text.qk_rope_head_dim) : headDimOf(text, family, hidden, heads);
  const entries = ropeEntries(text);
  const partial = either(text, ['partial_rotary_factor', 'rotary_pct'], undefined);
  let layout = family.layout;
  if (deepseek && text.rope_interleave === false) layout = 'half';
  const baseOf = (entry) => {
    const top = modelType === 'gpt_neox' ? text.rotary_emb_base ?? text.rope_theta : text.rope_theta;
    if (top !== undefined && entry.theta !== undefined && top !== entry.theta) throw new ConfigError(`rope_theta (${top}) and rope_parameters.rope_theta (${entry.theta}) disagree`);
    return positiveNumber('rope_theta', entry.theta ?? top ?? family.theta ?? 10000);
  };
  const rotaryOf = (entry) => {
    if (modelType === 'gptj') return text.rotary_dim ?? headDim;
    const factor = entry.partialRotaryFactor ?? partial;
    if (factor === undefined) return headDim;
    if (!(typeof factor === 'number' && factor > 0 && factor <= 1)) throw new ConfigError(`partial_rotary_factor must be a number in (0, 1], got ${describe(factor)}`);
    return Math.floor(headDim * factor);
  };
  const qkHeadDim = deepseek ? headDim + (text.qk_nope_head_dim ?? 0) : headDim;
  let scoreScale = qkHeadDim ** -0.5;
  if (family.queryPreAttnScalar) scoreScale = (text.query_pre_attn_scalar ?? family.queryPreAttnScalar) ** -0.5;
  const spec = (entry, overrides = {}) => {
    const rotaryDim = overrides.rotaryDim ?? rotaryOf(entry);
    const scaling = { ...entry.scaling };
    if (entry.type === 'proportional') {
      // p-RoPE: exponents over the whole head; the pairs past the rotated fraction stand still.
      scaling.rotatedPairs = Math.floor(((entry.partialRotaryFactor ?? partial ?? 1) * headDim) / 2);
    }
    return ropeSpec(core, {
      type: (overrides.scaling ?? scaling).type, headDim, rotaryDim: entry.type === 'proportional' ? headDim : rotaryDim, layout, base: overrides.base ?? baseOf(entry),
      scaling: overrides.scaling ?? scaling, mrope: entry.mrope, queryScale: entry.queryScale,
    });
  };
  // DeepSeek: softmax scale × mscale² where YaRN gives mscale_all_dim.
  const withDeepseekScale = (entry) => {
    const s = entry.scaling;
    if (!deepseek || s.type !== 'yarn' || !s.mscaleAllDim) return scoreScale;
    const mscale = s.factor <= 1 ? 1 : 0.1 * s.mscaleAllDim * Math.log(s.factor) + 1;
    return scoreScale * mscale * mscale;
  };

  const layers = [];
  for (let i = 0; i < numLayers; i++) {
    const layerType = Array.isArray(text.layer_types) ? text.layer_types[i] : undefined;
    if (entries.all === undefined) {
      const entry = entries[layerType];
      if (!entry) throw new ConfigError(`layer_types[${i}] is '${layerType}', which rope_parameters has no entry for`);
      layers.push({ kind: 'rope', layerType, rope: spec(entry), scoreScale: withDeepseekScale(entry) });
      continue;
    }
    const entry = entries.all;
    if (modelType === 'gemma3_text') {
      const sliding = layerType !== undefined ? layerType === 'sliding_attention' : (i + 1) % (text.sliding_window_pattern ?? family.slidingWindowPattern) !== 0;
      const local = sliding ? { base: positiveNumber('rope_local_base_freq', text.rope_local_base_freq ?? family.localTheta), scaling: { type: 'default' } } : {};
      layers.push({ kind: 'rope', layerType: sliding ? 'sliding_attention' : 'full_attention', rope: spec(entry, local), scoreScale });
    } else if (modelType === 'modernbert') {
      const global = i % (text.global_attn_every_n_layers ?? family.globalEvery) === 0;
      const base = global ? text.global_rope_theta ?? family.globalTheta : text.local_rope_theta ?? family.localTheta;
      layers.push({ kind: 'rope', layerType: global ? 'full_attention' : 'sliding_attention', rope: spec(entry, { base }), scoreScale });
    } else if (modelType === 'llama4_text') {
      const uses = Array.isArray(text.no_rope_layers) ? text.no_rope_layers[i] !== 0 : (i + 1) % (text.nope_layer_interval ?? family.nopeLayerInterval) !== 0;
      if (uses) {
        layers.push({ kind: 'rope', layerType: 'rope', rope: spec(entry), scoreScale });
      } else {
        // NoPE layers scale their queries by position instead (attn_temperature_tuning).
        const tuning = text.attn_temperature_tuning ?? true;
        layers.push({
          kind: 'none', layerType: 'nope', scoreScale,
          ...(tuning ? { queryScale: { beta: text.attn_scale ?? 0.1, floor: text.floor_scale ?? 8192, shift: 1 } } : {}),
        });
      }
    } else {
      layers.push({ kind: 'rope', layerType: layerType ?? 'full_attention', rope: spec(entry), scoreScale: withDeepseekScale(entry) });
    }
  }
  return layers;
}

function otherLayers(text, family, modelType, { numLayers, hidden, heads, maxPositions }) {
  const headDim = hidden && heads ? Math.floor(hidden / heads) : undefined;
  const layers = [];
  if (family.kind === 'alibi') {
    const numHeads = positiveInteger('num_attention_heads', heads);
    const attn = text.attn_config ?? {};
    if (modelType === 'mpt' && attn.alibi === false) throw new ConfigError('attn_config.alibi is false: this MPT uses no ALiBi, and posembed does not read its other positions');
    const slopes = alibiSlopesFor(family.slopes, numHeads, attn.alibi_bias_max ?? 8);
    const scoreScale = modelType === 'mpt' && attn.softmax_scale ? attn.softmax_scale : headDim ** -0.5;
    for (let i = 0; i < numLayers; i++) layers.push({ kind: 'alibi', layerType: 'alibi', alibi: { slopes, rule: family.slopes }, scoreScale });
    return layers;
  }
  if (family.kind === 't5') {
    const t5 = { numBuckets: text.relative_attention_num_buckets ?? 32, maxDistance: text.relative_attention_max_distance ?? 128 };
    const decoderLayers = text.num_decoder_layers ?? numLayers;
    for (let i = 0; i < numLayers; i++) layers.push({ kind: 't5', layerType: 'encoder', t5: { ...t5, bidirectional: true }, scoreScale: 1 });
    for (let i = 0; i < decoderLayers; i++) layers.push({ kind: 't5', layerType: 'decoder', t5: { ...t5, bidirectional: false }, scoreScale: 1 });
    return layers;
  }
  if (family.kind === 'learned') {
    const offset = modelType === 'roberta' ? (text.pad_token_id ?? 1) + 1 : family.offset;
    const learned = { maxPositions: modelType === 'roberta' ? maxPositions - offset : maxPositions, offset };
    for (let i = 0; i < numLayers; i++) {
      const inverseLayer = modelType === 'gpt2' && text.scale_attn_by_inverse_layer_idx ? 1 / (i + 1) : 1;
      layers.push({ kind: 'learned', layerType: 'learned', learned, scoreScale: headDim ** -0.5 * inverseLayer });
    }
    return layers;
  }
  const sinusoidal = { offset: family.paddingOffset ? (text.pad_token_id ?? 1) + 1 : 0, timescale: family.timescale, layout: family.layout };
  for (let i = 0; i < numLayers; i++) layers.push({ kind: 'sinusoidal', layerType: 'sinusoidal', sinusoidal, scoreScale: headDim ** -0.5 });
  return layers;
}
