// What the components share: one posembed instance per page (however many components it holds), reading
// GPU results back, starting when needed, and the base styles, themable with CSS custom properties.
import { load } from '../index.js';
import { sharedInstance } from '../page_instance.js';
import { loadPart } from '../parts.js';
import { describe } from '../validate.js';
import { nextTask } from '../next_task.js';
import { ELEMENT_SCHEMAS, SCHEMES, readAttributes, readValue, unknownAttributes } from '../element_schemas.js';
import { camelCase } from '../op_schemas.js';
import { figureOf } from './figure.js';
import { applyScheme, followPageScheme } from './scheme.js';
import { THEME_STYLE } from './theme.js';

// A matrix an author hands an element as a property (`name`): { data, shape: [rows, columns] } of numbers (NaN
// cells are drawn as missing), at most `maxCells` cells, checked.
export function authorMatrix(value, name = 'data', maxCells = 2 ** 20) {
  if (value === null || typeof value !== 'object' || !Array.isArray(value.shape) || value.shape.length !== 2) {
    throw new TypeError(`${name} must be { data, shape: [rows, columns] }, got ${describe(value)}`);
  }
  const [rows, columns] = value.shape;
  if (!Number.isInteger(rows) || !Number.isInteger(columns) || rows < 1 || columns < 1) throw new RangeError(`${name}.shape must be two positive integers, got [${value.shape}]`);
  const data = value.data instanceof Float32Array ? value.data : Float32Array.from(value.data ?? [], Number);
  if (data.length !== rows * columns) throw new RangeError(`${name}.shape [${rows}, ${columns}] holds ${rows * columns} values but ${name}.data has ${data.length}`);
  if (rows * columns > maxCells) throw new RangeError(`${name} has ${rows * columns} cells, over this element's ${maxCells}`);
  return { data, shape: [rows, columns] };
}

let ownInstance = null;

// The page's own instance where it has loaded one (on WebGPU if the page chose it); else the elements' own, loaded
// once on first use: the light encoders-only module on wasm. Their tables are small enough for wasm SIMD, and
// asking for a GPU adapter costs requests and, where there is none, a line in the reader's console. `parts`: the
// package's parts (parts.js) the caller uses beyond the encoders, loaded too.
export async function posembed(...parts) {
  // Every element that waited for the module would otherwise go on in the one task that ends the wait (with the
  // page's own script, if it waited too): one that waited goes on in a task of its own.
  let waited = false;
  const timer = setTimeout(() => { waited = true; }, 0);
  const [instance] = await Promise.all([
    sharedInstance(() => {
      ownInstance ??= load({ encodersOnly: true });
      return ownInstance;
    }),
    ...parts.map(loadPart),
  ]);
  clearTimeout(timer);
  if (waited) await nextTask();
  return instance;
}

export { onHost } from '../encoding_figures.js';

// Calls start() once: when the element is (about to be) visible, or, for the panels further down, when the
// browser is next idle or the page is printed, so that printed pages and full-page captures hold every figure.
// Returns a function that cancels the wait.
export function whenVisible(element, start) {
  let started = false;
  const cleanups = [];
  const once = () => {
    if (started) return;
    started = true;
    for (const cleanup of cleanups) cleanup();
    start();
  };
  if (typeof IntersectionObserver !== 'function') {
    once();
    return () => {};
  }
  const observer = new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) once();
  }, { rootMargin: '200px' });
  observer.observe(element);
  cleanups.push(() => observer.disconnect());
  globalThis.addEventListener?.('beforeprint', once);
  cleanups.push(() => globalThis.removeEventListener?.('beforeprint', once));
  if (typeof requestIdleCallback === 'function') {
    const idle = requestIdleCallback(once, { timeout: 2000 });
    cleanups.push(() => cancelIdleCallback(idle));
  } else {
    const timer = setTimeout(once, 1000);
    cleanups.push(() => clearTimeout(timer));
  }
  return () => {
    started = true;
    for (const cleanup of cleanups) cleanup();
  };
}

// A component that renders once needed (see whenVisible) and again on every attribute change. Renders count
// their generation: one overtaken by a newer render, or by removal, drops its result.
export class LazyElement extends HTMLElement {
  // The words of the element's chrome (buttons, controls' labels, headings, status notes) with their English defaults,
  // each a key of element.strings; a template marks where each stands (data-string="key"). Subclasses add theirs.
  static words = { computing: 'Computing…' };
  #strings = {};
  #started = false;
  #renderQueued = false;
  #stopWaiting = null;
  #stopFollowing = null;
  generation = 0;

