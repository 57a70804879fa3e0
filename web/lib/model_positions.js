// A real model's positional layer from its config.json, read as HF transformers reads it: the family's entry in the
// table of families (model_families.js) says which keys it reads, the class defaults that fill a missing key, its
// layout, layer pattern, score scale and cache precision; this module interprets the entries. v4 `rope_scaling`
// (`type` or `rope_type`), v5 `rope_parameters` (also one per layer type), `text_config` of multimodal configs. Every
// key that shapes positions is checked: an unknown or contradictory one is named in the error (as the config spells
// it), and a position key the family does not read is named in `warnings`.
import { describe } from './validate.js';
import { ropeScaling } from './rope.js';
import { CORE_ROPE_RULES } from './core_tables.js';
import { MODEL_PRESETS } from './model_presets.js';
import { FAMILIES, NO_POSITIONS, NOT_READ, WRAPPERS } from './model_families.js';

// How the package's own callers are told to read a config as another family: the API, and the command line's flag.
const API_AS = (as) => `modelPositions(config, { as: '${as}' }) (--as on the command line)`;

// A config the package cannot read. Where reading it as another family is the way out, the message is written for
// any advice: `advise(as)` words it (the API's by default) and `inWordsOf(advise)` gives the message in another
// caller's (an element's attribute), from the same facts.
class ConfigError extends TypeError {
  constructor(message) {
    const wordsFor = typeof message === 'function' ? message : () => message;
    super(`config: ${wordsFor(API_AS)}`);
    this.name = 'ConfigError';
    this.inWordsOf = (advise) => `config: ${wordsFor(advise)}`;
  }
}

// The keys of a v4 rope_scaling / v5 rope_parameters entry: those of the core's scaling parameters (CORE_ROPE_RULES:
// each parameter's HF key beside posembed's option name), and those read elsewhere (null).
const PARAMETER_KEYS = Object.fromEntries(Object.entries(CORE_ROPE_RULES.parameters).filter(([, p]) => p.hfKey).map(([option, p]) => [p.hfKey, option]));
const ROPE_KEYS = {
  rope_type: null, type: null, rope_theta: null, partial_rotary_factor: null, mrope_section: null, mrope_interleaved: null, llama_4_scaling_beta: null,
  alpha: null, interleaved: null, ...PARAMETER_KEYS,
};
const OPTION_KEYS = Object.fromEntries(Object.entries(PARAMETER_KEYS).map(([key, option]) => [option, key]));
// Which of those each rule reads (HF's _validate_*_rope_parameters): the rule's parameters that HF spells; any other
// is refused as not applying.
const RULE_KEYS = Object.fromEntries(Object.entries(CORE_ROPE_RULES.rules).map(([rule, { parameters }]) => [rule,
  parameters.map((option) => CORE_ROPE_RULES.parameters[option].hfKey).filter(Boolean)]));
const COMMON_KEYS = ['rope_type', 'type', 'rope_theta', 'partial_rotary_factor', 'mrope_section', 'mrope_interleaved', 'interleaved', 'llama_4_scaling_beta'];
// Remote-code model types whose code follows an HF family (its config class is that family's).
const REMOTE_CODE = { kimi_k2: 'deepseek_v3', phi4mm: 'phi4_multimodal', hunyuan: 'hunyuan_v1_moe' };

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const given = (value) => value !== undefined && value !== null;

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
  const present = keys.filter((key) => given(config[key]));
  for (const key of present.slice(1)) {
    if (config[key] !== config[present[0]]) {
      throw new ConfigError(`${present[0]} (${describe(config[present[0]])}) and ${key} (${describe(config[key])}) disagree`);
    }
  }
  return present.length > 0 ? config[present[0]] : fallback;
}

// Every key any family reads for its positions or scores: one a config holds but its family does not read is
// named in the warnings, with the families that do read it.
function keysOf(family) {
  const keys = new Set(family.masks ?? []);
  if (family.head === 'head_dim') keys.add('head_dim');
  else if (family.head && family.head !== 'hidden') keys.add(family.head);
  for (const key of [family.rotary, typeof family.base === 'string' ? family.base : null, family.alibiKey, family.scores?.key, family.scores?.keyMultiplier]) {
    if (key) keys.add(key);
  }
  if (family.head === 'qk_rope_head_dim') keys.add('qk_nope_head_dim');
  if (family.head === 'qk_rope_head_dim' && !family.fixedLayout) keys.add('rope_interleave');
  const layers = family.layers;
  if (layers) {
    keys.add('layer_types');
    const types = layers.types ?? {};
    // (layers.when, sliding_window, is every family's mask key: not one to warn about.)
    for (const key of [types.every, types.flags, types.interval, types.list, types.blocks, layers.localTheta, layers.globalTheta, ...Object.keys(layers.enabledBy ?? {})]) {
      if (key) keys.add(key);
    }
    if (layers.nopeQueryScale) ['attn_temperature_tuning', 'attn_scale', 'floor_scale'].forEach((key) => keys.add(key));
  }
  return keys;
}
const READ_BY = new Map();
for (const [type, family] of Object.entries(FAMILIES)) {
  for (const key of keysOf(family)) READ_BY.set(key, [...(READ_BY.get(key) ?? []), type]);
}
for (const key of ['partial_rotary_factor', 'rotary_pct', 'rotary_dim', 'rotary_emb_base', 'nope_layer_interval', 'rope_local_base_freq', 'attn_temperature_tuning']) {
  if (!READ_BY.has(key)) READ_BY.set(key, []);
}

