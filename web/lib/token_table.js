// A model's token table from its weight file onto the heap as a TokenEmbedding, kept in the dtype the file stores it
// in (F32, F16, BF16, F8; F64 is narrowed to F32): found by its usual names where no name is given, read a block of
// rows at a time, each block's bytes written where they lie in the table (no copy of the table in JS, none widened).
// Loaded with the first call, so a page that opens no model does not fetch this.
import { TokenEmbedding } from './token_embedding.js';
import { TABLE_DTYPES } from './table.js';

// Stored bytes read per block, and widened per block of a float32 copy.
const BLOCK_BYTES = 16 << 20;
// Bytes per element of the float dtypes a token table is read from.
const ELEMENT_BYTES = { ...TABLE_DTYPES, F64: 8 };
// The token table's name in the checkpoints of the common families (HF's, and the converted originals').
const TOKEN_TABLE_NAMES = [
  'model.embed_tokens.weight', 'model.language_model.embed_tokens.weight', 'language_model.model.embed_tokens.weight', 'model.text_model.embed_tokens.weight',
  'transformer.wte.weight', 'wte.weight', 'embed_tokens.weight', 'transformer.word_embeddings.weight', 'word_embeddings.weight',
  'gpt_neox.embed_in.weight', 'embed_in.weight', 'model.decoder.embed_tokens.weight', 'shared.weight', 'embeddings.word_embeddings.weight',
  'bert.embeddings.word_embeddings.weight', 'roberta.embeddings.word_embeddings.weight', 'tok_embeddings.weight', 'token_embd.weight', 'transformer.embedding.word_embeddings.weight',
];

// A token table kept in its file's dtype: its float32 view is a copy, widened a block of rows at a time.
class StoredTokenEmbedding extends TokenEmbedding {
  heapView() {
    if (this.dtype === 'F32') return super.heapView();
    const { core, pointer } = this.live();
    const widened = new Float32Array(this.rows * this.columns);
    const rowBytes = this.columns * TABLE_DTYPES[this.dtype];
    const perBlock = Math.max(1, Math.floor(BLOCK_BYTES / (this.columns * 4)));
    core.withHeap([[Math.min(perBlock, this.rows) * this.columns * 4, `rows of the ${this.name} table widened to float32`]], (out) => {
      for (let first = 0; first < this.rows; first += perBlock) {
        const count = Math.min(perBlock, this.rows - first);
        core.check(core.module.convertToFloat(this.dtype, pointer + first * rowBytes, count * rowBytes, out, count * this.columns));
        widened.set(core.f32(out, count * this.columns), first * this.columns);
      }
    });
    return widened;
  }

  get weights() {
    const values = this.heapView();
    return { data: this.dtype === 'F32' ? values.slice() : values, shape: [this.rows, this.columns] };
  }
}

export function tokenTableName(names) {
  const found = TOKEN_TABLE_NAMES.find((candidate) => names.includes(candidate));
  if (found) return found;
  throw new RangeError(`tokenEmbedding: no tensor has a token table's usual name (${TOKEN_TABLE_NAMES.slice(0, 4).join(', ')}, …); give its name (the file has ${names.slice(0, 6).join(', ')}${names.length > 6 ? ', …' : ''})`);
}

// entry: the tensor's { name, dtype, shape, offset } in source (a weight file's byte source).
// (options.name is resolved to entry by the caller.) readWhole(): the tensor read at once, as weightFile.tensor() does.
export async function readTokenTable(core, source, entry, options, readWhole) {
  const { signal, onProgress } = options;
  for (const key of Object.keys(options)) if (!['name', 'signal', 'onProgress'].includes(key)) throw new TypeError(`tokenEmbedding: unknown option '${key}' (options: name, signal, onProgress)`);
  if (entry.shape.length !== 2 || !(entry.dtype in ELEMENT_BYTES)) {
    throw new RangeError(`tokenEmbedding: tensor '${entry.name}' is ${entry.dtype} [${entry.shape}], not a [vocab, dModel] table of floats (${Object.keys(ELEMENT_BYTES).join(', ')})`);
  }
  const [rows, columns] = entry.shape;
  if (entry.fortranOrder) {
    // npy's fortran_order: a row's values lie apart, so the table is read whole and reordered (a copy in JS).
    const weights = await readWhole();
    signal?.throwIfAborted();
    return Object.assign(new TokenEmbedding(core, { vocabSize: rows, dModel: columns, weights }), { storedDtype: entry.dtype });
  }
  // Every row is written below: the table is allocated unseeded.
  const dtype = entry.dtype in TABLE_DTYPES ? entry.dtype : 'F32';
  const table = new StoredTokenEmbedding(core, { vocabSize: rows, dModel: columns }, { fill: () => null, dtype });
  try {
    const size = ELEMENT_BYTES[entry.dtype];
    const perBlock = Math.max(1, Math.floor(BLOCK_BYTES / (columns * size)));
    for (let first = 0; first < rows; first += perBlock) {
      signal?.throwIfAborted();
      const count = Math.min(perBlock, rows - first);
      const start = entry.offset + first * columns * size;
      const bytes = await source.read(start, start + count * columns * size);
      const { pointer } = table.live();
      if (dtype === entry.dtype) {
        core.view(Uint8Array, pointer + first * columns * size, bytes.length).set(bytes);
      } else {
        core.withHeap([[bytes.length, `rows ${first}…${first + count - 1} of '${entry.name}'`]], (input) => {
          core.view(Uint8Array, input, bytes.length).set(bytes);
          core.check(core.module.convertToFloat(entry.dtype, input, bytes.length, pointer + first * columns * 4, count * columns));
        });
      }
      onProgress?.((first + count) / rows);
    }
    signal?.throwIfAborted();
    const { pointer } = table.live();
    const bad = core.module.tableNonFinite(pointer, dtype, rows, columns);
    if (bad >= 0) throw new RangeError(`tokenEmbedding: '${entry.name}' holds a non-finite value at row ${Math.floor(bad / columns)}, column ${bad % columns}`);
  } catch (error) {
    table.dispose();
    throw error;
  }
  table.storedDtype = entry.dtype;
  return table;
}
