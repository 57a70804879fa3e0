// Rotary position embedding: inverse frequencies with HF's scalings, and the rotation of [..., seq, headDim].
import { boolean, describe, integer, lengthOf, number, oneOf, options, outBuffer } from './validate.js';
import { checkedShape, elementCount, MAX_INT32 } from './tensor.js';
import { STREAM_BLOCK, streamTarget } from './wasm.js';
import { readOptions } from './op_schemas.js';
import { CORE_ROPE_RULES } from './core_tables.js';

// Per scaling type, the parameters it reads and those it needs (the C++ core's table of rules, cpp/src/rope.cpp, as the
// build wrote it into core_tables.js); each parameter's kind and range are in CORE_ROPE_RULES.parameters.
const SCALINGS = CORE_ROPE_RULES.rules;
const SCALING_TYPES = Object.keys(SCALINGS);
// The keys a scaling object may have: its type and every rule's parameters.
const SCALING_KEYS = ['type', ...new Set(Object.values(SCALINGS).flatMap((s) => s.parameters))];

function checkedValue(key, value) {
  const { type, min, max, exclusiveMin } = CORE_ROPE_RULES.parameters[key];
  const name = `scaling.${key}`;
  if (type === 'integer') return integer(name, value, min, max);
  if (type === 'boolean') return boolean(name, value);
  if (type === 'list') {
    if (!Array.isArray(value) && !ArrayBuffer.isView(value)) throw new TypeError(`${name} must be an array of numbers (one per pair), got ${describe(value)}`);
    return Array.from(value, (v, i) => number(`${name}[${i}]`, v, min, max, { exclusiveMin }));
  }
  return number(name, value, min, max, { exclusiveMin });
}

// The checks that join two parameters (the core's rules, in its words).
function checkPairs(s, pairs) {
  if (s.type === 'llama3') {
    const { lowFreqFactor, highFreqFactor } = CORE_ROPE_RULES.parameters;
    const [low, high] = [s.lowFreqFactor ?? lowFreqFactor.default, s.highFreqFactor ?? highFreqFactor.default];
    if (low > high) throw new RangeError(`scaling.lowFreqFactor must be at most scaling.highFreqFactor = ${high}, got ${low}`);
  }
  if (s.type === 'proportional' && pairs !== undefined && s.rotatedPairs > pairs) {
    throw new RangeError(`scaling.rotatedPairs must be an integer in [0, rotaryDim / 2] = [0, ${pairs}] (0: all), got ${s.rotatedPairs}`);
  }
  if (s.type === 'longrope' && pairs !== undefined) {
    for (const key of ['shortFactor', 'longFactor']) {
      if (s[key].length !== pairs) throw new RangeError(`scaling.${key} must hold rotaryDim / 2 = ${pairs} numbers, got ${s[key].length}`);
    }
  }
}

// Whether a rule chooses its frequencies by the length encoded (the core's table: it reads sequenceLength).
const readsSequenceLength = (type) => SCALINGS[type].parameters.includes('sequenceLength');

// A checked copy of the scaling object; `sequenceLength` (the length encoded) fills the length of a rule that reads
// one (dynamic, LongRoPE: the core's table says which) when not given; `pairs` (rotaryDim / 2), where known, is what
// LongRoPE's lists must hold.
export function ropeScaling(value, sequenceLength, pairs) {
  const scaling = options('scaling', value ?? { type: 'default' }, SCALING_KEYS);
  const type = oneOf('scaling.type', scaling.type ?? 'default', SCALING_TYPES);
  const { parameters, required } = SCALINGS[type];
  const checked = { type };
  for (const key of Object.keys(scaling)) {
    if (key !== 'type' && !parameters.includes(key)) {
      throw new TypeError(`scaling.${key} does not apply to scaling.type '${type}' (it takes ${parameters.join(', ') || 'no parameters'})`);
    }
  }
  for (const key of parameters) {
    if (scaling[key] === undefined) {
      if (required.includes(key)) throw new TypeError(`scaling.${key} is required for scaling.type '${type}'`);
      continue;
    }
    checked[key] = checkedValue(key, scaling[key]);
  }
  checkPairs(checked, pairs);
  // The length: the one given, else (left out or 0, as the core's table says) the positions' own.
  if (readsSequenceLength(type) && !checked.sequenceLength && sequenceLength !== undefined) checked.sequenceLength = sequenceLength;
  return checked;
}

