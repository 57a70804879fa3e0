// Learned absolute positions: a [maxLength, dModel] table looked up by position, and the align-corners
// linear interpolation that stretches such a table to a longer length.
import { describe, integer, options } from './validate.js';
import { readArgument, readOptions } from './op_schemas.js';
import { floatMatrix, MAX_INT32 } from './tensor.js';
import { HeapTable } from './table.js';

export class LearnedPositions extends HeapTable {
  constructor(core, opts) {
    const { maxLength, dModel, ...o } = readOptions('learnedPositions', opts);
    super(core, { name: 'learnedPositions', rows: maxLength, columns: dModel, weights: o.weights, init: o.init });
    this.maxLength = maxLength;
    this.dModel = dModel;
  }

  // lookup(length) → positions 0 .. length-1; lookup(positions) → those rows. [n, dModel].
  lookup(lengthOrPositions, opts) {
    const { core, pointer } = this.live();
    const o = options('lookup options', opts, ['out']);
    const positions = this.#positions(lengthOrPositions);
    const data = core.produceRows({ rows: positions.length, rowElements: this.dModel, what: 'the position rows', out: o.out, inputs: [{ data: positions, what: 'the positions' }] },
      (outPointer, firstRow, rowCount, positionsPointer) => core.module.tokenEmbeddingLookup(pointer, 'F32', this.maxLength, this.dModel, -1, 1,
        positionsPointer + firstRow * 4, rowCount, outPointer));
    return { data, shape: [positions.length, this.dModel] };
  }

  #positions(value) {
    const pastEnd = (what) => new RangeError(`${what} is past maxLength ${this.maxLength}: a learned table has no rows there. `
      + 'Stretch it with pe.interpolatePositions(table.weights, newLength), or use pe.sinusoidal, which extends to any position');
    if (typeof value === 'number') {
      const length = integer('length', value, 1, MAX_INT32);
      if (length > this.maxLength) throw pastEnd(`length ${length}`);
      return Int32Array.from({ length }, (_, i) => i);
    }
    if (!Array.isArray(value) && !(value instanceof Int32Array)) {
      throw new TypeError(`lookup takes a length or an array of positions, got ${describe(value)}`);
    }
    if (value.length === 0) throw new RangeError('positions must hold at least one position, got none');
    return Int32Array.from(value, (p, i) => {
      integer(`positions[${i}]`, p, 0, MAX_INT32);
      if (p >= this.maxLength) throw pastEnd(`positions[${i}] = ${p}`);
      return p;
    });
  }
}

export function interpolatePositions(core, table, newLength, opts) {
  const o = readOptions('interpolatePositions', opts);
  const shape = table?.shape;
  if (!Array.isArray(shape) || shape.length !== 2) throw new TypeError(`table must be a tensor { data: Float32Array, shape: [length, dModel] }, got ${describe(table)}`);
  const length = integer('table.shape[0]', shape[0], 1, core.limits.maxLength);
  const dModel = integer('table.shape[1]', shape[1], 1, core.limits.maxDModel);
  const data = floatMatrix('table', table, length, dModel);
  const rows = readArgument('interpolatePositions', 'newLength', newLength);
  const out = core.produce({ elements: rows * dModel, what: 'the interpolated table', out: o.out, inputs: [{ data, what: 'the table' }] },
    (outPointer, tablePointer) => core.module.interpolatePositions(tablePointer, length, dModel, rows, outPointer));
  return { data: out, shape: [rows, dModel] };
}
