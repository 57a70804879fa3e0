// Paints a [rows, columns] tensor onto a canvas, one canvas pixel per cell; CSS scales it up with
// `image-rendering: pixelated`, so cells stay crisp squares and pixel (column, row) is cell (row, column).
import { heatmapPixels, valueRange } from '../lib/colormap.js';

export { valueRange };

export function drawHeatmap(canvas, tensor, options = {}) {
  const { pixels, width, height, map } = heatmapPixels(tensor, options);
  canvas.width = width;
  canvas.height = height;
  canvas.getContext('2d').putImageData(new ImageData(pixels, width, height), 0, 0);
  return map;
}
