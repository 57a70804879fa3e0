// The port checker: is a runtime's cos/sin cache the exact maths, what a float32 / float16 / bfloat16 computation of
// it gives, or a mismatch, and then which known mistake explains it best. Judged by error bounds per element, derived
// from the rounding steps of HF's float32 order (frequencies, the position as a float, the product, cos/sin, the
// attention factor) and the cast to the dtype, not by comparing with one float32 computation.
import { describe } from './validate.js';
import { readOptions } from './op_schemas.js';
import { cacheFrequencies, cachePositions, checkedRopeSpec, computeCache, mropeStream } from './rope.js';

const ULP = 2 ** -24;               // half an ulp of 1 in float32: the relative rounding of one float32 operation
const EXACT_BOUND = 2.5e-6;         // posembed's exact cache is within 2e-6 of float64; a float32 store adds 6e-8
const CAST_BITS = { float16: 11, bfloat16: 8 };
const MAX_DIAGNOSIS_ROWS = 2048;    // the suspects are compared on this many rows spread over the cache

function floatTensor(name, value, shape) {
  if (value === null || typeof value !== 'object' || !(value.data instanceof Float32Array || value.data instanceof Float64Array)) {
    throw new TypeError(`${name} must be a tensor { data: Float32Array | Float64Array, shape }, got ${describe(value)}`);
  }
  if (value.data.length !== shape.reduce((a, b) => a * b, 1)) {
    throw new RangeError(`${name} must hold ${shape.reduce((a, b) => a * b, 1)} values (positions [${shape.slice(0, -1)}] × ${shape.at(-1)} columns), got ${value.data.length}`);
  }
  return value.data;
}

// Per element, how far a float32 computation in HF's order may be from the exact value; `relative` is the bound on
// the float32 frequencies' relative error: 4 × what HF's own order gives (another libm's pow rounds elsewhere) + 8 ulps.
function float32Bounds(s, positions, freqs, rows) {
  const half = s.rotaryDim / 2;
  const count = positions.data.length / positions.streams;
  const relative = Array.from(freqs.exact, (w, i) => (w === 0 ? 0 : 4 * Math.abs(freqs.float32[i] - w) / w + 8 * ULP));
  const attention = freqs.attentionFactor;
  const bounds = new Float64Array(rows.length * half);
  rows.forEach((r, k) => {
    for (let i = 0; i < half; i++) {
      const p = positions.data[mropeStream(s, i) * count + r];
      const w = freqs.exact[i];
      const angle = p * w;
      const positionError = Math.abs(Math.fround(p) - p) * w;
      bounds[k * half + i] = attention * (angle * relative[i] + positionError + angle * ULP + 3 * ULP) + EXACT_BOUND;
    }
  });
  return bounds;
}

function pairOf(layout, half, column) {
  return layout === 'half' ? column % half : Math.floor(column / 2);
}

// The worst element against the bounds of each verdict, over the given rows.
function measure(s, given, reference, rows, bounds) {
  const width = s.rotaryDim;
  const half = width / 2;
  let maxAbs = 0;
  let at = null;
  const worst = { exact: 0, float32: 0, float16: 0, bfloat16: 0 };
  rows.forEach((r, k) => {
    for (let c = 0; c < width; c++) {
      const j = r * width + c;
      const b32 = bounds[k * half + pairOf(s.layout, half, c)];
      for (const [g, e] of [[given.cos[j], reference.cos[j]], [given.sin[j], reference.sin[j]]]) {
        const d = Number.isNaN(g) ? Infinity : Math.abs(g - e);
        if (d > maxAbs || at === null) [maxAbs, at] = [d, { row: r, column: c }];
        worst.exact = Math.max(worst.exact, d / EXACT_BOUND);
        worst.float32 = Math.max(worst.float32, d / b32);
        const magnitude = Math.abs(e) + b32;
        worst.float16 = Math.max(worst.float16, d / (b32 + magnitude * 2 ** -CAST_BITS.float16 + 2 ** -25));
        worst.bfloat16 = Math.max(worst.bfloat16, d / (b32 + magnitude * 2 ** -CAST_BITS.bfloat16));
      }
    }
  });
  const verdict = ['exact', 'float32', 'float16', 'bfloat16'].find((v) => worst[v] <= 1) ?? 'mismatch';
  return { verdict, maxAbs, at, worst };
}