export function ropeInvFreq(core, opts) {
  const { headDim, base, ...o } = readOptions('ropeInvFreq', opts);
  const scaling = ropeScaling(o.scaling, undefined, headDim / 2);
  const half = headDim / 2;
  const inDouble = core.produce({ elements: half, what: 'the inverse frequencies', type: Float64Array },
    (pointer) => core.module.ropeInvFreq(headDim, base, scaling, pointer));
  return { invFreq: { data: Float32Array.from(inDouble), shape: [half] }, attentionFactor: core.module.ropeAttentionFactor(scaling) };
}

function positionsFor(o, seq) {
  if (o.positions !== undefined && o.offset !== undefined) throw new TypeError('applyRope: give positions or offset, not both');
  if (o.positions === undefined) {
    const offset = integer('offset', o.offset ?? 0, 0, MAX_INT32 - seq + 1);
    return Int32Array.from({ length: seq }, (_, i) => offset + i);
  }
  const positions = o.positions;
  if (!Array.isArray(positions) && !(positions instanceof Int32Array)) {
    throw new TypeError(`positions must be an array of integers or an Int32Array, got ${describe(positions)}`);
  }
  if (positions.length !== seq) throw new RangeError(`positions must hold one position per row of x (seq = ${seq}), got ${positions.length}`);
  return Int32Array.from(positions, (p, i) => integer(`positions[${i}]`, p, 0, MAX_INT32));
}

// The checked options of applyRope. x is a tensor { data: Float32Array, shape } or, with allowGpu, a
// GpuTensor (shape and type only).
export function ropeParams(core, x, opts, { allowGpu = false } = {}) {
  const { base, layout, ...o } = readOptions('applyRope', opts);
  if (opts?.precision !== undefined) throw new TypeError('applyRope: precision is that of a spec\'s cache; give spec too, or leave precision out');
  const isGpu = allowGpu && x !== null && typeof x === 'object' && 'buffer' in x && typeof x.read === 'function';
  if (!isGpu && (x === null || typeof x !== 'object' || !(x.data instanceof Float32Array))) {
    throw new TypeError(`x must be a tensor { data: Float32Array, shape: [..., seq, headDim] }, got ${describe(x)}`);
  }
  if (isGpu && x.type !== Float32Array) throw new TypeError('x must be a float32 GpuTensor');
  const shape = checkedShape('x.shape', x.shape);
  if (shape.length < 2) throw new RangeError(`x.shape must have at least 2 dimensions [..., seq, headDim], got [${shape}]`);
  const elements = elementCount(shape);
  if (!isGpu && elements !== x.data.length) throw new RangeError(`x.shape [${shape}] holds ${elements} elements but x.data has ${lengthOf(x.data)}`);
  const headDim = integer('x.shape[-1] (headDim)', shape.at(-1), 2, core.limits.maxDModel);
  const seq = integer('x.shape[-2] (seq)', shape.at(-2), 1, MAX_INT32);
  const rotaryDim = integer('rotaryDim', o.rotaryDim ?? headDim, 2, headDim, { even: true });
  const positions = positionsFor(o, seq);
  const scaling = ropeScaling(o.scaling, positions.reduce((m, p) => Math.max(m, p), 0) + 1, rotaryDim / 2);
  return { shape, elements, rows: elements / (seq * headDim), headDim, seq, rotaryDim, base, layout, positions, scaling, out: o.out };
}

// x's values must be finite: the wasm kernel checks them as it rotates; this is the same check, with the same
// words, for x that the GPU will rotate without looking.
export function assertFiniteVectors(data, headDim) {
  for (let i = 0; i < data.length; i++) {
    if (Number.isFinite(data[i])) continue;
    const v = Math.floor(i / headDim);
    throw new RangeError(`x must be finite: x.data[${v * headDim}..${(v + 1) * headDim - 1}] (vector ${v} of [..., seq, headDim]) holds NaN or ±Infinity`);
  }
}

// [seq, rotaryDim]: per position the sines, then the cosines, times the attention factor (for the GPU).
export function ropeTable(core, { headDim, rotaryDim, base, scaling, positions, seq }) {
  return core.produce({ elements: seq * rotaryDim, what: 'the cos/sin table', inputs: [{ data: positions, what: 'the positions' }] },
    (outPointer, positionsPointer) => core.module.ropeTable(headDim, rotaryDim, base, scaling, positionsPointer, seq, outPointer));
}

