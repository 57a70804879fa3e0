// The figure layer: every figure of the site and of the components is framed here the same way: axes with ticks
// and labels (d3-scale, d3-axis), a colour bar that says which colour is negative, a legend with swatches, a
// caption saying what to notice, an accessible name, and a keyboard readout (arrow keys move a cursor whose value
// is read out; the readout is spoken for keys, never for mouse moves). Heatmap cells are painted on a canvas, one
// pixel per cell scaled up crisp, under an SVG that carries the axes; lines, points and bars are SVG.
import { axisBottom, axisLeft, create, line, scaleBand, scaleLinear, scaleLog, ticks } from '../vendor/plotting.js';
import { MASKED, colormap, colourWords, valueRange } from '../colormap.js';
import { drawHeatmap } from './heatmap.js';
import { followPageScheme } from './scheme.js';
import { THEME_STYLE } from './theme.js';

// Told apart by hue and by lightness (and readable on white).
export const SERIES_COLOURS = ['#1f5fbf', '#d1495b', '#2a9d8f', '#e08a00', '#6a4c93', '#5b6672', '#7a9a3a', '#8c564b', '#b5446e', '#9c7c00'];

const PATH_COLOUR = '#aab2bb';
const AXIS_MARGIN = { top: 10, right: 16, bottom: 42, left: 58 };
const BARE_MARGIN = { top: 2, right: 2, bottom: 2, left: 2 };
const MAX_HEIGHT = 420;
const MAX_CELL = 40;
const CHARACTER_WIDTH = 7;  // px of an 11-px tick label's character, for spacing category labels
const FEW_ROWS = 40;         // a heatmap of at most this many named rows (tokens) gives each a line's height
const MIN_ROW_HEIGHT = 13;

export const FIGURE_STYLE = `${THEME_STYLE}
  .pe-figure { margin: 0.75rem 0; max-width: 100%; font-family: var(--posembed-font);
               color: var(--pe-theme-ink); }
  .pe-figure { position: relative; }
  .pe-figure.stale .pe-plot { opacity: 0.45; transition: opacity 0.15s; }
  .pe-status { position: absolute; z-index: 2; margin: 0; padding: 0.15rem 0.5rem; font-size: 0.8rem; border-radius: 4px;
               background: var(--pe-theme-surface-strong); border: 1px solid var(--pe-theme-status-border); color: var(--pe-theme-ink); }
  .pe-status[hidden] { display: none; }
  .pe-title { font-weight: 600; font-size: 0.9rem; margin: 0 0 0.2rem; }
  .pe-plot { position: relative; max-width: 100%; }
  .pe-plot:focus-visible { outline: 3px solid var(--pe-theme-accent); outline-offset: 3px; }
  .pe-plot svg { display: block; overflow: visible; position: relative; z-index: 1; pointer-events: none; }
  .pe-plot canvas { position: absolute; image-rendering: pixelated; image-rendering: crisp-edges; }
  .pe-plot text, .pe-colourbar text { fill: var(--pe-theme-ink); }
  .pe-plot .domain, .pe-plot .tick line, .pe-colourbar .domain, .pe-colourbar .tick line { stroke: var(--pe-theme-ink); }
  .pe-plot .tick text, .pe-colourbar .tick text { font-size: 11px; }
  .pe-axis-label { font-size: 12px; }
  .pe-cursor { fill: none; stroke: var(--pe-theme-cursor); stroke-width: 1.5; pointer-events: none; }
  .pe-cursor-halo { fill: none; stroke: var(--pe-theme-cursor-halo); stroke-width: 4; pointer-events: none; }
  .pe-legend { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; font-size: 0.8rem; margin-top: 0.3rem; align-items: center; }
  .pe-swatch { display: inline-block; width: 1.4em; height: 0.8em; margin-right: 0.35em; vertical-align: middle;
               border: 1px solid #0003; }
  .pe-swatch.line { height: 0; border: 0; border-top: 3px solid; }
  .pe-swatch.dashed { border-top-style: dashed; }
  .pe-colourbar { font-size: 0.8rem; margin-top: 0.3rem; display: flex; flex-wrap: wrap; align-items: flex-start; column-gap: 0.75rem; }
  .pe-colourbar svg { display: block; overflow: visible; }
  .pe-figure figcaption { font-size: 0.85rem; color: var(--pe-theme-muted); margin-top: 0.3rem; max-width: 70ch; }
  .pe-readout { font-family: var(--posembed-mono, ui-monospace, monospace); font-size: 0.8rem; min-height: 1.3em; margin: 0.2rem 0;
                white-space: pre-wrap; overflow-wrap: anywhere; }
  .pe-error { color: var(--pe-theme-error); font-weight: 600; margin: 0.2rem 0; }
  /* The cursor and its readout show while the reader points at or is in the figure (a tap focuses it), and keep
     their room while hidden, so nothing moves: a figure at rest is only its picture. */
  .pe-figure:not(:hover):not(:focus-within):not(.pe-linked) :is(.pe-readout, .pe-cursor, .pe-cursor-halo) { visibility: hidden; }
`;

