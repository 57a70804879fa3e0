// The port checker: is a runtime's cos/sin cache the exact maths, what a float32 / float16 / bfloat16 computation of
// it gives in one of the orders runtimes really use (HF's, TensorRT-LLM's, llama.cpp's, MLX's), or a mismatch, and then
// which known mistake (or two at once) explains it best. Judged by error bounds per element, derived from the rounding
// steps of each order (frequencies, the position as a float, the product, cos/sin, the attention factor) and the cast
// to the dtype, not by comparing with one float32 computation.
import { describe } from './validate.js';
import { readOptions } from './op_schemas.js';
import { cacheFrequencies, cachePositions, checkedRopeSpec, computeCache, mropeStream } from './rope.js';

const ULP = 2 ** -24;               // half an ulp of 1 in float32: the relative rounding of one float32 operation
const EXACT_BOUND = 2.5e-6;         // posembed's exact cache is within 2e-6 of float64; a float32 store adds 6e-8
const CAST_BITS = { float16: 11, bfloat16: 8 };
const FLOAT16_MAX = 65504;
const MAX_DIAGNOSIS_ROWS = 2048;    // the suspects are compared on this many rows spread over the cache
const MAX_PAIR_ROWS = 256;          // and two mistakes at once on this many

// The float32 orders of operations runtimes compute a cache in. For each: its words, the bound on the relative error
// of its float32 frequency of pair i (against the exact one), and its float32 angles at a position (to name the order
// a cache matches best). `ratio` is the scaling's share of a frequency (exact / unscaled), which the runtimes that
// build the unscaled frequency first multiply in as one more float.
export const RUNTIME_ORDERS = {
  hf: {
    words: 'HF transformers\' order (also vLLM\'s and SGLang\'s): float32 frequencies 1 / base^(2i/d) from torch\'s pow, the angle frequency × position in float32',
    // 4 × the error HF's own float32 frequencies have (another libm's pow rounds elsewhere) + 8 ulps.
    relative: (f, i) => (f.exact[i] === 0 ? 0 : 4 * Math.abs(f.float32[i] - f.exact[i]) / f.exact[i] + 8 * ULP),
    angles: (f, p, out) => { for (let i = 0; i < out.length; i++) out[i] = Math.fround(Math.fround(p) * f.float32[i]); },
  },
  // vLLM's (and flash-attention's) cache: HF's order, kept one column per pair (cos | sin halves); told from HF's by
  // its width alone.
  vllm: {
    words: 'vLLM\'s order (its cos_sin_cache, as flash-attention keeps one): HF\'s float32 frequencies and angles, one column per pair',
    relative: (f, i) => RUNTIME_ORDERS.hf.relative(f, i),
    angles: (f, p, out) => RUNTIME_ORDERS.hf.angles(f, p, out),
    halfWidth: true,
  },
  'tensorrt-llm': {
    words: 'TensorRT-LLM\'s order: frequencies in float64 rounded once to float32 (numpy), the angle in float32',
    relative: () => 4 * ULP,
    angles: (f, p, out) => { for (let i = 0; i < out.length; i++) out[i] = Math.fround(Math.fround(p) * Math.fround(f.exact[i])); },
  },
  ggml: {
    words: 'llama.cpp\'s (ggml) order: theta starts at the position and is multiplied by theta_scale = base^(-2/d) in float32 from one pair to the next',
    // theta_scale's own error (powf, and -2/d as a float: ln(base)·2/d ulps) and one rounding per step, accumulated i times.
    relative: (f, i) => 2 * (i * (3 + (Math.log(f.base) * 2) / f.rotaryDim) + 8) * ULP,
    angles: (f, p, out) => {
      const step = Math.fround(f.base ** Math.fround(-2 / f.rotaryDim));
      let theta = Math.fround(p);
      for (let i = 0; i < out.length; i++) {
        out[i] = Math.fround(theta * Math.fround(f.ratio[i]));
        theta = Math.fround(theta * step);
      }
    },
  },
  mlx: {
    words: 'MLX\'s order (mx.fast.rope): frequencies exp2(-(2i/d) · log2(base)) in float32, the angle in float32',
    // log2(base) and 2i/d as floats, their product, exp2: each an error in the exponent that exp2 turns into ln(base)·2i/d ulps.
    relative: (f, i) => 2 * (3 * ((2 * i) / f.rotaryDim) * Math.log(f.base) + 8) * ULP,
    angles: (f, p, out) => {
      const log2Base = Math.fround(Math.log2(f.base));
      for (let i = 0; i < out.length; i++) {
        const plain = Math.fround(2 ** Math.fround(-Math.fround((2 * i) / f.rotaryDim) * log2Base));
        out[i] = Math.fround(Math.fround(p) * Math.fround(plain * Math.fround(f.ratio[i])));
      }
    },
  },
};