// x: [..., seq, headDim] → the same shape, rotated.
export function applyRope(core, x, opts) {
  if (opts !== null && typeof opts === 'object' && opts.spec !== undefined) return applyRopeSpec(core, x, opts);
  const p = ropeParams(core, x, opts);
  if (!core.onHeap(x.data, 'x.data') && p.elements > STREAM_BLOCK) return streamRope(core, x, p);
  const { shape, elements, rows, headDim, seq, rotaryDim, base, layout, positions, scaling, out } = p;
  const data = core.produce({ elements, what: 'the rotated x', out, inputs: [{ data: x.data, what: 'x', inPlace: true }, { data: positions, what: 'the positions' }] },
    (outPointer, xPointer, positionsPointer) => core.module.applyRope(headDim, rotaryDim, base, layout, scaling, xPointer, rows, positionsPointer, seq, outPointer));
  return { data, shape };
}

// x in JS memory and larger than a block: the table is made once, then x is copied onto the heap a block of
// vectors at a time and rotated there in place while in cache, straight into a heap out, or through one block
// into a JS array (the caller's, or a new one for a fresh result). Copying x in whole and rotating it would
// cross memory twice more.
function streamRope(core, x, { shape, elements, headDim, seq, rotaryDim, base, layout, positions, scaling, out }) {
  const { target, blockElements } = streamTarget(out, elements, 'the rotated x');
  const direct = core.onHeap(target, 'out');
  const outOffset = direct ? target.byteOffset : null;  // before allocating: a growth detaches the view
  const targetAgain = core.keep(target, 'out');
  const vectors = elements / headDim;
  const perBlock = Math.max(1, Math.floor(blockElements / headDim));
  const requests = [[seq * rotaryDim * 4, 'the cos/sin table'], [positions.byteLength, 'the positions'], ...(direct ? [] : [[perBlock * headDim * 4, 'a block of x']])];
  return core.withHeap(requests, (table, positionsPointer, block) => {
    core.view(Int32Array, positionsPointer, seq).set(positions);
    core.check(core.module.ropeTable(headDim, rotaryDim, base, scaling, positionsPointer, seq, table));
    for (let first = 0; first < vectors; first += perBlock) {
      const count = Math.min(perBlock, vectors - first);
      const at = direct ? outOffset + first * headDim * 4 : block;
      const onHeap = core.view(Float32Array, at, count * headDim);
      onHeap.set(x.data.subarray(first * headDim, (first + count) * headDim));
      core.check(core.module.ropeRotate(headDim, rotaryDim, layout, table, seq, first, count, at, at));
      if (!direct) target.set(onHeap, first * headDim);
    }
    return { data: targetAgain(), shape };
  });
}

// A RopeSpec (modelPositions(config).layer(i).rope, or written by hand) checked, with its scaling in posembed's form.
export function checkedRopeSpec(core, spec) {
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
    throw new TypeError(`spec must be a RopeSpec { headDim, rotaryDim, layout, base, scaling } (pe.modelPositions(config).layer(i).rope), got ${describe(spec)}`);
  }
  const headDim = integer('spec.headDim', spec.headDim, 2, core.limits.maxDModel);
  const rotaryDim = integer('spec.rotaryDim', spec.rotaryDim ?? headDim, 2, headDim, { even: true });
  const base = number('spec.base', spec.base ?? 10000, 1, core.limits.maxBase, { exclusiveMin: true });
  const layout = oneOf('spec.layout', spec.layout ?? 'half', ['half', 'interleaved']);
  const scaling = ropeScaling(spec.scaling, undefined, rotaryDim / 2);
  let mropeSection = [0, 0, 0];
  if (spec.mropeSection !== undefined) {
    if (!Array.isArray(spec.mropeSection) || spec.mropeSection.length !== 3) throw new TypeError(`spec.mropeSection must be 3 whole numbers (time, height, width), got ${describe(spec.mropeSection)}`);
    mropeSection = spec.mropeSection.map((n, i) => integer(`spec.mropeSection[${i}]`, n, 0, rotaryDim / 2));
    const pairs = mropeSection[0] + mropeSection[1] + mropeSection[2];
    if (pairs !== rotaryDim / 2) throw new RangeError(`spec.mropeSection must add up to rotaryDim / 2 = ${rotaryDim / 2} pairs, got ${pairs}`);
  }
  const mropeInterleaved = spec.mropeInterleaved === undefined ? false : boolean('spec.mropeInterleaved', spec.mropeInterleaved);
  const cache = spec.cache === undefined ? 'cast' : oneOf('spec.cache', spec.cache, ['cast', 'float32', 'complex64']);
  const rotation = spec.rotation === undefined ? 'forward' : oneOf('spec.rotation', spec.rotation, ['forward', 'reversed']);
  return { headDim, rotaryDim, base, layout, scaling, mropeSection, mropeInterleaved, mrope: mropeSection.some((n) => n > 0), cache, rotation };
}

