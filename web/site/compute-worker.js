// The site's heavy work, done off the main thread by the package. Heatmap tasks return their tensor and the
// picture's pixels (painted here, so the page only copies them onto a canvas); the token tasks keep the token
// table here (a seeded one, or the tensors of a dropped weights file, read here with progress) and return only
// what the page shows. Results are transferred, not copied.
import { load } from 'posembed';
import { heatmapPixels, valueRange } from 'posembed/colormap';
import { tokenLabel, vocabularyGrid } from 'posembed/vocabulary-map';
import { serveTasks } from 'posembed/task-worker';

const GPT2_VOCAB = 50257;
// GPT-2's tokenizer (its 50,000 merges), read in this worker on first use, so the page's own thread never parses them.
let gpt2 = null;
const gpt2Tokenizer = () => (gpt2 ??= import('gpt-tokenizer/encoding/r50k_base'));
// A figure is at most ~1000 px wide and 420 px high: pictures of larger tables keep every k-th row and column
// (the tensor itself stays whole, for the readout), so the page never copies more than 1024 × 1024 pixels.
const MAX_SIDE = 1024;

let weights = null;         // { file, handle }: the last weights file opened (its header read; tensors on demand)
let dropped = null;         // { name, embedding }: the tensor read from it for the table, on the heap only
let seeded = null;          // { key, embedding }: the seeded table, while it is the one shown
let table = null;           // { key, embedding }: the table the token tasks use now (one of the two)
let vocabulary = null;      // { key, projected }: the whole table's two principal axes
let tokenizer = null;       // { file, tokenizer }: a dropped tokenizer.json, read here (a large one takes seconds)

function sampled(tensor) {
  const [rows, columns] = tensor.shape;
  const rowStep = Math.ceil(rows / MAX_SIDE);
  const columnStep = Math.ceil(columns / MAX_SIDE);
  if (rowStep === 1 && columnStep === 1) return tensor;
  const [r, c] = [Math.ceil(rows / rowStep), Math.ceil(columns / columnStep)];
  const data = new Float32Array(r * c);
  for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) data[i * c + j] = tensor.data[i * rowStep * columns + j * columnStep];
  return { data, shape: [r, c] };
}

function picture(tensor, range, colormap) {
  const { pixels, width, height } = heatmapPixels(sampled(tensor), { colormap, range });
  return { result: { tensor, range, colormap, pixels, width, height }, transfer: [tensor.data.buffer, pixels.buffer] };
}

// The token table: the tensor read from the dropped file, or a seeded (untrained) GPT-2-sized one. The dropped one
// stays on the heap while its file is open; a seeded one only while it is shown.
function tokenTable(pe, { tensor: name, dModel, seed, vocabSize = GPT2_VOCAB }) {
  if (name) {
    if (dropped?.name !== name) throw new RangeError(`no tensor '${name}' was read`);
    seeded?.embedding.dispose();
    seeded = null;
    table = { key: `dropped:${weights.file}:${name}`, embedding: dropped.embedding };
  } else {
    const key = `seeded:${vocabSize}:${dModel}:${seed}`;
    if (seeded?.key !== key) {
      seeded?.embedding.dispose();
      seeded = { key, embedding: pe.tokenEmbedding({ vocabSize, dModel, init: { std: 0.02, seed } }) };
    }
    table = seeded;
  }
  return table.embedding;
}

// Names a token table is stored under in common checkpoints (GPT-2, LLaMA, BERT, T5, GGUF-converted), first match wins.
const TOKEN_TABLE = /(^|\.)(wte|embed_tokens|word_embeddings|tok_embeddings|shared|token_embd|embeddings)(\.weight)?$/;