  connectedCallback() {
    // A property the page set before this element's code had loaded lies on the instance itself, hiding the
    // class's accessor: it is set again through the accessor.
    for (const name of this.constructor.properties ?? []) {
      if (!Object.hasOwn(this, name)) continue;
      const value = this[name];
      delete this[name];
      this[name] = value;
    }
    this.#stopFollowing = followPageScheme(this);
    this.#nameUnknownAttributes();
    this.#passOnCursor();
    this.applyStrings();
    this.#stopWaiting = whenVisible(this, () => {
      this.#started = true;
      this.render();
    });
  }

  disconnectedCallback() {
    this.#stopWaiting?.();
    this.#stopFollowing?.();
    this.generation++;
    this.released();
  }

  // Attributes set one after another (a page setting head-dim, then pairs) are drawn once, together, in a task of
  // their own (not in the page's script that set them: the two together could hold the page's thread too long). A
  // new theme restyles without drawing again (unless it is not one the element knows: then the render names it).
  attributeChangedCallback(name, previous, theme) {
    if (name === 'theme' && this.isConnected) {
      applyScheme(this, theme);
      if (theme === null || SCHEMES.includes(theme)) return;
    }
    if (!this.#started || this.#renderQueued) return;
    this.#renderQueued = true;
    setTimeout(() => {
      this.#renderQueued = false;
      if (!this.isConnected) return;
      applyScheme(this);
      this.#nameUnknownAttributes();
      this.render();
    });
  }

  // The chrome's words, the page's own where it gave them (a page in another language): element.strings =
  // { play: 'Abspielen' } replaces those it names; reading it gives every word the element has.
  get strings() { return { ...this.constructor.words, ...this.#strings }; }

  set strings(given) {
    const words = this.constructor.words;
    if (typeof given !== 'object' || given === null || Array.isArray(given)) throw new TypeError(`strings must be an object of words, such as { ${Object.keys(words)[0]}: '…' }, got ${JSON.stringify(given)}`);
    for (const [key, value] of Object.entries(given)) {
      if (!(key in words)) throw new TypeError(`strings: <${this.localName}> has no word '${key}' (its words: ${Object.keys(words).join(', ')})`);
      if (typeof value !== 'string') throw new TypeError(`strings.${key} must be text, got ${JSON.stringify(value)}`);
    }
    this.#strings = { ...given };
    this.applyStrings();
  }

  // One word of the chrome, the page's or the default.
  word(key) { return this.#strings[key] ?? this.constructor.words[key]; }

  // Writes the words where the template marks them; an element whose words change with its state (Play/Pause)
  // writes those in wordsChanged().
  applyStrings() {
    for (const node of this.shadowRoot?.querySelectorAll('[data-string]') ?? []) node.textContent = this.word(node.dataset.string);
    this.wordsChanged?.();
  }

  // The reader's cursor in one of the element's figures, told from the host as 'cursor' (detail: the place in the
  // data's terms, and which figure: its index among the element's figures).
  #cursorAt = null;
  #pendingCursor = null;
  #passingOn = false;

  #figures() {
    return [...(this.shadowRoot?.querySelectorAll('figure.pe-figure') ?? [])].filter((f) => !f.hidden && !f.closest('[hidden]'));
  }

  #passOnCursor() {
    if (this.#passingOn || !this.shadowRoot) return;
    this.#passingOn = true;
    this.shadowRoot.addEventListener('cursor', (event) => {
      this.#cursorAt = { ...event.detail, figure: Math.max(0, this.#figures().indexOf(event.target)) };
      this.announce('cursor', this.#cursorAt);
    });
  }

  // Where the cursor is ({ row, column, value, … , figure }), or puts it there: { row, column } (a heatmap's cell),
  // { index } or { x } (a line plot's place), with { figure: i } for the element's i-th figure (default 0). Set
  // before the element has drawn, it is applied once it has.
  get cursor() {
    if (this.#cursorAt) return this.#cursorAt;
    const at = figureOf(this.#figures()[0])?.cursorAt;
    return at ? { ...at, figure: 0 } : null;
  }

  set cursor(at) {
    if (at !== null && (typeof at !== 'object' || Array.isArray(at))) throw new TypeError(`cursor must be an object such as { row, column } or { index }, got ${JSON.stringify(at)}`);
    const figure = figureOf(this.#figures()[at?.figure ?? 0]);
    if (!figure?.cursorAt) {
      this.#pendingCursor = at;
      return;
    }
    this.#pendingCursor = null;
    figure.setCursor(at);
    this.#cursorAt = { ...figure.cursorAt, figure: at?.figure ?? 0 };
  }

  // An attribute the element does not read is named above it (it is otherwise ignored): a misspelling shows.
  #nameUnknownAttributes() {
    const root = this.shadowRoot;
    if (!root) return;
    const unknown = unknownAttributes(this);
    let note = root.querySelector(':scope > .unknown-attributes');
    if (!unknown.length) {
      note?.remove();
      return;
    }
    if (!note) {
      note = Object.assign(document.createElement('p'), { className: 'unknown-attributes warnings' });
      note.setAttribute('part', 'warnings');
      root.prepend(note);
    }
    note.textContent = `<${this.localName}>: ${unknown.join('; ')}; ${unknown.length === 1 ? 'it is' : 'they are'} ignored.`;
  }

  // The element's attributes read and checked ({ values, problems }). While any is invalid the element shows no live
  // controls (BASE_STYLE): a Play or Start that cannot do anything is not offered.
  readAttributes() {
    const result = readAttributes(this);
    this.toggleAttribute(INVALID_ATTRIBUTE, result.problems.length > 0);
    return result;
  }

  // Frees what the component holds; called on removal.
  released() {}

  // The element's figures as drawn, framed (title, axes, colour bar or legend, caption): { type: 'image/svg+xml' |
  // 'image/png', scale, background } → Blob.
  async toBlob(options) {
    const { elementBlob } = await import('./export.js');
    return elementBlob(this.shadowRoot, this, options);
  }

  // Tells the page: 'render' (detail: what was drawn) once a render is on screen, 'change' (detail: what the reader
  // changed) for a control or the training state, 'cursor' (where the reader points). All bubble out of the shadow root.
  announce(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { bubbles: true, composed: true, detail }));
    if (type === 'render' && this.#pendingCursor) this.cursor = this.#pendingCursor;
  }
}

// Defines the element, with each attribute of its schema as a property too (camelCase: dModel for d-model) that
// sets the attribute. React 19, Vue and Svelte set a property where the element has one: so `axes={false}` reaches
// the element as "false", where it would otherwise remove the attribute (and leave the default, true).
export function define(name, element) {
  if (customElements.get(name)) return;
  const reflected = [];
  for (const [attribute, spec] of Object.entries(ELEMENT_SCHEMAS[name]?.attributes ?? {})) {
    const property = camelCase(attribute);
    if (property in element.prototype) continue;
    reflected.push(property);
    Object.defineProperty(element.prototype, property, {
      configurable: true,
      enumerable: true,
      get() { return readValue(attribute, spec, this.getAttribute(attribute)).value; },
      set(value) {
        if (value === null || value === undefined || (spec.type === 'flag' && value === false)) this.removeAttribute(attribute);
        else this.setAttribute(attribute, spec.type === 'flag' ? '' : String(value));
      },
    });
  }
  // Set before the definition (a framework that rendered first), they are set again through the accessors.
  element.properties = [...(element.properties ?? []), 'strings', 'cursor', ...reflected];
  customElements.define(name, element);
}

// Styles for a shadow root as constructed stylesheets: a strict CSP (no inline <style>) does not block them.
export function adoptStyles(root, ...css) {
  root.adoptedStyleSheets = css.map((text) => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(text);
    return sheet;
  });
}

// font-family: var(--posembed-font) without a fallback: unset, so inherited from the page, where the author sets none.
const INVALID_ATTRIBUTE = 'data-posembed-invalid';

export const BASE_STYLE = `${THEME_STYLE}
  :host([${INVALID_ATTRIBUTE}]) :is(button, input, select, textarea, .controls) { display: none; }
  :host { display: block; font-family: var(--posembed-font); color: var(--pe-theme-ink);
          background: var(--pe-theme-surface); border-radius: var(--posembed-radius, 6px); }
  .caption { font-size: 0.85rem; color: var(--pe-theme-muted); margin: 0.25rem 0; }
  .title { font-weight: 600; font-size: 0.95rem; margin: 0 0 0.25rem; }
  .error { color: var(--pe-theme-error); font-weight: 600; }
  .warnings { font-size: 0.85rem; color: var(--pe-theme-muted); margin: 0.25rem 0; overflow-wrap: anywhere; }
  canvas { image-rendering: pixelated; image-rendering: crisp-edges; display: block; max-width: 100%; }
  canvas:focus-visible, button:focus-visible { outline: 3px solid var(--pe-theme-accent); outline-offset: 2px; }
  button { font: inherit; padding: 0.3rem 0.8rem; border-radius: 4px; border: 1px solid var(--pe-theme-border);
           background: var(--pe-theme-button); color: var(--pe-theme-button-ink); cursor: pointer; }
  button:disabled { opacity: 0.6; cursor: default; }
  input, select, textarea { font: inherit; color: var(--pe-theme-ink); background: var(--pe-theme-button); border: 1px solid var(--pe-theme-border); border-radius: 3px; }
  a { color: var(--pe-theme-accent); }
  .readout { font-family: var(--posembed-mono, ui-monospace, monospace); font-size: 0.8rem; min-height: 1.3em; }
`;
