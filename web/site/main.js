import { load } from 'posembed';
import { mountExplorer } from './explorer.js';
import { mountLookup } from 'posembed/components';
import { mountExtras } from './explorer-extras.js';

// WebGPU where the browser has it (its results are read back to draw), else wasm.
const pe = await load({ backend: 'auto' });
const explorer = mountExplorer(pe, document);
const renderExtras = mountExtras(pe, document, explorer.params);
document.querySelector('#controls').addEventListener('input', renderExtras);
await renderExtras();
mountLookup(pe, document);
document.documentElement.dataset.backend = pe.backend;
document.documentElement.dataset.ready = 'true';