function floatTensor(name, value) {
  if (value === null || typeof value !== 'object' || !(value.data instanceof Float32Array || value.data instanceof Float64Array)) {
    throw new TypeError(`${name} must be a tensor { data: Float32Array | Float64Array, shape }, got ${describe(value)}`);
  }
  return value;
}

function sizeOf(name, tensor, shape) {
  const count = shape.reduce((a, b) => a * b, 1);
  if (tensor.data.length !== count) {
    throw new RangeError(`${name} must hold ${count} values (positions [${shape.slice(0, -1)}] × ${shape.at(-1)} columns), got ${tensor.data.length}`);
  }
  return tensor.data;
}

// The frequencies a cache at these positions uses, with what each order needs: the unscaled frequency's share.
function frequenciesOf(core, s, positions, sequenceLength) {
  const f = cacheFrequencies(core, s, positions, sequenceLength);
  const ratio = Float64Array.from(f.exact, (w, i) => w / s.base ** ((-2 * i) / s.rotaryDim));
  return { ...f, ratio, base: s.base, rotaryDim: s.rotaryDim };
}

// The orders a cache of that width may come from (vLLM's only as a half-width cache, HF's only as a full one).
const ordersFor = (halfWidth) => Object.keys(RUNTIME_ORDERS).filter((name) => (name === 'vllm' ? halfWidth : !(halfWidth && name === 'hf')));

// Each pair's stream (mRoPE: 0 time, 1 height, 2 width; else 0), once per spec rather than per element.
const streamsOf = (s) => Int32Array.from({ length: s.rotaryDim / 2 }, (_, i) => mropeStream(s, i));