let sheet = null;
// Gives the figure's document or shadow root the figure styles once (a constructed sheet: a strict CSP allows it).
function adoptFigureStyle(root) {
  if (!root.adoptedStyleSheets) return;
  sheet ??= new CSSStyleSheet();
  if (!sheet.cssRules.length) sheet.replaceSync(FIGURE_STYLE);
  if (!root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
}

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  node.append(...children);
  return node;
}

// Where each point's label goes: beside it, or, where labels would overprint (points close together), a line or
// more above or below, or on its left, with a leader line back to the point. Greedy, from the top of the plot.
const LABEL_HEIGHT = 15;  // a 12 px label's box, descenders included
const LABEL_CHARACTER_WIDTH = 7.5;
const LABEL_SHIFTS = [0, 1, -1, 2, -2, 3, -3, 4, -4];
function placeLabels(points) {
  const placed = [];
  const overlaps = (box) => placed.some((other) => box.left < other.right && other.left < box.right && box.top < other.bottom && other.top < box.bottom);
  return [...points].sort((a, b) => a.y - b.y).map((point) => {
    const width = point.label.length * LABEL_CHARACTER_WIDTH;
    let best = null;
    for (const anchor of ['start', 'end']) {
      for (const shift of LABEL_SHIFTS) {
        const labelX = anchor === 'start' ? point.x + 6 : point.x - 6;
        const labelY = point.y + 4 + shift * LABEL_HEIGHT;
        const left = anchor === 'start' ? labelX : labelX - width;
        const box = { left, right: left + width, top: labelY - LABEL_HEIGHT + 3, bottom: labelY + 3 };
        if (!overlaps(box)) {
          best = { point, labelX, labelY, anchor, moved: shift !== 0, box };
          break;
        }
      }
      if (best) break;
    }
    best ??= { point, labelX: point.x + 6, labelY: point.y + 4, anchor: 'start', moved: false, box: null };
    if (best.box) placed.push(best.box);
    return best;
  });
}

export function formatValue(value) {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'missing' : String(value).replace('Infinity', '∞');
  if (Number.isInteger(value)) return String(value);
  const magnitude = Math.abs(value);
  return magnitude !== 0 && (magnitude < 1e-3 || magnitude >= 1e6) ? value.toExponential(3) : value.toFixed(4);
}


// Index ticks for n categories drawn `length` px long: all of them when their labels fit (`across`: side by
// side, as on an x axis), else round ones.
function categoryTicks(n, length, name, across) {
  let widest = 1;
  for (let i = 0; i < n && across; i++) widest = Math.max(widest, String(name(i)).length);
  const room = across ? widest * CHARACTER_WIDTH + 6 : 13;
  if (n * room <= length) return Array.from({ length: n }, (_, i) => i);
  return ticks(0, n - 1, Math.max(2, Math.floor(length / Math.max(50, room * 2)))).filter((t) => Number.isInteger(t));
}

// A colour bar for a colormap over its range, width px long, with ticks and the colours in words. colour: { label,
// missing: what a NaN cell means (default 'masked') }; hasMissing adds "grey = …".
export function colourBar(map, name, width, { label, missing = 'masked' } = {}, hasMissing = false) {
  const id = `pe-ramp-${Math.random().toString(36).slice(2)}`;
  const holder = element('div', { class: 'pe-colourbar' });
  const svg = create('svg').attr('width', width + 24).attr('height', 34).attr('role', 'img')
    .attr('aria-label', `Colour scale from ${formatValue(map.low)} to ${formatValue(map.low + map.span)}: ${colourWords(name)}`);
  const gradient = svg.append('defs').append('linearGradient').attr('id', id);
  for (let i = 0; i <= 16; i++) {
    gradient.append('stop').attr('offset', `${(i / 16) * 100}%`).attr('stop-color', map.css(map.low + (map.span * i) / 16));
  }
  const g = svg.append('g').attr('transform', 'translate(12,0)');
  g.append('rect').attr('width', width).attr('height', 12).attr('fill', `url(#${id})`).attr('stroke', '#0004');
  const scale = scaleLinear().domain([map.low, map.low + map.span]).range([0, width]);
  g.append('g').attr('transform', 'translate(0,12)').call(axisBottom(scale).ticks(Math.max(2, Math.floor(width / 60))));
  holder.append(svg.node(), element('span', {}, `${label ? `${label}: ` : ''}${colourWords(name)}${hasMissing ? `; ${MASKED.word} = ${missing}` : ''}`));
  return holder;
}


// A figure: <figure> with a title, the plot (focusable, named, with a keyboard cursor), a colour bar or legend,
// the readout, an error line and the caption. Draw with heatmap(), lines(), points() or bars(); each redraws
// the whole figure, and the layout follows the width it is given (a phone's too).
export { colourWords };