// The precision a model's cache has when the model runs at `precision`: a model whose code keeps its cache in float32
// (or as complex float32) never casts it to bfloat16 or float16.
export function appliedPrecision(s, precision = 'exact') {
  return s.cache !== 'cast' && (precision === 'bfloat16' || precision === 'float16') ? 'float32' : precision;
}

// The stream (0 time, 1 height, 2 width) pair i of a RopeSpec takes its position from: the C++ Mrope::stream, for the
// checker and the pictures.
export function mropeStream(spec, pair) {
  if (!spec.mropeSection?.some((n) => n > 0)) return 0;
  const [t, h, w] = spec.mropeSection;
  if (spec.mropeInterleaved) return pair % 3 === 1 && pair < 3 * h ? 1 : pair % 3 === 2 && pair < 3 * w ? 2 : 0;
  return pair < t ? 0 : pair < t + h ? 1 : 2;
}

// positions → { data: Int32Array [streams * count], streams, shape (without the stream axis) }, by HF's conventions: a
// 1-D list is [seq], a 2-D tensor [batch, seq]; with mRoPE those are text, whose positions serve all three streams (HF
// expands any 2-D position_ids so), and only a 3-D tensor [3, batch, seq] gives time, height and width apart.
export function cachePositions(positions, mrope) {
  const isTensor = positions !== null && typeof positions === 'object' && !Array.isArray(positions) && !(positions instanceof Int32Array);
  let data;
  let shape;
  if (isTensor) {
    shape = checkedShape('positions.shape', positions.shape);
    data = positions.data;
    if (!Array.isArray(data) && !(data instanceof Int32Array)) throw new TypeError(`positions.data must be an Int32Array or an array of integers, got ${describe(data)}`);
    if (elementCount(shape) !== data.length) throw new RangeError(`positions.shape [${shape}] holds ${elementCount(shape)} elements but positions.data has ${data.length}`);
  } else if (Array.isArray(positions) || positions instanceof Int32Array) {
    data = positions;
    shape = [positions.length];
  } else {
    throw new TypeError(`positions must be an array or Int32Array [seq], or an Int32 tensor { data, shape: [batch, seq]${mrope ? ' or [3, batch, seq]' : ''} }, got ${describe(positions)}`);
  }
  const maxDims = mrope ? 3 : 2;
  if (shape.length < 1 || shape.length > maxDims || data.length === 0) {
    throw new RangeError(`positions must have shape [seq] or [batch, seq]${mrope ? ', or [3, batch, seq] for mRoPE\'s time, height and width' : ''}, got [${shape}]`);
  }
  const checked = checkedPositions(data);
  const streamed = mrope && shape.length === 3;
  if (streamed && shape[0] !== 3) throw new RangeError(`mRoPE positions [3, batch, seq] hold time, height and width: the first dimension must be 3, got [${shape}]`);
  if (!mrope || streamed) return { data: checked, streams: streamed ? 3 : 1, shape: streamed ? shape.slice(1) : shape };
  const expanded = new Int32Array(3 * checked.length);
  for (let s = 0; s < 3; s++) expanded.set(checked, s * checked.length);
  return { data: expanded, streams: 3, shape };
}

// Positions as an Int32Array, each in [0, 2^31 - 1]: an Int32Array is scanned for a negative value (its values are
// whole and in range by type), an array checked value by value.
function checkedPositions(data) {
  if (data instanceof Int32Array) {
    for (let i = 0; i < data.length; i++) {
      if (data[i] < 0) integer(`positions[${i}]`, data[i], 0, MAX_INT32);
    }
    return data;
  }
  return Int32Array.from(data, (p, i) => integer(`positions[${i}]`, p, 0, MAX_INT32));
}