// Per order, the largest error against its bound (float32, and each cast), over the given rows; and the exact verdict's.
// The inner loop keeps its state in typed arrays: a cache of 131,072 × 128 is 33 million comparisons per order.
function measure(s, given, reference, rows, positions, f, halfWidth = false) {
  const width = s.rotaryDim;
  const half = width / 2;
  const count = positions.data.length / positions.streams;
  const orders = ordersFor(halfWidth);
  const n = orders.length;
  const relative = new Float64Array(n * half);
  orders.forEach((name, o) => { for (let i = 0; i < half; i++) relative[o * half + i] = RUNTIME_ORDERS[name].relative(f, i); });
  const streams = streamsOf(s);
  const pairOfColumn = Int32Array.from({ length: width }, (_, c) => (s.layout === 'half' ? c % half : Math.floor(c / 2)));
  const worst = new Float64Array(3 * n);  // per order: float32, float16, bfloat16
  const bounds = new Float64Array(n * half);
  const fp16 = 2 ** -CAST_BITS.float16;
  const bf16 = 2 ** -CAST_BITS.bfloat16;
  let exact = 0;
  let maxAbs = 0;
  let at = null;
  for (let k = 0; k < rows.length; k++) {
    const r = rows[k];
    for (let i = 0; i < half; i++) {
      const p = positions.data[streams[i] * count + r];
      const w = f.exact[i];
      const angle = p * w;
      const shared = Math.abs(Math.fround(p) - p) * w + angle * ULP + 3 * ULP;
      for (let o = 0; o < n; o++) bounds[o * half + i] = f.attentionFactor * (angle * relative[o * half + i] + shared) + EXACT_BOUND;
    }
    for (let c = 0; c < width; c++) {
      const j = k * width + c;
      const pair = pairOfColumn[c];
      for (let t = 0; t < 2; t++) {
        const g = t === 0 ? given.cos[j] : given.sin[j];
        const e = t === 0 ? reference.cos[j] : reference.sin[j];
        const d = Number.isNaN(g) ? Infinity : Math.abs(g - e);
        if (d > maxAbs || at === null) [maxAbs, at] = [d, { row: r, column: c }];
        if (d / EXACT_BOUND > exact) exact = d / EXACT_BOUND;
        const magnitude = Math.abs(e);
        for (let o = 0; o < n; o++) {
          const b = bounds[o * half + pair];
          const q32 = d / b;
          const q16 = d / (b + (magnitude + b) * fp16 + 2 ** -25);
          const qb16 = d / (b + (magnitude + b) * bf16);
          if (q32 > worst[3 * o]) worst[3 * o] = q32;
          if (q16 > worst[3 * o + 1]) worst[3 * o + 1] = q16;
          if (qb16 > worst[3 * o + 2]) worst[3 * o + 2] = qb16;
        }
      }
    }
  }
  if (exact <= 1) return { verdict: 'exact', orders: [], maxAbs, at };
  for (const [v, verdict] of ['float32', 'float16', 'bfloat16'].entries()) {
    const fitting = orders.filter((_, o) => worst[3 * o + v] <= 1);
    if (fitting.length) return { verdict, orders: fitting, maxAbs, at };
  }
  return { verdict: 'mismatch', orders: [], maxAbs, at };
}

// Of the orders whose bounds hold, the one whose float32 angles come nearest the cache's (its cos and sin at up to
// MAX_DIAGNOSIS_ROWS of the rows, spread over them).
function nearestOrder(s, given, rows, positions, f, orders) {
  if (orders.length === 1) return orders[0];
  const half = s.rotaryDim / 2;
  const count = positions.data.length / positions.streams;
  const streams = streamsOf(s);
  const sample = rowsToCompare(rows.length, 0);
  const angles = new Float64Array(half);
  let best = null;
  for (const name of orders) {
    let distance = 0;
    for (const k of sample) {
      const r = rows[k];
      // Each stream's angles (mRoPE) from its own positions; one stream otherwise.
      for (let stream = 0; stream < positions.streams; stream++) {
        RUNTIME_ORDERS[name].angles(f, positions.data[stream * count + r], angles);
        for (let i = 0; i < half; i++) {
          if (streams[i] !== stream) continue;
          const c = k * s.rotaryDim + (s.layout === 'half' ? i : 2 * i);
          distance += Math.abs(given.cos[c] - Math.cos(angles[i]) * f.attentionFactor) + Math.abs(given.sin[c] - Math.sin(angles[i]) * f.attentionFactor);
        }
      }
    }
    if (best === null || distance < best.distance) best = { name, distance };
  }
  return best.name;
}

// The exact cache at the given rows of positions (dynamic's and LongRoPE's frequencies chosen for all positions).
function referenceRows(core, s, positions, rows, sequenceLength) {
  const count = positions.data.length / positions.streams;
  const picked = new Int32Array(positions.streams * rows.length);
  for (let st = 0; st < positions.streams; st++) rows.forEach((r, k) => { picked[st * rows.length + k] = positions.data[st * count + r]; });
  const sub = { data: picked, streams: positions.streams, shape: [rows.length] };
  const cache = computeCache(core, s, sub, 'exact', undefined, sequenceLength);
  return { positions: sub, cos: cache.cos.data, sin: cache.sin.data };
}

function largestPosition(positions) {
  let largest = 0;
  for (const p of positions.data) largest = Math.max(largest, p);
  return largest;
}

