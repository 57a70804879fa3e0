// Similarity matrices, nearest rows and PCA: looking at embeddings.
import { describe, integer, oneOf, options } from './validate.js';
import { CORE_LIMITS } from './core_tables.js';
import { floatMatrixShape } from './tensor.js';
import { readOptions } from './op_schemas.js';

// A float matrix's shape, checked here; its values are checked on the heap (inputs marked `finite`, or by the core).
export function matrix(name, value) {
  const shape = value?.shape;
  if (!Array.isArray(shape) || shape.length !== 2) throw new TypeError(`${name} must be a tensor { data: Float32Array, shape: [rows, columns] }, got ${describe(value)}`);
  // Rows are tokens or positions; columns, a model's width.
  const rows = integer(`${name}.shape[0]`, shape[0], 1, CORE_LIMITS.maxVocabSize);
  const columns = integer(`${name}.shape[1]`, shape[1], 1, CORE_LIMITS.maxDModel);
  return { data: floatMatrixShape(name, value, rows, columns), rows, columns };
}

// A similarity matrix larger than this (elements) is written a block of rows of a at a time through the heap,
// which then never holds it whole; each block packs b again, a cost of m·d against the block's product of
// rows·m·d, so blocks are large.
const SIMILARITY_BLOCK = 1 << 22;
// The C++ core's kQueryRows.
const QUERY_ROWS = 16;

// a: [n, d], b: [m, d] (default a) → [n, m].
export function similarity(core, a, b, opts) {
  const o = readOptions('similarity', opts);
  const left = matrix('a', a);
  const right = b === undefined || b === null ? left : matrix('b', b);
  if (right.columns !== left.columns) throw new RangeError(`b.shape[1] must equal a.shape[1] = ${left.columns}, got ${right.columns}`);
  const { metric } = o;
  // A few queries against a table score each pair on its own (no packed copy of b: a query costs one pass over
  // b); more rows take the GEMM. Decided for the whole call, so every block of one result is computed alike.
  const kernel = left.rows <= QUERY_ROWS ? core.module.querySimilarity : core.module.similarity;
  const inputs = [{ data: left.data, what: 'a', finite: true }, ...(right === left ? [] : [{ data: right.data, what: 'b', finite: true }])];
  const data = core.produceRows({ rows: left.rows, rowElements: right.rows, what: 'the similarity matrix', out: o.out, inputs, blockElements: SIMILARITY_BLOCK },
    (outPointer, firstRow, rowCount, aPointer, bPointer = aPointer) => kernel(aPointer + firstRow * left.columns * 4, rowCount, bPointer, right.rows, left.columns, metric, outPointer));
  return { data, shape: [left.rows, right.rows] };
}

// The k rows of a heap table ({ pointer, dtype, rows, columns }) closest to query, best first; ties go to the lower
// index.
export function nearestRows(core, table, query, opts) {
  const { rows, columns } = table;
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
    core.check(core.module.nearestRows(table.pointer, table.dtype, rows, columns, queryPointer, metric, k, indices, scores));
    return { indices: core.view(Int32Array, indices, k).slice(), scores: core.f32(scores, k).slice() };
  });
}

// The k rows nearest row a − row b + row c by cosine, rows a, b and c left out: { indices, scores }, best first.
// table: { pointer, dtype, rows, columns } on the heap; ids: { a, b, c }, row indices.
export function analogyRows(core, table, ids, opts) {
  const { rows, columns } = table;
  const o = options('analogy options', opts, ['k']);
  const [a, b, c] = Object.entries(ids).map(([name, id]) => integer(name, id, 0, rows - 1));
  const others = rows - new Set([a, b, c]).size;
  if (others < 1) throw new RangeError(`analogy needs a row besides a, b and c: the table has ${rows}`);
  const k = integer('k', o.k ?? Math.min(5, others), 1, others);
  const query = core.withHeap([[12, 'the ids'], [3 * columns * 4, 'rows a, b and c']], (idsPointer, out) => {
    core.view(Int32Array, idsPointer, 3).set([a, b, c]);
    core.check(core.module.tokenEmbeddingLookup(table.pointer, table.dtype, rows, columns, -1, 1, idsPointer, 3, out));
    const abc = core.f32(out, 3 * columns);
    return Float32Array.from({ length: columns }, (_, j) => abc[j] - abc[columns + j] + abc[2 * columns + j]);
  });
  const found = nearestRows(core, table, query, { k: Math.min(rows, k + 3), metric: 'cosine' });
  const kept = [...found.indices.keys()].filter((i) => ![a, b, c].includes(found.indices[i])).slice(0, k);
  return { indices: Int32Array.from(kept, (i) => found.indices[i]), scores: Float32Array.from(kept, (i) => found.scores[i]) };
}

