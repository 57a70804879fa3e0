// Rotary position embedding: inverse frequencies with HF's scalings, and the rotation of [..., seq, headDim].
import { describe, integer, lengthOf, number, oneOf, options } from './validate.js';
import { checkedShape, elementCount, MAX_INT32 } from './tensor.js';
import { STREAM_BLOCK, streamTarget } from './wasm.js';

// Per scaling type: its required and optional parameters.
const SCALINGS = {
  default: { required: [], optional: [] },
  linear: { required: ['factor'], optional: [] },
  dynamic: { required: ['factor', 'originalMaxPositions'], optional: ['sequenceLength'] },
  llama3: { required: ['factor', 'originalMaxPositions'], optional: ['lowFreqFactor', 'highFreqFactor'] },
  yarn: { required: ['factor', 'originalMaxPositions'], optional: ['betaFast', 'betaSlow', 'attentionFactor'] },
};
const INTEGER_KEYS = new Set(['originalMaxPositions', 'sequenceLength']);

// A checked copy of the scaling object; `sequenceLength` fills dynamic scaling's length when not given.
export function ropeScaling(value, sequenceLength) {
  const scaling = options('scaling', value ?? { type: 'default' }, ['type', ...new Set(Object.values(SCALINGS).flatMap((s) => [...s.required, ...s.optional]))]);
  const type = oneOf('scaling.type', scaling.type ?? 'default', Object.keys(SCALINGS));
  const { required, optional } = SCALINGS[type];
  const checked = { type };
  for (const key of Object.keys(scaling)) {
    if (key !== 'type' && !required.includes(key) && !optional.includes(key)) {
      throw new TypeError(`scaling.${key} does not apply to scaling.type '${type}' (it takes ${[...required, ...optional].join(', ') || 'no parameters'})`);
    }
  }
  for (const key of [...required, ...optional]) {
    if (scaling[key] === undefined) {
      if (required.includes(key)) throw new TypeError(`scaling.${key} is required for scaling.type '${type}'`);
      continue;
    }
    checked[key] = INTEGER_KEYS.has(key) ? integer(`scaling.${key}`, scaling[key], 1, MAX_INT32) : number(`scaling.${key}`, scaling[key], 0, 1e6);
  }
  if (type === 'dynamic' && checked.sequenceLength === undefined) checked.sequenceLength = sequenceLength ?? checked.originalMaxPositions;
  return checked;
}

export function ropeInvFreq(core, opts) {
  const o = options('ropeInvFreq options', opts, ['headDim', 'base', 'scaling']);
  const headDim = integer('headDim', o.headDim, 2, core.limits.maxDModel, { even: true });
  const base = number('base', o.base ?? 10000, 1, core.limits.maxBase);
  const scaling = ropeScaling(o.scaling);
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
  const o = options('applyRope options', opts, ['positions', 'offset', 'rotaryDim', 'base', 'layout', 'scaling', 'out']);
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
  const base = number('base', o.base ?? 10000, 1, core.limits.maxBase);
  const layout = oneOf('layout', o.layout ?? 'half', ['half', 'interleaved']);
  const positions = positionsFor(o, seq);
  const scaling = ropeScaling(o.scaling, positions.reduce((m, p) => Math.max(m, p), 0) + 1);
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
