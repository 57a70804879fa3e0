// posembed/components: defines <posembed-heatmap>, <posembed-lookup>, <posembed-rope>, <posembed-bias>,
// <posembed-train> and <posembed-model>, and exports the figure layer they draw with, for pages that draw the same
// figures themselves.
// Loaded as `import 'posembed/components'` or as one <script type="module" src=".../posembed/dist/components.js">;
// defining twice is harmless. Every import inside the package is relative, and the wasm is found through
// import.meta.url, so the folder works as it is from node_modules or a CDN.
import './components/posembed-heatmap.js';
import './components/posembed-lookup.js';
import './components/posembed-rope.js';
import './components/posembed-bias.js';
import './components/posembed-train.js';
import './components/posembed-model.js';

export { drawGpuHeatmap, drawHeatmap, valueRange } from './components/heatmap.js';
export { Figure, SERIES_COLOURS, colourBar, colourWords, formatValue } from './components/figure.js';
export { createLookup, mountLookup } from './components/lookup.js';
export { TOKEN_KINDS, tokenKind, trainingWorker } from './components/posembed-train.js';
export { ENCODINGS, encodingFigure, onHost } from './figures.js';
export { TOY_VOCABULARY, TOY_PADDING, TOY_END, toyIds, toyTokens } from './toy_vocabulary.js';