// x: [n, d] → [n, components]: the centred rows projected on the principal axes.
export function pca(core, x, opts) {
  const { data, rows, columns } = matrix('x', x);
  // x's values are checked by the core, through its column sums.
  return projectRows(core, 'x.shape[0]', { dtype: 'F32', rows, columns, name: 'x' }, opts, [{ data, what: 'x' }], (xPointer) => xPointer);
}

// pca() of a table where it lies on the heap ({ pointer, dtype, rows, columns }: a token embedding's), without
// copying it.
export function tablePca(core, table, opts) {
  return projectRows(core, 'vocabSize', { ...table, name: 'table' }, opts, [], () => table.pointer);
}

// What pca() and tablePca() share: the options, and the kernel on the rows (of x: { dtype, rows, columns, name }) at
// xAt(...the inputs' pointers); rowsName names the row count in errors.
function projectRows(core, rowsName, x, opts, inputs, xAt) {
  const { rows, columns } = x;
  const o = readOptions('pca', opts);
  if (rows < 2) throw new RangeError(`${rowsName} must be at least 2 (PCA needs two rows), got ${rows}`);
  const components = integer('components', o.components ?? 2, 1, Math.min(rows, columns));
  const out = core.produce({ elements: rows * components, what: 'the projections', out: o.out, inputs },
    (outPointer, ...pointers) => core.module.pca(xAt(...pointers), x.dtype, rows, columns, components, outPointer, x.name));
  return { data: out, shape: [rows, components] };
}

// A 2-D projection [n, 2] turned (rotated or reflected) within its plane to lie as close as it can to `previous`
// [n, 2], the same rows' projection a moment before (orthogonal Procrustes, which in 2-D has a closed form). The
// principal axes of rows that move a little can change sign or swap order from one frame to the next; turned so,
// the rows move a little on screen too, instead of the whole picture flipping.
export function alignProjection(projected, previous) {
  const [y, p] = [projected.data, previous.data];
  let [m11, m12, m21, m22] = [0, 0, 0, 0];  // yᵀ p
  for (let i = 0; i < y.length; i += 2) {
    m11 += y[i] * p[i];
    m12 += y[i] * p[i + 1];
    m21 += y[i + 1] * p[i];
    m22 += y[i + 1] * p[i + 1];
  }
  // The best rotation [[c, −s], [s, c]] and the best reflection [[c, s], [s, −c]]; the closer of the two.
  const rotation = [m11 + m22, m21 - m12];
  const reflection = [m11 - m22, m12 + m21];
  const reflect = Math.hypot(...reflection) > Math.hypot(...rotation);
  const [cx, sx] = reflect ? reflection : rotation;
  const norm = Math.hypot(cx, sx);
  if (!(norm > 0)) return projected;
  const [c, s] = [cx / norm, sx / norm];
  const [r11, r12, r21, r22] = reflect ? [c, s, s, -c] : [c, -s, s, c];
  const data = new Float32Array(y.length);
  for (let i = 0; i < y.length; i += 2) {
    data[i] = y[i] * r11 + y[i + 1] * r21;
    data[i + 1] = y[i] * r12 + y[i + 1] * r22;
  }
  return { data, shape: [...projected.shape] };
}
