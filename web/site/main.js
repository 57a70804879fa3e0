import { load } from 'posembed';
import { mountExplorer } from './explorer.js';
import { mountLookup } from 'posembed/components';
import { mountExtras } from './explorer-extras.js';

// WebGPU where the browser has it (its results are read back to draw), else wasm.
const pe = await load({ backend: 'auto' });
let renderExtras = () => {};
const explorer = mountExplorer(pe, document, { onDrawn: () => renderExtras() });
renderExtras = mountExtras(pe, document, explorer.params);
await explorer.ready;  // its first drawing, and the extras' after it
await mountLookup(pe, document).ready;
document.documentElement.dataset.backend = pe.backend;
document.documentElement.dataset.ready = 'true';
