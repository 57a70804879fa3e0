// T5 relative position buckets (HF semantics, integer-exact) and the bias they gather from a table.
import { describe, integer } from './validate.js';
import { floatMatrix, MAX_INT32 } from './tensor.js';
import { readOptions } from './op_schemas.js';

// The bucketing options read by readOptions, checked where their ranges depend on one another (the core's limits).
function bucketParams(o, { maxBuckets, maxPosition }) {
  const { bidirectional } = o;
  const numBuckets = integer('numBuckets', o.numBuckets, bidirectional ? 4 : 2, maxBuckets);
  const maxExact = Math.floor((bidirectional ? Math.floor(numBuckets / 2) : numBuckets) / 2);
  const maxDistance = integer('maxDistance', o.maxDistance ?? 128, maxExact + 1, maxPosition);
  return { numBuckets, maxDistance, bidirectional };
}

function relativePositions(value) {
  if (value instanceof Int32Array) return value;
  if (!Array.isArray(value)) throw new TypeError(`relativePositions must be an array of integers or an Int32Array, got ${describe(value)}`);
  return Int32Array.from(value, (r, i) => integer(`relativePositions[${i}]`, r, -MAX_INT32, MAX_INT32));
}

export function t5Bucket(core, relative, opts) {
  const o = readOptions('t5Bucket', opts);
  const { numBuckets, maxDistance, bidirectional } = bucketParams(o, core.limits);
  const positions = relativePositions(relative);
  const data = core.produce({ elements: positions.length, what: 'the buckets', out: o.out, type: Int32Array, inputs: [{ data: positions, what: 'the relative positions', inPlace: true }] },
    (outPointer, inPointer) => core.module.t5Buckets(numBuckets, maxDistance, bidirectional, inPointer, positions.length, outPointer));
  return { data, shape: [positions.length] };
}

// The bucket of every relative position -(queryLength - 1) .. keyLength - 1, in that order: what a bias
// matrix gathers from (row i, column j reads relative position j - i).
export function relativeBuckets(core, { queryLength, keyLength, numBuckets, maxDistance, bidirectional }) {
  const relative = Int32Array.from({ length: queryLength + keyLength - 1 }, (_, r) => r - (queryLength - 1));
  return t5Bucket(core, relative, { numBuckets, maxDistance, bidirectional }).data;
}

// table: [numBuckets, numHeads] (HF's relative_attention_bias weight) → [numHeads, queryLength, keyLength].
export function t5BiasParams(core, table, opts) {
  const o = readOptions('t5Bias', opts);
  const { queryLength, keyLength } = o;
  // A decoder's cached step: its queries are positions queryOffset .. queryOffset + queryLength - 1, as HF slices
  // the bias of the whole sequence.
  const queryOffset = integer('queryOffset', o.queryOffset, 0, core.limits.maxLength - queryLength);
  const shape = table?.shape;
  if (!Array.isArray(shape) || shape.length !== 2) throw new TypeError(`table must be a tensor { data: Float32Array, shape: [numBuckets, numHeads] }, got ${describe(table)}`);
  const { numBuckets, maxDistance, bidirectional } = bucketParams(o, core.limits);
  // The table's rows are the buckets: a [numHeads, numBuckets] table (transposed) would read as another model.
  if (shape[0] !== numBuckets) {
    const transposed = shape[1] === numBuckets ? `: a [numHeads, numBuckets] table? pass its transpose` : '';
    throw new RangeError(`table.shape must be [numBuckets, numHeads] = [${numBuckets}, numHeads] (numBuckets ${opts?.numBuckets === undefined ? 'defaults to 32' : `is ${numBuckets}`}), got [${shape.join(', ')}]${transposed}`);
  }
  const numHeads = integer('table.shape[1] (numHeads)', shape[1], 1, core.limits.maxHeads);
  const data = floatMatrix('table', table, numBuckets, numHeads);
  return { queryLength, keyLength, queryOffset, numBuckets, maxDistance, bidirectional, numHeads, data, out: o.out };
}

// Written a run of rows at a time (a large result streams through the heap), the buckets computed once.
export function t5Bias(core, table, opts) {
  const p = t5BiasParams(core, table, opts);
  if (p.queryOffset > 0) return offsetT5Bias(core, p);
  const { queryLength, keyLength, numBuckets, numHeads } = p;
  const [outAfter, dataAfter] = [core.keep(p.out, 'out'), core.keep(p.data, 'table.data')];
  const buckets = relativeBuckets(core, p);
  const data = dataAfter();
  const bias = core.produceRows({ rows: numHeads * queryLength, rowElements: keyLength, what: 'the T5 bias', out: outAfter(),
    inputs: [{ data, what: 'the bias table' }, { data: buckets, what: 'the relative buckets' }] },
  (outPointer, firstRow, rowCount, tablePointer, bucketsPointer) => core.module.t5BiasRows(tablePointer, data.length, numBuckets, numHeads,
    queryLength, keyLength, bucketsPointer, buckets.length, firstRow, rowCount, outPointer));
  return { data: bias, shape: [numHeads, queryLength, keyLength] };
}

// The rows queryOffset .. queryOffset + queryLength - 1 of each head's bias over queryOffset + queryLength queries.
function offsetT5Bias(core, p) {
  const { queryLength, keyLength, queryOffset, numBuckets, numHeads, data } = p;
  const queries = queryOffset + queryLength;
  const buckets = relativeBuckets(core, { ...p, queryLength: queries });
  const bias = core.produce({ elements: numHeads * queryLength * keyLength, what: 'the T5 bias', out: p.out,
    inputs: [{ data, what: 'the bias table' }, { data: buckets, what: 'the relative buckets' }] },
  (outPointer, tablePointer, bucketsPointer) => {
    for (let h = 0; h < numHeads; h++) {
      const status = core.module.t5BiasRows(tablePointer, data.length, numBuckets, numHeads, queries, keyLength, bucketsPointer, buckets.length,
        h * queries + queryOffset, queryLength, outPointer + h * queryLength * keyLength * 4);
      if (status !== null) return status;
    }
    return null;
  });
  return { data: bias, shape: [numHeads, queryLength, keyLength] };
}
