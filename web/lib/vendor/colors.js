// The colour schemes the package draws with. dist/vendor/colors.js is this file bundled with the libraries
// (scripts/build-dist.mjs), so the package has no bare import a browser could not resolve.
export { rgb } from 'd3-color';
export { interpolateRdBu, interpolateViridis } from 'd3-scale-chromatic';
