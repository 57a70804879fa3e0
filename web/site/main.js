import { load } from 'posembed';
import { mountExplorer } from './explorer.js';
import { mountLookup } from './lookup.js';

// WebGPU where the browser has it (the heatmap is then drawn on the GPU), else wasm.
const pe = await load({ backend: 'auto' });
mountExplorer(pe, document);
mountLookup(pe, document);
document.documentElement.dataset.backend = pe.backend;
document.documentElement.dataset.ready = 'true';