// Edit distance, for naming the families closest to an unknown model_type.
function distance(a, b) {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const kept = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = kept;
    }
  }
  return row[b.length];
}

function closestFamilies(modelType) {
  const names = [...Object.keys(FAMILIES), ...Object.keys(WRAPPERS)];
  const stem = modelType.replace(/[_-]?(v?\d+(\.\d+)?|moe|text|vl|model)$/g, '');
  return names.map((name) => ({ name, d: Math.min(distance(modelType, name), name.startsWith(stem) && stem.length >= 3 ? 1.5 : Infinity) }))
    .sort((x, y) => x.d - y.d || x.name.localeCompare(y.name)).slice(0, 4).map((x) => x.name);
}

// One rope_scaling / rope_parameters entry → { type, scaling (posembed's), theta?, partialRotaryFactor?, mrope }.
function readRopeEntry(entry, where, config, family, warnings) {
  if (!isObject(entry)) throw new ConfigError(`${where} must be an object, got ${describe(entry)}`);
  for (const key of Object.keys(entry)) {
    if (!(key in ROPE_KEYS) || (key === 'alpha' && !family.alphaNtk)) {
      throw new ConfigError(`${where}.${key} is not a key posembed knows (known: ${Object.keys(ROPE_KEYS).filter((k) => k !== 'alpha' || family.alphaNtk).join(', ')})`);
    }
  }
  if (entry.type !== undefined && entry.rope_type !== undefined && entry.type !== entry.rope_type) {
    throw new ConfigError(`${where}.type ('${entry.type}') and ${where}.rope_type ('${entry.rope_type}') disagree`);
  }
  let type = entry.rope_type ?? entry.type ?? 'default';
  // Qwen2-VL's configs say 'mrope': HF reads it as the default rule with sections. Phi-3's class reads 'yarn' and
  // 'su' as LongRoPE.
  if (type === 'mrope') type = 'default';
  if (family.longropeFromYarn && (type === 'yarn' || type === 'su')) type = 'longrope';
  if (!(type in RULE_KEYS)) throw new ConfigError(`${where}.rope_type must be one of ${Object.keys(RULE_KEYS).map((t) => `'${t}'`).join(', ')} or 'mrope', got ${describe(type)}`);
  // A key the rule does not read: HF warns and goes on without it; so does posembed, in the warnings.
  const ignored = Object.keys(entry).filter((key) => !COMMON_KEYS.includes(key) && !RULE_KEYS[type].includes(key) && !(key === 'alpha' && type === 'dynamic'));
  for (const key of ignored) {
    warnings.push(`${where}.${key} (${describe(entry[key])}) does not apply to rope_type '${type}', which reads ${RULE_KEYS[type].join(', ') || 'no parameters'}: HF ignores it, and so does posembed`);
  }
  // Hunyuan's dynamic rule with an alpha is NTK by a fixed alpha: the plain rule on base × alpha^(d / (d - 2)).
  const alpha = type === 'dynamic' && entry.alpha !== undefined ? positiveNumber(`${where}.alpha`, entry.alpha) : null;
  if (alpha !== null) type = 'default';
  const scaling = { type };
  for (const key of RULE_KEYS[type]) {
    if (given(entry[key])) scaling[ROPE_KEYS[key]] = entry[key];
  }
  // HF holds LongRoPE's factor lists in a float32 tensor: its frequencies divide by the lists rounded to float32.
  for (const option of ['shortFactor', 'longFactor']) {
    if (Array.isArray(scaling[option])) scaling[option] = scaling[option].map((v) => (typeof v === 'number' ? Math.fround(v) : v));
  }
  // HF moves a top-level original_max_position_embeddings into the entry, and gives it priority (Phi-3).
  if (['llama3', 'yarn', 'longrope'].includes(type)) {
    if (given(config.original_max_position_embeddings)) scaling.originalMaxPositions = config.original_max_position_embeddings;
    scaling.originalMaxPositions ??= config.max_position_embeddings;
    if (scaling.originalMaxPositions === undefined) throw new ConfigError(`${where}: rope_type '${type}' needs original_max_position_embeddings or max_position_embeddings`);
  }
  if (type === 'dynamic') scaling.originalMaxPositions = positiveInteger('max_position_embeddings', config.max_position_embeddings);
  // YaRN and LongRoPE without a factor take max / original max, as HF does.
  if ((type === 'yarn' || type === 'longrope') && scaling.factor === undefined) {
    scaling.factor = positiveInteger('max_position_embeddings', config.max_position_embeddings) / scaling.originalMaxPositions;
  }
  for (const [key, option] of [['beta_fast', 'betaFast'], ['beta_slow', 'betaSlow']]) {
    if (entry[key] === 0) delete scaling[option];  // HF: `get(...) or default`
  }
  let mrope = null;
  const section = entry.mrope_section ?? family.mrope?.section;
  const interleavedKey = ['mrope_interleaved', 'interleaved'].find((key) => entry[key] !== undefined);
  if (!family.mrope && (entry.mrope_section !== undefined || interleavedKey)) {
    const key = entry.mrope_section !== undefined ? 'mrope_section' : interleavedKey;
    throw new ConfigError(`${where}.${key}: HF's ${family.name} has no mRoPE (families with it: ${Object.keys(FAMILIES).filter((t) => FAMILIES[t].mrope).join(', ')})`);
  }
  if (section !== undefined && family.mrope) {
    if (!Array.isArray(section) || section.length !== 3 || !section.every((n) => Number.isInteger(n) && n >= 0)) {
      throw new ConfigError(`${where}.mrope_section must be 3 whole numbers (time, height, width), got ${describe(section)}`);
    }
    mrope = { section: [...section], interleaved: family.mrope.interleaved };
    // The layout of the sections is the family's code, whatever the key says.
    if (interleavedKey && entry[interleavedKey] !== family.mrope.interleaved) {
      warnings.push(`${where}.${interleavedKey} is ${describe(entry[interleavedKey])}, but HF's ${family.name} lays its mRoPE sections out ${family.mrope.interleaved ? 'interleaved' : 'in blocks'} whatever it says`);
    }
  } else if (family.mrope) {
    throw new ConfigError(`${where}.mrope_section is missing: HF's ${family.name} reads it with no default (3 whole numbers: time, height, width)`);
  }
  return {
    type, scaling, mrope, where, alpha,
    theta: entry.rope_theta, partialRotaryFactor: entry.partial_rotary_factor,
    queryScale: given(entry.llama_4_scaling_beta) ? { beta: entry.llama_4_scaling_beta, floor: scaling.originalMaxPositions ?? config.original_max_position_embeddings, shift: 0 } : null,
  };
}

