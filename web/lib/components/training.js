// What <posembed-train> shares with pages that train models of their own: the training worker and the kinds of
// the toy vocabulary's tokens, by which its figures colour them.
import { SERIES_COLOURS } from './figure.js';

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
  try {
    return new Worker(new URL('./train-worker.js', import.meta.url), { type: 'module' });
  } catch (error) {
    if (error.name !== 'SecurityError') throw error;
    // A worker's script must come from the page's origin. Served from a CDN, the package starts one from a
    // same-origin blob that loads the worker module from the CDN (a module import may cross origins). The module is
    // named by import.meta.resolve, not a second new URL(…, import.meta.url), which bundlers would copy as a loose
    // file beside the worker they already bundle from the line above. The blob loads it with import(), a script
    // load (script-src, where the page already lists the CDN), not a static import, which a Content-Security-Policy
    // would judge as a worker (worker-src); messages that arrive meanwhile are held and then handed over, and a load
    // that fails says why.
    const module = JSON.stringify(import.meta.resolve('./train-worker.js'));
    const starter = URL.createObjectURL(new Blob([`const held = [];
self.onmessage = ({ data }) => held.push(data);
import(${module}).then(() => {
  for (const data of held) self.dispatchEvent(new MessageEvent('message', { data }));
}, (error) => self.postMessage({ type: 'error', request: 'start', message: 'the training worker could not load ' + ${module} + ': ' + error.message
  + ' (a page with a Content-Security-Policy must allow that origin in script-src and connect-src, and blob: in worker-src)' }));`], { type: 'text/javascript' }));
    const worker = new Worker(starter, { type: 'module' });
    worker.addEventListener('message', () => URL.revokeObjectURL(starter), { once: true });
    return worker;
  }
}