// The cos/sin cache of spec at positions, in HF's layout: { cos, sin } [...positions' shape, rotaryDim].
export function ropeCache(core, spec, opts) {
  const o = readOptions('ropeCache', opts);
  const s = checkedRopeSpec(core, spec);
  if (o.positions === undefined) throw new TypeError('ropeCache: positions is required ([seq], [batch, seq] or, for mRoPE, [3, batch, seq])');
  const precision = appliedPrecision(s, o.precision);
  // The precision applied rides along unenumerated: the result saves (writeSafetensors) and spreads (checkRopeCache)
  // as its two tensors.
  return Object.defineProperty(computeCache(core, s, cachePositions(o.positions, s.mrope), precision, o.out), 'precision', { value: precision });
}

// The length a rule that reads one (dynamic, LongRoPE) chooses its frequencies for: the one given, else the longest
// position's + 1, as HF's code takes it from the positions.
function encodedLength(positions, sequenceLength) {
  if (sequenceLength !== undefined) return sequenceLength;
  let largest = 0;
  for (const p of positions.data) largest = Math.max(largest, p);
  return largest + 1;
}

// ropeCache on checked arguments (the checker calls it for each suspect). Written a block of rows at a time through
// the heap, each block copied out while in cache, with dynamic's and LongRoPE's frequencies chosen for the whole.
// out: { cos, sin }, Float32Arrays of the cache's size to write into; sequenceLength: the length dynamic and LongRoPE
// choose for (by default max(positions) + 1).
export function computeCache(core, s, positions, precision, out, sequenceLength = undefined) {
  const count = positions.data.length / positions.streams;
  const elements = count * s.rotaryDim;
  if (out !== undefined && (out === null || typeof out !== 'object')) throw new TypeError(`out must be { cos, sin }: two Float32Arrays of ${elements} elements, got ${describe(out)}`);
  const cosOut = out ? core.keep(outBuffer(out.cos, elements), 'out.cos') : null;
  const sinOut = out ? core.keep(outBuffer(out.sin, elements), 'out.sin') : null;
  const length = encodedLength(positions, sequenceLength);
  const perBlock = Math.max(1, Math.min(count, Math.floor((4 * STREAM_BLOCK) / s.rotaryDim)));
  const blockElements = perBlock * s.rotaryDim;
  const requests = [[blockElements * 4, 'a block of the cos cache'], [blockElements * 4, 'a block of the sin cache'], [perBlock * positions.streams * 4, 'a block of positions']];
  return core.withHeap(requests, (cosBlock, sinBlock, at) => {
    const cos = cosOut ? cosOut() : new Float32Array(elements);
    const sin = sinOut ? sinOut() : new Float32Array(elements);
    for (let first = 0; first < count; first += perBlock) {
      const n = Math.min(perBlock, count - first);
      const heapPositions = core.view(Int32Array, at, n * positions.streams);
      for (let stream = 0; stream < positions.streams; stream++) {
        heapPositions.set(positions.data.subarray(stream * count + first, stream * count + first + n), stream * n);
      }
      core.check(core.module.ropeCache(s.rotaryDim, s.base, s.layout, s.scaling, s.mropeSection, s.mropeInterleaved, precision, length,
        at, n * positions.streams, cosBlock, sinBlock));
      cos.set(core.view(Float32Array, cosBlock, n * s.rotaryDim), first * s.rotaryDim);
      sin.set(core.view(Float32Array, sinBlock, n * s.rotaryDim), first * s.rotaryDim);
    }
    const shape = [...positions.shape, s.rotaryDim];
    return { cos: { data: cos, shape }, sin: { data: sin, shape: [...shape] } };
  });
}

// The frequencies the cache at these positions uses (dynamic and longrope choose by the longest, or by the
// sequenceLength given), in float64 and as HF's float32 buffer holds them.
export function cacheFrequencies(core, s, positions, sequenceLength = undefined) {
  const scaling = readsSequenceLength(s.scaling.type) ? { ...s.scaling, sequenceLength: encodedLength(positions, sequenceLength) } : s.scaling;
  const half = s.rotaryDim / 2;
  const exact = core.produce({ elements: half, what: 'the inverse frequencies', type: Float64Array },
    (pointer) => core.module.ropeInvFreq(s.rotaryDim, s.base, scaling, pointer));
  const float32 = core.produce({ elements: half, what: 'the float32 inverse frequencies' },
    (pointer) => core.module.ropeInvFreqFloat32(s.rotaryDim, s.base, scaling, pointer));
  return { exact, float32, attentionFactor: core.module.ropeAttentionFactor(scaling) };
}