// Suspects: the spec as a runtime with that mistake would have it, with words for the diagnosis.
function suspects(core, s, positions, given) {
  const list = [];
  const add = (suspect, explanation, spec, positionsOverride = positions) => list.push({ suspect, explanation, spec: { ...s, ...spec }, positions: positionsOverride });
  const type = s.scaling.type;
  add('layout', `the cache pairs dimensions the ${s.layout === 'half' ? 'interleaved (GPT-J: 2i, 2i+1)' : 'half (rotate_half: i, i + d/2)'} way; this model's layout is '${s.layout}'`,
    { layout: s.layout === 'half' ? 'interleaved' : 'half' });
  // The base a default-scaled cache shows at its first position past 0, from the angle of pair 1.
  const width = s.rotaryDim;
  const count = positions.data.length / positions.streams;
  for (let r = 0; r < count; r++) {
    const p = positions.data[r];
    if (p === 0) continue;
    const column = s.layout === 'half' ? 1 : 2;
    const angle = Math.atan2(given.sin[r * width + column], given.cos[r * width + column]);
    if (angle > 0 && angle * 1 < Math.PI) {
      const estimate = (angle / p) ** (-s.rotaryDim / 2);
      if (Number.isFinite(estimate) && estimate > 1) {
        const rounded = Number(estimate.toPrecision(3));
        add('base', `the cache turns as base ${rounded} would, where this model's base (rope_theta) is ${s.base}`, { base: estimate });
      }
    }
    break;
  }
  for (const base of [10000, 500000, 1000000]) {
    if (base !== s.base) add('base', `the cache turns as base ${base} would, where this model's base (rope_theta) is ${s.base}`, { base });
  }
  if (type !== 'default') add('scaling-ignored', `the cache ignores the '${type}' scaling (plain RoPE with base ${s.base})`, { scaling: { type: 'default' } });
  if (s.scaling.factor !== undefined && type !== 'longrope') {
    for (const factor of new Set([s.scaling.factor / 2, s.scaling.factor * 2, 2, 4, 8, 16, 32, 40, 64])) {
      if (factor !== s.scaling.factor && factor >= 1) add('scaling-factor', `the cache uses scaling factor ${factor}, where this model's is ${s.scaling.factor}`, { scaling: { ...s.scaling, factor } });
    }
  }
  if (type === 'yarn' || type === 'longrope') {
    const attention = cacheFrequencies(core, s, positions).attentionFactor;
    if (attention !== 1) {
      add('attention-factor', `cos and sin are not multiplied by the attention factor ${attention.toPrecision(6)}`, { scaling: { ...s.scaling, attentionFactor: 1 } });
      add('attention-factor', `cos and sin are multiplied by the attention factor ${attention.toPrecision(6)} twice`, { scaling: { ...s.scaling, attentionFactor: attention * attention } });
    }
  }
  for (const shift of [1, -1]) {
    const moved = Int32Array.from(positions.data, (p) => p + shift);
    if (moved.every((p) => p >= 0)) {
      add('position-offset', `the cache's positions are off by ${shift > 0 ? '+1' : '-1'} (each row is the model's row for position ${shift > 0 ? 'p + 1' : 'p - 1'})`, {}, { ...positions, data: moved });
    }
  }
  if (s.rotaryDim < s.headDim) {
    add('rotary-dim', `the frequencies are spread over the whole head (exponents 2i/${s.headDim}) instead of the rotary part (2i/${s.rotaryDim})`,
      { base: s.base ** (s.rotaryDim / s.headDim) });
  }
  if (type === 'longrope') {
    add('longrope-factors', 'the short and long factor lists are swapped (the long ones used up to the original length, or the short ones past it)',
      { scaling: { ...s.scaling, shortFactor: s.scaling.longFactor, longFactor: s.scaling.shortFactor } });
  }
  if (s.mrope) {
    add('mrope-section', 'every pair takes its angle from the time positions: the mRoPE sections (height, width) are ignored', { mropeSection: [0, 0, 0], mrope: false },
      { data: positions.data.slice(0, count), streams: 1, shape: positions.shape });
    add('mrope-section', `the mRoPE sections are laid out ${s.mropeInterleaved ? 'in blocks (Qwen2-VL)' : 'interleaved (Qwen3-VL)'}, where this model's are ${s.mropeInterleaved ? 'interleaved' : 'in blocks'}`,
      { mropeInterleaved: !s.mropeInterleaved });
  }
  return list;
}

function rowsToCompare(count, at) {
  if (count <= MAX_DIAGNOSIS_ROWS) return Array.from({ length: count }, (_, r) => r);
  const step = count / MAX_DIAGNOSIS_ROWS;
  const rows = new Set(Array.from({ length: MAX_DIAGNOSIS_ROWS }, (_, k) => Math.floor(k * step)));
  rows.add(at);
  rows.add(count - 1);
  return [...rows].sort((a, b) => a - b);
}

