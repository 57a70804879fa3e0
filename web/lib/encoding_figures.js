// The tables the heatmaps show (site components and the command line alike): each encoding as a
// [rows, columns] host tensor, with a caption saying what to notice, its axes' labels, and the value range its
// colormap spans.

import { CORE_ROPE_RULES } from './core_tables.js';
import { camelCase, kebabCase } from './op_schemas.js';

// The RoPE scaling rules the figures draw (LongRoPE's per-pair lists and the proportional rule are not attributes).
export const DRAWN_SCALING_RULES = ['default', 'linear', 'dynamic', 'llama3', 'yarn'];
// The heatmap's own scaling factor where none is given (its trained length is its own length).
export const ROPE_FIGURE_FACTOR = 2;
// The parameters the drawn rules read, by the core's table (cpp/src/rope.cpp), but the per-pair lists.
export const DRAWN_SCALING_PARAMETERS = [...new Set(DRAWN_SCALING_RULES.flatMap((rule) => CORE_ROPE_RULES.rules[rule].parameters))]
  .filter((name) => CORE_ROPE_RULES.parameters[name].type !== 'list');

// The scaling object a figure's options make (undefined for 'default'): each parameter the rule reads whose value
// valueOf(name) gives. A type the core has no rule for goes as it is, for the package to name the rules there are.
export function figureScaling(type, valueOf) {
  if (!type || type === 'default') return undefined;
  const scaling = { type };
  const parameters = Object.hasOwn(CORE_ROPE_RULES.rules, type) ? CORE_ROPE_RULES.rules[type].parameters : [];
  for (const name of parameters) {
    const value = valueOf(name);
    if (value !== undefined) scaling[name] = value;
  }
  return scaling;
}

// A CPU tensor from either backend's result (a GpuTensor is read, then freed).
export async function onHost(result) {
  if (result.data) return result;
  try {
    return await result.read();
  } finally {
    result.dispose();
  }
}

// The heatmap's attributes (the render command's flags) an encoding reads, and the option each gives.
const ENCODING_ATTRIBUTES = ['length', 'd-model', 'base', 'layout', 'timescale', 'offset', 'seed', 'new-length', 'scaling',
  ...DRAWN_SCALING_PARAMETERS.map(kebabCase), 'metric', 'heads', 'head', 'causal', 'buckets', 'max-distance', 'bidirectional', 'grid-h', 'grid-w'];

// encodingFigure's options from checked attribute values: those given (isGiven(name)), so that each encoding's own
// defaults fill the rest, and the two switches always.
export function encodingOptions(values, isGiven) {
  return Object.fromEntries(ENCODING_ATTRIBUTES.filter((name) => isGiven(name) || name === 'causal' || name === 'bidirectional' || name === 'length')
    .map((name) => [camelCase(name), values[name]]));
}

const POSITION_BY_DIMENSION = { x: { label: 'dimension' }, y: { label: 'position' }, colour: { label: 'value' } };
const QUERY_BY_KEY = { x: { label: 'key position' }, y: { label: 'query position' } };

function integerIn(name, value, low, high) {
  if (!Number.isInteger(value) || value < low || value > high) throw new RangeError(`${name} must be an integer in [${low}, ${high}], got ${value}`);
  return value;
}