const FIGURES = new WeakMap();  // <figure> -> its Figure
// The Figure drawn in a <figure class="pe-figure"> element.
export const figureOf = (element) => FIGURES.get(element) ?? null;

export class Figure {
  #redraw = null;
  #width = 0;
  #cursor = 0;
  #cursorCount = 0;
  #moveCursor = null;
  #describe = null;

  // readout: an element of the page to write the readout into, instead of the figure's own.
  constructor(parent, { label, title = '', caption = '', axes = true, legend = true, maxHeight = MAX_HEIGHT, readout } = {}) {
    adoptFigureStyle(parent.getRootNode());
    this.label = label;
    this.axes = axes;
    this.legend = legend;
    this.maxHeight = maxHeight;
    this.titleLine = element('p', { class: 'pe-title', part: 'title' }, title);
    this.titleLine.hidden = !title;
    this.plot = element('div', { class: 'pe-plot', tabindex: '0', role: 'img', part: 'plot', 'aria-label': `${label}: not drawn yet` });
    this.legendBox = element('div', { class: 'pe-legend', part: 'legend' });
    this.readout = readout ?? element('p', { class: 'pe-readout', part: 'readout' });
    this.readout.setAttribute('aria-live', 'off');
    this.errorLine = element('p', { class: 'pe-error', role: 'alert', part: 'error' });
    this.status = element('p', { class: 'pe-status', part: 'status' }, 'Computing…');
    this.status.hidden = true;
    this.errorLine.hidden = true;
    this.captionBox = element('figcaption', { part: 'caption' }, caption);
    this.element = element('figure', { class: 'pe-figure', part: 'figure' },
      this.titleLine, this.status, this.plot, this.legendBox, ...(readout ? [] : [this.readout]), this.errorLine, this.captionBox);
    FIGURES.set(this.element, this);
    parent.append(this.element);
    // In an element, the element follows the page; a figure in the page itself follows it on its own.
    if (!(parent.getRootNode() instanceof ShadowRoot)) followPageScheme(this.element);
    this.plot.addEventListener('keydown', (event) => this.#key(event));
    this.plot.addEventListener('pointermove', (event) => this.#point(event));
    if (typeof ResizeObserver === 'function') {
      new ResizeObserver(() => {
        const width = this.#availableWidth();
        if (this.#redraw && Math.abs(width - this.#width) > 4) this.#redraw();
      }).observe(this.element);
    }
  }

  set caption(text) { this.captionBox.textContent = text; }
  set title(text) { this.titleLine.textContent = text; this.titleLine.hidden = !text; }

  // Marks the figure as being recomputed: dimmed, with "Computing…" (the element's word for it, element.strings;
  // or why it waits) over it, until the next draw.
  stale(on = true, message = this.#computingWord()) {
    this.element.classList.toggle('stale', on);
    this.status.textContent = message;
    this.status.hidden = !on;
  }

  // (Not an optional call in the parameter's default: esbuild's lowering of one there, for older targets, reads a
  // variable outside its scope: VitePress's build broke on it.)
  #computingWord() {
    const host = this.element.getRootNode().host;
    return typeof host?.word === 'function' ? host.word('computing') : 'Computing…';
  }

  // An error next to the figure; the last picture stays, dimmed.
  error(message) {
    this.errorLine.textContent = message;
    this.errorLine.hidden = !message;
    if (message) this.element.classList.add('stale');
    this.status.hidden = true;
  }

  #availableWidth() {
    return Math.floor(this.element.clientWidth || this.element.parentElement?.clientWidth || 640);
  }

  // Room beyond the usual margins, set by a drawing whose labels need it: slanted category labels below, long row
  // names to the left (so the axis title never sits on them).
  #extraBottom = 0;
  #extraLeft = 0;

  #margin() {
    return this.axes ? { ...AXIS_MARGIN, bottom: AXIS_MARGIN.bottom + this.#extraBottom, left: AXIS_MARGIN.left + this.#extraLeft } : BARE_MARGIN;
  }

  #begin(kind, redraw) {
    this.#redraw = redraw;
    this.#extraBottom = 0;
    this.#extraLeft = 0;
    this.#width = this.#availableWidth();
    this.errorLine.hidden = true;
    this.stale(false);
    this.plot.replaceChildren();
    this.legendBox.replaceChildren();
    this.legendBox.hidden = !this.legend;
    this.element.dataset.kind = kind;
    this.plot.setAttribute('aria-label', `${this.label}. Arrow keys move the cursor and read values.`);
    return this.#width;
  }

