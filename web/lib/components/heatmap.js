// Paints a [rows, columns] tensor onto a canvas, one canvas pixel per cell; CSS scales it up with
// `image-rendering: pixelated`, so cells stay crisp squares and pixel (column, row) is cell (row, column).
// Host tensors are painted with canvas 2D. A GpuTensor is drawn by the webgpu backend's render pipeline
// (the colormap applied on the GPU, nothing read back) into an OffscreenCanvas, which the page's canvas
// then copies: one canvas, whichever backend, keeps its 2d context and its listeners.
import { colormap, heatmapPixels, valueRange } from '../colormap.js';

export { valueRange };

const gpuCanvases = new WeakMap();  // backend -> its OffscreenCanvas

// Paints a host tensor with canvas 2D; options: { colormap, range, scale }.
export function drawHeatmap(canvas, tensor, options = {}) {
  const { pixels, width, height, map } = heatmapPixels(tensor, options);
  canvas.width = width;
  canvas.height = height;
  canvas.getContext('2d').putImageData(new ImageData(pixels, width, height), 0, 0);
  return map;
}

// Draws a GpuTensor with `backend`'s render pipeline; options: { colormap, range, index }. Resolves to the
// colormap once the page's canvas holds the picture. Where the GPU cannot draw (no webgpu context for an
// OffscreenCanvas, a canvas WebGPU cannot present to, a lost instance or device, a heatmap past its texture
// size), the values, read back (or computed again on wasm, where the backend has gone on) are painted with
// canvas 2D: the reader sees the same figure, and no error.
export async function drawGpuHeatmap(canvas, tensor, backend, options) {
  try {
    if (!gpuCanvases.has(backend)) gpuCanvases.set(backend, new OffscreenCanvas(1, 1));
    const drawn = gpuCanvases.get(backend);
    await backend.renderHeatmap(tensor, drawn, options);
    canvas.width = drawn.width;
    canvas.height = drawn.height;
    const context = canvas.getContext('2d');
    context.drawImage(drawn, 0, 0);
    // The picture is opaque; a GPU canvas that could not be handed over (its instance dropped as it was
    // presented) copies as transparent, and is then painted from the values like any other failure.
    if (context.getImageData(0, 0, 1, 1).data[3] !== 255) throw new Error('the WebGPU picture did not reach the canvas');
    return colormap(options.colormap ?? 'RdBu', options.range);
  } catch {
    const { data, shape } = await tensor.read();
    const [rows, columns] = shape.slice(-2);
    const first = (options.index ?? 0) * rows * columns;
    return drawHeatmap(canvas, { data: data.subarray(first, first + rows * columns), shape: [rows, columns] }, options);
  }
}
