// Plain tensors: { data: Float32Array | Int32Array, shape: number[] }, row-major, owned by the caller.
import { describe, integer } from './validate.js';

export const MAX_INT32 = 2 ** 31 - 1;

export function elementCount(shape) {
  return shape.reduce((product, n) => product * n, 1);
}

// Token ids as an Int32Array and the shape they came in. Accepts number[], Int32Array (both 1-D) or an
// Int32 tensor { data, shape }. Plain arrays are checked here as they are converted (they may hold
// fractions or numbers beyond int32); typed ids are checked by the kernel, which reads every id anyway,
// with the same message.
export function tokenIds(ids, vocabSize, name = 'ids') {
  if (Array.isArray(ids)) {
    const data = new Int32Array(ids.length);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (typeof id !== 'number') throw new TypeError(`${name}[${i}] must be a number, got ${describe(id)}`);
      if (!Number.isInteger(id) || id < 0 || id >= vocabSize) {
        throw new RangeError(`${name}[${i}] must be a token id in [0, vocabSize - 1] = [0, ${vocabSize - 1}], got ${id}`);
      }
      data[i] = id;
    }
    return nonEmpty(name, { data, shape: [ids.length] });
  }
  if (ids instanceof Int32Array) return nonEmpty(name, { data: ids, shape: [ids.length] });
  if (ids !== null && typeof ids === 'object' && 'data' in ids && 'shape' in ids) {
    if (!(ids.data instanceof Int32Array)) throw new TypeError(`${name}.data must be an Int32Array, got ${describe(ids.data)}`);
    const shape = checkedShape(`${name}.shape`, ids.shape);
    if (elementCount(shape) !== ids.data.length) {
      throw new RangeError(`${name}.shape [${shape}] holds ${elementCount(shape)} elements but ${name}.data has ${ids.data.length}`);
    }
    return nonEmpty(name, { data: ids.data, shape });
  }
  throw new TypeError(`${name} must be an array of token ids, an Int32Array or a tensor { data: Int32Array, shape }, got ${describe(ids)}`);
}

// Every id of an Int32Array in [0, vocabSize), checked in JS where no kernel will check them first: before
// a lookup copies rows into a JS array, a GPU kernel reads them, or a streamed output is written.
export function checkTokenIds(ids, vocabSize) {
  for (let j = 0; j < ids.length; j++) {
    if (ids[j] < 0 || ids[j] >= vocabSize) {
      throw new RangeError(`ids[${j}] must be a token id in [0, vocabSize - 1] = [0, ${vocabSize - 1}], got ${ids[j]}`);
    }
  }
}

function nonEmpty(name, tensor) {
  if (tensor.data.length === 0) throw new RangeError(`${name} must hold at least one id, got none`);
  return tensor;
}

export function checkedShape(name, shape) {
  if (!Array.isArray(shape) || shape.length === 0) throw new TypeError(`${name} must be a non-empty array of sizes, got ${describe(shape)}`);
  shape.forEach((n, i) => integer(`${name}[${i}]`, n, 0, MAX_INT32));
  return [...shape];
}

// A float matrix given as a Tensor { data: Float32Array, shape: [rows, columns] }.
export function floatMatrix(name, value, rows, columns) {
  if (value === null || typeof value !== 'object' || !(value.data instanceof Float32Array)) {
    throw new TypeError(`${name} must be a tensor { data: Float32Array, shape: [${rows}, ${columns}] }, got ${describe(value)}`);
  }
  const shape = checkedShape(`${name}.shape`, value.shape);
  if (shape.length !== 2 || shape[0] !== rows || shape[1] !== columns) {
    throw new RangeError(`${name}.shape must be [${rows}, ${columns}], got [${shape}]`);
  }
  if (value.data.length !== rows * columns) {
    throw new RangeError(`${name}.data must hold ${rows * columns} elements, got ${value.data.length}`);
  }
  for (let i = 0; i < value.data.length; i++) {
    if (!Number.isFinite(value.data[i])) throw new RangeError(`${name}.data[${i}] must be finite, got ${value.data[i]}`);
  }
  return value.data;
}
