// <posembed-bias kind="alibi" heads="8" length="32" causal>: one small heatmap per head (query by key), all on one
// colour scale, so the heads can be compared (ALiBi's slopes); scale="per-head" colours each over its own range
// (its shape). kind="t5" draws the bias a [buckets, heads] table gives: a random (untrained) one from a seed, which
// says so, or a trained one set as element.table = { data, shape: [buckets, heads], name } (its buckets and heads
// then the table's). Attributes: kind, heads, length, causal, buckets, max-distance, seed (t5), colormap, scale,
// caption, axes, legend.
import { MASKED, colormap as colourScale, valueRange } from '../colormap.js';
import { Figure, colourBar } from './figure.js';
import { ELEMENT_SCHEMAS, inAttributeWords, observedAttributes, problemsMessage } from '../element_schemas.js';
import { BASE_STYLE, LazyElement, adoptStyles, authorMatrix, define, onHost, posembed } from './shared.js';
import { nextTask } from '../next_task.js';

const TAG = 'posembed-bias';

const SLICE_MS = 40;  // heads drawn for at most about this long before the page gets its thread back
const STYLE = `
  .heads { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 0 0.75rem; }
  .heads .pe-figure { margin: 0.25rem 0; }
`;

// A T5 table: [buckets, heads], each within what the buckets and heads attributes allow.
const TABLE_LIMITS = { buckets: ELEMENT_SCHEMAS[TAG].attributes.buckets, heads: ELEMENT_SCHEMAS[TAG].attributes.heads };

// The table's buckets and heads, checked as the attributes would be, with the heads' picture in the element's budget.
function checkedTable(table, length) {
  const weights = authorMatrix(table, 'table', TABLE_LIMITS.buckets.max * TABLE_LIMITS.heads.max);
  const [buckets, heads] = weights.shape;
  for (const [name, count] of Object.entries({ buckets, heads })) {
    const { min, max } = TABLE_LIMITS[name];
    if (count < min || count > max) throw new RangeError(`table.shape is [buckets, heads]: ${name} must be in [${min}, ${max}], got ${count}`);
  }
  const [overBudget] = ELEMENT_SCHEMAS[TAG].budget({ heads, length });
  if (overBudget) throw new RangeError(`table: its ${heads} heads at length ${length}: ${overBudget}`);
  return weights;
}

