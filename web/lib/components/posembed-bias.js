// <posembed-bias kind="alibi" heads="8" length="32" causal>: one small heatmap per head, side by side, each
// coloured over its own range (its shape), or with shared-scale over all heads' (how the heads compare: ALiBi's
// slopes). kind="t5" draws the bias a [buckets, heads] table gives (the table is seeded, as an untrained model's).
import { drawHeatmap, valueRange } from './heatmap.js';
import { BASE_STYLE, LazyElement, adoptStyles, define, numberAttribute, onHost, posembed } from './shared.js';

const STYLE = `
  .heads { display: flex; flex-wrap: wrap; gap: 0.5rem; }
  figure { margin: 0; }
  figcaption { font-size: 0.75rem; color: var(--posembed-muted, #5b6672); text-align: center; }
`;

export class PosembedBias extends LazyElement {
  static observedAttributes = ['kind', 'heads', 'length', 'causal', 'buckets', 'max-distance', 'seed', 'colormap', 'shared-scale'];

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, BASE_STYLE, STYLE);
    root.innerHTML = '<p class="caption"></p><div class="heads" role="group"></div><p class="error" role="alert" hidden></p>';
  }

  async render() {
    const generation = ++this.generation;
    const root = this.shadowRoot;
    const errorBox = root.querySelector('.error');
    try {
      const pe = await posembed();
      const kind = this.getAttribute('kind') ?? 'alibi';
      const heads = numberAttribute(this, 'heads', 8);
      const length = numberAttribute(this, 'length', 32);
      let bias;
      let caption;
      if (kind === 'alibi') {
        const causal = this.hasAttribute('causal');
        bias = await onHost(pe.alibiBias({ numHeads: heads, keyLength: length, causal }));
        const slopes = pe.alibiSlopes(heads).data;
        caption = `ALiBi, ${heads} heads${causal ? ', causal' : ''}: slopes ${Array.from(slopes, (s) => s.toPrecision(3)).join(', ')}`;
      } else if (kind === 't5') {
        const numBuckets = numberAttribute(this, 'buckets', 32);
        const seed = numberAttribute(this, 'seed', 0);
        // A seeded [numBuckets, heads] table, read from a seeded learned-positions table of that shape.
        const table = pe.learnedPositions({ maxLength: numBuckets, dModel: heads, init: { std: 1, seed } });
        const weights = table.weights;
        table.dispose();
        bias = await onHost(pe.t5Bias(weights, { queryLength: length, keyLength: length, maxDistance: numberAttribute(this, 'max-distance', 128) }));
        caption = `T5 relative bias, ${heads} heads, ${numBuckets} buckets (seeded table ${seed})`;
      } else {
        throw new RangeError(`kind must be 'alibi' or 't5', got '${kind}'`);
      }
      if (generation !== this.generation) return;
      const shared = this.hasAttribute('shared-scale');
      const sharedRange = shared ? valueRange(bias.data.filter(Number.isFinite)) : null;
      const figures = [];
      for (let h = 0; h < heads; h++) {
        const data = bias.data.subarray(h * length * length, (h + 1) * length * length).map((v) => (v === -Infinity ? NaN : v));
        const canvas = document.createElement('canvas');
        drawHeatmap(canvas, { data, shape: [length, length] }, { colormap: this.getAttribute('colormap') ?? 'viridis', range: sharedRange ?? valueRange(data.filter(Number.isFinite)) });
        const cell = Math.max(1, Math.floor(128 / length));
        canvas.style.width = `${length * cell}px`;
        canvas.style.height = `${length * cell}px`;
        canvas.setAttribute('role', 'img');
        canvas.tabIndex = 0;  // each head can be reached and announced by keyboard
        canvas.setAttribute('aria-label', `head ${h}: bias by query (rows) and key (columns)`);
        canvas.dataset.head = String(h);
        const figure = document.createElement('figure');
        const label = document.createElement('figcaption');
        label.textContent = `head ${h}`;
        figure.append(canvas, label);
        figures.push(figure);
      }
      root.querySelector('.heads').replaceChildren(...figures);
      root.querySelector('.caption').textContent = `${caption}; ${shared ? 'one colour scale for all heads' : 'each head coloured over its own range'}`;
      errorBox.hidden = true;
      this.dataset.rendered = String(generation);
    } catch (error) {
      errorBox.textContent = error.message;
      errorBox.hidden = false;
    }
  }
}

define('posembed-bias', PosembedBias);