function checkedRowsOf(core, s, positions, rows) {
  // The exact cache and the bounds at the given rows only.
  const count = positions.data.length / positions.streams;
  const picked = new Int32Array(positions.streams * rows.length);
  for (let st = 0; st < positions.streams; st++) rows.forEach((r, k) => { picked[st * rows.length + k] = positions.data[st * count + r]; });
  const sub = { data: picked, streams: positions.streams, shape: [rows.length] };
  let largest = 0;
  for (const p of positions.data) largest = Math.max(largest, p);
  const cache = computeCache(core, s, sub, 'exact', undefined, largest + 1);
  // Frequencies from all positions: dynamic and longrope choose by the longest of them, not of the rows compared.
  const bounds = float32Bounds(s, sub, cacheFrequencies(core, s, positions, largest + 1), rows.map((_, k) => k));
  return { cos: cache.cos.data, sin: cache.sin.data, bounds };
}

function rowsOf(data, width, rows) {
  const out = new Float64Array(rows.length * width);
  rows.forEach((r, k) => out.set(data.subarray(r * width, (r + 1) * width), k * width));
  return out;
}

export function checkRopeCache(core, spec, opts) {
  const o = readOptions('checkRopeCache', opts);
  const s = checkedRopeSpec(core, spec);
  if (o.positions === undefined) throw new TypeError('checkRopeCache: positions is required (the positions the cache was made for)');
  const positions = cachePositions(o.positions, s.mrope);
  const count = positions.data.length / positions.streams;
  const columns = o.cos?.shape?.at?.(-1);
  // A runtime that rotates the whole head of a partial-rotary model writes headDim columns.
  if (columns === s.headDim && s.rotaryDim < s.headDim) {
    const full = { ...s, rotaryDim: s.headDim, mropeSection: [0, 0, 0], mrope: false };
    const cos = floatTensor('cos', o.cos, [...positions.shape, s.headDim]);
    const sin = floatTensor('sin', o.sin, [...positions.shape, s.headDim]);
    const rows = rowsToCompare(count, 0);
    const reference = checkedRowsOf(core, full, positions, rows);
    const fit = measure(full, { cos: rowsOf(cos, s.headDim, rows), sin: rowsOf(sin, s.headDim, rows) }, reference, rows.map((_, k) => k), reference.bounds);
    return {
      verdict: 'mismatch', maxAbs: NaN, at: null, suspect: 'rotary-dim',
      explanation: `the cache has ${s.headDim} columns: it rotates the whole head, where this model rotates only the first ${s.rotaryDim} of ${s.headDim} dimensions`
        + (fit.verdict !== 'mismatch' ? ` (its values are RoPE over all ${s.headDim} dimensions, ${fit.verdict})` : ''),
    };
  }
  const cos = floatTensor('cos', o.cos, [...positions.shape, s.rotaryDim]);
  const sin = floatTensor('sin', o.sin, [...positions.shape, s.rotaryDim]);
  const all = Array.from({ length: count }, (_, r) => r);
  const reference = checkedRowsOf(core, s, positions, all);
  const result = measure(s, { cos, sin }, reference, all, reference.bounds);
  const where = result.at && { position: positions.data[result.at.row], column: result.at.column };
  if (result.verdict !== 'mismatch') {
    const words = {
      exact: 'the cache is the exact maths (within 2.5e-6)',
      float32: 'the cache differs from the exact maths as a float32 computation in HF\'s order of operations may (within its error bound at every element)',
      float16: 'the cache is a float32 computation cast to float16 (within that bound at every element)',
      bfloat16: 'the cache is a float32 computation cast to bfloat16 (within that bound at every element)',
    };
    return { verdict: result.verdict, maxAbs: result.maxAbs, at: where, suspect: null, explanation: words[result.verdict] };
  }
  // Which mistake explains it: the suspect whose cache the given one matches, within the widest (bfloat16) bound,
  // with the smallest error; compared on rows spread over the cache.
  const rows = rowsToCompare(count, result.at.row);
  const given = { cos: rowsOf(cos, s.rotaryDim, rows), sin: rowsOf(sin, s.rotaryDim, rows) };
  let best = null;
  for (const candidate of suspects(core, s, positions, { cos, sin })) {
    let fit;
    try {
      const expected = checkedRowsOf(core, candidate.spec, candidate.positions, rows);
      fit = measure(candidate.spec, given, expected, rows.map((_, k) => k), expected.bounds);
    } catch {
      continue;  // a suspect the rules refuse (a factor out of range) explains nothing
    }
    if (fit.verdict !== 'mismatch' && (best === null || fit.maxAbs < best.fit.maxAbs)) best = { ...candidate, fit };
  }
  return {
    verdict: 'mismatch', maxAbs: result.maxAbs, at: where,
    suspect: best ? best.suspect : 'unknown',
    explanation: best
      ? `${best.explanation}: the cache matches that (${best.fit.verdict}) where it is ${result.maxAbs.toPrecision(3)} off this model's`
      : `the cache is ${result.maxAbs.toPrecision(3)} off this model's at position ${where.position}, column ${where.column}, beyond any float32/float16/bfloat16 bound, and no known mistake explains it`,
  };
}

