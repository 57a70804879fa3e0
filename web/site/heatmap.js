// Paints a [rows, columns] tensor onto a canvas, one canvas pixel per cell; CSS scales it up with
// `image-rendering: pixelated`, so cells stay crisp squares and pixel (column, row) is cell (row, column).
import { colormap } from './colormap.js';

export function valueRange(data) {
  let min = Infinity;
  let max = -Infinity;
  for (const v of data) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { min, max };
}

export function drawHeatmap(canvas, tensor, { colormap: name = 'RdBu', range = valueRange(tensor.data) } = {}) {
  const [rows, columns] = tensor.shape;
  canvas.width = columns;
  canvas.height = rows;
  const map = colormap(name, range);
  const context = canvas.getContext('2d');
  const image = context.createImageData(columns, rows);
  const pixels = image.data;
  for (let i = 0; i < rows * columns; i++) {
    const c = map.index(tensor.data[i]) * 3;
    pixels[4 * i] = map.rgb[c];
    pixels[4 * i + 1] = map.rgb[c + 1];
    pixels[4 * i + 2] = map.rgb[c + 2];
    pixels[4 * i + 3] = 255;
  }
  context.putImageData(image, 0, 0);
  return map;
}