// The rope entries of a config: { [layerType | 'all']: entry }.
function ropeEntries(config, family, warnings) {
  const v4 = config.rope_scaling;
  const v5 = config.rope_parameters;
  if (given(v4) && given(v5)) throw new ConfigError('rope_scaling (v4) and rope_parameters (v5) are both given: keep one');
  const entries = v5 ?? v4;
  const where = given(v5) ? 'rope_parameters' : 'rope_scaling';
  if (!given(entries)) return { all: readRopeEntry({}, where, config, family, warnings) };
  const layerTypes = config.layer_types;
  if (isObject(entries) && Array.isArray(layerTypes) && Object.keys(entries).length > 0 && Object.keys(entries).every((key) => layerTypes.includes(key))) {
    return Object.fromEntries(Object.entries(entries).map(([layerType, entry]) => [layerType, readRopeEntry(entry, `${where}.${layerType}`, config, family, warnings)]));
  }
  return { all: readRopeEntry(entries, where, config, family, warnings) };
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

// A scaling the rules refuse, named as the config spells it (scaling.betaSlow → rope_scaling.beta_slow).
function inConfigWords(error, where) {
  if (!where || !(error instanceof RangeError || error instanceof TypeError)) return error;
  const message = error.message.replace(/scaling\.([A-Za-z]+)/g, (whole, option) => (OPTION_KEYS[option] ? `${where}.${OPTION_KEYS[option]}` : whole));
  return new error.constructor(`config: ${message}`);
}

// The RoPE spec of one layer (frequencies in float64 at the trained length, as the model's buffer starts).
function ropeSpec(core, { type, headDim, rotaryDim, layout, base, scaling, mrope, queryScale, cache, rotation, where }) {
  let checked;
  try {
    checked = ropeScaling(scaling, undefined, rotaryDim / 2);
  } catch (error) {
    throw inConfigWords(error, where);
  }
  const atTrainedLength = { ...checked };
  if (checked.type === 'longrope') atTrainedLength.sequenceLength = checked.originalMaxPositions;
  const invFreq = core.produce({ elements: rotaryDim / 2, what: 'the inverse frequencies', type: Float64Array },
    (pointer) => core.module.ropeInvFreq(rotaryDim, base, atTrainedLength, pointer));
  const spec = {
    type, headDim, rotaryDim, layout, base, invFreq, attentionFactor: core.module.ropeAttentionFactor(atTrainedLength), scaling: checked, cache,
  };
  if (checked.originalMaxPositions !== undefined) spec.originalMaxPositions = checked.originalMaxPositions;
  if (mrope) Object.assign(spec, { mropeSection: mrope.section, mropeInterleaved: mrope.interleaved });
  if (queryScale) spec.queryScale = queryScale;
  if (rotation) spec.rotation = rotation;
  return spec;
}

// A table's own entry (never Object.prototype's: a model_type 'constructor' names no family).
const has = (table, name) => typeof name === 'string' && Object.hasOwn(table, name);
// A model_type posembed knows: read, refused with why, or without positions.
const knownType = (name) => has(FAMILIES, name) || has(NOT_READ, name) || has(NO_POSITIONS, name);
const unknownAs = (as) => new RangeError(`as must name an HF family posembed reads (${Object.keys(FAMILIES).length} of them, e.g. ${closestFamilies(String(as)).join(', ')}), got ${describe(as)}`);

// The family a config is read as, and its text part (multimodal configs keep it in text_config).
function familyOf(config, as) {
  let text = config;
  let modelType = config.model_type;
  // A file saved without one (HF reads it only through its model class): `as` is its model_type.
  const asModelType = typeof modelType !== 'string';
  if (asModelType) {
    if (as === undefined) {
      throw new ConfigError((advise) => 'model_type is missing: it says which model\'s attention (and positions) the config is for; a file '
        + `without one is read as the family its model class is with ${advise('<model_type>')}`);
    }
    if (!(has(WRAPPERS, as) || knownType(as))) throw unknownAs(as);
    modelType = as;
  }
  const wrapper = has(WRAPPERS, modelType) ? WRAPPERS[modelType] : undefined;
  if (wrapper) {
    // The text model's config: text_config, or deeper (Qwen-Omni's thinker_config.text_config).
    const path = wrapper.path ?? ['text_config'];
    let inner = config;
    for (const [depth, key] of path.entries()) {
      if (!given(inner[key])) { inner = undefined; break; }
      if (!isObject(inner[key])) throw new ConfigError(`${path.slice(0, depth + 1).join('.')} must be an object, got ${describe(inner[key])}`);
      inner = inner[key];
    }
    if (inner !== undefined) {
      text = inner;
    } else if (!wrapper.flat) {
      text = { ...wrapper.defaultText };
    }
    modelType = given(text.model_type) && text !== config ? text.model_type : wrapper.text;
    if (wrapper.fills) text = { ...wrapper.fills, ...Object.fromEntries(Object.entries(text).filter(([, value]) => given(value))) };
    if (modelType === null) {
      throw new ConfigError(`${path.join('.')}.model_type is missing: HF's ${config.model_type ?? as} takes any model there, and its model_type says which`);
    }
  } else if (given(config.text_config) && !asModelType) {
    if (!isObject(config.text_config)) throw new ConfigError(`text_config must be an object, got ${describe(config.text_config)}`);
    text = config.text_config;
    modelType = text.model_type ?? modelType;
  }
  const warnings = [];
  if (asModelType) {
    warnings.push(`read as HF's ${as}, as asked (the config has no model_type)`);
  } else if (as !== undefined) {
    const target = has(WRAPPERS, as) ? WRAPPERS[as].text : as;
    if (!knownType(target)) throw unknownAs(as);
    if (target !== modelType) warnings.push(`read as HF's ${target}, as asked (the config says model_type '${modelType}')`);
    modelType = target;
  }
  if (has(NO_POSITIONS, modelType)) throw new ConfigError(`model_type '${modelType}' has no attention and no positions (${NO_POSITIONS[modelType]})`);
  if (has(NOT_READ, modelType)) throw new ConfigError(`model_type '${modelType}' is an HF family posembed does not read yet: ${NOT_READ[modelType]}`);
  if (!has(FAMILIES, modelType)) {
    const remote = REMOTE_CODE[modelType] ? ` Its code comes with the model (trust_remote_code) and follows HF's ${REMOTE_CODE[modelType]}:` : '';
    throw new ConfigError((advise) => `model_type '${modelType}' is not an HF family posembed reads.${remote} read it as the family its code `
      + `follows with ${advise(REMOTE_CODE[modelType] ?? closestFamilies(modelType)[0])} (closest: ${closestFamilies(modelType).join(', ')})`);
  }
  return { text, modelType, family: FAMILIES[modelType], warnings };
}

// The config as HF's class holds it: the file's keys over the class's defaults (a key the file leaves out, or sets to
// null, takes the default). A file's rope_scaling or rope_parameters replaces a default rope_parameters whole.
function withDefaults(file, family) {
  // HF's attribute_map: a standard key read under the family's own name (XLM's emb_dim for hidden_size).
  const text = { ...file };
  for (const [name, key] of Object.entries(family.aliases ?? {})) if (!given(text[name]) && given(text[key])) text[name] = text[key];
  const values = {};
  const filled = [];
  for (const [key, value] of Object.entries(family.defaults ?? {})) {
    if (key === 'rope_parameters' && (given(text.rope_scaling) || given(text.rope_parameters))) continue;
    if (!given(text[key])) {
      values[key] = structuredClone(value);
      filled.push(key);
    }
  }
  for (const [key, value] of Object.entries(text)) if (given(value)) values[key] = value;
  const sizeKeys = [['hidden_size', 'n_embd', 'd_model'], ['num_attention_heads', 'n_head', 'num_heads', 'n_heads'], ['num_hidden_layers', 'n_layer', 'num_layers', 'n_layers']];
  sizeKeys.forEach((spellings, i) => {
    if (family.sizes && spellings.every((key) => !given(text[key]))) {
      values[spellings[0]] = family.sizes[i];
      filled.push(spellings[0]);
    }
  });
  return { values, filled };
}

// Position keys the config holds that its family does not read: each named, with the families that do.
function unreadKeys(text, family, modelType) {
  const reads = keysOf(family);
  const warnings = [];
  for (const [key, readers] of READ_BY) {
    if (!given(text[key]) || reads.has(key)) continue;
    // 'absolute' is what every family without another scheme does; a head_dim equal to hidden // heads changes nothing.
    if (key === 'position_embedding_type' && text[key] === 'absolute') continue;
    if (key === 'head_dim' && family.head === 'hidden') continue;
    if (family.kind !== 'rope' && readers.every((t) => FAMILIES[t].kind === 'rope') && !['head_dim'].includes(key)) {
      warnings.push(`${key} (${describe(text[key])}) is in the config, but HF's ${modelType} has no RoPE and does not read it`);
      continue;
    }
    const who = readers.length ? ` (${readers.slice(0, 4).join(', ')}${readers.length > 4 ? ', …' : ''} read it)` : '';
    warnings.push(`${key} (${describe(text[key])}) is in the config, but HF's ${modelType} does not read it${who}${IGNORED_MEANS[key]?.(family) ?? ''}`);
  }
  return warnings;
}
const IGNORED_MEANS = {
  partial_rotary_factor: (family) => (family.kind === 'rope' && !family.rotary ? ': every layer turns its whole head' : ''),
  no_rope_layers: (family) => (family.kind === 'rope' && !family.layers ? ': every layer has RoPE' : ''),
  nope_layer_interval: (family) => (family.kind === 'rope' && !family.layers ? ': every layer has RoPE' : ''),
  head_dim: () => ': the head size is hidden_size // num_attention_heads',
};

export function modelPositions(core, configOrPreset, options = {}) {
  let config = configOrPreset;
  if (typeof configOrPreset === 'string') {
    if (!(configOrPreset in MODEL_PRESETS)) throw new RangeError(`config: no preset named '${configOrPreset}'; presets: ${Object.keys(MODEL_PRESETS).join(', ')}`);
    config = MODEL_PRESETS[configOrPreset];
  }
  if (!isObject(config)) throw new TypeError(`config must be a parsed config.json (an object) or a preset name, got ${describe(config)}`);
  if (!isObject(options)) throw new TypeError(`options must be an object { as }, got ${describe(options)}`);
  for (const key of Object.keys(options)) if (key !== 'as') throw new TypeError(`modelPositions: unknown option '${key}' (options: as)`);
  const { text, modelType, family, warnings } = familyOf(config, options.as);
  const named = { ...family, name: modelType };
  const { values, filled } = withDefaults(text, named);
  warnings.push(...unreadKeys(text, named, modelType));
  const numLayers = layerCount(values, family);
  const maxPositions = either(values, ['max_position_embeddings', 'n_positions', 'max_seq_len'], null);
  if (maxPositions !== null) positiveInteger('max_position_embeddings', maxPositions);
  const hidden = either(values, ['hidden_size', 'n_embd', 'd_model'], undefined);
  const heads = either(values, ['num_attention_heads', 'n_head', 'num_heads', 'n_heads'], undefined);
  const kind = family.alibiKey && values[family.alibiKey] === true ? 'alibi' : family.kind;
  const sizes = { numLayers, hidden, heads, maxPositions };
  const filledKeys = new Set(filled);
  const layers = kind === 'rope' ? ropeLayers(core, values, named, sizes, warnings, filledKeys) : otherLayers(values, { ...named, kind }, sizes, warnings);
  return {
    modelType, numLayers: layers.length, maxPositions,
    family: { modelType, follows: family.follows ?? null, source: family.source, cache: family.cache ?? null },
    defaults: [...filledKeys], warnings,
    layerTypes: layers.map((layer) => layer.layerType),
    layer(i = 0) {
      if (!Number.isInteger(i) || i < 0 || i >= layers.length) throw new RangeError(`layer must be an integer in [0, ${layers.length - 1}], got ${describe(i)}`);
      const { layerType, ...layer } = layers[i];
      return layer;
    },
  };
}

// The attention head size of q·k and the size RoPE turns: { headDim (RoPE's), qkHead }.
function headSizes(values, family, { hidden, heads }, warnings) {
  const fromSizes = () => Math.floor(positiveInteger('hidden_size', hidden) / positiveInteger('num_attention_heads', heads));
  if (family.head === 'hidden') {
    const head = fromSizes();
    if (given(values.head_dim) && values.head_dim !== head) warnings.push(`head_dim (${values.head_dim}) is in the config, but HF's ${family.name} takes hidden_size // num_attention_heads = ${head} as its head size`);
    return { headDim: head, qkHead: head };
  }
  if (family.head === 'head_dim') {
    const head = given(values.head_dim) ? positiveInteger('head_dim', values.head_dim) : fromSizes();
    return { headDim: head, qkHead: head };
  }
  const head = positiveInteger(family.head, values[family.head]);
  const qkHead = family.head === 'qk_rope_head_dim' ? head + (values.qk_nope_head_dim ?? 0) : head;
  return { headDim: head, qkHead };
}

// The number of layers as HF's config counts them: the file's, or (HRM) its per-stack count times the calls per stack.
function layerCount(values, family) {
  const count = positiveInteger('num_hidden_layers', either(values, ['num_hidden_layers', 'n_layer', 'num_layers', 'n_layers'], undefined));
  const rule = family.layerCount;
  if (!rule || given(values[rule.perStack])) return count;
  return rule.times.reduce((total, factor) => {
    const [key, plus] = Array.isArray(factor) ? factor : [factor, 0];
    return total * (positiveInteger(key, values[key]) + plus);
  }, count);
}

// Each layer's type: the file's layer_types, else the family's rule.
const TYPE_RULES = {
  every: (rule, values, i) => {
    const n = rule.every ? values[rule.every] ?? rule.n : rule.n;
    positiveInteger(rule.every ?? 'the layer pattern', n);
    return ((rule.first ? i : i + 1) % n === 0) ? rule.at : rule.other;
  },
  flags: (rule, values, i) => {
    const flags = values[rule.flags];
    if (Array.isArray(flags) && flags.length > 0) {
      if (flags[i] === undefined) throw new ConfigError(`${rule.flags} has ${flags.length} entries for ${i + 1}+ layers`);
      return flags[i] ? 'rope' : 'nope';
    }
    return (i + 1) % positiveInteger(rule.interval, values[rule.interval] ?? rule.n) !== 0 ? 'rope' : 'nope';
  },
  list: (rule, values, i) => {
    const list = values[rule.list] ?? rule.default;
    if (list === undefined) return rule.in;
    if (!Array.isArray(list)) throw new ConfigError(`${rule.list} must be a list of layer indices, got ${describe(list)}`);
    return list.includes(i) ? rule.in : rule.other;
  },
  blocks: (rule, values, i) => {
    const blocks = values[rule.blocks] ?? rule.default;
    return blocks[i % blocks.length];
  },
  all: (rule) => rule.all,
};

function layerTypeOf(values, family, i) {
  if (Array.isArray(values.layer_types) && (family.layers || family.masks)) {
    if (values.layer_types[i] === undefined) throw new ConfigError(`layer_types has ${values.layer_types.length} entries, for ${i + 1}+ layers`);
    return values.layer_types[i];
  }
  const rule = family.layers?.types;
  if (!rule) return 'full_attention';
  const name = Object.keys(TYPE_RULES).find((key) => key in rule);
  return TYPE_RULES[name](rule, values, i);
}

function ropeLayers(core, values, family, sizes, warnings, filled) {
  const { headDim, qkHead } = headSizes(values, family, sizes, warnings);
  if (family.fixedRope) {
    for (const key of ['rope_theta', 'rope_scaling', 'rope_parameters']) {
      if (given(values[key])) warnings.push(`${key} is in the config, but HF's ${family.name} builds its table on base ${family.base} unscaled and does not read it`);
    }
  }
  const entries = family.fixedRope ? { all: readRopeEntry({}, 'rope_scaling', values, family, warnings) } : ropeEntries(values, family, warnings);
  let layout = family.layout;
  if (family.head === 'qk_rope_head_dim' && !family.fixedLayout && values.rope_interleave === false) layout = 'half';
  const baseOf = (entry) => {
    if (typeof family.base === 'number') return family.base;
    const top = family.base ? values[family.base] ?? values.rope_theta : values.rope_theta;
    if (given(top) && given(entry.theta) && top !== entry.theta) throw new ConfigError(`${family.base ?? 'rope_theta'} (${top}) and ${entry.where}.rope_theta (${entry.theta}) disagree`);
    if (!given(entry.theta) && !given(top)) filled.add(family.base ?? 'rope_theta');
    const base = positiveNumber('rope_theta', entry.theta ?? top ?? family.theta);
    return entry.alpha === null || entry.alpha === undefined ? base : base * entry.alpha ** (headDim / (headDim - 2));
  };
  const rotaryOf = (entry) => {
    if (family.rotary === 'rotary_dim') return given(values.rotary_dim) ? positiveInteger('rotary_dim', values.rotary_dim) : headDim;
    if (!family.rotary || (family.partialOnScaledRules && entry.scaling.type === 'default')) return headDim;
    const key = family.rotary;
    // A fraction inside rope_parameters wins (HF sets the top-level one as its default); GPT-NeoX assigns rotary_pct
    // over it, and Bamba fixes 0.5 for a top-level one.
    const factor = key === 'rotary_pct' ? values.rotary_pct : entry.partialRotaryFactor ?? family.fixedPartial ?? values[key] ?? 1;
    if (!(typeof factor === 'number' && factor > 0 && factor <= 1)) throw new ConfigError(`${key} must be a number in (0, 1], got ${describe(factor)}`);
    return Math.floor(headDim * factor);
  };
  const scoreScaleOf = (entry) => {
    const s = family.scores;
    if (s?.value !== undefined) return s.value;
    if (s?.key && s.orHead && !given(values[s.key])) return qkHead ** -0.5;
    if (s?.key) return positiveNumber(s.key, values[s.key]) ** (s.power ?? 1);
    if (s?.keyMultiplier) return qkHead ** -0.5 * positiveNumber(s.keyMultiplier, values[s.keyMultiplier]);
    // DeepSeek-V3: softmax scale × mscale² where YaRN gives mscale_all_dim (HF's DeepSeek-V2 does not).
    if (s === 'mla' && entry?.scaling.type === 'yarn' && entry.scaling.mscaleAllDim) {
      const { factor, mscaleAllDim } = entry.scaling;
      const mscale = factor <= 1 ? 1 : 0.1 * mscaleAllDim * Math.log(factor) + 1;
      return qkHead ** -0.5 * mscale * mscale;
    }
    return qkHead ** -0.5;
  };
  const spec = (entry, overrides = {}) => {
    const rotaryDim = rotaryOf(entry);
    const scaling = { ...(overrides.scaling ?? entry.scaling) };
    if (scaling.type === 'proportional') {
      // p-RoPE: exponents over the whole head; the pairs past the rotated fraction stand still.
      scaling.rotatedPairs = Math.floor(((entry.partialRotaryFactor ?? values.partial_rotary_factor ?? 1) * headDim) / 2);
    }
    return ropeSpec(core, {
      type: scaling.type, headDim, rotaryDim: scaling.type === 'proportional' ? headDim : rotaryDim, layout, base: overrides.base ?? baseOf(entry),
      scaling, mrope: entry.mrope, queryScale: entry.queryScale, cache: family.cache, rotation: family.rotation, where: entry.where,
    });
  };

  const rule = family.layers ?? {};
  const enabled = Object.entries(rule.enabledBy ?? {}).every(([key, value]) => values[key] === value);
  if (!enabled) {
    const [key, value] = Object.entries(rule.enabledBy)[0];
    warnings.push(`${key} is ${describe(values[key] ?? null)}, not ${describe(value)}: HF's ${family.name} turns nothing in any layer${given(values.rope_theta) ? ' (the config\'s rope_theta is not used)' : ''}`);
  }
  const noPositions = new Set(rule.when && !given(values[rule.when]) ? [] : rule.none ?? []);
  const layers = [];
  for (let i = 0; i < sizes.numLayers; i++) {
    const layerType = layerTypeOf(values, family, i);
    if (!enabled || noPositions.has(layerType)) {
      const layer = { kind: 'none', layerType, scoreScale: scoreScaleOf(entries.all) };
      // Llama 4's NoPE layers scale their queries by position instead (attn_temperature_tuning).
      if (rule.nopeQueryScale && (values.attn_temperature_tuning ?? true)) layer.queryScale = { beta: values.attn_scale ?? 0.1, floor: values.floor_scale ?? 8192, shift: 1 };
      layers.push(layer);
      continue;
    }
    let entry = entries.all;
    let overrides = {};
    if (entry === undefined) {
      entry = entries[layerType];
      if (!entry) throw new ConfigError(`layer_types[${i}] is '${layerType}', which rope_parameters has no entry for`);
    } else if (rule.local?.includes(layerType)) {
      // Local layers: their own base (or the model's) with the plain rule; the scaling is the global layers'.
      const base = rule.localTheta ? positiveNumber(rule.localTheta, values[rule.localTheta] ?? rule.localDefault) : undefined;
      overrides = { base, scaling: { type: 'default' } };
    } else if (rule.globalTheta) {
      overrides = { base: positiveNumber(rule.globalTheta, values[rule.globalTheta] ?? family.theta) };
    }
    layers.push({ kind: 'rope', layerType, rope: spec(entry, overrides), scoreScale: scoreScaleOf(entry) });
  }
  const wholeHead = layers.find((layer) => layer.rope && family.partialOnScaledRules && layer.rope.type === 'default');
  if (wholeHead) {
    const fraction = values.partial_rotary_factor ?? family.fixedPartial;
    const trained = given(values.attn_rotary_emb) ? ` (the checkpoint's attn_rotary_emb: ${values.attn_rotary_emb})` : '';
    warnings.push(`HF's ${family.name} turns the whole head (${headDim}) with the default rope type: its partial_rotary_factor ${fraction}`
      + `${trained}, which other runtimes apply (${Math.floor(headDim * fraction)} turned), is read only by scaled rope types`);
  }
  return layers;
}

function otherLayers(values, family, { numLayers, hidden, heads, maxPositions }, warnings) {
  const width = family.attentionWidth ? values[family.attentionWidth] : hidden;
  const headDim = width && heads ? Math.floor(width / heads) : undefined;
  const scoreScale = family.scores?.value ?? headDim ** -0.5;
  const layers = [];
  if (family.kind === 'none') {
    for (let i = 0; i < numLayers; i++) layers.push({ kind: 'none', layerType: 'none', scoreScale });
    return layers;
  }
  if (family.kind === 'alibi') {
    const numHeads = positiveInteger('num_attention_heads', heads);
    const attn = values.attn_config ?? {};
    if (family.name === 'mpt' && attn.alibi === false) warnings.push('attn_config.alibi is false, but HF\'s MPT builds and adds its ALiBi bias whatever it says');
    const rule = family.slopes ?? 'bloom';
    const slopes = alibiSlopesFor(rule, numHeads, attn.alibi_bias_max ?? 8);
    // Falcon adds the bias before scaling by 1/√head: its slopes act divided by √head.
    const alibi = { slopes, rule, biasScale: family.name === 'falcon' ? headDim ** -0.5 : 1 };
    const scale = family.name === 'mpt' && attn.softmax_scale ? attn.softmax_scale : headDim ** -0.5;
    for (let i = 0; i < numLayers; i++) layers.push({ kind: 'alibi', layerType: 'alibi', alibi, scoreScale: scale });
    return layers;
  }
  if (family.kind === 't5') {
    const t5 = { numBuckets: values.relative_attention_num_buckets ?? 32, maxDistance: values.relative_attention_max_distance ?? 128 };
    const encoderLayers = family.decoderOnly ? 0 : numLayers;
    const decoderLayers = family.decoderOnly ? numLayers : values.num_decoder_layers ?? numLayers;
    for (let i = 0; i < encoderLayers; i++) layers.push({ kind: 't5', layerType: 'encoder', t5: { ...t5, bidirectional: true }, scoreScale: 1 });
    for (let i = 0; i < decoderLayers; i++) layers.push({ kind: 't5', layerType: 'decoder', t5: { ...t5, bidirectional: false }, scoreScale: 1 });
    return layers;
  }
  const offset = family.offset === 'padding' ? (values.pad_token_id ?? 1) + 1 : family.offset;
  if (family.kind === 'learned') {
    // A padding offset's table holds max_position_embeddings rows, the first `offset` of them never read.
    const learned = { maxPositions: family.offset === 'padding' ? maxPositions - offset : maxPositions, offset };
    for (let i = 0; i < numLayers; i++) {
      const inverseLayer = family.name === 'gpt2' && values.scale_attn_by_inverse_layer_idx ? 1 / (i + 1) : 1;
      layers.push({ kind: 'learned', layerType: 'learned', learned, scoreScale: scoreScale * inverseLayer });
    }
    return layers;
  }
  const sinusoidal = { offset, timescale: family.timescale, layout: family.layout };
  for (let i = 0; i < numLayers; i++) layers.push({ kind: 'sinusoidal', layerType: 'sinusoidal', sinusoidal, scoreScale });
  return layers;
}
