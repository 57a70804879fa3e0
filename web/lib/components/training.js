// What <posembed-train> shares with pages that train models of their own: the training worker and the kinds of
// the toy vocabulary's tokens, by which its figures colour them.
import { SERIES_COLOURS } from './figure.js';
import { packageWorker } from './workers.js';

// The kinds the scatter colours the tokens by.
export const TOKEN_KINDS = [
  { name: 'digits', colour: SERIES_COLOURS[0], test: (t) => /^\d$/.test(t) },
  { name: 'operations', colour: SERIES_COLOURS[1], test: (t) => /^[A-Z]/.test(t) },
  { name: 'syntax', colour: SERIES_COLOURS[2], test: (t) => '(),'.includes(t) },
  { name: 'padding, end', colour: SERIES_COLOURS[5], test: () => true },
];
export const tokenKind = (token) => TOKEN_KINDS.find((kind) => kind.test(token)).name;
// The axes of the worker's 2-D pictures of rows: the plane of their two principal axes, turned from one frame to the
// next to follow the one before (train-worker.js), so they are not the principal axes themselves.
export const PLANE_AXES = { x: { label: 'principal plane (across)' }, y: { label: 'principal plane (up)' } };
export const PLANE_NOTE = 'The picture is the plane of the rows\' two principal axes, turned within itself to follow the frame before: rows move instead of the picture flipping.';
// A worker that trains (see train-worker.js for its messages): one per component, and for pages that train
// models of their own.
export function trainingWorker() {
  // dist/train-worker.js: the worker bundled whole at build time (scripts/build-dist.mjs) from ./train-worker.js.
  return packageWorker(() => new Worker(new URL('../train-worker.js', import.meta.url), { type: 'module' }), () => import.meta.resolve('../train-worker.js'), 'training');
}
