// Plain tensors: { data: Float32Array | Int32Array, shape: number[] }, row-major, owned by the caller.
import { describe, integer, lengthOf } from './validate.js';

export const MAX_INT32 = 2 ** 31 - 1;

export function elementCount(shape) {
  return shape.reduce((product, n) => product * n, 1);
}

// Token ids as an Int32Array and the shape they came in, every id checked to lie in [0, vocabSize) before any
// kernel runs (a streamed output would otherwise be partly written when a bad id turns up, and the GPU
// kernels trust them: WGSL out-of-bounds reads may return anything). Accepts number[], Int32Array (both
// 1-D) or an Int32 tensor { data, shape }.
export function tokenIds(ids, vocabSize, name = 'ids') {
  if (Array.isArray(ids)) {
    const data = new Int32Array(ids.length);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (typeof id !== 'number') throw new TypeError(`${name}[${i}] must be a number, got ${describe(id)}`);
      if (!Number.isInteger(id) || id < 0 || id >= vocabSize) throw idRangeError(name, i, vocabSize, id);  // before Int32Array wraps it
      data[i] = id;
    }
    return checkedIds(name, { data, shape: [ids.length] }, vocabSize);
  }
  if (ids instanceof Int32Array) return checkedIds(name, { data: ids, shape: [ids.length] }, vocabSize);
  if (ids !== null && typeof ids === 'object' && 'data' in ids && 'shape' in ids) {
    if (!(ids.data instanceof Int32Array)) throw new TypeError(`${name}.data must be an Int32Array, got ${describe(ids.data)}`);
    const shape = checkedShape(`${name}.shape`, ids.shape);
    if (elementCount(shape) !== ids.data.length) {
      throw new RangeError(`${name}.shape [${shape}] holds ${elementCount(shape)} elements but ${name}.data has ${lengthOf(ids.data)}`);
    }
    return checkedIds(name, { data: ids.data, shape }, vocabSize);
  }
  throw new TypeError(`${name} must be an array of token ids, an Int32Array or a tensor { data: Int32Array, shape }, got ${describe(ids)}`);
}

function checkedIds(name, tensor, vocabSize) {
  const ids = tensor.data;
  if (ids.length === 0) throw new RangeError(`${name} must hold at least one id, got none`);
  for (let j = 0; j < ids.length; j++) {
    if (ids[j] < 0 || ids[j] >= vocabSize) throw idRangeError(name, j, vocabSize, ids[j]);
  }
  return tensor;
}

function idRangeError(name, index, vocabSize, id) {
  return new RangeError(`${name}[${index}] must be a token id in [0, vocabSize - 1] = [0, ${vocabSize - 1}], got ${id}`);
}

export function checkedShape(name, shape) {
  if (!Array.isArray(shape) || shape.length === 0) throw new TypeError(`${name} must be a non-empty array of sizes, got ${describe(shape)}`);
  shape.forEach((n, i) => integer(`${name}[${i}]`, n, 0, MAX_INT32));
  return [...shape];
}

// A Float32 tensor { data, shape } whose shape holds exactly its data (any values: files may hold NaN).
export function floatTensor(name, value) {
  if (value === null || typeof value !== 'object' || !(value.data instanceof Float32Array)) {
    throw new TypeError(`${name} must be a tensor { data: Float32Array, shape }, got ${describe(value)}`);
  }
  const shape = checkedShape(`${name}.shape`, value.shape);
  if (elementCount(shape) !== value.data.length) {
    throw new RangeError(`${name}.shape [${shape}] holds ${elementCount(shape)} elements but ${name}.data has ${lengthOf(value.data)}`);
  }
  return { data: value.data, shape };
}

// A float matrix given as a Tensor { data: Float32Array, shape: [rows, columns] }.
export function floatMatrix(name, value, rows, columns) {
  const data = floatMatrixShape(name, value, rows, columns);
  for (let i = 0; i < data.length; i++) {
    if (!Number.isFinite(data[i])) throw new RangeError(`${name}.data[${i}] must be finite, got ${data[i]}`);
  }
  return data;
}

// floatMatrix without the finiteness check, for an op that marks the input `finite` and checks it on the heap.
export function floatMatrixShape(name, value, rows, columns) {
  if (value === null || typeof value !== 'object' || !(value.data instanceof Float32Array)) {
    throw new TypeError(`${name} must be a tensor { data: Float32Array, shape: [${rows}, ${columns}] }, got ${describe(value)}`);
  }
  const shape = checkedShape(`${name}.shape`, value.shape);
  if (shape.length !== 2 || shape[0] !== rows || shape[1] !== columns) {
    throw new RangeError(`${name}.shape must be [${rows}, ${columns}], got [${shape}]`);
  }
  if (value.data.length !== rows * columns) {
    throw new RangeError(`${name}.data must hold ${rows * columns} elements, got ${lengthOf(value.data)}`);
  }
  return value.data;
}
