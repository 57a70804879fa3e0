import { load } from 'posembed';
import { mountExplorer } from './explorer.js';
import { mountLookup } from './lookup.js';

const pe = await load();
mountExplorer(pe, document);
mountLookup(pe, document);
document.documentElement.dataset.ready = 'true';