// Judges given ({ cos, sin } at `rows` of positions, rotaryDim columns each) against spec s.
function judge(core, s, given, positions, rows, halfWidth = false) {
  const length = largestPosition(positions) + 1;
  const reference = referenceRows(core, s, positions, rows, length);
  const f = frequenciesOf(core, s, positions, length);
  const local = rows.map((_, k) => k);
  const result = measure(s, given, reference, local, reference.positions, f, halfWidth);
  const order = result.orders.length ? nearestOrder(s, given, local, reference.positions, f, result.orders) : null;
  return { ...result, order, at: result.at && { row: rows[result.at.row], column: result.at.column } };
}

function rowsToCompare(count, at, limit = MAX_DIAGNOSIS_ROWS) {
  if (count <= limit) return Array.from({ length: count }, (_, r) => r);
  const step = count / limit;
  const rows = new Set(Array.from({ length: limit }, (_, k) => Math.floor(k * step)));
  rows.add(at);
  rows.add(count - 1);
  return [...rows].sort((a, b) => a - b);
}

function rowsOf(data, width, rows) {
  const out = new Float64Array(rows.length * width);
  rows.forEach((r, k) => out.set(data.subarray(r * width, (r + 1) * width), k * width));
  return out;
}

// A half-width cache (one column per pair) spread to HF's layout: cat(c, c) for 'half', each column twice for 'interleaved'.
function widened(data, half, layout) {
  const rows = data.length / half;
  const out = new Float64Array(rows * 2 * half);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < 2 * half; c++) out[r * 2 * half + c] = data[r * half + (layout === 'half' ? c % half : Math.floor(c / 2))];
  }
  return out;
}

// Suspects: the spec as a runtime with that mistake would have it, with words for the diagnosis. `spec` and
// `positions` replace the model's; `columns` makes the cache otherwise (a whole head's, cut to the rotary part).
function suspects(core, s, positions, given) {
  const list = [];
  const add = (suspect, explanation, change = {}) => list.push({ suspect, explanation, ...change });
  const type = s.scaling.type;
  add('layout', `the cache pairs dimensions the ${s.layout === 'half' ? 'interleaved (GPT-J: 2i, 2i+1)' : 'half (rotate_half: i, i + d/2)'} way; this model's layout is '${s.layout}'`,
    { spec: { layout: s.layout === 'half' ? 'interleaved' : 'half' } });
  // The base a default-scaled cache shows at its first position past 0, from the angle of pair 1.
  const width = s.rotaryDim;
  const count = positions.data.length / positions.streams;
  for (let r = 0; r < count; r++) {
    const p = positions.data[r];
    if (p === 0) continue;
    const column = s.layout === 'half' ? 1 : 2;
    const angle = Math.atan2(given.sin[r * width + column], given.cos[r * width + column]);
    if (angle > 0 && angle < Math.PI) {
      const estimate = (angle / p) ** (-s.rotaryDim / 2);
      if (Number.isFinite(estimate) && estimate > 1) {
        const rounded = Number(estimate.toPrecision(3));
        add('base', `the cache turns as base ${rounded} would, where this model's base (rope_theta) is ${s.base}`, { spec: { base: estimate } });
      }
    }
    break;
  }
  for (const base of [10000, 500000, 1000000]) {
    if (base !== s.base) add('base', `the cache turns as base ${base} would, where this model's base (rope_theta) is ${s.base}`, { spec: { base } });
  }
  if (type !== 'default') add('scaling-ignored', `the cache ignores the '${type}' scaling (plain RoPE with base ${s.base})`, { spec: { scaling: { type: 'default' } } });
  if (s.scaling.factor !== undefined && type !== 'longrope') {
    for (const factor of new Set([s.scaling.factor / 2, s.scaling.factor * 2, 2, 4, 8, 16, 32, 40, 64])) {
      if (factor !== s.scaling.factor && factor >= 1) {
        add('scaling-factor', `the cache uses scaling factor ${factor}, where this model's is ${s.scaling.factor}`, { spec: { scaling: { ...s.scaling, factor } } });
      }
    }
  }
  if (type === 'yarn' || type === 'longrope') {
    const attention = cacheFrequencies(core, s, positions).attentionFactor;
    if (attention !== 1) {
      add('attention-factor', `cos and sin are not multiplied by the attention factor ${attention.toPrecision(6)}`, { spec: { scaling: { ...s.scaling, attentionFactor: 1 } } });
      add('attention-factor', `cos and sin are multiplied by the attention factor ${attention.toPrecision(6)} twice`, { spec: { scaling: { ...s.scaling, attentionFactor: attention * attention } } });
    }
  }
  for (const shift of [1, -1]) {
    const moved = Int32Array.from(positions.data, (p) => p + shift);
    if (moved.every((p) => p >= 0)) {
      add('position-offset', `the cache's positions are off by ${shift > 0 ? '+1' : '-1'} (each row is the model's row for position ${shift > 0 ? 'p + 1' : 'p - 1'})`,
        { positions: { ...positions, data: moved } });
    }
  }
  if (s.rotaryDim < s.headDim) {
    add('rotary-dim', `the frequencies are spread over the whole head (exponents 2i/${s.headDim}) instead of the rotary part (2i/${s.rotaryDim})`,
      { spec: { base: s.base ** (s.rotaryDim / s.headDim) } });
    add('rotary-dim', `the cache is a whole head's (${s.headDim} columns, exponents 2i/${s.headDim}) cut to its first ${s.rotaryDim} columns, where this model rotates only ${s.rotaryDim} of ${s.headDim} dimensions`,
      { spec: { rotaryDim: s.headDim, mropeSection: [0, 0, 0], mrope: false }, columns: s.rotaryDim });
  }
  if (type === 'longrope') {
    add('longrope-factors', 'the short and long factor lists are swapped (the long ones used up to the original length, or the short ones past it)',
      { spec: { scaling: { ...s.scaling, shortFactor: s.scaling.longFactor, longFactor: s.scaling.shortFactor } } });
  }
  if (s.mrope) {
    add('mrope-section', 'every pair takes its angle from the time positions: the mRoPE sections (height, width) are ignored', {
      spec: { mropeSection: [0, 0, 0], mrope: false },
      positions: { data: positions.data.slice(0, count), streams: 1, shape: positions.shape },
    });
    add('mrope-section', `the mRoPE sections are laid out ${s.mropeInterleaved ? 'in blocks (Qwen2-VL)' : 'interleaved (Qwen3-VL)'}, where this model's are ${s.mropeInterleaved ? 'interleaved' : 'in blocks'}`,
      { spec: { mropeInterleaved: !s.mropeInterleaved } });
  }
  return list;
}

