// A heatmap framed as SVG text, without a DOM (the command line's figures): a title, the cells as one embedded PNG
// image already at their drawn size (no viewer has to scale it, so cells stay crisp in any renderer), axes with
// ticks and labels, a colour bar that says which colour is negative, and the caption wrapped to the figure's width,
// in the figure layer's proportions (components/figure.js draws the same frame in a page) and its colours for the
// scheme asked for (components/theme.js).
import { scaleBand, scaleLinear, ticks } from './vendor/plotting.js';
import { MASKED, colormap, colourWords } from './colormap.js';
import { THEME_PROPERTIES } from './components/theme.js';

// The page behind the figure in each scheme (an element's is the page's own).
const BACKGROUND = { light: '#ffffff', dark: '#16191d' };
// A generous width of one character, as a fraction of the font size (the widest lines are words, not digits).
const CHARACTER_WIDTH = 0.6;

const escape = (text) => String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

// Ticks for n categories over `length` px: every one where they fit, else round ones.
function categoryTicks(n, length, room) {
  if (n * room <= length) return Array.from({ length: n }, (_, i) => i);
  return ticks(0, n - 1, Math.max(2, Math.floor(length / (room * 2.5)))).filter(Number.isInteger);
}

// Words wrapped to at most `width` characters a line.
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

// The text size that reads at the figure's size: 12 px up to 720 px wide, growing with it.
export const fontSizeFor = (plotWidth) => Math.max(12, Math.min(32, Math.round(plotWidth / 60)));

