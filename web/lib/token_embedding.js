// Token embedding: a [vocabSize, dModel] table on the wasm heap; lookup gathers rows by id.
import { describe, integer, number, options } from './validate.js';
import { readOptions } from './op_schemas.js';
import { tokenIds } from './tensor.js';
import { HeapTable } from './table.js';
import { streamTarget } from './wasm.js';
import { analogyRows, nearestRows, tablePca } from './analysis.js';

// 'none' | 'sqrt' | a finite number → the factor rows are multiplied by.
export function scaleFactor(core, scale, dModel) {
  if (typeof scale === 'number') return number('scale', scale, -1e6, 1e6);
  if (scale === 'none' || scale === 'sqrt') return core.module.embeddingScaleFactor(scale, dModel);
  throw new (typeof scale === 'string' ? RangeError : TypeError)(`scale must be 'none', 'sqrt' or a number in [-1000000, 1000000], got ${describe(scale)}`);
}

export function paddingIndex(value, vocabSize) {
  return value === undefined || value === null ? null : integer('paddingIdx', value, 0, vocabSize - 1);
}

export class TokenEmbedding extends HeapTable {
  // stored: { fill, dtype } (HeapTable's), for the package's own readers: a table streamed from a file, kept as the
  // file stores it.
  constructor(core, opts, stored = {}) {
    const { vocabSize, dModel, ...o } = readOptions('tokenEmbedding', opts);
    const paddingIdx = paddingIndex(o.paddingIdx, vocabSize);
    const scale = scaleFactor(core, o.scale, dModel);
    super(core, { name: 'tokenEmbedding', rows: vocabSize, columns: dModel, weights: o.weights, init: o.init, zeroRow: paddingIdx ?? -1, ...stored });
    this.vocabSize = vocabSize;
    this.dModel = dModel;
    this.paddingIdx = paddingIdx;
    this.scale = scale;
  }

  // ids → [...ids.shape, dModel]: each id's row, times scale; zeros for paddingIdx.
  lookup(ids, opts) {
    const { core, pointer } = this.live();
    const o = options('lookup options', opts, ['out']);
    const { data, shape } = tokenIds(ids, this.vocabSize);
    // Unscaled float32 rows into a JS array are copied straight from the heap (the kernel would copy them twice).
    const copies = this.dtype === 'F32' && this.scale === 1 && (o.out === undefined || !core.onHeap(o.out, 'out'));
    const rows = copies ? this.#copyRows(core, pointer, data, o.out)
      : core.produceRows({ rows: data.length, rowElements: this.dModel, what: 'the looked-up rows', out: o.out, inputs: [{ data, what: 'the ids' }] },
        (outPointer, firstRow, rowCount, idsPointer) => core.module.tokenEmbeddingLookup(pointer, this.dtype, this.vocabSize, this.dModel, this.paddingIdx ?? -1,
          this.scale, idsPointer + firstRow * 4, rowCount, outPointer));
    return { data: rows, shape: [...shape, this.dModel] };
  }

  #copyRows(core, pointer, ids, out) {
    const d = this.dModel;
    const { target } = streamTarget(out, ids.length * d, 'the looked-up rows');
    const table = core.f32(pointer, this.vocabSize * d);
    for (let j = 0; j < ids.length; j++) {
      if (ids[j] === this.paddingIdx) target.fill(0, j * d, (j + 1) * d);
      else target.set(table.subarray(ids[j] * d, (ids[j] + 1) * d), j * d);
    }
    return target;
  }

  // The k rows most similar to query (a dModel vector), best first: { indices: Int32Array, scores: Float32Array }.
  nearest(query, opts) {
    return nearestRows(this.live().core, this.stored(), query, opts);
  }

  // The k rows nearest row a − row b + row c of the table as stored (before scale), by cosine, a, b and c left out:
  // { indices: Int32Array, scores: Float32Array }, best first (the ids of ' king', ' man', ' woman' → ' queen').
  analogy(a, b, c, opts) {
    return analogyRows(this.live().core, this.stored(), { a, b, c }, opts);
  }

  // pe.pca() of the table as stored (before scale), where it lies: [vocabSize, components], without a copy of the
  // table (pe.pca(embedding.weights) makes two).
  pca(opts) {
    return tablePca(this.live().core.full('tokenEmbedding.pca()'), this.stored(), opts);
  }
}