// Two mistakes at once: the spec changes of both (scalings merged), the positions of the one that moves them.
function combined(a, b) {
  if (a.suspect === b.suspect || (a.positions && b.positions) || a.columns || b.columns) return null;
  const spec = { ...a.spec, ...b.spec };
  if (a.spec?.scaling && b.spec?.scaling) spec.scaling = { ...a.spec.scaling, ...b.spec.scaling };
  return { suspect: a.suspect, suspects: [a.suspect, b.suspect], explanation: `${a.explanation}; and ${b.explanation}`, spec, positions: a.positions ?? b.positions };
}

// How closely given (at rows) matches the cache a suspect would make: a verdict against that cache's bounds.
function fitOf(core, s, candidate, positions, given, rows) {
  const spec = { ...s, ...candidate.spec };
  const where = candidate.positions ?? positions;
  try {
    if (!candidate.columns) return judge(core, spec, given, where, rows);
    // The whole head's cache, cut: compared column for column with the given rotary part.
    const reference = referenceRows(core, spec, where, rows, largestPosition(where) + 1);
    const cut = (data) => {
      const out = new Float64Array(rows.length * candidate.columns);
      for (let k = 0; k < rows.length; k++) out.set(data.subarray(k * spec.rotaryDim, k * spec.rotaryDim + candidate.columns), k * candidate.columns);
      return out;
    };
    let maxAbs = 0;
    const [cos, sin] = [cut(reference.cos), cut(reference.sin)];
    for (let j = 0; j < cos.length; j++) maxAbs = Math.max(maxAbs, Math.abs(given.cos[j] - cos[j]), Math.abs(given.sin[j] - sin[j]));
    // Its bound: the largest float32 angle error at the largest angle, cast to bfloat16.
    const largest = largestPosition(where);
    const bound = largest * 64 * ULP + 2 ** -8 + EXACT_BOUND;
    return { verdict: maxAbs <= bound ? 'bfloat16' : 'mismatch', maxAbs };
  } catch {
    return { verdict: 'mismatch', maxAbs: Infinity };  // a suspect the rules refuse (a factor out of range) explains nothing
  }
}

