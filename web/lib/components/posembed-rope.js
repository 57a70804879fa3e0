// <posembed-rope head-dim="64" base="10000" layout="half" pairs="4">: how RoPE turns each 2-D pair of a vector
// as the position moves. Each dial is one pair; its hand is where the package's applyRope puts the unit
// vector (1, 0) of that pair at the current position. Animated; Space pauses, arrow keys step.
import { BASE_STYLE, adoptStyles, define, numberAttribute, onHost, posembed, whenVisible } from './shared.js';

const STYLE = `
  .controls { display: flex; gap: 0.75rem; align-items: center; font-size: 0.85rem; }
  button { font: inherit; padding: 0.2rem 0.7rem; border-radius: 4px; border: 1px solid var(--posembed-border, #d4d9df);
           background: var(--posembed-button, #fff); color: inherit; cursor: pointer; }
`;
const DIAL = 96;
// Wavelengths from 6.28 to millions, short enough for a dial's width: 6.28, 112, 2.65K, 4.71M.
const WAVELENGTH = new Intl.NumberFormat('en', { notation: 'compact', maximumSignificantDigits: 3 });

export class PosembedRope extends HTMLElement {
  static observedAttributes = ['head-dim', 'base', 'layout', 'pairs', 'position', 'speed'];
  #started = false;
  #stopWaiting = null;
  #frame = 0;
  #timer = 0;
  #position = 0;
  #playing = true;
  #pe = null;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, BASE_STYLE, STYLE);
    root.innerHTML = `<p class="caption"></p>
      <canvas tabindex="0" role="img"></canvas>
      <div class="controls"><button type="button" aria-pressed="false">Pause</button><span class="readout" aria-live="off"></span></div>
      <p class="error" role="alert" hidden></p>`;
    this.canvas = root.querySelector('canvas');
    this.button = root.querySelector('button');
    this.button.addEventListener('click', () => this.#toggle());
    this.canvas.addEventListener('keydown', (event) => {
      if (event.key === ' ') this.#toggle();
      else if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') this.#step(event.key === 'ArrowRight' ? 1 : -1);
      else return;
      event.preventDefault();
    });
  }

  connectedCallback() {
    this.#stopWaiting = whenVisible(this, async () => {
      this.#pe = await posembed();
      this.#started = true;
      this.#position = numberAttribute(this, 'position', 0);
      this.#schedule();
    });
  }

  disconnectedCallback() {
    this.#stopWaiting?.();
    clearTimeout(this.#timer);
    cancelAnimationFrame(this.#frame);
    this.#started = false;
  }

  attributeChangedCallback(name) {
    if (!this.#started) return;
    if (name === 'position') this.#position = numberAttribute(this, 'position', 0);
    this.draw();
  }

  get playing() {
    return this.#playing;
  }

  #toggle() {
    this.#playing = !this.#playing;
    clearTimeout(this.#timer);
    cancelAnimationFrame(this.#frame);
    this.button.textContent = this.#playing ? 'Pause' : 'Play';
    this.button.setAttribute('aria-pressed', String(!this.#playing));
    if (this.#playing) this.#schedule();
  }

  #step(delta) {
    this.#position = Math.max(0, this.#position + delta);
    this.draw();
  }

  #schedule() {
    clearTimeout(this.#timer);
    this.draw();
    if (!this.#playing) return;
    this.#timer = setTimeout(() => {
      this.#frame = requestAnimationFrame(() => {
        this.#position += 1;
        this.#schedule();
      });
    }, 1000 / numberAttribute(this, 'speed', 4));
  }

  // The pair indices shown: spread over the frequencies, fastest first.
  #pairs(half) {
    const count = Math.min(half, numberAttribute(this, 'pairs', 4));
    return Array.from({ length: count }, (_, k) => Math.round((k * (half - 1)) / Math.max(count - 1, 1)));
  }

  async draw() {
    const root = this.shadowRoot;
    const errorBox = root.querySelector('.error');
    try {
      const headDim = numberAttribute(this, 'head-dim', 64);
      const base = numberAttribute(this, 'base', 10000);
      const layout = this.getAttribute('layout') ?? 'half';
      const half = headDim / 2;
      const pairs = this.#pairs(half);
      // x: the first member of every pair set to 1, the second to 0.
      const x = new Float32Array(headDim);
      for (let i = 0; i < half; i++) x[layout === 'half' ? i : 2 * i] = 1;
      const rotated = await onHost(this.#pe.applyRope({ data: x, shape: [1, headDim] }, { positions: [this.#position], base, layout }));
      const { invFreq } = this.#pe.ropeInvFreq({ headDim, base });
      const context = this.canvas.getContext('2d');
      const ratio = globalThis.devicePixelRatio || 1;
      this.canvas.width = pairs.length * DIAL * ratio;
      this.canvas.height = DIAL * ratio;
      this.canvas.style.width = `${pairs.length * DIAL}px`;
      this.canvas.style.height = `${DIAL}px`;
      context.setTransform(ratio, 0, 0, ratio, 0, 0);
      context.clearRect(0, 0, pairs.length * DIAL, DIAL);
      const style = getComputedStyle(this);
      const ink = style.getPropertyValue('--posembed-ink').trim() || '#1d232a';
      const accent = style.getPropertyValue('--posembed-accent').trim() || '#1f5fbf';
      pairs.forEach((pair, k) => {
        const [a, b] = layout === 'half' ? [pair, pair + half] : [2 * pair, 2 * pair + 1];
        const cx = k * DIAL + DIAL / 2;
        const cy = DIAL / 2 - 8;
        const r = DIAL / 2 - 22;  // room below for two lines of label
        context.strokeStyle = ink;
        context.globalAlpha = 0.3;
        context.beginPath();
        context.arc(cx, cy, r, 0, 2 * Math.PI);
        context.stroke();
        context.globalAlpha = 1;
        context.strokeStyle = accent;
        context.lineWidth = 3;
        context.beginPath();
        context.moveTo(cx, cy);
        context.lineTo(cx + r * rotated.data[a], cy - r * rotated.data[b]);
        context.stroke();
        context.lineWidth = 1;
        context.fillStyle = ink;
        context.font = '11px system-ui, sans-serif';
        context.textAlign = 'center';
        context.fillText(`pair ${pair}`, cx, DIAL - 15);
        context.fillText(`λ = ${WAVELENGTH.format(2 * Math.PI / invFreq.data[pair])}`, cx, DIAL - 2);
      });
      root.querySelector('.caption').textContent = `RoPE (${layout === 'half' ? 'GPT-NeoX/LLaMA halves' : 'GPT-J pairs'}), head dim ${headDim}, base ${base}`;
      root.querySelector('.readout').textContent = `position ${this.#position}`;
      this.canvas.setAttribute('aria-label', `Rotation of ${pairs.length} pairs at position ${this.#position}; Space pauses, arrow keys step.`);
      this.dataset.position = String(this.#position);
      errorBox.hidden = true;
    } catch (error) {
      errorBox.textContent = error.message;
      errorBox.hidden = false;
    }
  }
}

define('posembed-rope', PosembedRope);
