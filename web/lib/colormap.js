// Colormaps as lookup tables from d3-scale-chromatic, for painting many cells quickly.
import { interpolateRdBu, interpolateViridis, rgb as parseColour } from './vendor/colors.js';

// Odd size, so that the middle entry is exactly the scheme's centre (t = 0.5): zero is neutral.
const STEPS = 255;

function table(interpolate) {
  const rgb = new Uint8Array(STEPS * 3);
  for (let i = 0; i < STEPS; i++) {
    const { r, g, b } = parseColour(interpolate(i / (STEPS - 1)));  // schemes give rgb() or hex strings
    rgb.set([r, g, b], i * 3);
  }
  return rgb;
}

export const COLORMAPS = {
  // ends: the colours at the low and the high end, in words, for colour bars.
  RdBu: { interpolate: interpolateRdBu, diverging: true, ends: ['red', 'blue'] },
  viridis: { interpolate: interpolateViridis, diverging: false, ends: ['dark purple', 'yellow'] },
};
const tables = new Map();

// Masked cells (non-finite values: attention a query may not pay, rows a table lacks): a grey apart from every
// colour map's colours and from both a light and a dark page behind the figure (contrast 3.3 on white, 6 on
// near-black).
export const MASKED = { rgb: [138, 143, 150], word: 'grey' };

// Which colour means what, in words: "red = negative, white = 0, blue = positive".
export function colourWords(name) {
  const { ends, diverging } = COLORMAPS[name];
  return diverging ? `${ends[0]} = negative, white = 0, ${ends[1]} = positive` : `${ends[0]} = low, ${ends[1]} = high`;
}

// The index of a value's colour among the STEPS of a map spanning [low, low + span], the ends held.
const colourStep = (value, low, span) => Math.min(STEPS - 1, Math.max(0, Math.round(((value - low) / span) * (STEPS - 1))));

// A function from a value in [-limit, limit] (diverging) or [min, max] to the index of its colour.
export function colormap(name, { min, max }) {
  const scheme = COLORMAPS[name];
  if (!scheme) throw new RangeError(`colormap must be one of ${Object.keys(COLORMAPS).join(', ')}, got '${name}'`);
  if (!tables.has(name)) tables.set(name, table(scheme.interpolate));
  const rgb = tables.get(name);
  const limit = Math.max(Math.abs(min), Math.abs(max)) || 1;
  const low = scheme.diverging ? -limit : min;
  const span = (scheme.diverging ? 2 * limit : max - min) || 1;
  return {
    rgb,
    low,
    span,
    steps: STEPS,
    index: (value) => colourStep(value, low, span),
    css: (value) => scheme.interpolate(Math.min(1, Math.max(0, (value - low) / span))),
  };
}

// The range of data's finite values (masked cells, NaN or −Infinity, are left out where they lie, with no copy of a
// million-cell table); { min: Infinity, max: -Infinity } where none is finite.
export function valueRange(data) {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (!Number.isFinite(v)) continue;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { min, max };
}

// RGBA pixels of a [rows, columns] tensor, one pixel per cell, each cell `cellSize` pixels wide and high:
// the picture the site's canvases and the command line's figures share. Non-finite values (masked
// attention) are MASKED's grey.
export function heatmapPixels(tensor, { colormap: name = 'RdBu', range = valueRange(tensor.data), cellSize = 1 } = {}) {
  const [rows, columns] = tensor.shape;
  const map = colormap(name, range);
  const width = columns * cellSize;
  const pixels = new Uint8ClampedArray(width * rows * cellSize * 4);
  // One 32-bit store per pixel (a million-cell table is painted on the page's thread).
  const out = new Uint32Array(pixels.buffer);
  const colours = packedColours(map.rgb);
  const masked = packedColour(MASKED.rgb, 0);
  const { data } = tensor;
  const { low, span } = map;
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      const value = data[row * columns + column];
      const colour = Number.isFinite(value) ? colours[colourStep(value, low, span)] : masked;
      if (cellSize === 1) {
        out[row * width + column] = colour;
      } else {
        for (let dy = 0; dy < cellSize; dy++) {
          const start = (row * cellSize + dy) * width + column * cellSize;
          for (let dx = 0; dx < cellSize; dx++) out[start + dx] = colour;
        }
      }
    }
  }
  return { pixels, width, height: rows * cellSize, map };
}

// An opaque pixel of rgb[at…at + 2] as a 32-bit word that lays out as RGBA bytes (little-endian, as on every
// platform the web and Node run on; heatmap.js reads pixels the same way).
const packedColour = (rgb, at) => ((255 << 24) | (rgb[at + 2] << 16) | (rgb[at + 1] << 8) | rgb[at]) >>> 0;
const packedTables = new WeakMap();  // a colour table → its colours packed
function packedColours(rgb) {
  if (!packedTables.has(rgb)) packedTables.set(rgb, Uint32Array.from({ length: rgb.length / 3 }, (_, i) => packedColour(rgb, 3 * i)));
  return packedTables.get(rgb);
}
