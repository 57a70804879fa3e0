// A heatmap framed as SVG text, without a DOM (the command line's figures): the cells as one embedded PNG image,
// axes with ticks and labels, a colour bar that says which colour is negative, and the caption, in the figure
// layer's proportions (components/figure.js draws the same frame in a page).
import { scaleBand, scaleLinear, ticks } from './vendor/plotting.js';
import { colormap, colourWords } from './colormap.js';

const MARGIN = { top: 10, right: 16, bottom: 42, left: 58 };
const FONT = 'font-family="system-ui, sans-serif"';
// A generous width of one character at font-size 12 (the widest lines are words, not digits).
const CHARACTER_WIDTH = 7;
const INK = '#1d232a';
const MUTED = '#5b6672';

const escape = (text) => String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

// Ticks for n categories over `length` px: every one where they fit, else round ones.
function categoryTicks(n, length, across) {
  const room = across ? 28 : 14;
  if (n * room <= length) return Array.from({ length: n }, (_, i) => i);
  return ticks(0, n - 1, Math.max(2, Math.floor(length / 60))).filter(Number.isInteger);
}

// Words wrapped to about `width` characters a line.
function wrap(text, width) {
  const lines = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return line ? [...lines, line] : lines;
}

// figure: encodingFigure's result ({ tensor, x, y, colour, caption }); cellsPng: the cells' PNG (one pixel a cell,
// base64); cell: pixels per cell; colormapName and range: the colours the cells were painted with.
export function framedHeatmapSvg(figure, cellsPng, { cell, colormap: colormapName, range }) {
  const [rows, columns] = figure.tensor.shape;
  const [width, height] = [columns * cell, rows * cell];
  const nameOf = (names) => (typeof names === 'function' ? names : names ? (i) => names[i] : (i) => String(i));
  const x = scaleBand().domain(Array.from({ length: columns }, (_, i) => i)).range([0, width]);
  const y = scaleBand().domain(Array.from({ length: rows }, (_, i) => i)).range([0, height]);
  const parts = [];
  const text = (tx, ty, content, attributes = '', size = 11) => parts.push(`<text x="${tx}" y="${ty}" ${FONT} font-size="${size}" fill="${INK}" ${attributes}>${escape(content)}</text>`);
  parts.push(`<image x="${MARGIN.left}" y="${MARGIN.top}" width="${width}" height="${height}" preserveAspectRatio="none" style="image-rendering:pixelated" href="data:image/png;base64,${cellsPng}"/>`);
  // Axes: a line with ticks and their labels, and each axis's title.
  const [left, top, bottom] = [MARGIN.left, MARGIN.top, MARGIN.top + height];
  parts.push(`<path d="M${left},${bottom + 6}V${bottom}H${left + width}V${bottom + 6}M${left - 6},${top}H${left}V${bottom}H${left - 6}" fill="none" stroke="${INK}"/>`);
  for (const i of categoryTicks(columns, width, true)) {
    const at = left + x(i) + x.bandwidth() / 2;
    parts.push(`<line x1="${at}" x2="${at}" y1="${bottom}" y2="${bottom + 6}" stroke="${INK}"/>`);
    text(at, bottom + 18, nameOf(figure.x.names)(i), 'text-anchor="middle"');
  }
  for (const i of categoryTicks(rows, height, false)) {
    const at = top + y(i) + y.bandwidth() / 2;
    parts.push(`<line x1="${left - 6}" x2="${left}" y1="${at}" y2="${at}" stroke="${INK}"/>`);
    text(left - 9, at + 4, nameOf(figure.y.names)(i), 'text-anchor="end"');
  }
  text(left + width / 2, bottom + 36, figure.x.label, 'text-anchor="middle"', 12);
  text(12, top + height / 2, figure.y.label, `text-anchor="middle" transform="rotate(-90 12 ${top + height / 2})"`, 12);
  // The colour bar: the colours over the range, ticks, and which colour means what.
  const map = colormap(colormapName, range);
  const barWidth = Math.min(width, 320);
  const barTop = bottom + MARGIN.bottom + 8;
  const stops = Array.from({ length: 17 }, (_, i) => `<stop offset="${(i / 16) * 100}%" stop-color="${map.css(map.low + (map.span * i) / 16)}"/>`).join('');
  parts.push(`<defs><linearGradient id="ramp">${stops}</linearGradient></defs>`, `<rect x="${left}" y="${barTop}" width="${barWidth}" height="12" fill="url(#ramp)" stroke="#0004"/>`);
  const scale = scaleLinear().domain([map.low, map.low + map.span]).range([left, left + barWidth]);
  for (const value of scale.ticks(Math.max(2, Math.floor(barWidth / 60)))) {
    parts.push(`<line x1="${scale(value)}" x2="${scale(value)}" y1="${barTop + 12}" y2="${barTop + 18}" stroke="${INK}"/>`);
    text(scale(value), barTop + 30, Number(value.toPrecision(6)), 'text-anchor="middle"');
  }
  const words = `${figure.colour?.label ? `${figure.colour.label}: ` : ''}${colourWords(colormapName)}`;
  text(left, barTop + 48, words, '', 12);
  // The caption, wrapped.
  const lines = wrap(figure.caption ?? '', Math.max(40, Math.floor((width + left) / CHARACTER_WIDTH)));
  lines.forEach((line, i) => parts.push(`<text x="4" y="${barTop + 76 + i * 17}" ${FONT} font-size="13" fill="${MUTED}">${escape(line)}</text>`));
  const totalWidth = Math.ceil(Math.max(left + width + MARGIN.right, left + barWidth + 20, left + words.length * CHARACTER_WIDTH + 8,
    4 + lines.reduce((longest, line) => Math.max(longest, line.length), 0) * CHARACTER_WIDTH + 8));
  const totalHeight = Math.ceil(barTop + 76 + lines.length * 17);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${totalWidth}" height="${totalHeight}" viewBox="0 0 ${totalWidth} ${totalHeight}">\n${parts.join('\n')}\n</svg>\n`;
}