export class PosembedBias extends LazyElement {
  static observedAttributes = observedAttributes(TAG);
  static properties = ['table'];  // set before the element was defined: see LazyElement
  #figures = [];
  #table = null;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, BASE_STYLE, STYLE);
    root.innerHTML = '<p class="title" part="title" hidden></p><p class="caption" part="caption"></p><div class="heads"></div><div class="shared-legend"></div><p class="error" role="alert" part="error" hidden></p>';
  }

  // A trained T5 table ({ data, shape: [buckets, heads], name }) in place of the seeded one (null: the seeded one again).
  get table() { return this.#table; }
  set table(value) {
    this.#table = value;
    this.attributeChangedCallback();
  }

  // The bias of every head, [heads, length, length] (masked cells NaN), how many heads, and what it shows.
  async #bias(pe, v) {
    const { kind, heads, length } = v;
    if (kind === 'alibi') {
      const causal = v.causal;
      const bias = await onHost(pe.alibiBias({ numHeads: heads, keyLength: length, causal }));
      const slopes = Array.from(pe.alibiSlopes(heads).data);
      return {
        data: bias.data.map((v) => (v === -Infinity ? NaN : v)),
        heads,
        title: (h) => `head ${h} · slope ${slopes[h].toPrecision(3)}`,
        caption: `ALiBi, ${heads} heads${causal ? `, causal (${MASKED.word}: a key after the query, masked)` : ''}: each head subtracts its slope times the distance between query and key. `
          + 'Steep heads look only nearby; shallow ones far back.',
      };
    }
    if (kind === 't5') {
      let weights;
      let source;
      if (this.#table) {
        weights = checkedTable(this.#table, length);
        source = `from ${typeof this.#table.name === 'string' && this.#table.name ? this.#table.name : 'the given table'}`;
      } else {
        // A seeded [buckets, heads] table, read from a seeded learned-positions table of that shape.
        const seeded = pe.learnedPositions({ maxLength: v.buckets, dModel: heads, init: { std: 1, seed: v.seed } });
        weights = seeded.weights;
        seeded.dispose();
        source = `from an untrained (random) table (seed ${v.seed})`;
      }
      const [numBuckets, tableHeads] = weights.shape;
      const bias = await onHost(pe.t5Bias(weights, { queryLength: length, keyLength: length, numBuckets, maxDistance: v['max-distance'] }));
      return {
        data: bias.data,
        heads: tableHeads,
        title: (h) => `head ${h}`,
        caption: `T5 relative bias, ${tableHeads} heads, ${numBuckets} buckets, ${source}: every cell at the same distance gets its bucket's value, so each diagonal is one colour.`,
      };
    }
    throw new RangeError(`kind must be "alibi" or "t5", got "${kind}"`);
  }

  async render() {
    const generation = ++this.generation;
    const root = this.shadowRoot;
    const errorBox = root.querySelector('.error');
    const { values, problems } = this.readAttributes();
    if (problems.length) {
      errorBox.textContent = problemsMessage(TAG, problems);
      errorBox.hidden = false;
      return;
    }
    try {
      const pe = await posembed();
      const { length } = values;
      const { data, heads, title, caption } = await this.#bias(pe, values);
      if (generation !== this.generation) return;
      const perHead = values.scale === 'per-head';
      const name = values.colormap;
      const shared = valueRange(data);
      const { axes, legend } = values;
      const container = root.querySelector('.heads');
      if (this.#figures.length !== heads) {
        container.replaceChildren();
        this.#figures = Array.from({ length: heads }, () => new Figure(container, { label: 'head', maxHeight: 200 }));
      }
      const missing = data.some(Number.isNaN);
      let sliceStart = performance.now();
      for (const [h, figure] of this.#figures.entries()) {
        // Heads in slices of the page's time: 64 heads, or a slow phone, never block it for long.
        if (performance.now() - sliceStart > SLICE_MS) {
          await nextTask();
          if (generation !== this.generation) return;
          sliceStart = performance.now();
        }
        const head = data.subarray(h * length * length, (h + 1) * length * length);
        Object.assign(figure, { axes, legend: legend && perHead, label: `${title(h)}: bias by query and key` });
        figure.title = title(h);
        figure.heatmap({ data: head, shape: [length, length] }, {
          colormap: name, range: perHead ? valueRange(head) : shared,
          x: { label: values['x-label'] ?? 'key' }, y: { label: values['y-label'] ?? 'query' }, colour: { label: 'bias' },
        });
      }
      root.querySelector('.shared-legend').replaceChildren(...(legend && !perHead ? [colourBar(colourScale(name, shared), name, 320, { label: 'bias, all heads' }, missing)] : []));
      Object.assign(root.querySelector('.title'), { textContent: values.title ?? '', hidden: !values.title });
      root.querySelector('.caption').textContent = values.caption
        ?? `${caption} ${perHead ? 'Each head coloured over its own range: compare their shapes here, not their sizes (one scale for all heads shows those).'
          : 'One colour scale for all heads, so sizes compare: a head whose values span little of it looks nearly flat (a scale per head shows its shape).'}`;
      errorBox.hidden = true;
      this.dataset.rendered = String(generation);
      this.announce('render', { kind: values.kind, shape: [heads, length, length], range: shared });
    } catch (error) {
      errorBox.textContent = inAttributeWords(TAG, error.message);
      errorBox.hidden = false;
    }
  }
}

define(TAG, PosembedBias);
