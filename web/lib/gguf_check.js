// A GGUF file's RoPE fields against a model's config.json: each field llama.cpp reads (the base, the rotated
// dimensions, the scaling's type, factor and original context, a llama3 model's rope_freqs tensor, mRoPE sections,
// and the architecture's pairing) compared with what HF computes from the config, every disagreement named. The
// file's header is parsed by @huggingface/gguf (bundled in vendor/), reading only the bytes it needs (a range at a time) from a Blob, a
// Node FileHandle or bytes in memory.
import { gguf } from './vendor/gguf.js';
import { byteSource } from './weight_files.js';
import { modelPositions } from './model_positions.js';
import { describe } from './validate.js';

// llama.cpp's pairing per architecture (llama_model_rope_type): 'norm' turns adjacent pairs (2i, 2i + 1), 'neox'
// pairs i with i + d/2, 'mrope'/'imrope' Qwen-VL's sections (in blocks / interleaved) over neox pairs.
const ROPE_TYPES = {
  norm: ['llama', 'llama4', 'deci', 'baichuan', 'starcoder', 'internlm2', 'minicpm', 'xverse', 'command-r', 'cohere2', 'olmo', 'arctic', 'deepseek',
    'deepseek2', 'plm', 'chatglm', 'glm4', 'granite', 'granitemoe', 'granitehybrid', 'chameleon', 'bailingmoe', 'smollm3', 'arcee', 'ernie4_5', 'ernie4_5-moe'],
  neox: ['falcon', 'falcon-h1', 'grok', 'dbrx', 'bert', 'nomic-bert', 'stablelm', 'bitnet', 'qwen', 'qwen2', 'qwen2moe', 'qwen3', 'qwen3moe', 'olmo2',
    'olmoe', 'phi2', 'phi3', 'phimoe', 'plamo', 'gemma', 'gemma2', 'gemma3', 'gemma3n', 'starcoder2', 'openelm', 'gptneox', 'codeshell', 'orion', 'nemotron',
    'exaone', 'exaone4', 'minicpm3', 'dots1', 'hunyuan-moe', 'hunyuan-dense', 'gpt-oss', 'lfm2', 'glm4moe', 'seed_oss', 'smallthinker', 'apertus'],
  mrope: ['qwen2vl'],
  imrope: ['qwen3vl', 'qwen3vlmoe'],
};
const ROPE_TYPE_OF = Object.fromEntries(Object.entries(ROPE_TYPES).flatMap(([type, archs]) => archs.map((arch) => [arch, type])));
// Architectures whose converter (convert_hf_to_gguf) permutes q and k so that adjacent pairs turn as HF's
// rotate_half does on the original weights.
const PERMUTED_QK = new Set(['llama', 'deci', 'baichuan', 'internlm2', 'minicpm', 'granite', 'granitemoe', 'granitehybrid', 'smollm3', 'arcee']);
// HF's scaling rule → llama.cpp's rope.scaling.type (llama3's factors go in the rope_freqs tensor instead).
const SCALING_TYPE = { default: 'none', linear: 'linear', yarn: 'yarn', longrope: 'longrope', llama3: 'none', dynamic: null, proportional: null };
const FLOAT32_RELATIVE = 2 ** -23;  // a value stored as float32 agrees within its rounding

class GgufError extends Error {
  constructor(message) {
    super(`gguf: ${message}`);
    this.name = 'GgufError';
  }
}

// The header (metadata and tensor infos) through @huggingface/gguf, served range by range from the source.
async function readHeader(source) {
  const bytes = await byteSource(source);
  const served = async (url, { headers }) => {
    const [, first, last] = headers.Range.match(/bytes=(\d+)-(\d+)/);
    const start = Math.min(Number(first), bytes.size);
    const end = Math.min(Number(last) + 1, bytes.size);
    const body = end > start ? await bytes.read(start, end) : new Uint8Array(0);
    return new Response(body, { status: 206, headers: { 'content-range': `bytes ${start}-${Math.max(start, end - 1)}/${bytes.size}` } });
  };
  try {
    const header = await gguf('https://posembed.invalid/model.gguf', { fetch: served });
    return { ...header, bytes };
  } catch (error) {
    throw new GgufError(`the file is not a GGUF file posembed can read: ${error.message}`);
  }
}