// figure: encodingFigure's result ({ tensor, x, y, colour, caption }, labels and caption as wanted); cellsPng: the
// cells' PNG at `cell` pixels a cell (base64); colormap and range: the colours the cells were painted with; title;
// theme: 'light' | 'dark'; font: a font family; fontSize: px of the axis titles (ticks a little smaller).
export function framedHeatmapSvg(figure, cellsPng, { cell, colormap: colormapName, range, title = '', theme = 'light', font = 'system-ui, sans-serif', fontSize }) {
  const [rows, columns] = figure.tensor.shape;
  const [width, height] = [columns * cell, rows * cell];
  const size = fontSize ?? fontSizeFor(width);
  const tickSize = Math.round(size * 0.9);
  const ink = THEME_PROPERTIES.ink[theme === 'dark' ? 1 : 0];
  const muted = THEME_PROPERTIES.muted[theme === 'dark' ? 1 : 0];
  const nameOf = (names) => (typeof names === 'function' ? names : names ? (i) => names[i] : (i) => String(i));
  const rowNames = nameOf(figure.y.names);
  let widestRow = 0;
  for (let r = 0; r < rows; r += Math.max(1, Math.floor(rows / 50))) widestRow = Math.max(widestRow, String(rowNames(r)).length);
  const margin = {
    top: title ? Math.round(size * 2.2) : 10, right: 16,
    bottom: Math.round(tickSize * 1.6 + size * 2.2), left: Math.round(Math.max(58, widestRow * tickSize * CHARACTER_WIDTH + size * 2.5)),
  };
  const x = scaleBand().domain(Array.from({ length: columns }, (_, i) => i)).range([0, width]);
  const y = scaleBand().domain(Array.from({ length: rows }, (_, i) => i)).range([0, height]);
  const parts = [];
  const family = `font-family="${escape(font)}"`;
  const text = (tx, ty, content, attributes = '', px = tickSize, colour = ink) => parts.push(`<text x="${tx}" y="${ty}" ${family} font-size="${px}" fill="${colour}" ${attributes}>${escape(content)}</text>`);
  const [left, top, bottom] = [margin.left, margin.top, margin.top + height];
  if (title) text(4, Math.round(size * 1.4), title, 'font-weight="600"', Math.round(size * 1.15));
  parts.push(`<image x="${left}" y="${top}" width="${width}" height="${height}" preserveAspectRatio="none" style="image-rendering:pixelated" image-rendering="optimizeSpeed" href="data:image/png;base64,${cellsPng}"/>`);
  // Axes: a line with ticks and their labels, and each axis's title.
  parts.push(`<path d="M${left},${bottom + 6}V${bottom}H${left + width}V${bottom + 6}M${left - 6},${top}H${left}V${bottom}H${left - 6}" fill="none" stroke="${ink}"/>`);
  for (const i of categoryTicks(columns, width, Math.max(28, tickSize * 2.5))) {
    const at = left + x(i) + x.bandwidth() / 2;
    parts.push(`<line x1="${at}" x2="${at}" y1="${bottom}" y2="${bottom + 6}" stroke="${ink}"/>`);
    text(at, bottom + 6 + tickSize * 1.1, nameOf(figure.x.names)(i), 'text-anchor="middle"');
  }
  for (const i of categoryTicks(rows, height, tickSize * 1.3)) {
    const at = top + y(i) + y.bandwidth() / 2;
    parts.push(`<line x1="${left - 6}" x2="${left}" y1="${at}" y2="${at}" stroke="${ink}"/>`);
    text(left - 9, at + tickSize * 0.35, rowNames(i), 'text-anchor="end"');
  }
  text(left + width / 2, bottom + 6 + tickSize * 1.4 + size * 1.2, figure.x.label, 'text-anchor="middle"', size);
  text(size, top + height / 2, figure.y.label, `text-anchor="middle" transform="rotate(-90 ${size} ${top + height / 2})"`, size);
  // The colour bar: the colours over the range, ticks, and which colour means what.
  const map = colormap(colormapName, range);
  const barWidth = Math.min(width, Math.max(320, size * 26));
  const barTop = bottom + margin.bottom + 8;
  const stops = Array.from({ length: 17 }, (_, i) => `<stop offset="${(i / 16) * 100}%" stop-color="${map.css(map.low + (map.span * i) / 16)}"/>`).join('');
  parts.push(`<defs><linearGradient id="ramp">${stops}</linearGradient></defs>`, `<rect x="${left}" y="${barTop}" width="${barWidth}" height="${Math.round(size)}" fill="url(#ramp)" stroke="#0004"/>`);
  const scale = scaleLinear().domain([map.low, map.low + map.span]).range([left, left + barWidth]);
  const barBottom = barTop + Math.round(size);
  for (const value of scale.ticks(Math.max(2, Math.floor(barWidth / (tickSize * 5))))) {
    parts.push(`<line x1="${scale(value)}" x2="${scale(value)}" y1="${barBottom}" y2="${barBottom + 6}" stroke="${ink}"/>`);
    text(scale(value), barBottom + 6 + tickSize * 1.1, Number(value.toPrecision(6)), 'text-anchor="middle"');
  }
  const masked = figure.tensor.data.some((v) => !Number.isFinite(v)) ? `; ${MASKED.word} = ${figure.colour?.missing ?? 'masked'}` : '';
  const words = `${figure.colour?.label ? `${figure.colour.label}: ` : ''}${colourWords(colormapName)}${masked}`;
  const wordsAt = barBottom + 6 + tickSize * 1.4 + size * 1.3;
  text(left, wordsAt, words, '', size);
  // The caption, wrapped to the figure's width (at least 40 characters, at most a readable 100).
  const captionWidth = Math.max(left + width, left + barWidth);
  const perLine = Math.max(40, Math.min(100, Math.floor(captionWidth / (size * CHARACTER_WIDTH))));
  const lines = wrap(figure.caption ?? '', perLine);
  const lineHeight = Math.round(size * 1.45);
  const captionTop = wordsAt + size * 1.2;
  lines.forEach((line, i) => text(4, captionTop + (i + 1) * lineHeight, line, '', size, muted));
  const longest = lines.reduce((most, line) => Math.max(most, line.length), 0);
  const totalWidth = Math.ceil(Math.max(left + width + margin.right, left + barWidth + 20, left + words.length * size * CHARACTER_WIDTH + 8,
    4 + longest * size * CHARACTER_WIDTH + 8, title.length * size * 1.15 * CHARACTER_WIDTH + 8));
  const totalHeight = Math.ceil(captionTop + lines.length * lineHeight + lineHeight * 0.6);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${totalWidth}" height="${totalHeight}" viewBox="0 0 ${totalWidth} ${totalHeight}">\n`
    + `<rect width="100%" height="100%" fill="${BACKGROUND[theme]}"/>\n${parts.join('\n')}\n</svg>\n`;
}