// The first element that is not a number, and what makes one: an angle past float16's range, computed in float16.
function nonFinite(s, cos, sin, positions, freqs) {
  const width = s.rotaryDim;
  const half = width / 2;
  const count = positions.data.length / positions.streams;
  for (let j = 0; j < cos.length; j++) {
    if (Number.isFinite(cos[j]) && Number.isFinite(sin[j])) continue;
    const [row, column] = [Math.floor(j / width), j % width];
    const pair = s.layout === 'half' ? column % half : Math.floor(column / 2);
    const position = positions.data[mropeStream(s, pair) * count + row];
    const angle = position * freqs.exact[pair];
    const value = Number.isFinite(cos[j]) ? sin[j] : cos[j];
    const where = `position ${position}, column ${column}`;
    return {
      verdict: 'mismatch', maxAbs: Infinity, at: { position, column }, suspect: angle > FLOAT16_MAX ? 'half-precision-angle' : 'unknown', order: null,
      explanation: angle > FLOAT16_MAX
        ? `the cache holds ${value} at ${where}, where the angle position × frequency is ${angle.toPrecision(6)}, past float16's largest value ${FLOAT16_MAX}: the runtime computes the angle in float16, where it overflows to Infinity (whose cos and sin are NaN); compute the angle in float32 and cast cos and sin`
        : `the cache holds ${value} at ${where}, where the angle (${angle.toPrecision(6)}) is finite: the runtime wrote something other than cos and sin there`,
    };
  }
  return null;
}