// Each encoding's figure: (pe, o, length) → its tensor, axes, range, colormap and caption. o: { dModel, base, layout,
// timescale, offset, seed, newLength, scaling and its rule's parameters (factor, originalMaxPositions, ...), metric,
// heads, head, causal, buckets, maxDistance, bidirectional, gridH, gridW }. Masked attention cells come back as NaN.
const ENCODING_FIGURES = {
  sinusoidal: async (pe, o, length) => {
    const options = { length, dModel: o.dModel ?? 128, base: o.base ?? 10000, layout: o.layout ?? 'interleaved', timescale: o.timescale ?? 'standard', offset: o.offset ?? 0 };
    return {
      ...POSITION_BY_DIMENSION, y: { label: 'position', names: (row) => String(options.offset + row) },
      tensor: await onHost(pe.sinusoidal(options)), range: { min: -1, max: 1 }, colormap: 'RdBu',
      caption: `Sinusoidal positions ${options.offset ? `${options.offset}–${options.offset + length - 1} ` : ''}[${length} × ${options.dModel}], ${options.layout} sin/cos columns`
        + `${options.timescale === 't2t' ? ', tensor2tensor\'s timescale' : ''}. Left columns change fast down the rows, right ones slowly: every row is a different mix.`,
    };
  },
  learned: async (pe, o, length) => {
    const dModel = o.dModel ?? 64;
    const table = pe.learnedPositions({ maxLength: length, dModel, init: { type: 'normal', std: 1, seed: o.seed ?? 0 } });
    try {
      const tensor = o.newLength ? pe.interpolatePositions(table.weights, o.newLength) : table.weights;
      return {
        ...POSITION_BY_DIMENSION, tensor, range: { min: -3, max: 3 }, colormap: 'RdBu',
        caption: `Untrained (random) learned position table [${length} × ${dModel}]${o.newLength ? `, stretched to ${o.newLength} rows by linear interpolation` : ''}. `
          + 'Training would give these rows meaning; random rows only show the shape of the table.',
      };
    } finally {
      table.dispose();
    }
  },
  rope: async (pe, o, length) => {
    // The rotation of every pair at each position: RoPE applied to a query of ones.
    const headDim = o.dModel ?? 64;
    const ones = { data: new Float32Array(length * headDim).fill(1), shape: [length, headDim] };
    // The rule's parameters as given; the factor 2 and, for the rules that read it, the figure's length as the length
    // the model was trained at where they are not.
    const figureDefaults = { factor: ROPE_FIGURE_FACTOR, originalMaxPositions: length };
    const scaling = figureScaling(o.scaling, (name) => o[name] ?? figureDefaults[name]);
    const tensor = await onHost(pe.applyRope(ones, { base: o.base ?? 10000, layout: o.layout === 'interleaved' ? 'interleaved' : 'half', scaling }));
    const trained = scaling?.originalMaxPositions === undefined ? '' : `, trained at ${scaling.originalMaxPositions} positions`;
    return {
      ...POSITION_BY_DIMENSION, tensor, range: { min: -1.5, max: 1.5 }, colormap: 'RdBu',
      caption: `RoPE turning a query of ones, [${length} positions × ${headDim}]${scaling ? `, ${scaling.type} scaling ×${scaling.factor}${trained}` : ''}. Each pair of dimensions turns at its own speed: fast on the left, slow on the right.`,
    };
  },
  similarity: async (pe, o, length) => {
    const dModel = o.dModel ?? 128;
    const table = await onHost(pe.sinusoidal({ length, dModel, base: o.base ?? 10000 }));
    const metric = o.metric === 'dot' ? 'dot' : 'cosine';
    const tensor = await onHost(pe.similarity(table, null, { metric }));
    return {
      x: { label: 'position' }, y: { label: 'position' }, colour: { label: metric === 'dot' ? 'PE·PE' : 'cosine' }, tensor, colormap: 'RdBu',
      range: metric === 'dot' ? { min: -dModel / 2, max: dModel / 2 } : { min: -1, max: 1 },
      caption: `${metric === 'dot' ? 'Dot products' : 'Cosine similarity'} of sinusoidal positions (d = ${dModel}). Highest on the diagonal, falling with distance, the same along every diagonal: it depends only on how far apart two positions are.`,
    };
  },
  alibi: async (pe, o, length) => {
    const heads = o.heads ?? 8;
    const head = integerIn('head', o.head ?? 0, 0, heads - 1);
    const bias = await onHost(pe.alibiBias({ numHeads: heads, keyLength: length, causal: o.causal ?? false }));
    const data = bias.data.slice(head * length * length, (head + 1) * length * length).map((v) => (v === -Infinity ? NaN : v));
    return {
      ...QUERY_BY_KEY, colour: { label: 'bias' }, tensor: { data, shape: [length, length] }, colormap: 'viridis',
      caption: `ALiBi bias, head ${head} of ${heads}${o.causal ? ', causal' : ''}: minus the head's slope times the distance between query and key. Farther keys get lower scores.`,
    };
  },
  t5: async (pe, o, length) => {
    const options = { queryLength: length, keyLength: length, numBuckets: o.buckets ?? 32, maxDistance: o.maxDistance ?? 128, bidirectional: o.bidirectional ?? true };
    const buckets = await onHost(pe.t5Buckets(options));
    return {
      ...QUERY_BY_KEY, colour: { label: 'bucket' }, tensor: { data: new Float32Array(buckets.data), shape: buckets.shape }, colormap: 'viridis',
      caption: `T5 buckets of key − query (${options.numBuckets} buckets). Near distances each get a bucket; far ones share buckets that widen with the distance.`,
    };
  },
  sincos2d: async (pe, o, length) => {
    const options = { gridH: o.gridH ?? 8, gridW: o.gridW ?? 8, dModel: o.dModel ?? 64, base: o.base ?? 10000 };
    return {
      x: { label: 'dimension' }, y: { label: 'patch (row-major)' }, colour: { label: 'value' },
      tensor: await onHost(pe.sincos2d(options)), range: { min: -1, max: 1 }, colormap: 'RdBu',
      caption: `2-D sin-cos positions of a ${options.gridH} × ${options.gridW} patch grid (d = ${options.dModel}): one half of the columns encodes the patch's row, the other half its column, each as a 1-D sinusoidal table.`,
    };
  },
};

export const ENCODINGS = Object.keys(ENCODING_FIGURES);

// An encoding's figure; o.length (default 64): the rows, or queries and keys.
export async function encodingFigure(pe, encoding, o = {}) {
  if (!Object.hasOwn(ENCODING_FIGURES, encoding)) {
    throw new RangeError(`encoding must be one of ${ENCODINGS.map((e) => `'${e}'`).join(', ')}, got '${encoding}'`);
  }
  return ENCODING_FIGURES[encoding](pe, o, o.length ?? 64);
}
