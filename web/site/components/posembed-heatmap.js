// <posembed-heatmap encoding="sinusoidal" length="64" d-model="128" colormap="RdBu">: a heatmap of an encoding.
// encoding: sinusoidal (length, d-model, base, layout, timescale, offset), alibi (heads, head, length, causal),
// t5 (length, buckets, max-distance, bidirectional), sincos2d (grid-h, grid-w, d-model, base).
// Arrow keys move a cursor whose value is read out; re-renders when an attribute changes.
import { drawHeatmap, valueRange } from '../heatmap.js';
import { BASE_STYLE, adoptStyles, define, numberAttribute, onHost, posembed, whenVisible } from './shared.js';

const ATTRIBUTES = ['encoding', 'length', 'd-model', 'base', 'layout', 'timescale', 'offset', 'heads', 'head', 'causal', 'buckets',
  'max-distance', 'bidirectional', 'grid-h', 'grid-w', 'colormap', 'cell-size'];

export class PosembedHeatmap extends HTMLElement {
  static observedAttributes = ATTRIBUTES;
  #started = false;
  #stopWaiting = null;
  #tensor = null;
  #cursor = { row: 0, column: 0 };
  #generation = 0;

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

  connectedCallback() {
    this.#stopWaiting = whenVisible(this, () => {
      this.#started = true;
      this.render();
    });
  }

  disconnectedCallback() {
    this.#stopWaiting?.();
    this.#tensor = null;  // the only resource: a plain array, now collectable
    this.#generation++;
  }

  attributeChangedCallback() {
    if (this.#started) this.render();
  }

  // The encoding as a [rows, columns] host tensor and its caption.
  async #compute(pe) {
    const encoding = this.getAttribute('encoding') ?? 'sinusoidal';
    const length = numberAttribute(this, 'length', 64);
    if (encoding === 'sinusoidal') {
      const options = { length, dModel: numberAttribute(this, 'd-model', 128), base: numberAttribute(this, 'base', 10000),
        layout: this.getAttribute('layout') ?? 'interleaved', timescale: this.getAttribute('timescale') ?? 'standard', offset: numberAttribute(this, 'offset', 0) };
      return { tensor: await onHost(pe.sinusoidal(options)), caption: `sinusoidal PE [${length} × ${options.dModel}], ${options.layout}, ${options.timescale}`, range: { min: -1, max: 1 } };
    }
    if (encoding === 'alibi') {
      const heads = numberAttribute(this, 'heads', 8);
      const head = numberAttribute(this, 'head', 0);
      if (!Number.isInteger(head) || head < 0 || head >= heads) throw new RangeError(`head must be an integer in [0, ${heads - 1}], got ${head}`);
      const causal = this.hasAttribute('causal');
      const bias = await onHost(pe.alibiBias({ numHeads: heads, keyLength: length, causal }));
      const slice = bias.data.subarray(head * length * length, (head + 1) * length * length).map((v) => (v === -Infinity ? NaN : v));
      return { tensor: { data: slice, shape: [length, length] }, caption: `ALiBi bias, head ${head} of ${heads}${causal ? ', causal' : ''} (query × key)` };
    }
    if (encoding === 't5') {
      const options = { queryLength: length, keyLength: length, numBuckets: numberAttribute(this, 'buckets', 32), maxDistance: numberAttribute(this, 'max-distance', 128),
        bidirectional: this.getAttribute('bidirectional') !== 'false' };
      const buckets = await onHost(pe.t5Buckets(options));
      return { tensor: { data: Float32Array.from(buckets.data), shape: buckets.shape }, caption: `T5 buckets of key − query, ${options.numBuckets} buckets (query × key)` };
    }
    if (encoding === 'sincos2d') {
      const options = { gridH: numberAttribute(this, 'grid-h', 8), gridW: numberAttribute(this, 'grid-w', 8), dModel: numberAttribute(this, 'd-model', 64), base: numberAttribute(this, 'base', 10000) };
      return { tensor: await onHost(pe.sincos2d(options)), caption: `2-D sin-cos [${options.gridH}·${options.gridW} patches × ${options.dModel}]`, range: { min: -1, max: 1 } };
    }
    throw new RangeError(`encoding must be one of 'sinusoidal', 'alibi', 't5', 'sincos2d', got '${encoding}'`);
  }

  async render() {
    const generation = ++this.#generation;
    const root = this.shadowRoot;
    const errorBox = root.querySelector('.error');
    try {
      const pe = await posembed();
      const { tensor, caption, range } = await this.#compute(pe);
      if (generation !== this.#generation) return;
      this.#tensor = tensor;
      const finite = tensor.data.filter(Number.isFinite);
      drawHeatmap(this.canvas, tensor, { colormap: this.getAttribute('colormap') ?? (range ? 'RdBu' : 'viridis'), range: range ?? valueRange(finite) });
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
