// <posembed-lookup text="Max(1,6,2)" d-model="8">: the token-lookup walkthrough of the explorer page as a component.
import { mountLookup } from './lookup.js';
import { BASE_STYLE, adoptStyles, define, posembed, whenVisible } from './shared.js';

const STYLE = `
  .controls { display: flex; flex-wrap: wrap; gap: 0.6rem 1rem; align-items: end; }
  label { display: flex; flex-direction: column; font-size: 0.8rem; color: var(--posembed-muted, #5b6672); }
  input, select { font: inherit; width: 7rem; }
  .steps { display: grid; gap: 0.75rem; margin-top: 0.75rem; }
  h3 { font-size: 0.95rem; margin: 0 0 0.2rem; }
  .shape { color: var(--posembed-muted, #5b6672); font-family: var(--posembed-mono, ui-monospace, monospace); font-size: 0.8rem; }
  .tokens { display: flex; flex-wrap: wrap; gap: 0.3rem; }
  .token { font-family: var(--posembed-mono, ui-monospace, monospace); border: 1px solid var(--posembed-border, #d4d9df); border-radius: 4px; padding: 0 0.35rem; }
  table { border-collapse: collapse; font-family: var(--posembed-mono, ui-monospace, monospace); font-size: 0.75rem; }
  th, td { padding: 0.05rem 0.4rem; text-align: right; }
  th { color: var(--posembed-muted, #5b6672); font-weight: normal; }
  .matrix-scroll { overflow-x: auto; }
`;

export class PosembedLookup extends HTMLElement {
  #stopWaiting = null;
  #mounted = null;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, BASE_STYLE, STYLE);
    root.innerHTML = `<form id="lookup-controls" class="controls">
        <label>expression <input name="text" type="text" spellcheck="false" autocomplete="off"></label>
        <label>dModel <select name="dModel"><option value="8">8</option><option value="64">64</option></select></label>
        <label>pad to <input name="padTo" type="number" min="1" max="64" step="1" value="10"></label>
        <label>seed <input name="seed" type="number" min="0" max="4294967295" step="1" value="0"></label>
      </form>
      <p id="lookup-error" class="error" role="alert" hidden></p>
      <div id="lookup-steps" class="steps"></div>
      <details><summary>Vocabulary</summary><p id="vocabulary"></p></details>`;
  }

  connectedCallback() {
    const root = this.shadowRoot;
    root.querySelector('[name="text"]').value = this.getAttribute('text') ?? 'Max(1,6,2)';
    root.querySelector('[name="dModel"]').value = this.getAttribute('d-model') ?? '8';
    this.#stopWaiting = whenVisible(this, async () => {
      this.#mounted = mountLookup(await posembed(), root);
      this.dataset.started = 'true';
    });
  }

  // Frees the embedding table the walkthrough holds.
  disconnectedCallback() {
    this.#stopWaiting?.();
    this.#mounted?.unmount();
  }

  // Whether the walkthrough holds an embedding table on the heap now (false once removed from the page).
  get holdsTable() {
    return this.#mounted?.holdsTable() ?? false;
  }
}

define('posembed-lookup', PosembedLookup);