// A float32 tensor of the file (rope_freqs.weight), or null.
async function floatTensor(header, name) {
  const info = header.tensorInfos.find((t) => t.name === name);
  if (!info) return null;
  if (info.dtype !== 0) throw new GgufError(`${name} is stored as ggml type ${info.dtype}, not F32`);
  const count = info.shape.reduce((a, b) => a * Number(b), 1);
  const start = Number(header.tensorDataOffset) + Number(info.offset);
  if (start + 4 * count > header.bytes.size) throw new GgufError(`${name} lies past the end of the file (bytes ${start}…${start + 4 * count} of ${header.bytes.size})`);
  const raw = await header.bytes.read(start, start + 4 * count);
  return new Float32Array(raw.slice().buffer, 0, count);
}

const close = (a, b) => Math.abs(a - b) <= FLOAT32_RELATIVE * Math.max(Math.abs(a), Math.abs(b));

// checkGguf(core, source, config, { layer, as }) → { architecture, ropeType, fields, mismatches, verdict }.
export async function checkGguf(core, source, config, options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError(`options must be an object { layer, as }, got ${describe(options)}`);
  for (const key of Object.keys(options)) if (!['layer', 'as'].includes(key)) throw new TypeError(`checkGguf: unknown option '${key}' (options: layer, as)`);
  const model = modelPositions(core, config, options.as === undefined ? {} : { as: options.as });
  const layerIndex = options.layer ?? model.layerTypes.findIndex((_, i) => model.layer(i).kind === 'rope');
  if (layerIndex < 0) throw new RangeError(`checkGguf: this ${model.modelType} model has no RoPE layer to compare`);
  const layer = model.layer(layerIndex);
  if (layer.kind !== 'rope') throw new RangeError(`checkGguf: layer ${layerIndex} of this ${model.modelType} model uses ${layer.kind} positions, not RoPE`);
  const spec = layer.rope;
  const header = await readHeader(source);
  const meta = header.metadata;
  const arch = meta['general.architecture'];
  if (typeof arch !== 'string') throw new GgufError('general.architecture is missing: the file does not say which llama.cpp architecture it is');
  const key = (name) => `${arch}.${name}`;
  const fields = [];
  const compare = (name, gguf, expected, agrees, explanation) => fields.push({ key: name, gguf, expected, agrees, explanation: agrees ? null : explanation });
  const value = (name) => (typeof meta[key(name)] === 'bigint' ? Number(meta[key(name)]) : meta[key(name)]);

  // The pairing: llama.cpp's rope type for the architecture against the model's layout.
  const ropeType = ROPE_TYPE_OF[arch] ?? null;
  if (ropeType) {
    const pairs = ropeType === 'norm' ? 'interleaved' : 'half';
    const permuted = ropeType === 'norm' && spec.layout === 'half' && PERMUTED_QK.has(arch);
    const agrees = pairs === spec.layout || permuted;
    compare('general.architecture (rope type)', `${arch} (${ropeType})`, spec.layout,
      agrees, `llama.cpp turns ${arch} as ${ropeType === 'norm' ? 'adjacent pairs (2i, 2i+1)' : 'halves (i, i + d/2)'}, but this ${model.modelType} model pairs ${spec.layout === 'half' ? 'halves' : 'adjacent dimensions'}, and llama.cpp's converter permutes q and k only for ${[...PERMUTED_QK].join(', ')}`);
  }
  const base = value('rope.freq_base');
  if (base !== undefined) compare(key('rope.freq_base'), base, spec.base, close(base, spec.base), `the file's base ${base} is not the config's rope_theta ${spec.base}`);
  else fields.push({ key: key('rope.freq_base'), gguf: null, expected: spec.base, agrees: spec.base === 10000, explanation: spec.base === 10000 ? null : `the file has no rope.freq_base (llama.cpp then uses 10000), where the config's base is ${spec.base}` });
  const rotated = value('rope.dimension_count');
  if (rotated !== undefined) compare(key('rope.dimension_count'), rotated, spec.rotaryDim, rotated === spec.rotaryDim, `the file turns ${rotated} dimensions of each head, the config ${spec.rotaryDim} of ${spec.headDim}`);

  const scaling = spec.scaling;
  const expectedType = SCALING_TYPE[scaling.type];
  const fileType = value('rope.scaling.type') ?? 'none';
  if (expectedType === null) {
    compare(key('rope.scaling.type'), fileType, scaling.type, false, `llama.cpp has no '${scaling.type}' rule: the file cannot reproduce this model's frequencies`);
  } else {
    compare(key('rope.scaling.type'), fileType, expectedType, fileType === expectedType, `the file's scaling is '${fileType}', the config's '${scaling.type}' (llama.cpp: '${expectedType}')`);
  }
  if (['linear', 'yarn', 'longrope'].includes(scaling.type)) {
    const factor = value('rope.scaling.factor');
    if (factor !== undefined) compare(key('rope.scaling.factor'), factor, scaling.factor, close(factor, scaling.factor), `the file's factor ${factor} is not the config's ${scaling.factor}`);
  }
  if (['yarn', 'longrope'].includes(scaling.type)) {
    const original = value('rope.scaling.original_context_length');
    if (original !== undefined) compare(key('rope.scaling.original_context_length'), original, scaling.originalMaxPositions, original === scaling.originalMaxPositions, `the file's original context ${original} is not the config's ${scaling.originalMaxPositions}`);
  }
  // llama3: llama.cpp divides each pair's angle by rope_freqs; those divisors are HF's plain / scaled frequencies.
  const freqs = await floatTensor(header, 'rope_freqs.weight');
  if (scaling.type === 'llama3' || freqs) {
    const plain = (i) => spec.base ** ((-2 * i) / spec.rotaryDim);
    const expected = Array.from(spec.invFreq, (w, i) => plain(i) / w);
    if (!freqs) {
      compare('rope_freqs.weight', null, `${expected.length} divisors`, false, `a llama3-scaled model needs the rope_freqs tensor (its ${expected.length} divisors); the file has none, so llama.cpp turns every pair unscaled`);
    } else if (freqs.length !== expected.length) {
      compare('rope_freqs.weight', `${freqs.length} values`, `${expected.length} values`, false, `rope_freqs holds ${freqs.length} divisors for ${expected.length} pairs`);
    } else {
      const worst = expected.reduce((at, e, i) => (Math.abs(freqs[i] - e) / e > Math.abs(freqs[at] - expected[at]) / expected[at] ? i : at), 0);
      const agrees = expected.every((e, i) => Math.abs(freqs[i] - e) <= 2 * FLOAT32_RELATIVE * e);
      compare('rope_freqs.weight', `pair ${worst}: ${freqs[worst]}`, `pair ${worst}: ${expected[worst]}`, agrees,
        `rope_freqs[${worst}] is ${freqs[worst]}, where the config's ${scaling.type} scaling gives ${Math.fround(expected[worst])} (the divisors come from another factor, low/high band or original context)`);
    }
  }
  if (spec.mropeSection) {
    const sections = meta[key('rope.dimension_sections')];
    const given = Array.isArray(sections) ? sections.slice(0, 3).map(Number) : null;
    compare(key('rope.dimension_sections'), given, spec.mropeSection, given !== null && given.every((n, i) => n === spec.mropeSection[i]),
      `the file's mRoPE sections ${given ? `[${given}]` : 'are missing'}, the config's [${spec.mropeSection}]`);
  }
  const mismatches = fields.filter((f) => !f.agrees);
  return { architecture: arch, ropeType, modelType: model.modelType, layer: layerIndex, fields, mismatches, verdict: mismatches.length ? 'mismatch' : 'consistent' };
}
