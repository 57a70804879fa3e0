// The site's heavy tables, computed off the main thread by the package: each task returns its tensor and the
// heatmap's pixels (painted here, so the page only copies them onto a canvas), both transferred, not copied.
import { load } from 'posembed';
import { heatmapPixels, valueRange } from 'posembed/colormap';

let posembed = null;
// A figure is at most ~1000 px wide and 420 px high: pictures of larger tables keep every k-th row and column
// (the tensor itself stays whole, for the readout), so the page never copies more than 1024 × 1024 pixels.
const MAX_SIDE = 1024;

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

const TASKS = {
  // The sinusoidal table of the explorer.
  sinusoidal: (pe, { params }) => ({ tensor: pe.sinusoidal(params), range: { min: -1, max: 1 }, colormap: 'RdBu' }),
  // PE(p)·PE(q) of every pair of positions of that table.
  similarity: (pe, { params }) => {
    const tensor = pe.similarity(pe.sinusoidal(params), null, { metric: 'dot' });
    return { tensor, range: { min: -params.dModel / 2, max: params.dModel / 2 }, colormap: 'RdBu' };
  },
};

self.onmessage = async ({ data: { id, task, args } }) => {
  try {
    posembed ??= load();
    const pe = await posembed;
    if (!TASKS[task]) throw new TypeError(`unknown task '${task}'`);
    const { tensor, range = valueRange(tensor.data), colormap } = TASKS[task](pe, args);
    const { pixels, width, height } = heatmapPixels(sampled(tensor), { colormap, range });
    self.postMessage({ id, result: { tensor, range, colormap, pixels, width, height } }, [tensor.data.buffer, pixels.buffer]);
  } catch (error) {
    self.postMessage({ id, error: { name: error.name, message: error.message } });
  }
};
