// ALiBi: the [numHeads, queryLength, keyLength] bias (queries aligned to the last keys); the slopes are the core's op
// alibiSlopes (core_ops.js).
import { describe, integer, number } from './validate.js';
import { readOptions } from './op_schemas.js';

export function alibiParams(core, opts) {
  const { numHeads, keyLength, causal, ...o } = readOptions('alibiBias', opts);
  // The queries are the last of the keys.
  const queryLength = integer('queryLength', o.queryLength ?? keyLength, 1, keyLength);
  return { numHeads, keyLength, queryLength, causal, slopes: modelSlopes(o.slopes, numHeads), out: o.out };
}

// A model's own slopes (modelPositions(config).layer(i).alibi.slopes), one per head; null: the paper's rule.
function modelSlopes(value, numHeads) {
  if (value === undefined) return null;
  if (!Array.isArray(value) && !(value instanceof Float32Array) && !(value instanceof Float64Array)) {
    throw new TypeError(`slopes must be an array, Float32Array or Float64Array of numHeads numbers, got ${describe(value)}`);
  }
  if (value.length !== numHeads) throw new RangeError(`slopes must hold numHeads = ${numHeads} values, got ${value.length}`);
  return Float32Array.from(value, (s, h) => number(`slopes[${h}]`, s, 0, 1e6));
}

export function alibiBias(core, opts) {
  const { numHeads, keyLength, queryLength, causal, slopes, out } = alibiParams(core, opts);
  const inputs = slopes ? [{ data: slopes, what: 'the slopes' }] : [];
  const data = core.produceRows({ rows: numHeads * queryLength, rowElements: keyLength, what: 'the ALiBi bias', out, inputs },
    (pointer, firstRow, rowCount, slopesPointer = 0) => core.module.alibiBiasRows(numHeads, queryLength, keyLength, causal, slopesPointer, firstRow, rowCount, pointer));
  return { data, shape: [numHeads, queryLength, keyLength] };
}
