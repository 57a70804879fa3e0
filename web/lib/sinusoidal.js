// Sinusoidal positional encoding: [length, dModel], rows are positions offset .. offset + length - 1, or the
// given positions.
import { describe, integer } from './validate.js';
import { readOptions } from './op_schemas.js';
import { MAX_INT32 } from './tensor.js';
import { STREAM_BLOCK, streamTarget } from './wasm.js';

// The checked options: { length, dModel, base, layout, timescale, offset, positions (Int32Array or null) }.
export function sinusoidalParams(core, opts) {
  const o = readOptions('sinusoidal', opts);
  const { maxLength, maxPosition } = core.limits;
  let positions = null;
  if (o.positions !== undefined) {
    if (o.length !== undefined || o.offset !== undefined) throw new TypeError('sinusoidal: give positions, or length and offset, not both');
    if (!Array.isArray(o.positions) && !(o.positions instanceof Int32Array)) {
      throw new TypeError(`positions must be an array of integers or an Int32Array, got ${describe(o.positions)}`);
    }
    if (o.positions.length < 1 || o.positions.length > maxLength) throw new RangeError(`positions must hold between 1 and ${maxLength} positions, got ${o.positions.length}`);
    positions = Int32Array.from(o.positions, (p, i) => integer(`positions[${i}]`, p, 0, MAX_INT32));
  }
  const length = positions ? positions.length : o.length;
  // The last row's position must not pass the core's largest.
  const offset = positions ? 0 : integer('offset', o.offset ?? 0, 0, maxPosition + 1 - length);
  return { length, dModel: o.dModel, base: o.base, layout: o.layout, timescale: o.timescale, offset, positions, out: o.out };
}

export function sinusoidal(core, opts) {
  const { length, dModel, base, layout, timescale, offset, positions, out } = sinusoidalParams(core, opts);
  const elements = length * dModel;
  if (!positions && elements > STREAM_BLOCK && !(out !== undefined && core.onHeap(out, 'out'))) {
    const { target, blockElements } = streamTarget(out, elements, 'the sinusoidal table');
    return { data: streamTable(core, { length, dModel, base, layout, timescale, offset }, target, blockElements), shape: [length, dModel] };
  }
  const data = positions
    ? core.produceRows({ rows: length, rowElements: dModel, what: 'the sinusoidal rows', out, inputs: [{ data: positions, what: 'the positions' }] },
      (pointer, firstRow, rowCount, positionsPointer) => core.module.sinusoidalAt(dModel, base, layout, timescale, positionsPointer + firstRow * 4, rowCount, pointer))
    : core.produce({ elements, what: 'the sinusoidal table', out },
      (pointer) => core.module.sinusoidal(length, dModel, base, layout, timescale, offset, pointer, elements));
  return { data, shape: [length, dModel] };
}

// A table for a JS array (the caller's, or a new one for a fresh result), written a block of rows at a time
// into one heap block that stays in cache, each block copied out as soon as it is full (the values are
// sinusoidal()'s, bit for bit).
function streamTable(core, { length, dModel, base, layout, timescale, offset }, out, blockElements) {
  const unit = core.limits.sinusoidalBlockRows;
  const blockRows = unit * Math.max(1, Math.floor(blockElements / dModel / unit));
  return core.withHeap([[blockRows * dModel * 4, 'a block of the sinusoidal table']], (block) => {
    core.check(core.module.sinusoidalBlocks(length, dModel, base, layout, timescale, offset, block, blockRows,
      (firstRow, rows) => out.set(core.view(Float32Array, block, rows * dModel), firstRow * dModel)));
    return out;
  });
}
