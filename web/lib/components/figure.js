// The figure layer, live: every figure of the site and of the components is framed the same way (scene.js lays it
// out: axes with ticks and labels, a colour bar that says which colour is negative, a legend with swatches), with a
// caption saying what to notice, an accessible name, and a keyboard readout (arrow keys move a cursor whose value
// is read out; the readout is spoken for keys, never for mouse moves). Each render builds the figure's scene once
// and draws it here: heatmap cells painted on a canvas, one pixel per cell scaled up crisp, under an SVG of the
// scene's marks; the legend, title and caption as the page's text. The exports draw the same scene.
import { create } from '../vendor/plotting.js';
import { colormap, colourWords, valueRange } from '../colormap.js';
import { MAX_HEIGHT, SERIES_COLOURS, barsScene, colourBarScene, formatValue, heatmapScene, linesScene, pointsScene, proseNumber } from '../scene.js';
import { drawHeatmap } from './heatmap.js';
import { followPageScheme } from './scheme.js';
import { THEME_STYLE } from './theme.js';

export { SERIES_COLOURS, formatValue, proseNumber };

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

const SVG_NS = 'http://www.w3.org/2000/svg';
let gradients = 0;

// A colour as an attribute, or as a style where it is the theme's var(--pe-theme-…), which only styles resolve.
function paint(node, property, colour) {
  if (colour?.startsWith('var(')) node.style[property] = colour;
  else node.setAttribute(property, colour ?? 'none');
}

// A scene's marks as SVG elements under `parent`.
function drawMarks(parent, marks) {
  for (const mark of marks) {
    const node = document.createElementNS(SVG_NS, mark.kind === 'group' ? 'g' : mark.kind);
    const set = (name, value) => { if (value !== undefined && value !== null) node.setAttribute(name, value); };
    if (mark.className) node.setAttribute('class', mark.className);
    if (mark.kind === 'group') {
      if (mark.transform) set('transform', `translate(${mark.transform[0]},${mark.transform[1]})`);
      drawMarks(node, mark.marks);
    } else if (mark.kind === 'text') {
      // Turned text about its anchor; else at its place, where getBBox() finds it.
      if (mark.rotate) set('transform', `translate(${mark.x},${mark.y}) rotate(${mark.rotate})`);
      set('x', (mark.rotate ? 0 : mark.x) + (mark.dx ?? 0));
      set('y', (mark.rotate ? 0 : mark.y) + (mark.dy ?? 0));
      set('font-size', mark.size);
      set('font-weight', mark.weight);
      if (mark.anchor && mark.anchor !== 'start') set('text-anchor', mark.anchor);
      paint(node, 'fill', mark.fill);
      if (mark.halo) {
        set('paint-order', 'stroke');
        set('stroke-width', mark.halo.width);
        paint(node, 'stroke', mark.halo.colour);
      }
      node.textContent = mark.text;
    } else {
      for (const name of ['x1', 'y1', 'x2', 'y2', 'x', 'y', 'width', 'height', 'cx', 'cy', 'r', 'd']) set(name, mark[name]);
      set('stroke-width', mark.strokeWidth);
      set('stroke-dasharray', mark.dash);
      set('stroke-linecap', mark.cap);
      set('opacity', mark.opacity);
      paint(node, 'fill', mark.fill);
      paint(node, 'stroke', mark.stroke);
      if (mark.gradient) {
        const id = `pe-ramp-${++gradients}`;
        const ramp = document.createElementNS(SVG_NS, 'linearGradient');
        ramp.id = id;
        mark.gradient.forEach((colour, i, all) => {
          const stop = document.createElementNS(SVG_NS, 'stop');
          stop.setAttribute('offset', `${(i / (all.length - 1)) * 100}%`);
          stop.setAttribute('stop-color', colour);
          ramp.append(stop);
        });
        const defs = document.createElementNS(SVG_NS, 'defs');
        defs.append(ramp);
        parent.append(defs);
        paint(node, 'fill', `url(#${id})`);
      }
    }
    parent.append(node);
  }
}

let measurer = null;
// The width in px of `text` in a CSS `font`, as a canvas draws it (the exports' writers too).
export function textWidth(text, font) {
  measurer ??= (typeof OffscreenCanvas === 'function' ? new OffscreenCanvas(1, 1) : document.createElement('canvas')).getContext('2d');
  measurer.font = font;
  return measurer.measureText(text).width;
}

const PICTURES = new WeakMap();  // <svg> -> the picture drawn in it

