// Similarity matrices, nearest rows and PCA: looking at embeddings.
import { describe, integer, oneOf, options } from './validate.js';
import { floatMatrix } from './tensor.js';
import { readOptions } from './op_schemas.js';

export function matrix(name, value) {
  const shape = value?.shape;
  if (!Array.isArray(shape) || shape.length !== 2) throw new TypeError(`${name} must be a tensor { data: Float32Array, shape: [rows, columns] }, got ${describe(value)}`);
  const rows = integer(`${name}.shape[0]`, shape[0], 1, 2 ** 24);
  const columns = integer(`${name}.shape[1]`, shape[1], 1, 65536);
  return { data: floatMatrix(name, value, rows, columns), rows, columns };
}

// A similarity matrix larger than this (elements) is written a block of rows of a at a time through the heap,
// which then never holds it whole; each block packs b again, a cost of m·d against the block's product of
// rows·m·d, so blocks are large.
const SIMILARITY_BLOCK = 1 << 22;

// a: [n, d], b: [m, d] (default a) → [n, m].
export function similarity(core, a, b, opts) {
  const o = readOptions('similarity', opts);
  const left = matrix('a', a);
  const right = b === undefined || b === null ? left : matrix('b', b);
  if (right.columns !== left.columns) throw new RangeError(`b.shape[1] must equal a.shape[1] = ${left.columns}, got ${right.columns}`);
  const { metric } = o;
  const inputs = [{ data: left.data, what: 'a' }, ...(right === left ? [] : [{ data: right.data, what: 'b' }])];
  const data = core.produceRows({ rows: left.rows, rowElements: right.rows, what: 'the similarity matrix', out: o.out, inputs, blockElements: SIMILARITY_BLOCK },
    (outPointer, firstRow, rowCount, aPointer, bPointer = aPointer) => core.module.similarity(aPointer + firstRow * left.columns * 4, rowCount, bPointer, right.rows, left.columns, metric, outPointer));
  return { data, shape: [left.rows, right.rows] };
}

// The k rows of a heap table closest to query, best first; ties go to the lower index.
export function nearestRows(core, table, rows, columns, query, opts) {
  const o = options('nearest options', opts, ['k', 'metric']);
  const k = integer('k', o.k ?? Math.min(5, rows), 1, rows);
  const metric = oneOf('metric', o.metric ?? 'cosine', ['dot', 'cosine']);
  if (Array.isArray(query)) {
    query.forEach((v, i) => { if (typeof v !== 'number') throw new TypeError(`query[${i}] must be a number, got ${describe(v)}`); });
  }
  const vector = query instanceof Float32Array ? query : Array.isArray(query) ? Float32Array.from(query) : null;
  if (!vector) throw new TypeError(`query must be a Float32Array or an array of ${columns} numbers, got ${describe(query)}`);
  if (vector.length !== columns) throw new RangeError(`query must hold dModel = ${columns} numbers, got ${vector.length}`);
  vector.forEach((v, i) => { if (!Number.isFinite(v)) throw new RangeError(`query[${i}] must be finite, got ${v}`); });
  const copyQuery = core.copier(vector, 'query');
  return core.withHeap([[k * 4, 'the indices'], [k * 4, 'the scores'], [columns * 4, 'the query']], (indices, scores, queryPointer) => {
    copyQuery(queryPointer);
    core.check(core.module.nearestRows(table, rows, columns, queryPointer, metric, k, indices, scores));
    return { indices: core.view(Int32Array, indices, k).slice(), scores: core.f32(scores, k).slice() };
  });
}

// x: [n, d] → [n, components]: the centred rows projected on the principal axes.
export function pca(core, x, opts) {
  const o = readOptions('pca', opts);
  const { data, rows, columns } = matrix('x', x);
  if (rows < 2) throw new RangeError(`x.shape[0] must be at least 2 (PCA needs two rows), got ${rows}`);
  const components = integer('components', o.components ?? 2, 1, Math.min(rows, columns));
  const out = core.produce({ elements: rows * components, what: 'the projections', out: o.out, inputs: [{ data, what: 'x' }] },
    (outPointer, xPointer) => core.module.pca(xPointer, rows, columns, components, outPointer));
  return { data: out, shape: [rows, components] };
}
