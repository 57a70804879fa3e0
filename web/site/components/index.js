// All posembed components: <posembed-heatmap>, <posembed-lookup>, <posembed-rope>, <posembed-bias>.
// One <script type="module" src=".../posembed-components.js"></script> defines them (including it twice is harmless).
import './posembed-heatmap.js';
import './posembed-lookup.js';
import './posembed-rope.js';
import './posembed-bias.js';