export function checkRopeCache(core, spec, opts) {
  const o = readOptions('checkRopeCache', opts);
  const s = checkedRopeSpec(core, spec);
  const cosTensor = floatTensor('cos', o.cos);
  const sinTensor = floatTensor('sin', o.sin);
  const columns = cosTensor.shape?.at?.(-1);
  // By default, a [rows, width] cache is positions 0 … rows − 1.
  const positions = cachePositions(o.positions ?? Int32Array.from({ length: Array.isArray(cosTensor.shape) && cosTensor.shape.length >= 2 ? cosTensor.shape[0] : 0 }, (_, r) => r), s.mrope);
  const count = positions.data.length / positions.streams;
  const all = Array.from({ length: count }, (_, r) => r);
  // A runtime that rotates the whole head of a partial-rotary model writes headDim columns.
  if (columns === s.headDim && s.rotaryDim < s.headDim) {
    const full = { ...s, rotaryDim: s.headDim, mropeSection: [0, 0, 0], mrope: false };
    const shape = [...positions.shape, s.headDim];
    const rows = rowsToCompare(count, 0);
    const fit = judge(core, full, { cos: rowsOf(sizeOf('cos', cosTensor, shape), s.headDim, rows), sin: rowsOf(sizeOf('sin', sinTensor, shape), s.headDim, rows) }, positions, rows);
    return {
      verdict: 'mismatch', maxAbs: NaN, at: null, suspect: 'rotary-dim', order: null,
      explanation: `the cache has ${s.headDim} columns: it rotates the whole head, where this model rotates only the first ${s.rotaryDim} of ${s.headDim} dimensions`
        + (fit.verdict !== 'mismatch' ? ` (its values are RoPE over all ${s.headDim} dimensions, ${fit.verdict})` : ''),
    };
  }
  // A half-width cache (vLLM, flash-attention): one column per pair.
  const halfWidth = columns === s.rotaryDim / 2;
  const width = halfWidth ? s.rotaryDim / 2 : s.rotaryDim;
  if (columns !== width) {
    throw new RangeError(`cos must have ${s.rotaryDim} columns (the rotary dimensions, HF's layout) or ${s.rotaryDim / 2} (one per pair, a half-width cache), got shape [${cosTensor.shape}]`);
  }
  const shape = [...positions.shape, width];
  let cos = sizeOf('cos', cosTensor, shape);
  let sin = sizeOf('sin', sinTensor, shape);
  if (halfWidth) [cos, sin] = [widened(cos, width, s.layout), widened(sin, width, s.layout)];
  const length = largestPosition(positions) + 1;
  const broken = nonFinite(s, cos, sin, positions, frequenciesOf(core, s, positions, length));
  if (broken) return broken;
  const result = judge(core, s, { cos, sin }, positions, all, halfWidth);
  const where = result.at && { position: positions.data[result.at.row], column: result.at.column };
  const widthWords = halfWidth ? ' (a half-width cache: one column per pair)' : '';
  if (result.verdict !== 'mismatch') {
    const orderWords = result.order ? `: it matches ${RUNTIME_ORDERS[result.order].words}` : '';
    const words = {
      exact: 'the cache is the exact maths (within 2.5e-6)',
      float32: `the cache differs from the exact maths as a float32 computation may (within that order's error bound at every element)${orderWords}`,
      float16: `the cache is a float32 computation cast to float16 (within that bound at every element)${orderWords}`,
      bfloat16: `the cache is a float32 computation cast to bfloat16 (within that bound at every element)${orderWords}`,
    };
    const finer = ['exact', 'float32', 'float16', 'bfloat16'];
    const claim = o.precision !== undefined && finer.indexOf(result.verdict) > finer.indexOf(o.precision) ? `; it was said to be ${o.precision}` : '';
    return { verdict: result.verdict, order: result.order, orders: result.orders, maxAbs: result.maxAbs, at: where, suspect: null, explanation: words[result.verdict] + widthWords + claim };
  }
  // Which mistake explains it: the suspect whose cache the given one matches, within the widest (bfloat16) bound,
  // with the smallest error; compared on rows spread over the cache. Then two at once.
  const rows = rowsToCompare(count, result.at.row);
  const given = { cos: rowsOf(cos, s.rotaryDim, rows), sin: rowsOf(sin, s.rotaryDim, rows) };
  const candidates = suspects(core, s, positions, { cos, sin });
  let best = null;
  const consider = (candidate, givenRows, rowList) => {
    const fit = fitOf(core, s, candidate, positions, givenRows, rowList);
    if (fit.verdict !== 'mismatch' && (best === null || fit.maxAbs < best.fit.maxAbs)) best = { ...candidate, fit };
  };
  for (const candidate of candidates) consider(candidate, given, rows);
  if (best === null) {
    const fewer = rowsToCompare(count, result.at.row, MAX_PAIR_ROWS);
    const givenFewer = { cos: rowsOf(cos, s.rotaryDim, fewer), sin: rowsOf(sin, s.rotaryDim, fewer) };
    for (let a = 0; a < candidates.length; a++) {
      for (let b = a + 1; b < candidates.length; b++) {
        const both = combined(candidates[a], candidates[b]);
        if (both) consider(both, givenFewer, fewer);
      }
    }
  }
  return {
    verdict: 'mismatch', maxAbs: result.maxAbs, at: where, order: null,
    suspect: best ? best.suspect : 'unknown',
    ...(best?.suspects ? { suspects: best.suspects } : {}),
    explanation: (best
      ? `${best.explanation}: the cache matches that (${best.fit.verdict}) where it is ${result.maxAbs.toPrecision(3)} off this model's`
      : `the cache is ${result.maxAbs.toPrecision(3)} off this model's at position ${where.position}, column ${where.column}, beyond any float32/float16/bfloat16 bound of the runtimes' orders, and no known mistake (nor two at once) explains it`) + widthWords,
  };
}