// A picture (scene.js: marks with no frame) drawn live as an <svg> with `attributes`; the exports draw the same one.
export function drawPicture(picture, attributes = {}) {
  const svg = document.createElementNS(SVG_NS, 'svg');
  place(svg, { width: picture.width, height: picture.height, viewBox: `0 0 ${picture.width} ${picture.height}`, ...attributes });
  drawMarks(svg, picture.marks);
  PICTURES.set(svg, picture);
  return svg;
}

// The picture drawn in an <svg> by drawPicture (null for any other).
export const pictureOf = (svg) => PICTURES.get(svg) ?? null;

// A colour bar scene drawn live: its picture, and its words beside or below it.
function drawColourBar(bar) {
  return element('div', { class: 'pe-colourbar' }, drawPicture(bar, { role: 'img', 'aria-label': bar.description }), element('span', {}, bar.words));
}

// A colour bar for a colormap over its range, width px long, with ticks and the colours in words (colourBarScene).
export function colourBar(map, name, width, colour = {}, hasMissing = false) {
  return drawColourBar(colourBarScene(map, name, width, colour, hasMissing));
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

  // readout: an element of the page to write the readout into, instead of the figure's own; heading: the title's
  // heading level (2–6) where the title heads a part of the page, else it is a plain line.
  constructor(parent, { label, title = '', heading, caption = '', axes = true, legend = true, maxHeight = MAX_HEIGHT, readout } = {}) {
    adoptFigureStyle(parent.getRootNode());
    this.label = label;
    this.axes = axes;
    this.legend = legend;
    this.maxHeight = maxHeight;
    this.titleLine = element(heading ? `h${heading}` : 'p', { class: 'pe-title', part: 'title' }, title);
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
        // Read where layout is fresh: a drawing after this one takes it rather than asking for layout again.
        this.#laidOutWidth = this.#availableWidth();
        if (this.#redraw && Math.abs(this.#laidOutWidth - this.#width) > 4) this.#redraw();
      }).observe(this.element);
    }
  }

  set caption(text) { this.captionBox.textContent = text; }
  set title(text) { this.titleLine.textContent = text; this.titleLine.hidden = !text; }

  // Marks the figure as being recomputed: dimmed and busy (aria-busy, which assistive technology and the tests wait
  // on), with "Computing…" (the element's word for it, element.strings) or what it computes over it, until the next
  // draw.
  stale(on = true, message = this.#computingWord()) {
    this.#dim(on, message);
    this.element.setAttribute('aria-busy', String(on));
  }

  // Marks the figure as waiting on the reader ("press Start"): dimmed, with why over it, and not busy.
  waiting(message) {
    this.#dim(true, message);
    this.element.setAttribute('aria-busy', 'false');
  }

  #dim(on, message) {
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
    this.element.setAttribute('aria-busy', 'false');
  }

  #availableWidth() {
    return Math.floor(this.element.clientWidth || this.element.parentElement?.clientWidth || 640);
  }

  // The width the last layout gave the figure (0 before its first): a redraw as controls change
  // reads it rather than forcing the page's layout in the middle of its own changes; a later change of width is
  // seen by the observer, which draws again.
  #laidOutWidth = 0;

  // Starts a render: what the scene builders are given (the width the figure may take, its height's limit, whether
  // it has axes and a legend, the screen's device pixels per CSS pixel).
  #begin(kind, redraw) {
    this.#redraw = redraw;
    this.#width = this.#laidOutWidth || this.#availableWidth();
    this.errorLine.hidden = true;
    this.stale(false);
    this.element.dataset.kind = kind;
    this.plot.setAttribute('aria-label', `${this.label}. Arrow keys move the cursor and read values.`);
    return { available: this.#width, maxHeight: this.maxHeight, axes: this.axes, legend: this.legend, pixelRatio: globalThis.devicePixelRatio || 1 };
  }

  #scene = null;

  // What the figure shows, as scene.js describes it: the last render's frame and marks, with the title and caption
  // it has now (null before a drawing). The exports draw it.
  get scene() {
    return this.#scene && { ...this.#scene, title: this.titleLine.hidden ? '' : this.titleLine.textContent, caption: this.captionBox.textContent };
  }

  // Draws a scene: its marks in an SVG over the plot (and `canvas`, a heatmap's cells, under it), its legend.
  // Resolves to the SVG's plot group, where the cursor is drawn.
  #draw(scene, canvas = null) {
    this.#scene = scene;
    const svg = create('svg').attr('width', scene.width).attr('height', scene.height).attr('aria-hidden', 'true').node();
    drawMarks(svg, scene.marks);
    this.plot.style.width = `${scene.width}px`;
    this.plot.replaceChildren(...(canvas ? [canvas] : []), svg);
    if (canvas) {
      Object.assign(canvas.style, { left: `${scene.cells.x}px`, top: `${scene.cells.y}px`, width: `${scene.cells.width}px`, height: `${scene.cells.height}px` });
    }
    this.legendBox.hidden = !scene.legend;
    this.legendBox.replaceChildren(...(scene.legend?.kind === 'colour-bar' ? [drawColourBar(scene.legend)] : (scene.legend?.swatches ?? []).map(swatchNode)));
    const plotArea = document.createElementNS(SVG_NS, 'g');
    plotArea.setAttribute('transform', `translate(${scene.margin.left},${scene.margin.top})`);
    svg.append(plotArea);
    return plotArea;
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
    const { margin } = this.#scene;
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
    const draw = () => {
      const scene = heatmapScene(rows, columns, { ...options, colormap: name, map }, this.#begin('heatmap', draw));
      const { x, y, xName, yName } = scene.scales;
      const g = this.#draw(scene, canvas);
      const marks = [cursorMark('rect', 'pe-cursor-halo'), cursorMark('rect', 'pe-cursor')];
      g.append(...marks);
      const cellIndex = (index) => ({ row: Math.floor(index / columns), column: index % columns });
      const clamp = (value, count) => Math.min(count - 1, Math.max(0, Math.round(value)));
      this.#setCursor({
        count: rows * columns,
        move: (index) => {
          const { row, column } = cellIndex(index);
          for (const mark of marks) place(mark, { x: x(column), y: y(row), width: Math.max(2, x.bandwidth()), height: Math.max(2, y.bandwidth()) });
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
    };
    draw();
    return map;
  }

  // series: [{ label, x: number[], y: number[] (NaN leaves a gap), colour, dashed }]. options: { x: { label, log,
  // domain }, y: { label, domain }, rules: [{ x, label }] (vertical marks, such as a training length), describe(i),
  // follow (series that grow: the cursor stays on the newest point unless the reader has put it elsewhere) }.
  lines(series, options = {}) {
    const draw = () => {
      const scene = linesScene(series, options, this.#begin('lines', draw));
      const { x } = scene.scales;
      const g = this.#draw(scene);
      const first = series[0];
      const cursor = cursorMark('line', 'pe-cursor');
      place(cursor, { y1: 0, y2: scene.plot.height });
      g.append(cursor);
      const atNewest = this.#cursor >= this.#cursorCount - 1;
      if (options.follow && atNewest) this.#cursor = first.x.length - 1;
      const nearest = (value) => {
        let best = 0;
        for (let i = 1; i < first.x.length; i++) if (Math.abs(first.x[i] - value) < Math.abs(first.x[best] - value)) best = i;
        return best;
      };
      this.#setCursor({
        count: first.x.length,
        move: (i) => place(cursor, { x1: x(first.x[i]), x2: x(first.x[i]) }),
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
      const scene = pointsScene(points, options, this.#begin('points', draw));
      const { x, y } = scene.scales;
      const ring = cursorMark('circle', 'pe-cursor');
      place(ring, { r: 8 });
      this.#draw(scene).append(ring);
      this.#setCursor({
        count: points.length,
        move: (i) => place(ring, { cx: x(points[i].x), cy: y(points[i].y) }),
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
      const scene = barsScene(bars, options, this.#begin('bars', draw));
      const { x, y, baseline } = scene.scales;
      // The cursor outlines the chosen bar itself (at least a sliver for a bar of 0), not the column it stands in.
      const box = cursorMark('rect', 'pe-cursor');
      place(box, { width: x.bandwidth() });
      this.#draw(scene).append(box);
      const outline = (i) => {
        const top = y(bars[i].value);
        place(box, { x: x(i), y: Math.min(top, baseline) - 1, height: Math.max(2, Math.abs(baseline - top)) + 2 });
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

// A cursor's mark (live only: not part of the scene, nor of an export): pe-cursor, or its halo pe-cursor-halo.
function cursorMark(tag, className) {
  const node = document.createElementNS(SVG_NS, tag);
  node.setAttribute('class', className);
  return node;
}

function place(node, attributes) {
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
}

// A legend's entry: its swatch (a line's stroke or a filled box) and its words.
function swatchNode(item) {
  const swatch = element('span', { class: `pe-swatch${item.line ? ' line' : ''}${item.dashed ? ' dashed' : ''}` });
  if (item.line) swatch.style.borderTopColor = item.colour;
  else swatch.style.background = item.colour;
  return element('span', {}, swatch, item.label);
}
