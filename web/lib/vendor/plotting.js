// Scales, axes, line paths and ticks for the figure layer (components/figure.js). Bundled into
// dist/vendor/plotting.js by scripts/build-dist.mjs, like colors.js.
export { scaleLinear, scaleLog, scaleBand } from 'd3-scale';
export { axisBottom, axisLeft } from 'd3-axis';
export { create } from 'd3-selection';
export { line } from 'd3-shape';
export { ticks } from 'd3-array';
