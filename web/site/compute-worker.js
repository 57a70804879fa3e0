// The site's heavy work, done off the main thread by the package. Heatmap tasks return their tensor and the
// picture's pixels (painted here, so the page only copies them onto a canvas); the token tasks keep the token
// table here (a seeded one, or the tensors of a dropped weights file, read here with progress) and return only
// what the page shows. Results are transferred, not copied.
import { load } from 'posembed';
import { heatmapPixels, valueRange } from 'posembed/colormap';

const GPT2_VOCAB = 50257;
// A figure is at most ~1000 px wide and 420 px high: pictures of larger tables keep every k-th row and column
// (the tensor itself stays whole, for the readout), so the page never copies more than 1024 × 1024 pixels.
const MAX_SIDE = 1024;

let posembed = null;
const dropped = new Map();  // name → tensor, from the last weights file read
let table = null;           // { key, embedding }

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

// The token table: the chosen dropped tensor, or a seeded (untrained) GPT-2-sized one.
function tokenTable(pe, { tensor: name, dModel, seed }) {
  const key = name ? `dropped:${name}` : `seeded:${dModel}:${seed}`;
  if (table?.key !== key) {
    table?.embedding.dispose();
    table = null;
    const weights = name ? dropped.get(name) : null;
    if (name && !weights) throw new RangeError(`no tensor '${name}' was read`);
    const embedding = weights
      ? pe.tokenEmbedding({ vocabSize: weights.shape[0], dModel: weights.shape[1], weights })
      : pe.tokenEmbedding({ vocabSize: GPT2_VOCAB, dModel, init: { std: 0.02, seed } });
    table = { key, embedding };
  }
  return table.embedding;
}

const TASKS = {
  sinusoidal: (pe, { params }) => picture(pe.sinusoidal(params), { min: -1, max: 1 }, 'RdBu'),
  // PE(p)·PE(q) of every pair of positions.
  similarity: (pe, { params }) => picture(pe.similarity(pe.sinusoidal(params), null, { metric: 'dot' }), { min: -params.dModel / 2, max: params.dModel / 2 }, 'RdBu'),

  // Streams a File in (reporting progress) and parses it; keeps its 2-D tensors, returns their names and shapes.
  async readWeights(pe, { file }, progress) {
    const bytes = new Uint8Array(file.size);
    let received = 0;
    const reader = file.stream().getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes.set(value, received);
      received += value.length;
      progress(received / Math.max(file.size, 1));
    }
    let tensors;
    try {
      tensors = file.name.toLowerCase().endsWith('.npy') ? { [file.name]: pe.readNpy(bytes) } : pe.readSafetensors(bytes);
    } catch (error) {
      error.message = `${file.name}: ${error.message}`;
      throw error;
    }
    const matrices = Object.entries(tensors).filter(([, t]) => t.shape.length === 2);
    if (matrices.length === 0) throw new RangeError(`${file.name}: no 2-D tensor to use as an embedding table`);
    dropped.clear();
    for (const [name, tensor] of matrices) dropped.set(name, tensor);
    return { result: matrices.map(([name, t]) => ({ name, shape: t.shape })) };
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
};

self.onmessage = async ({ data: { id, task, args } }) => {
  try {
    posembed ??= load();
    const pe = await posembed;
    if (!TASKS[task]) throw new TypeError(`unknown task '${task}'`);
    const { result, transfer = [] } = await TASKS[task](pe, args, (progress) => self.postMessage({ id, progress }));
    self.postMessage({ id, result }, transfer);
  } catch (error) {
    self.postMessage({ id, error: { name: error.name, message: error.message } });
  }
};