// A weights file or checkpoint, opened: kept as the one the table is read from; its 2-D float tensors listed, the
// likely token table first.
function useWeights(file, handle) {
  const matrices = handle.names.map((name) => ({ name, ...handle.info(name) }))
    .filter(({ shape, dtype }) => shape.length === 2 && /^(F64|F32|F16|BF16|F8_E4M3|F8_E5M2)$/.test(dtype));
  if (matrices.length === 0) throw new RangeError(`${file}: no 2-D float tensor to use as an embedding table (it has ${handle.names.length} tensor${handle.names.length === 1 ? '' : 's'})`);
  const likely = matrices.find((m) => TOKEN_TABLE.test(m.name)) ?? matrices.reduce((a, b) => (b.shape[0] > a.shape[0] ? b : a));
  weights = { file, handle };
  dropped?.embedding.dispose();
  dropped = null;
  return { matrices: matrices.map(({ name, shape, dtype, bytes }) => ({ name, shape, dtype, bytes })), likely: likely.name };
}

const TASKS = {
  sinusoidal: (pe, { params }) => picture(pe.sinusoidal(params), { min: -1, max: 1 }, 'RdBu'),
  // PE(p)·PE(q) of every pair of positions.
  similarity: (pe, { params }) => picture(pe.similarity(pe.sinusoidal(params), null, { metric: 'dot' }), { min: -params.dModel / 2, max: params.dModel / 2 }, 'RdBu'),

  // Opens a dropped file (its header only) and lists its 2-D float tensors, the likely token table first.
  async openWeights(pe, { file }) {
    let handle;
    try {
      handle = file.name.toLowerCase().endsWith('.npy') ? await pe.openNpy(file) : await pe.openSafetensors(file);
    } catch (error) {
      error.message = `${file.name}: ${error.message}`;
      throw error;
    }
    return { result: useWeights(file.name, handle) };
  },

  // Opens a model by its folder URL: its tokenizer (used from then on) and its checkpoint's headers, listed as a
  // dropped file's are. Nothing of the table is fetched yet.
  async openModel(pe, { url }) {
    const model = await pe.openModel(url);
    const name = url.replace(/\/+$/, '').replace(/\/resolve\/[^/]+$/, '').split('/').slice(-2).join('/');
    const opened = useWeights(name, model.checkpoint);
    // Only now: a checkpoint with no table leaves the page (and this worker) on the tokenizer it had.
    tokenizer = { file: name, tokenizer: model.tokenizer };
    return { result: { ...opened, tokenizer: { file: name, vocabSize: model.tokenizer.vocabSize, modelType: model.tokenizer.modelType } } };
  },

  // Reads one tensor of the opened file (reporting progress) to be the token table: streamed to the heap a block of
  // rows at a time, where the token tasks read it (no copy of the table in this worker's memory).
  async readTable(pe, { name }, progress) {
    if (!weights) throw new RangeError('no weights file is open');
    if (dropped?.name !== name) {
      dropped?.embedding.dispose();
      dropped = null;  // (until the new one stands: the heap may not hold both)
      dropped = { name, embedding: await weights.handle.tokenEmbedding({ name, onProgress: progress }) };
    }
    const { vocabSize, dModel } = dropped.embedding;
    return { result: { name, shape: [vocabSize, dModel] } };
  },

  // A runtime's dumped cos/sin cache (a .safetensors with tensors cos and sin, or a .npy [2, positions, rotary dim])
  // checked against a model's layer at positions from..from + n - 1.
  async checkCache(pe, { file, config, layer, from }) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    let cos;
    let sin;
    try {
      if (file.name.toLowerCase().endsWith('.npy')) {
        const stacked = pe.readNpy(bytes);
        if (stacked.shape.length !== 3 || stacked.shape[0] !== 2) throw new RangeError(`a .npy cache holds [2, positions, rotary dim] (cos, then sin), got [${stacked.shape}]`);
        const half = stacked.data.length / 2;
        [cos, sin] = [{ data: stacked.data.subarray(0, half), shape: stacked.shape.slice(1) }, { data: stacked.data.subarray(half), shape: stacked.shape.slice(1) }];
      } else {
        const tensors = pe.readSafetensors(bytes);
        if (!tensors.cos || !tensors.sin) throw new RangeError(`no tensors named cos and sin (it holds ${Object.keys(tensors).join(', ') || 'none'})`);
        [cos, sin] = [tensors.cos, tensors.sin];
      }
    } catch (error) {
      error.message = `${file.name}: ${error.message}`;
      throw error;
    }
    const rope = pe.modelPositions(config).layer(layer).rope;
    if (!rope) throw new RangeError(`layer ${layer} of this model does not use RoPE`);
    if (cos.shape.length !== 2) throw new RangeError(`${file.name}: cos must be [positions, rotary dim], got [${cos.shape}]`);
    const positions = Int32Array.from({ length: cos.shape[0] }, (_, i) => from + i);
    return { result: { ...pe.checkRopeCache(rope, { cos, sin, positions }), rows: cos.shape[0], columns: cos.shape[1] } };
  },

  // The rows of `ids`, the nearest tokens to row `selected`, and the rows' two principal axes; or, for a table
  // too small for the ids, the table itself.
  tokens(pe, { ids, selected, table: choice }) {
    const embedding = tokenTable(pe, choice);
    let largest = 0;
    for (const id of ids) largest = Math.max(largest, id);
    if (largest >= embedding.vocabSize) {
      const weights = embedding.weights;
      return { result: { tooSmall: { largest, shape: weights.shape }, rows: weights }, transfer: [weights.data.buffer] };
    }
    const rows = embedding.lookup(Int32Array.from(ids));
    const d = embedding.dModel;
    const { indices, scores } = embedding.nearest(rows.data.slice(selected * d, (selected + 1) * d), { k: 8, metric: 'cosine' });
    const projected = ids.length >= 2 ? pe.pca({ data: rows.data, shape: [ids.length, d] }, { components: 2 }) : null;
    return { result: { rows, vocabSize: embedding.vocabSize, indices, scores, projected }, transfer: [rows.data.buffer] };
  },

  // The whole table by its two principal axes, as counts on a grid (each cell with one of its tokens, the one
  // nearest the cell's centre), and where the given ids fall.
  vocabulary(pe, { ids, table: choice }) {
    const embedding = tokenTable(pe, choice);
    if (vocabulary?.key !== table.key) vocabulary = { key: table.key, projected: embedding.pca({ components: 2 }).data };
    const grid = vocabularyGrid(vocabulary.projected, { ids });
    return { result: grid, transfer: [grid.counts.buffer, grid.example.buffer] };
  },

  // A dropped tokenizer.json (and its model's own pieces from then on); null forgets it.
  async openTokenizer(pe, { file }) {
    if (file === null) {
      tokenizer = null;
      return { result: null };
    }
    try {
      tokenizer = { file: file.name, tokenizer: await pe.openTokenizer(file) };
    } catch (error) {
      error.message = `${file.name}: ${error.message}`;
      throw error;
    }
    return { result: { file: file.name, vocabSize: tokenizer.tokenizer.vocabSize, modelType: tokenizer.tokenizer.modelType } };
  },

  // The ids of text with the dropped tokenizer (else GPT-2's), and each id's text.
  async encode(pe, { text }) {
    if (tokenizer) {
      const ids = Array.from(tokenizer.tokenizer.encode(text));
      return { result: { ids, labels: ids.map((id) => tokenLabel(tokenizer.tokenizer, id)) } };
    }
    const gpt2 = await gpt2Tokenizer();
    const ids = gpt2.encode(text);
    return { result: { ids, labels: ids.map((id) => gpt2.decode([id])) } };
  },

  // Each id's text with the dropped tokenizer (else GPT-2's); an id past its vocabulary: ''.
  async labels(pe, { ids }) {
    if (tokenizer) return { result: Array.from(ids, (id) => (id >= 0 && id < tokenizer.tokenizer.vocabSize ? tokenLabel(tokenizer.tokenizer, id) : '')) };
    const gpt2 = await gpt2Tokenizer();
    return { result: Array.from(ids, (id) => (id >= 0 && id < GPT2_VOCAB ? gpt2.decode([id]) : '')) };
  },

  // The rows nearest a − b + c by cosine, a, b and c left out.
  analogy(pe, { a, b, c, table: choice, k }) {
    const { indices, scores } = tokenTable(pe, choice).analogy(a, b, c, { k });
    return { result: Array.from(indices, (id, i) => ({ id, score: scores[i] })) };
  },
};

serveTasks(TASKS, load);
