// <posembed-lookup text="Max(1,6,2)" d-model="64">: the token-lookup walkthrough over the tutorials' toy
// vocabulary, with its own controls for the reader. Attributes: text, d-model (even, 2–512), pad-to (1–64), seed,
// scale ('sqrt' or 'none'), axes and legend ('false' leaves them out). Changing an attribute sets the controls
// and draws again.
import { mountLookup } from './lookup.js';
import { observedAttributes, problemsMessage } from '../element_schemas.js';
import { BASE_STYLE, LazyElement, adoptStyles, define, posembed } from './shared.js';

const TAG = 'posembed-lookup';

const STYLE = `
  .controls { display: flex; flex-wrap: wrap; gap: 0.6rem 1rem; align-items: end; }
  label { display: flex; flex-direction: column; font-size: 0.8rem; color: var(--pe-theme-muted); }
  label.check { flex-direction: row; gap: 0.3rem; align-items: center; }
  input { font: inherit; width: 7rem; }
  input[type="checkbox"] { width: auto; }
  input[name="text"] { width: 11rem; font-family: var(--posembed-mono, ui-monospace, monospace); }
  .step h3 { font-size: 0.95rem; margin: 0.75rem 0 0.2rem; }
  .tokens { display: flex; flex-wrap: wrap; gap: 0.3rem; }
  .ids { font-family: var(--posembed-mono, ui-monospace, monospace); font-size: 0.8rem; margin: 0.3rem 0; }
`;

// attribute → form field
const FIELDS = { text: 'text', 'd-model': 'dModel', 'pad-to': 'padTo', seed: 'seed' };

export class PosembedLookup extends LazyElement {
  static words = {
    ...LazyElement.words, expression: 'expression', dModel: 'd_model (numbers per token)', padTo: 'pad to', seed: 'seed', scale: '× √d_model',
    vocabulary: 'The 20-token vocabulary',
  };
  static observedAttributes = observedAttributes(TAG);
  #mounted = null;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, BASE_STYLE, STYLE);
    root.innerHTML = `<form id="lookup-controls" class="controls" part="controls">
        <label><span data-string="expression"></span> <input name="text" type="text" spellcheck="false" autocomplete="off"></label>
        <label><span data-string="dModel"></span> <input name="dModel" type="number" min="2" max="512" step="2"></label>
        <label><span data-string="padTo"></span> <input name="padTo" type="number" min="1" max="64" step="1"></label>
        <label><span data-string="seed"></span> <input name="seed" type="number" min="0" max="4294967295" step="1"></label>
        <label class="check"><input name="scale" type="checkbox" checked> <span data-string="scale"></span></label>
      </form>
      <p id="lookup-error" class="error" role="alert" hidden></p>
      <div id="lookup-steps"></div>
      <details><summary data-string="vocabulary"></summary><p id="vocabulary"></p></details>`;
    root.querySelector('form').addEventListener('input', (event) => this.announce('change', { control: event.target.name, value: event.target.type === 'checkbox' ? event.target.checked : event.target.value }));
  }

  #setFields(values) {
    const form = this.shadowRoot.querySelector('form');
    for (const [attribute, field] of Object.entries(FIELDS)) form.elements[field].value = String(values[attribute]);
    form.elements.scale.checked = values.scale === 'sqrt';
  }

  async render() {
    const { values, problems } = this.readAttributes();
    if (problems.length) {
      const box = this.shadowRoot.querySelector('#lookup-error');
      box.textContent = problemsMessage(TAG, problems);
      box.hidden = false;
      return;
    }
    this.#setFields(values);
    const axesOrLegend = `${values.axes}/${values.legend}`;
    if (this.#mounted && this.#mounted.key !== axesOrLegend) {
      this.#mounted.unmount();
      this.shadowRoot.querySelector('#lookup-steps').replaceChildren();
      this.#mounted = null;
    }
    const generation = ++this.generation;
    const pe = await posembed();
    if (generation !== this.generation) return;
    if (!this.#mounted) {
      this.#mounted = mountLookup(pe, this.shadowRoot, { axes: values.axes, legend: values.legend });
      this.#mounted.key = axesOrLegend;
      await this.#mounted.ready;
    } else {
      await this.#mounted.render();
    }
    if (generation === this.generation) {
      this.dataset.rendered = String(generation);
      this.announce('render', { text: values.text, dModel: values['d-model'] });
    }
  }

  released() {
    this.#mounted?.unmount();
    this.#mounted = null;
    this.shadowRoot.querySelector('#lookup-steps').replaceChildren();
  }

  // Whether the walkthrough holds an embedding table on the heap now (false once removed from the page).
  get holdsTable() {
    return this.#mounted?.holdsTable() ?? false;
  }
}

define(TAG, PosembedLookup);