// applyRope with a RopeSpec: x [..., seq, headDim] turned by the spec's cache at positions [seq] (every vector of x),
// or [batch, seq] (mRoPE: [3, batch, seq]) for x [batch, heads, seq, headDim], each batch row by its own positions.
// The cache is made as `precision` says; the rotation is in float32.
function applyRopeSpec(core, x, opts) {
  for (const key of ['offset', 'rotaryDim', 'base', 'layout', 'scaling']) {
    if (key in opts) throw new TypeError(`applyRope: ${key} comes from the spec; give spec or ${key}, not both`);
  }
  const o = readOptions('applyRope', opts);
  const s = checkedRopeSpec(core, o.spec);
  if (x === null || typeof x !== 'object' || !(x.data instanceof Float32Array)) {
    throw new TypeError(`x must be a tensor { data: Float32Array, shape: [batch, heads, seq, headDim] or [..., seq, headDim] }, got ${describe(x)}`);
  }
  const shape = checkedShape('x.shape', x.shape);
  const elements = elementCount(shape);
  if (shape.length < 2) throw new RangeError(`x.shape must have at least 2 dimensions [..., seq, headDim], got [${shape}]`);
  if (elements !== x.data.length) throw new RangeError(`x.shape [${shape}] holds ${elements} elements but x.data has ${lengthOf(x.data)}`);
  if (shape.at(-1) !== s.headDim) throw new RangeError(`x.shape[-1] must be the spec's headDim ${s.headDim}, got ${shape.at(-1)}`);
  if (o.positions === undefined) throw new TypeError('applyRope: positions is required with a spec ([seq], or [batch, seq] for x [batch, heads, seq, headDim])');
  const positions = cachePositions(o.positions, s.mrope);
  const seq = shape.at(-2);
  const batched = positions.shape.length === 2;
  if (positions.shape.at(-1) !== seq) throw new RangeError(`positions must hold one position per row of x (seq = ${seq}), got shape [${positions.shape}]`);
  if (batched && (shape.length !== 4 || shape[0] !== positions.shape[0])) {
    throw new RangeError(`positions [batch, seq] = [${positions.shape}] go with x [batch, heads, seq, headDim] of the same batch, got x [${shape}]`);
  }
  const cache = computeCache(core, s, positions, appliedPrecision(s, o.precision));
  // A model whose rotate_half is the negation of Llama's turns by −angle: sin changes sign.
  const sinSign = s.rotation === 'reversed' ? -1 : 1;
  const out = o.out === undefined ? new Float32Array(elements) : outBuffer(o.out, elements);
  const rowsOfTable = cache.cos.data.length / s.rotaryDim;
  const half = s.rotaryDim / 2;
  // The kernel's table: per position the sines of the pairs, then their cosines.
  const table = new Float32Array(rowsOfTable * s.rotaryDim);
  for (let r = 0; r < rowsOfTable; r++) {
    for (let i = 0; i < half; i++) {
      const column = r * s.rotaryDim + (s.layout === 'half' ? i : 2 * i);
      table[r * s.rotaryDim + i] = sinSign * cache.sin.data[column];
      table[r * s.rotaryDim + half + i] = cache.cos.data[column];
    }
  }
  const groups = batched ? shape[0] : 1;
  const vectors = elements / s.headDim / groups;
  const tableElements = seq * s.rotaryDim;
  core.withHeap([[tableElements * 4, 'the cos/sin table'], [vectors * s.headDim * 4, 'x']], (tablePointer, xPointer) => {
    for (let g = 0; g < groups; g++) {
      core.view(Float32Array, tablePointer, tableElements).set(table.subarray(g * tableElements, (g + 1) * tableElements));
      const part = vectors * s.headDim;
      core.view(Float32Array, xPointer, part).set(x.data.subarray(g * part, (g + 1) * part));
      core.check(core.module.ropeRotate(s.headDim, s.rotaryDim, s.layout, tablePointer, seq, 0, vectors, xPointer, xPointer));
      out.set(core.view(Float32Array, xPointer, part), g * part);
    }
  });
  return { data: out, shape };
}