  #svg(width, height) {
    const margin = this.#margin();
    const svg = create('svg').attr('width', width + margin.left + margin.right).attr('height', height + margin.top + margin.bottom)
      .attr('aria-hidden', 'true');
    this.plot.style.width = `${width + margin.left + margin.right}px`;
    this.plot.append(svg.node());
    return svg.append('g').attr('transform', `translate(${margin.left},${margin.top})`);
  }

  #axes(g, x, y, width, height, { x: xAxis = {}, y: yAxis = {} }, xFormat, yFormat, xTickValues, yTickValues) {
    if (!this.axes) return;
    const margin = this.#margin();
    const bottom = axisBottom(x).ticks(Math.max(2, Math.floor(width / 70)));
    if (xTickValues) bottom.tickValues(xTickValues);
    if (xFormat) bottom.tickFormat(xFormat);
    const left = axisLeft(y).ticks(Math.max(2, Math.floor(height / 40)));
    if (yTickValues) left.tickValues(yTickValues);
    if (yFormat) left.tickFormat(yFormat);
    const xTicks = g.append('g').attr('transform', `translate(0,${height})`).call(bottom);
    if (xAxis.slanted) xTicks.selectAll('.tick text').attr('text-anchor', 'end').attr('dx', '-0.5em').attr('dy', '0.2em').attr('transform', 'rotate(-45)');
    g.append('g').call(left);
    g.append('text').attr('class', 'pe-axis-label').attr('x', width / 2).attr('y', height + margin.bottom - 6)
      .attr('text-anchor', 'middle').text(xAxis.label ?? '');
    g.append('text').attr('class', 'pe-axis-label').attr('transform', `translate(${-margin.left + 12},${height / 2}) rotate(-90)`)
      .attr('text-anchor', 'middle').text(yAxis.label ?? '');
  }

  // A drawing's cursor: count places, move (draws the mark at one), describe (the readout's words), where (the
  // place in the data's terms: { row, column, value } of a heatmap, { index, x, … } of lines, points and bars) and
  // locate (back from those terms to a place).
  #setCursor({ count, move, describe, where, locate }) {
    this.#cursorCount = count;
    this.#cursor = Math.min(this.#cursor, Math.max(0, count - 1));
    this.#moveCursor = move;
    this.#describe = describe;
    this.#where = where;
    this.#locate = locate;
  }

  #where = null;
  #locate = null;
  #told = null;  // the place last told in a 'cursor' event

  // The readout speaks (aria-live polite) only for keyboard moves. byReader: a person moved the cursor (not a
  // redraw), which describe may use to fetch what it shows only once someone looks. A move by the reader is told
  // as a 'cursor' event on the figure (bubbling; an element passes it on from its host), in the data's terms.
  #show(index, spoken, byReader = true) {
    this.#cursor = index;
    this.#moveCursor?.(index);
    this.readout.setAttribute('aria-live', spoken ? 'polite' : 'off');
    this.readout.textContent = this.#describe?.(index, byReader) ?? '';
    if (byReader && this.#where && index !== this.#told) {
      this.#told = index;
      this.element.classList.remove('pe-linked');
      this.element.dispatchEvent(new CustomEvent('cursor', { bubbles: true, detail: this.#where(index) }));
    }
  }

  // Where the cursor is, in the data's terms (null before a drawing).
  get cursorAt() { return this.#cursorCount && this.#where ? this.#where(this.#cursor) : null; }

  // Puts the cursor where `at` says, in the data's terms ({ row, column } or { index }, or { x } on lines; a term left
  // out keeps its place), and shows it while the reader is elsewhere: another figure can drive this one.
  setCursor(at) {
    if (!this.#cursorCount || !this.#locate) return;
    const index = this.#locate(at ?? {});
    if (!Number.isInteger(index)) return;
    this.element.classList.add('pe-linked');
    this.#show(Math.min(this.#cursorCount - 1, Math.max(0, index)), false, false);
  }

  #key(event) {
    if (!this.#cursorCount) return;
    const step = this.#keyStep?.(event.key, event.shiftKey);
    if (step === undefined) return;
    event.preventDefault();
    this.#show(Math.min(this.#cursorCount - 1, Math.max(0, step)), true);
  }

  #keyStep = null;
  #pointToIndex = null;

  // Keys for a cursor that walks a list of count items: left/right (and up/down, upDown), Shift for `far` at a
  // time, Home and End.
  #listKeys(count, { far = 1, upDown = false } = {}) {
    return (key, shift) => {
      const step = shift ? far : 1;
      const moves = { ArrowLeft: -step, ArrowRight: step, ...(upDown ? { ArrowUp: -step, ArrowDown: step } : {}) };
      if (key === 'Home') return 0;
      if (key === 'End') return count - 1;
      return key in moves ? this.#cursor + moves[key] : undefined;
    };
  }

  // The pointer's position in the plot area (past the margins), in px.
  #inPlot(event) {
    const rect = this.plot.querySelector('svg').getBoundingClientRect();
    const margin = this.#margin();
    return [event.clientX - rect.left - margin.left, event.clientY - rect.top - margin.top];
  }

  #point(event) {
    const index = this.#pointToIndex?.(event);
    if (index !== undefined && index !== null) this.#show(index, false);
  }

  // The cell the readout starts on (row-major index for heatmaps, point index otherwise).
  get cursor() { return this.#cursor; }
  moveCursorTo(index) { if (this.#cursorCount) this.#show(Math.min(this.#cursorCount - 1, Math.max(0, index)), false, false); }

  // tensor: { data, shape: [rows, columns] }. options: { colormap: 'RdBu' | 'viridis', range, x: { label, names },
  // y: { label, names }, colour: { label, missing }, rowRule: { row, label } (a line above that row),
  // describe(row, column, value) }. names label the categories
  // (an array, or a function of the index).
  heatmap(tensor, options = {}) {
    const name = options.colormap ?? 'RdBu';
    const range = options.range ?? valueRange(tensor.data);
    const canvas = element('canvas');
    drawHeatmap(canvas, tensor, { colormap: name, range });
    return this.frame(canvas, { ...options, colormap: name, range, shape: tensor.shape, value: (index) => tensor.data[index],
      missing: tensor.data.some(Number.isNaN) });
  }

  // Frames a canvas already painted one pixel per cell (by drawHeatmap, or by the GPU): options as heatmap's,
  // with shape: [rows, columns], value(index) (the cell's value for the readout, or undefined while unknown),
  // range and missing (whether some cells are NaN).
  frame(canvas, options) {
    const [rows, columns] = options.shape;
    const name = options.colormap ?? 'RdBu';
    const map = colormap(name, options.range);
    canvas.setAttribute('aria-hidden', 'true');
    const nameOf = (names) => (typeof names === 'function' ? names : names ? (i) => names[i] : (i) => String(i));
    const xName = nameOf(options.x?.names);
    const yName = nameOf(options.y?.names);
    const draw = () => {
      const available = this.#begin('heatmap', draw);
      let widestRow = 0;
      for (let r = 0; r < Math.min(rows, FEW_ROWS); r++) widestRow = Math.max(widestRow, String(yName(r)).length);
      this.#extraLeft = Math.max(0, Math.ceil(widestRow * CHARACTER_WIDTH) + 30 - AXIS_MARGIN.left);
      const margin = this.#margin();
      const plotWidth = Math.max(60, available - margin.left - margin.right);
      // Square cells, unless the table is so tall that they would leave most of the width empty: then the
      // cells are stretched across it.
      const cell = Math.min(plotWidth / columns, this.maxHeight / rows, MAX_CELL);
      const fill = this.maxHeight / rows < plotWidth / columns && cell * columns < plotWidth / 3;
      const width = fill ? plotWidth : cell * columns;
      // Rows named in words (tokens, heads) are never thinner than a line of text; numbered rows keep square cells.
      const lineHigh = options.y?.names && rows <= FEW_ROWS;
      const height = fill ? Math.min(this.maxHeight, Math.max(80, rows * cell)) : Math.max(cell * rows, lineHigh ? rows * MIN_ROW_HEIGHT : 0);
      const g = this.#svg(width, height);
      canvas.style.left = `${margin.left}px`;
      canvas.style.top = `${margin.top}px`;
      canvas.style.width = `${width}px`;
      canvas.style.height = `${height}px`;
      this.plot.prepend(canvas);
      const x = scaleBand().domain(Array.from({ length: columns }, (_, i) => i)).range([0, width]);
      const y = scaleBand().domain(Array.from({ length: rows }, (_, i) => i)).range([0, height]);
      this.#axes(g, x, y, width, height, options, xName, yName, categoryTicks(columns, width, xName, true), categoryTicks(rows, height, yName, false));
      if (options.rowRule) {
        const at = y(options.rowRule.row) ?? height;
        g.append('line').attr('x1', 0).attr('x2', width).attr('y1', at).attr('y2', at).style('stroke', 'var(--pe-theme-cursor-halo)').attr('stroke-width', 4);
        g.append('line').attr('x1', 0).attr('x2', width).attr('y1', at).attr('y2', at).style('stroke', 'var(--pe-theme-cursor)').attr('stroke-width', 2)
          .attr('stroke-dasharray', '6 3');
        g.append('text').attr('x', width - 4).attr('y', at - 4).attr('text-anchor', 'end').attr('font-size', 12)
          .attr('paint-order', 'stroke').style('stroke', 'var(--pe-theme-cursor-halo)').attr('stroke-width', 3).text(options.rowRule.label);
      }
      const halo = g.append('rect').attr('class', 'pe-cursor-halo');
      const box = g.append('rect').attr('class', 'pe-cursor');
      const cellIndex = (index) => ({ row: Math.floor(index / columns), column: index % columns });
      const clamp = (value, count) => Math.min(count - 1, Math.max(0, Math.round(value)));
      this.#setCursor({
        count: rows * columns,
        move: (index) => {
          const { row, column } = cellIndex(index);
          for (const mark of [halo, box]) {
            mark.attr('x', x(column)).attr('y', y(row)).attr('width', Math.max(2, x.bandwidth())).attr('height', Math.max(2, y.bandwidth()));
          }
        },
        describe: (index, byReader) => {
          const { row, column } = cellIndex(index);
          const value = options.value(index);
          return options.describe?.(row, column, value, byReader)
            ?? `${options.y?.label ?? 'row'} ${yName(row)}, ${options.x?.label ?? 'column'} ${xName(column)}: ${Number.isNaN(value) ? (options.colour?.missing ?? 'masked') : formatValue(value)}`;
        },
        where: (index) => {
          const { row, column } = cellIndex(index);
          return { row, column, value: options.value(index) ?? null, rowName: String(yName(row)), columnName: String(xName(column)) };
        },
        locate: ({ row, column, index }) => {
          if (Number.isFinite(index)) return Math.round(index);
          const now = cellIndex(this.#cursor);
          return clamp(Number.isFinite(row) ? row : now.row, rows) * columns + clamp(Number.isFinite(column) ? column : now.column, columns);
        },
      });
      this.#keyStep = (key, shift) => {
        const { row, column } = cellIndex(this.#cursor);
        const far = shift ? 10 : 1;
        const moves = {
          ArrowLeft: [row, column - far], ArrowRight: [row, column + far], ArrowUp: [row - far, column], ArrowDown: [row + far, column],
          Home: [row, 0], End: [row, columns - 1], PageUp: [0, column], PageDown: [rows - 1, column],
        };
        if (!moves[key]) return undefined;
        const [r, c] = moves[key];
        return Math.min(rows - 1, Math.max(0, r)) * columns + Math.min(columns - 1, Math.max(0, c));
      };
      this.#pointToIndex = (event) => {
        const rect = canvas.getBoundingClientRect();
        const column = Math.floor(((event.clientX - rect.left) / rect.width) * columns);
        const row = Math.floor(((event.clientY - rect.top) / rect.height) * rows);
        return row >= 0 && row < rows && column >= 0 && column < columns ? row * columns + column : null;
      };
      this.#show(this.#cursor, false, false);
      if (this.legend) this.#colourBar(map, name, Math.min(width, 320), options.colour, options.missing);
    };
    draw();
    return map;
  }

  #colourBar(map, name, width, colour, hasMissing) {
    this.legendBox.append(colourBar(map, name, width, colour, hasMissing));
  }

  #swatches(items) {
    if (!this.legend) return;
    for (const item of items) {
      const swatch = element('span', { class: `pe-swatch${item.line ? ' line' : ''}${item.dashed ? ' dashed' : ''}` });
      if (item.line) swatch.style.borderTopColor = item.colour;
      else swatch.style.background = item.colour;
      this.legendBox.append(element('span', {}, swatch, item.label));
    }
  }

  // series: [{ label, x: number[], y: number[] (NaN leaves a gap), colour, dashed }]. options: { x: { label, log,
  // domain }, y: { label, domain }, rules: [{ x, label }] (vertical marks, such as a training length), describe(i),
  // follow (series that grow: the cursor stays on the newest point unless the reader has put it elsewhere) }.
  lines(series, options = {}) {
    const draw = () => {
      const available = this.#begin('lines', draw);
      const margin = this.#margin();
      const width = Math.max(120, Math.min(available, 760) - margin.left - margin.right);
      const height = Math.min(this.maxHeight, Math.max(200, Math.round(width * 0.45)));
      const g = this.#svg(width, height);
      const xs = valueRange(series.flatMap((s) => Array.from(s.x)));
      const ys = valueRange(series.flatMap((s) => Array.from(s.y)));
      const x = (options.x?.log ? scaleLog() : scaleLinear()).domain(options.x?.domain ?? [xs.min, xs.max]).range([0, width]);
      const yDomain = options.y?.domain ?? (ys.min === ys.max ? [ys.min - 1, ys.max + 1] : [ys.min, ys.max]);
      const y = scaleLinear().domain(yDomain).range([height, 0]).nice();
      this.#axes(g, x, y, width, height, options);
      // Each rule's label beside it, on its left where the right would run past the plot (a phone's width), each
      // a line lower than the one before it where they would meet.
      let lastEnd = -Infinity;
      let row = 0;
      for (const rule of options.rules ?? []) {
        const at = x(rule.x);
        g.append('line').attr('x1', at).attr('x2', at).attr('y1', 0).attr('y2', height).style('stroke', 'var(--pe-theme-muted)')
          .attr('stroke-dasharray', '4 3');
        const labelWidth = rule.label.length * CHARACTER_WIDTH;
        const onLeft = at + 4 + labelWidth > width;
        const start = onLeft ? at - 4 - labelWidth : at + 4;
        row = start < lastEnd + 4 ? row + 1 : 0;
        lastEnd = start + labelWidth;
        g.append('text').attr('x', onLeft ? at - 4 : at + 4).attr('y', 12 + row * 13).attr('font-size', 11)
          .attr('text-anchor', onLeft ? 'end' : 'start').text(rule.label);
      }
      series.forEach((s, i) => {
        const colour = s.colour ?? SERIES_COLOURS[i % SERIES_COLOURS.length];
        const path = line().defined((_, j) => Number.isFinite(s.y[j]) && Number.isFinite(s.x[j]))
          .x((_, j) => x(s.x[j])).y((_, j) => y(s.y[j]));
        g.append('path').attr('fill', 'none').attr('stroke', colour).attr('stroke-width', s.width ?? 2)
          .attr('stroke-dasharray', s.dashed ? '6 4' : null).attr('d', path(Array.from(s.x)));
      });
      this.#swatches(series.map((s, i) => ({ label: s.label, colour: s.colour ?? SERIES_COLOURS[i % SERIES_COLOURS.length], line: true, dashed: s.dashed })));
      const first = series[0];
      const cursor = g.append('line').attr('class', 'pe-cursor').attr('y1', 0).attr('y2', height);
      const atNewest = this.#cursor >= this.#cursorCount - 1;
      if (options.follow && atNewest) this.#cursor = first.x.length - 1;
      const nearest = (value) => {
        let best = 0;
        for (let i = 1; i < first.x.length; i++) if (Math.abs(first.x[i] - value) < Math.abs(first.x[best] - value)) best = i;
        return best;
      };
      this.#setCursor({
        count: first.x.length,
        move: (i) => cursor.attr('x1', x(first.x[i])).attr('x2', x(first.x[i])),
        describe: (i) => options.describe?.(i) ?? `${options.x?.label ?? 'x'} ${formatValue(first.x[i])}: ${series.map((s) => `${s.label} ${formatValue(s.y[i])}`).join(', ')}`,
        where: (i) => ({ index: i, x: first.x[i], y: Object.fromEntries(series.map((s) => [s.label, s.y[i]])) }),
        locate: ({ index, x: at }) => (Number.isFinite(index) ? Math.round(index) : Number.isFinite(at) ? nearest(at) : this.#cursor),
      });
      this.#keyStep = this.#listKeys(first.x.length, { far: 10 });
      this.#pointToIndex = (event) => nearest(x.invert(this.#inPlot(event)[0]));
      this.#show(this.#cursor, false, false);
    };
    draw();
  }

  // points: [{ x, y, label, group }]; options: { groups: [{ name, colour }], x: { label }, y: { label }, describe(i),
  // path: { indices, label } (a thin line through those points in that order, named in the legend) }.
  points(points, options = {}) {
    const draw = () => {
      const available = this.#begin('points', draw);
      const margin = this.#margin();
      const side = Math.max(160, Math.min(available - margin.left - margin.right, 460));
      const g = this.#svg(side, side);
      const span = (values) => {
        const { min, max } = valueRange(values);
        const pad = (max - min || 1) * 0.08;
        return [min - pad, max + pad];
      };
      const x = scaleLinear().domain(options.x?.domain ?? span(points.map((p) => p.x))).range([0, side]);
      const y = scaleLinear().domain(options.y?.domain ?? span(points.map((p) => p.y))).range([side, 0]);
      this.#axes(g, x, y, side, side, options);
      const groups = options.groups ?? [];
      const colourOf = (p) => groups.find((group) => group.name === p.group)?.colour ?? SERIES_COLOURS[0];
      if (options.path) {
        const through = options.path.indices.map((i) => [x(points[i].x), y(points[i].y)]);
        g.append('path').attr('class', 'pe-path').attr('fill', 'none').attr('stroke', PATH_COLOUR).attr('stroke-width', 1.5).attr('d', line()(through));
      }
      for (const p of points) g.append('circle').attr('cx', x(p.x)).attr('cy', y(p.y)).attr('r', 4).attr('fill', colourOf(p));
      for (const { point, labelX, labelY, anchor, moved } of placeLabels(points.map((p) => ({ x: x(p.x), y: y(p.y), label: p.label })))) {
        if (moved) g.append('line').attr('x1', point.x).attr('y1', point.y).attr('x2', anchor === 'start' ? labelX - 2 : labelX + 2).attr('y2', labelY - 4).attr('stroke', '#9aa3ad').attr('stroke-width', 1);
        g.append('text').attr('x', labelX).attr('y', labelY).attr('font-size', 12).attr('text-anchor', anchor).text(point.label);
      }
      this.#swatches([...groups.map((group) => ({ label: group.name, colour: group.colour })),
        ...(options.path ? [{ label: options.path.label, colour: PATH_COLOUR, line: true }] : [])]);
      const ring = g.append('circle').attr('class', 'pe-cursor').attr('r', 8);
      this.#setCursor({
        count: points.length,
        move: (i) => ring.attr('cx', x(points[i].x)).attr('cy', y(points[i].y)),
        describe: (i) => options.describe?.(i)
          ?? `${points[i].label}${points[i].group ? ` (${points[i].group})` : ''}: ${options.x?.label ?? 'x'} ${formatValue(points[i].x)}, ${options.y?.label ?? 'y'} ${formatValue(points[i].y)}`,
        where: (i) => ({ index: i, label: points[i].label, group: points[i].group ?? null, x: points[i].x, y: points[i].y }),
        locate: ({ index, label }) => (Number.isFinite(index) ? Math.round(index) : label !== undefined ? points.findIndex((p) => p.label === label) : this.#cursor),
      });
      this.#keyStep = this.#listKeys(points.length, { upDown: true });
      this.#pointToIndex = (event) => {
        const [px, py] = this.#inPlot(event);
        let best = null;
        let bestDistance = 144;
        points.forEach((p, i) => {
          const distance = (x(p.x) - px) ** 2 + (y(p.y) - py) ** 2;
          if (distance < bestDistance) [best, bestDistance] = [i, distance];
        });
        return best;
      };
      this.#show(this.#cursor, false, false);
    };
    draw();
  }

  // bars: [{ label, value, colour, group }]; options: { groups: [{ name, colour }], x: { label, ticks (the bars whose
  // labels are written; all that fit by default) }, y: { label, domain, log }, describe(i) }.
  bars(bars, options = {}) {
    const draw = () => {
      const available = this.#begin('bars', draw);
      const { left, right } = this.#margin();
      const width = Math.max(120, Math.min(available, 760) - left - right);
      // Labels too wide to stand side by side are slanted, every one kept, where each bar still has a line's room.
      const longest = bars.reduce((most, b) => Math.max(most, String(b.label).length), 1);
      const slanted = !options.x?.ticks && bars.length * (longest * CHARACTER_WIDTH + 6) > width && width / bars.length >= 14;
      if (slanted) this.#extraBottom = Math.ceil(longest * CHARACTER_WIDTH * Math.SQRT1_2) - 8;
      const height = Math.min(this.maxHeight, Math.max(200, Math.round(width * 0.4)));
      const g = this.#svg(width, height);
      const x = scaleBand().domain(bars.map((_, i) => i)).range([0, width]).padding(0.15);
      const { min, max } = valueRange(bars.map((b) => b.value));
      const y = options.y?.log
        ? scaleLog().domain(options.y?.domain ?? [min / 2, max * 2]).range([height, 0]).nice()
        : scaleLinear().domain(options.y?.domain ?? [Math.min(0, min), Math.max(0, max) || 1]).range([height, 0]).nice();
      const baseline = options.y?.log ? height : y(0);
      const every = Array.from({ length: bars.length }, (_, i) => i);
      this.#axes(g, x, y, width, height, { ...options, x: { ...options.x, slanted } }, (i) => bars[i].label, null,
        options.x?.ticks ?? (slanted ? every : categoryTicks(bars.length, width, (i) => bars[i].label, true)));
      const groups = options.groups ?? [];
      bars.forEach((b, i) => {
        const colour = b.colour ?? groups.find((group) => group.name === b.group)?.colour ?? SERIES_COLOURS[0];
        const top = y(b.value);
        g.append('rect').attr('x', x(i)).attr('width', x.bandwidth()).attr('y', Math.min(top, baseline))
          .attr('height', Math.abs(baseline - top)).attr('fill', colour);
      });
      this.#swatches(groups.map((group) => ({ label: group.name, colour: group.colour })));
      // The cursor outlines the chosen bar itself (at least a sliver for a bar of 0), not the column it stands in.
      const box = g.append('rect').attr('class', 'pe-cursor').attr('width', x.bandwidth());
      const outline = (i) => {
        const top = y(bars[i].value);
        box.attr('x', x(i)).attr('y', Math.min(top, baseline) - 1).attr('height', Math.max(2, Math.abs(baseline - top)) + 2);
      };
      this.#setCursor({
        count: bars.length,
        move: outline,
        describe: (i) => options.describe?.(i) ?? `${bars[i].label}: ${formatValue(bars[i].value)}`,
        where: (i) => ({ index: i, label: bars[i].label, value: bars[i].value }),
        locate: ({ index, label }) => (Number.isFinite(index) ? Math.round(index) : label !== undefined ? bars.findIndex((b) => b.label === label) : this.#cursor),
      });
      this.#keyStep = this.#listKeys(bars.length);
      this.#pointToIndex = (event) => {
        const index = Math.floor(this.#inPlot(event)[0] / x.step());
        return index >= 0 && index < bars.length ? index : null;
      };
      this.#show(this.#cursor, false, false);
    };
    draw();
  }
}
