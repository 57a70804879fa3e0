// A [rows, columns] float table on the wasm heap, owned by a JS object until dispose(): the storage of
// token embeddings and learned positions. Filled from given weights or from the seeded initialiser (float32), or
// by the package's readers in the dtype a checkpoint stores it in (float16, bfloat16, float8: see TABLE_DTYPES).
import { describe, integer, number, options } from './validate.js';
import { floatMatrix } from './tensor.js';

const KNOWN_INIT = ['type', 'std', 'gain', 'seed'];

// The dtypes a table is kept in on the heap (the core's table dtypes) and their bytes per value.
export const TABLE_DTYPES = { F32: 4, F16: 2, BF16: 2, F8_E4M3: 1, F8_E5M2: 1 };

// Frees what objects dropped without dispose() still hold on the heap, once they are collected.
const heapReleaser = new FinalizationRegistry(({ core, pointer }) => core.free(pointer));

// One allocation on the wasm heap, owned by a JS object: freed by free(), or when the owner is collected.
export class HeapBlock {
  #core;
  #pointer;

  constructor(owner, core, bytes, what) {
    this.#pointer = core.alloc(bytes, what);
    this.#core = core;
    heapReleaser.register(owner, { core, pointer: this.#pointer }, this);
  }

  get core() {
    return this.#core;
  }

  // The address, or 0 once freed.
  get pointer() {
    return this.#pointer;
  }

  // Harmless to call twice.
  free() {
    if (this.#pointer === 0) return;
    heapReleaser.unregister(this);
    this.#core.free(this.#pointer);
    this.#pointer = 0;
  }
}

export class HeapTable {
  #block;

  // name: how errors call this object ('tokenEmbedding'); zeroRow: a row the initialiser leaves at zero;
  // fill(pointer): a kernel that writes the table, in place of weights or init (one that writes nothing, for a caller
  // that writes every row before the table is used: seeding a vocabulary's table only to overwrite it takes seconds);
  // dtype: TABLE_DTYPES' (not F32: a fill's alone).
  constructor(core, { name, rows, columns, weights, init, zeroRow = -1, fill, dtype = 'F32' }) {
    this.name = name;
    if (!(dtype in TABLE_DTYPES) || (dtype !== 'F32' && !fill)) throw new RangeError(`${name}: dtype must be one of ${Object.keys(TABLE_DTYPES).join(', ')} (only a table read from a file is kept in another than F32), got ${describe(dtype)}`);
    this.dtype = dtype;
    const given = weights === undefined ? null : floatMatrix('weights', weights, rows, columns);
    if (given && init !== undefined) throw new TypeError(`${name}: give either weights or init, not both`);
    const i = given ? null : options('init', init, KNOWN_INIT);
    const type = i?.type ?? 'normal';
    if (i && type !== 'normal' && type !== 'xavier-uniform') throw new RangeError(`init.type must be one of 'normal', 'xavier-uniform', got ${describe(type)}`);
    const std = i ? number('init.std', i.std ?? 0.02, 0, 1e6) : 0;
    const gain = i ? number('init.gain', i.gain ?? 1, 0, 1e6) : 0;
    const seed = i ? integer('init.seed', i.seed ?? 0, 0, Number.MAX_SAFE_INTEGER) : 0;

    this.rows = rows;
    this.columns = columns;
    const copyGiven = given && core.copier(given, 'weights.data');  // before allocating: the table may grow the heap
    this.#block = new HeapBlock(this, core, rows * columns * TABLE_DTYPES[dtype], `a ${rows} x ${columns} ${dtype} ${name} table`);
    const pointer = this.#block.pointer;
    try {
      if (fill) core.check(fill(pointer));
      else if (given) copyGiven(pointer);
      else core.check(core.module.initEmbeddingTable(pointer, rows, columns, zeroRow, type, std, gain, seed));
    } catch (error) {
      this.dispose();
      throw error;
    }
  }

  // The core and the table's heap address; throws once disposed.
  live() {
    if (this.#block.pointer === 0) throw new Error(`this ${this.name} has been disposed`);
    return { core: this.#block.core, pointer: this.#block.pointer };
  }

  // The live table as the core reads it: { pointer, dtype, rows, columns }.
  stored() {
    const { pointer } = this.live();
    return { pointer, dtype: this.dtype, rows: this.rows, columns: this.columns };
  }

  // The table where it lies on the heap, for reading at once (any later call may grow the heap and detach
  // the view): what a copy is made from, or a GPU upload reads without one.
  heapView() {
    const { core, pointer } = this.live();
    return core.f32(pointer, this.rows * this.columns);
  }

  // A copy of the table, [rows, columns].
  get weights() {
    return { data: this.heapView().slice(), shape: [this.rows, this.columns] };
  }

  get disposed() {
    return this.#block.pointer === 0;
  }

  // Frees the table; harmless to call twice.
  dispose() {
    this.#block.free();
  }
}
