// Paints a [rows, columns] tensor onto a canvas, one canvas pixel per cell; CSS scales it up with
// `image-rendering: pixelated`, so cells stay crisp squares and pixel (column, row) is cell (row, column).
// Host tensors are painted with canvas 2D. A GpuTensor is drawn by the webgpu backend's render pipeline
// (the colormap applied on the GPU, nothing read back) into an OffscreenCanvas, which the page's canvas
// then copies: one canvas, whichever backend, keeps its 2d context and its listeners.
import { colormap, heatmapPixels, valueRange } from '../colormap.js';

export { valueRange };

const gpuCanvases = new WeakMap();  // backend -> its OffscreenCanvas

// A heatmap canvas's 2d context, kept in memory rather than on the GPU: a copy from the GPU is read back
// whole to be checked and kept (below), which is cheap only there.
function heatmapContext(canvas) {
  return canvas.getContext('2d', { willReadFrequently: true });
}

// The picture on each canvas, painted again when the browser gives back a canvas it lost. A GPU process
// that resets (a dropped WebGPU instance does that) blanks every canvas of the page, and Chromium restores
// them blank, with or without a contextrestored event: so a lost canvas is looked at until it is usable.
const pictures = new WeakMap();  // canvas -> ImageData
const RESTORE_CHECK_MS = 250;
const RESTORE_CHECKS = 120;

function keepPicture(canvas, image) {
  if (!pictures.has(canvas)) canvas.addEventListener('contextlost', () => repaintOnceRestored(canvas, RESTORE_CHECKS));
  pictures.set(canvas, image);
}

function repaintOnceRestored(canvas, checksLeft) {
  setTimeout(() => {
    const context = heatmapContext(canvas);
    if (!context.isContextLost()) context.putImageData(pictures.get(canvas), 0, 0);
    else if (checksLeft > 1) repaintOnceRestored(canvas, checksLeft - 1);
  }, RESTORE_CHECK_MS);
}

// Whether every pixel of an ImageData is opaque (read as 32-bit words, alpha the high byte on every
// little-endian platform the web runs on).
function opaque({ data }) {
  const words = new Uint32Array(data.buffer, data.byteOffset, data.byteLength / 4);
  for (let i = 0; i < words.length; i++) if (words[i] >>> 24 !== 255) return false;
  return true;
}

// Puts RGBA pixels [height, width] (made off the page's thread, say) on canvas, one pixel per cell, as
// drawHeatmap does.
export function paintPixels(canvas, { pixels, width, height }) {
  canvas.width = width;
  canvas.height = height;
  const image = new ImageData(new Uint8ClampedArray(pixels.buffer, pixels.byteOffset, pixels.byteLength), width, height);
  heatmapContext(canvas).putImageData(image, 0, 0);
  keepPicture(canvas, image);
  return canvas;
}

// Paints a host tensor with canvas 2D; options: { colormap, range, cellSize }.
export function drawHeatmap(canvas, tensor, options = {}) {
  const { pixels, width, height, map } = heatmapPixels(tensor, options);
  paintPixels(canvas, { pixels, width, height });
  return map;
}

// How long a figure waits for the GPU before it draws from wasm instead: a reader never looks at a blank figure.
const GPU_PATIENCE_MS = 1000;
const LATE = Symbol('late');

// Draws a GpuTensor with `backend`'s render pipeline; options: { colormap, range, index }. Resolves to the
// colormap once the page's canvas holds the picture. Where the GPU cannot draw (no webgpu context for an
// OffscreenCanvas, a canvas WebGPU cannot present to, a lost instance or device, a heatmap past its texture
// size), the values, read back (or computed again on wasm, where the backend has gone on) are painted with
// canvas 2D: the reader sees the same figure, and no error. Where the GPU has not drawn within a second, the
// values are computed on wasm and painted, and the GPU's picture, if it comes, is dropped. The canvas says which
// drew it: data-drawn-by 'webgpu' or 'wasm', and for wasm data-drawn-why.
export async function drawGpuHeatmap(canvas, tensor, backend, options) {
  let late = false;
  const onGpu = (async () => {
    if (!gpuCanvases.has(backend)) gpuCanvases.set(backend, new OffscreenCanvas(1, 1));
    const drawn = gpuCanvases.get(backend);
    await backend.renderHeatmap(tensor, drawn, options);
    if (late) return LATE;
    canvas.width = drawn.width;
    canvas.height = drawn.height;
    const context = heatmapContext(canvas);
    context.drawImage(drawn, 0, 0);
    // The picture is opaque; a GPU canvas that could not be handed over (its instance dropped as it was
    // presented) copies as transparent, and is then painted from the values like any other failure.
    const picture = context.getImageData(0, 0, canvas.width, canvas.height);
    if (!opaque(picture)) throw new Error('the WebGPU picture did not reach the canvas');
    keepPicture(canvas, picture);
    return colormap(options.colormap ?? 'RdBu', options.range);
  })();
  onGpu.catch(() => {});  // a failure after the wait is over has nothing left to draw
  let patience;
  const waited = new Promise((resolve) => { patience = setTimeout(() => resolve(LATE), GPU_PATIENCE_MS); });
  const paintValues = async (host, why) => {
    const { data, shape } = host;
    const [rows, columns] = shape.slice(-2);
    const first = (options.index ?? 0) * rows * columns;
    const map = drawHeatmap(canvas, { data: data.subarray(first, first + rows * columns), shape: [rows, columns] }, options);
    Object.assign(canvas.dataset, { drawnBy: 'wasm', drawnWhy: why });
    return map;
  };
  try {
    const map = await Promise.race([onGpu, waited]);
    if (map !== LATE) {
      canvas.dataset.drawnBy = 'webgpu';
      delete canvas.dataset.drawnWhy;
      return map;
    }
    late = true;
    return paintValues(await (tensor.computeOnHost?.() ?? tensor.read()), `the GPU had not drawn it within ${GPU_PATIENCE_MS / 1000} s`);
  } catch (error) {
    return paintValues(await tensor.read(), `the GPU could not draw it (${error.message})`);
  } finally {
    clearTimeout(patience);
  }
}
