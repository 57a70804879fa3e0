// <posembed-tokens model="smollm2-135m" text="The king and the queen">: a real model's token embeddings in an
// author's page. The model's own tokenizer cuts the text into pieces; their rows of its trained token table are drawn,
// with the tokens nearest the selected one, the whole vocabulary placed by its two principal axes, and a − b + c.
// The tokenizer and the table live in a worker (the table streamed from the Hub by HTTP Range and kept in its own
// dtype there), so the page's thread only draws. A model that cannot be reached (offline, a host without CORS) is
// named with why, and what was drawn stays.
// Attributes: model (a preset or a model folder URL), text, k (nearest tokens listed), analogy (a, b, c).
import { Figure } from './figure.js';
import { drawVocabularyMap } from '../vocabulary_map.js';
import { observedAttributes, problemsMessage } from '../element_schemas.js';
import { BASE_STYLE, LazyElement, adoptStyles, define } from './shared.js';
import { packageWorker } from './workers.js';

const TAG = 'posembed-tokens';

// Open models whose folders a reader's browser can fetch (the Hub answers CORS and byte ranges; gated repositories
// need a login a reader cannot give).
export const MODEL_FOLDERS = {
  gpt2: { url: 'https://huggingface.co/openai-community/gpt2/resolve/main/', name: 'GPT-2', size: '50,257 × 768, F32: 154 MB' },
  'smollm2-135m': { url: 'https://huggingface.co/HuggingFaceTB/SmolLM2-135M/resolve/main/', name: 'SmolLM2-135M', size: '49,152 × 576, BF16: 57 MB' },
  'qwen3-0.6b': { url: 'https://huggingface.co/Qwen/Qwen3-0.6B/resolve/main/', name: 'Qwen3-0.6B', size: '151,936 × 1,024, BF16: 311 MB' },
};

const STYLE = `
  .controls { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: end; margin: 0.25rem 0 0.5rem; }
  label { display: flex; flex-direction: column; font-size: 0.8rem; color: var(--pe-theme-muted); }
  input { font: inherit; font-family: var(--posembed-mono, ui-monospace, monospace); }
  input[name="text"] { width: min(36rem, 90vw); }
  input[name="a"], input[name="b"], input[name="c"] { width: 7rem; }
  .status { font-size: 0.85rem; margin: 0.25rem 0; }
  progress { width: min(20rem, 80vw); }
  .chips { display: flex; flex-wrap: wrap; gap: 0.3rem; margin: 0.25rem 0 0.5rem; }
  .chips button { font: inherit; font-family: var(--posembed-mono, ui-monospace, monospace); font-size: 0.85rem; padding: 0.1rem 0.4rem;
    border: 1px solid var(--posembed-border, #d4d9df); border-radius: 4px; background: transparent; color: inherit; cursor: pointer; }
  .chips button[aria-pressed="true"] { background: var(--pe-theme-accent, #1f6feb); color: var(--pe-theme-on-accent, #fff); }
  h3 { font-size: 0.95rem; margin: 0.9rem 0 0.25rem; }
  ol { font-family: var(--posembed-mono, ui-monospace, monospace); font-size: 0.85rem; margin: 0.25rem 0; padding-left: 2rem; }
  .nearest-caption { font-size: 0.85rem; color: var(--pe-theme-muted); }
  .grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 320px), 1fr)); gap: 0 1.5rem; }
`;

const TEMPLATE = `
  <p class="status" role="status"></p>
  <progress max="1" value="0" hidden></progress>
  <p class="error" part="error" role="alert" hidden></p>
  <form class="controls text" part="controls"><label><span data-string="text"></span> <input name="text" type="text" spellcheck="false" autocomplete="off"></label></form>
  <div class="chips" role="group" aria-label="The text's tokens: choose one"></div>
  <div class="rows"></div>
  <div class="grid">
    <div><h3 class="nearest-title"></h3><ol class="nearest"></ol><p class="nearest-caption"></p></div>
    <div class="vocabulary"></div>
  </div>
  <h3 data-string="analogy"></h3>
  <form class="controls analogy" part="controls">
    <label>a <input name="a" spellcheck="false" autocomplete="off"></label>
    <label>− b <input name="b" spellcheck="false" autocomplete="off"></label>
    <label>+ c <input name="c" spellcheck="false" autocomplete="off"></label>
    <button part="button" type="submit" data-string="find"></button>
  </form>
  <ol class="analogy-result" aria-live="polite"></ol>
`;

const shown = (label) => JSON.stringify(label);

