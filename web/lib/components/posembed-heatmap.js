// <posembed-heatmap encoding="sinusoidal" length="64" d-model="128">: a heatmap of an encoding, framed by the
// figure layer (axes, colour bar, caption, keyboard readout); or of the author's own matrix, set as
// element.data = { data, shape: [rows, columns], range?, caption?, x?, y? }. The attributes and what each encoding
// reads are in element_schemas.js; every attribute change draws it again, and every problem with them is named at once.
// Fires 'render' (detail: { encoding, shape, range }) once drawn.
import { encodingFigure, encodingOptions } from '../encoding_figures.js';
import { valueRange } from '../colormap.js';
import { inAttributeWords, observedAttributes, problemsMessage } from '../element_schemas.js';
import { Figure } from './figure.js';
import { BASE_STYLE, LazyElement, adoptStyles, authorMatrix, define, posembed } from './shared.js';

const TAG = 'posembed-heatmap';

export class PosembedHeatmap extends LazyElement {
  static observedAttributes = observedAttributes(TAG);
  static properties = ['data'];  // set before the element was defined: see LazyElement
  #data = null;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, BASE_STYLE);
    this.figure = new Figure(root, { label: 'Heatmap' });
  }

  // The author's matrix, drawn in place of an encoding (null: the encoding again).
  get data() { return this.#data; }
  set data(value) {
    this.#data = value;
    this.attributeChangedCallback();
  }

  async render() {
    const generation = ++this.generation;
    const figure = this.figure;
    const { values, problems } = this.readAttributes();
    figure.axes = values.axes !== false;
    figure.legend = values.legend !== false;
    if (problems.length) {
      figure.error(problemsMessage(TAG, problems));
      return;
    }
    figure.stale(true);
    try {
      let drawn;
      if (this.#data) {
        const tensor = authorMatrix(this.#data);
        const found = valueRange(tensor.data);
        drawn = {
          tensor, x: this.#data.x ?? { label: 'column' }, y: this.#data.y ?? { label: 'row' }, colour: { label: 'value' },
          range: this.#data.range ?? (found.min <= found.max ? found : { min: 0, max: 0 }), colormap: 'viridis', caption: this.#data.caption ?? '', encoding: 'data',
        };
      } else {
        const pe = await posembed();
        drawn = { ...await encodingFigure(pe, values.encoding, encodingOptions(values, (name) => this.hasAttribute(name))), encoding: values.encoding };
      }
      if (generation !== this.generation) return;
      const x = { ...drawn.x, label: values['x-label'] ?? drawn.x.label };
      const y = { ...drawn.y, label: values['y-label'] ?? drawn.y.label };
      figure.label = `${values.title ?? 'Heatmap'}: ${y.label} by ${x.label}`;
      figure.title = values.title ?? '';
      figure.heatmap(drawn.tensor, { colormap: values.colormap ?? drawn.colormap, range: drawn.range, x, y, colour: drawn.colour });
      figure.caption = values.caption ?? drawn.caption;
      this.dataset.rendered = String(generation);
      this.announce('render', { encoding: drawn.encoding, shape: drawn.tensor.shape, range: drawn.range });
    } catch (error) {
      if (generation === this.generation) figure.error(`<${TAG}>: ${inAttributeWords(TAG, error.message)}`);
    }
  }
}

define(TAG, PosembedHeatmap);
