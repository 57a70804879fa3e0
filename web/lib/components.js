// posembed/components: defines <posembed-heatmap>, <posembed-lookup>, <posembed-rope>, <posembed-bias>,
// <posembed-train>, <posembed-model> and <posembed-tokens>, and exports the figure layer they draw with, for pages that draw the same
// figures themselves.
// Loaded as `import 'posembed/components'` or as one <script type="module" src=".../posembed/dist/components.js">;
// defining twice is harmless. Every import inside the package is relative, and the wasm is found through
// import.meta.url, so the folder works as it is from node_modules or a CDN.
// Each element's code is fetched when the page first holds one (in the document, or in a shadow root handed to
// defineElements), so that a page with one heatmap loads the heatmap only; defineElements() with no root
// defines them all at once.
const ELEMENT_MODULES = {
  'posembed-heatmap': () => import('./components/posembed-heatmap.js'),
  'posembed-lookup': () => import('./components/posembed-lookup.js'),
  'posembed-rope': () => import('./components/posembed-rope.js'),
  'posembed-bias': () => import('./components/posembed-bias.js'),
  'posembed-train': () => import('./components/posembed-train.js'),
  'posembed-model': () => import('./components/posembed-model.js'),
  'posembed-tokens': () => import('./components/posembed-tokens.js'),
};
const requested = new Map();  // tag -> the promise of its definition

function defineElement(tag) {
  if (!requested.has(tag)) requested.set(tag, ELEMENT_MODULES[tag]().then(() => customElements.whenDefined(tag)));
  return requested.get(tag);
}

// The elements not yet asked for that `node` is or holds, defined.
function defineHeld(node) {
  const tags = Object.keys(ELEMENT_MODULES).filter((tag) => !requested.has(tag) && (node.localName === tag || node.querySelector(tag)));
  return Promise.all(tags.map(defineElement));
}

// Defines the elements `root` (a document or shadow root) holds and, from then on, those added to it (only the added
// nodes are looked through); with no root, every element now. Resolves once they are defined.
export function defineElements(root) {
  if (!root) return Promise.all(Object.keys(ELEMENT_MODULES).map(defineElement));
  const watcher = new MutationObserver((records) => {
    for (const { addedNodes } of records) for (const node of addedNodes) if (node.nodeType === Node.ELEMENT_NODE) defineHeld(node);
    if (requested.size === Object.keys(ELEMENT_MODULES).length) watcher.disconnect();  // nothing left to define
  });
  watcher.observe(root, { childList: true, subtree: true });
  return Promise.all(Object.keys(ELEMENT_MODULES).filter((tag) => root.querySelector(tag)).map(defineElement));
}

if (typeof document !== 'undefined') defineElements(document);

export { drawGpuHeatmap, drawHeatmap, paintPixels, valueRange } from './components/heatmap.js';
export { Figure, SERIES_COLOURS, colourBar, colourWords, formatValue, proseNumber } from './components/figure.js';
export { createLookup, mountLookup } from './components/lookup.js';
export { PLANE_AXES, PLANE_NOTE, TOKEN_KINDS, tokenKind, trainingWorker } from './components/training.js';
export { ENCODINGS, encodingFigure, onHost } from './encoding_figures.js';
export { nextTask } from './next_task.js';
export { TOY_VOCABULARY, TOY_PADDING, TOY_END, toyIds, toyTokens } from './toy_vocabulary.js';
