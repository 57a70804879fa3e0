// <posembed-heatmap encoding="sinusoidal" length="64" d-model="128" colormap="RdBu">: a heatmap of an encoding.
// encoding: sinusoidal (length, d-model, base, layout, timescale, offset), alibi (heads, head, length, causal),
// t5 (length, buckets, max-distance, bidirectional), sincos2d (grid-h, grid-w, d-model, base).
// Arrow keys move a cursor whose value is read out; re-renders when an attribute changes.
import { drawHeatmap, valueRange } from './heatmap.js';
import { encodingFigure } from '../figures.js';
import { BASE_STYLE, LazyElement, adoptStyles, define, numberAttribute, posembed } from './shared.js';

const ATTRIBUTES = ['encoding', 'length', 'd-model', 'base', 'layout', 'timescale', 'offset', 'heads', 'head', 'causal', 'buckets',
  'max-distance', 'bidirectional', 'grid-h', 'grid-w', 'colormap', 'cell-size'];

export class PosembedHeatmap extends LazyElement {
  static observedAttributes = ATTRIBUTES;
  #tensor = null;
  #cursor = { row: 0, column: 0 };

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, BASE_STYLE);
    root.innerHTML = `<p class="caption" part="caption"></p>
      <canvas part="canvas" tabindex="0" role="img"></canvas>
      <p class="readout" part="readout" aria-live="polite"></p>
      <p class="error" role="alert" hidden></p>`;
    this.canvas = root.querySelector('canvas');
    this.canvas.addEventListener('keydown', (event) => this.#move(event));
    this.canvas.addEventListener('mousemove', (event) => this.#hover(event));
  }

  released() {
    this.#tensor = null;  // the only resource: a plain array, now collectable
  }

  // The figure's options, from the attributes.
  #options() {
    const number = (name) => (this.hasAttribute(name) ? numberAttribute(this, name, undefined) : undefined);
    return {
      length: number('length'), dModel: number('d-model'), base: number('base'), layout: this.getAttribute('layout') ?? undefined,
      timescale: this.getAttribute('timescale') ?? undefined, offset: number('offset'), heads: number('heads'), head: number('head'),
      causal: this.hasAttribute('causal'), buckets: number('buckets'), maxDistance: number('max-distance'),
      bidirectional: this.getAttribute('bidirectional') !== 'false', gridH: number('grid-h'), gridW: number('grid-w'),
    };
  }

  async render() {
    const generation = ++this.generation;
    const root = this.shadowRoot;
    const errorBox = root.querySelector('.error');
    try {
      const pe = await posembed();
      const { tensor, caption, range, colormap } = await encodingFigure(pe, this.getAttribute('encoding') ?? 'sinusoidal', this.#options());
      if (generation !== this.generation) return;
      this.#tensor = tensor;
      drawHeatmap(this.canvas, tensor, { colormap: this.getAttribute('colormap') ?? colormap, range: range ?? valueRange(tensor.data.filter(Number.isFinite)) });
      const cell = numberAttribute(this, 'cell-size', Math.max(1, Math.min(8, Math.floor(512 / tensor.shape[1]))));
      this.canvas.style.width = `${tensor.shape[1] * cell}px`;
      this.canvas.style.height = `${tensor.shape[0] * cell}px`;
      root.querySelector('.caption').textContent = caption;
      this.canvas.setAttribute('aria-label', `Heatmap: ${caption}. Arrow keys move the cursor and read values.`);
      errorBox.hidden = true;
      this.dataset.rendered = String(generation);
      this.#show();
    } catch (error) {
      errorBox.textContent = error.message;
      errorBox.hidden = false;
    }
  }

  #show() {
    if (!this.#tensor) return;
    const [rows, columns] = this.#tensor.shape;
    const { row, column } = this.#cursor = { row: Math.min(this.#cursor.row, rows - 1), column: Math.min(this.#cursor.column, columns - 1) };
    const value = this.#tensor.data[row * columns + column];
    this.shadowRoot.querySelector('.readout').textContent = `row ${row}, column ${column}: ${Number.isNaN(value) ? '−∞ (masked)' : value.toFixed(6)}`;
  }

  #move(event) {
    const steps = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[event.key];
    if (!steps || !this.#tensor) return;
    event.preventDefault();
    this.#cursor = { row: Math.max(0, this.#cursor.row + steps[0]), column: Math.max(0, this.#cursor.column + steps[1]) };
    this.#show();
  }

  #hover(event) {
    if (!this.#tensor) return;
    const rect = this.canvas.getBoundingClientRect();
    const [rows, columns] = this.#tensor.shape;
    this.#cursor = { row: Math.floor(((event.clientY - rect.top) / rect.height) * rows), column: Math.floor(((event.clientX - rect.left) / rect.width) * columns) };
    this.#show();
  }
}

define('posembed-heatmap', PosembedHeatmap);