export class PosembedTokens extends LazyElement {
  static words = { ...LazyElement.words, text: 'text, cut by the model\'s tokenizer', nearest: 'Nearest tokens', analogy: 'a − b + c', find: 'Find' };
  static observedAttributes = observedAttributes(TAG);
  #worker = null;
  #calls = new Map();
  #nextCall = 0;
  #model = null;        // { key, name, summary }: the model the worker holds
  #drawn = null;        // { key }: what the figures show
  #selected = 0;
  #text = null;         // the reader's text, once typed (else the attribute's)
  #rows;
  #vocabulary;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, BASE_STYLE, STYLE);
    root.innerHTML = TEMPLATE;
    this.#rows = new Figure(root.querySelector('.rows'), { label: 'The rows of the text\'s tokens, token by dimension', title: 'Their rows of the token table' });
    this.#vocabulary = new Figure(root.querySelector('.vocabulary'), { label: 'How many of the table\'s rows lie in each cell of its two principal axes', title: 'The whole vocabulary by its two principal axes' });
    const textInput = root.querySelector('input[name="text"]');
    let typing = null;
    textInput.addEventListener('input', () => {
      clearTimeout(typing);
      typing = setTimeout(() => {
        this.#text = textInput.value;
        this.#selected = 0;
        this.announce('change', { control: 'text', value: textInput.value });
        this.render();
      }, 250);
    });
    root.querySelector('form.text').addEventListener('submit', (event) => event.preventDefault());
    root.querySelector('form.analogy').addEventListener('submit', (event) => {
      event.preventDefault();
      this.#analogy();
    });
  }

  // Runs a task in the worker (started with the first), resolving to its result; onProgress gets the fraction done.
  #call(task, args, onProgress) {
    if (!this.#worker) {
      // dist/tokens-worker.js: the worker bundled whole at build time (scripts/build-dist.mjs) from ./tokens-worker.js.
      this.#worker = packageWorker(() => new Worker(new URL('../tokens-worker.js', import.meta.url), { type: 'module' }), () => import.meta.resolve('../tokens-worker.js'), 'tokens');
      this.#worker.onmessage = ({ data }) => {
        if (data.type === 'error') {  // the worker's module did not load: every call fails with why
          for (const { reject } of this.#calls.values()) reject(new Error(data.message));
          this.#calls.clear();
          return;
        }
        const call = this.#calls.get(data.id);
        if (!call) return;
        if (data.progress !== undefined) {
          call.onProgress?.(data.progress);
          return;
        }
        this.#calls.delete(data.id);
        if (data.error) call.reject(new (data.error.name === 'TypeError' ? TypeError : RangeError)(data.error.message));
        else call.resolve(data.result);
      };
    }
    const id = this.#nextCall++;
    return new Promise((resolve, reject) => {
      this.#calls.set(id, { resolve, reject, onProgress });
      this.#worker.postMessage({ id, task, args });
    });
  }

  #say(status, error = '') {
    const root = this.shadowRoot;
    root.querySelector('.status').textContent = status;
    const box = root.querySelector('.error');
    box.textContent = error;
    box.hidden = !error;
  }

  async render() {
    const { values, problems } = this.readAttributes();
    if (problems.length) {
      this.#say('', problemsMessage(TAG, problems));
      return;
    }
    const generation = ++this.generation;
    const preset = MODEL_FOLDERS[values.model.toLowerCase()];
    const url = preset?.url ?? values.model;
    const name = preset?.name ?? url.replace(/\/+$/, '').replace(/\/resolve\/[^/]+$/, '').split('/').slice(-2).join('/');
    if (!preset && !/^https?:\/\//.test(url)) {
      this.#say('', `<${TAG}>: model must be a preset (${Object.keys(MODEL_FOLDERS).join(', ')}) or a model folder's URL (https://…/resolve/main/), got "${values.model}"`);
      return;
    }
    const root = this.shadowRoot;
    const textInput = root.querySelector('input[name="text"]');
    const text = this.#text ?? values.text;
    if (textInput.value !== text && root.activeElement !== textInput) textInput.value = text;
    const [a, b, c] = values.analogy.split(',');
    const analogyForm = root.querySelector('form.analogy');
    if (!analogyForm.dataset.set || analogyForm.dataset.set !== values.analogy) {
      [analogyForm.elements.a.value, analogyForm.elements.b.value, analogyForm.elements.c.value] = [a ?? '', b ?? '', c ?? ''];
      analogyForm.dataset.set = values.analogy;
    }
    if (this.#model?.key !== url) {
      const progress = root.querySelector('progress');
      progress.hidden = false;
      progress.value = 0;
      this.#say(`Opening ${name}${preset ? ` (${preset.size})` : ''}: its config, tokenizer and token table…`);
      try {
        const summary = await this.#call('open', { url }, (fraction) => {
          if (generation !== this.generation) return;
          progress.value = fraction;
          this.#say(`Streaming ${name}'s token table: ${Math.round(fraction * 100)}%`);
        });
        this.#model = { key: url, name, summary };
        this.#text = null;
        if (textInput.value !== values.text && root.activeElement !== textInput) textInput.value = values.text;
      } catch (error) {
        if (generation !== this.generation) return;
        const kept = this.#model ? ` ${this.#model.name}'s table stays in use.` : '';
        this.#say('', `Could not open ${name} (${url}): ${error.message}. The page may be offline, or the host may not allow this page to read it (CORS).${kept}`);
        return;
      } finally {
        progress.hidden = true;
      }
    }
    if (generation !== this.generation) return;
    const { summary } = this.#model;
    this.#say(`${this.#model.name}: a ${summary.vocabSize.toLocaleString('en')} × ${summary.dModel.toLocaleString('en')} token table, kept as ${summary.dtype}, and its own tokenizer.`);
    try {
      await this.#drawTokens(this.#text ?? values.text, values.k, generation);
      await this.#analogy(generation);
    } catch (error) {
      if (generation === this.generation) this.#say(root.querySelector('.status').textContent, error.message);
      return;
    }
    if (generation === this.generation) {
      this.dataset.rendered = String(generation);
      this.announce('render', { model: this.#model.name, tokens: this.#drawn.ids.length });
    }
  }

  async #drawTokens(text, k, generation) {
    const result = await this.#call('tokens', { text, selected: this.#selected, k });
    if (generation !== this.generation) return;
    const { ids, labels, rows, nearest, selected } = result;
    this.#selected = selected;
    this.#drawn = { ids };
    const root = this.shadowRoot;
    root.querySelector('.chips').replaceChildren(...ids.map((id, i) => {
      const chip = document.createElement('button');
      chip.type = 'button';
      chip.textContent = `${shown(labels[i])} → ${id}`;
      chip.setAttribute('aria-pressed', String(i === selected));
      chip.addEventListener('click', () => {
        this.#selected = i;
        this.announce('change', { control: 'token', value: i });
        this.render();
      });
      return chip;
    }));
    const name = this.#model.name;
    this.#rows.heatmap(rows, { x: { label: 'dimension' }, y: { label: 'token', names: labels.map(shown) }, colour: { label: 'value' } });
    this.#rows.caption = `Each row is one token's ${rows.shape[1].toLocaleString('en')} numbers in ${name}'s trained token table: the model's whole picture of a token before it reads the others. Repeated tokens get identical rows; the same word with and without its leading space is two tokens.`;
    root.querySelector('.nearest-title').textContent = `${this.word('nearest')}: ${shown(labels[selected])}`;
    root.querySelector('.nearest').replaceChildren(...nearest.map(({ id, label, score }) => Object.assign(document.createElement('li'), { textContent: `${shown(label)} (${id}): ${score.toFixed(3)}` })));
    root.querySelector('.nearest-caption').textContent = `The rows of ${name}'s table closest in direction (cosine) to the selected token's, itself first: trained rows put tokens used alike near each other.`;
    this.#vocabulary.stale(true, `Placing all ${this.#model.summary.vocabSize.toLocaleString('en')} rows by their two principal axes…`);
    const grid = await this.#call('vocabulary', { ids });
    if (generation !== this.generation) return;
    const tokenName = (id) => grid.names[id] ?? '';
    const chosen = drawVocabularyMap(this.#vocabulary, grid, { tokenName, selectedId: ids[selected] });
    this.#vocabulary.stale(false);
    this.#vocabulary.caption = `All ${grid.rows.toLocaleString('en')} rows of ${name}'s table, counted per cell of the plane of its two principal axes (the directions along which its rows differ most): where many tokens crowd, the model gives them similar directions.`
      + (chosen ? ` ${shown(tokenName(chosen.id))} lies in a cell of ${grid.counts[chosen.cell]}.` : '');
  }

  async #analogy(generation = this.generation) {
    const form = this.shadowRoot.querySelector('form.analogy');
    const list = this.shadowRoot.querySelector('.analogy-result');
    const words = ['a', 'b', 'c'].map((key) => form.elements[key].value);
    if (!this.#model || words.some((word) => word.trim() === '')) return;
    try {
      const found = await this.#call('analogy', { words, k: 5 });
      if (generation !== this.generation) return;
      list.replaceChildren(...found.map(({ id, label, score }) => Object.assign(document.createElement('li'), { textContent: `${shown(label)} (${id}): ${score.toFixed(3)}` })));
    } catch (error) {
      list.replaceChildren(Object.assign(document.createElement('li'), { textContent: error.message }));
    }
  }

  released() {
    this.#worker?.terminate();
    this.#worker = null;
    this.#model = null;
    for (const { reject } of this.#calls.values()) reject(new Error('the element was removed from the page'));
    this.#calls.clear();
  }
}

define(TAG, PosembedTokens);
