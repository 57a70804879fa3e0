import { packageFile } from '../package_files.js';
import { packageFiles } from '../wasm.js';

// A package worker: create() (new Worker(new URL(…, import.meta.url)), where bundlers find it). Served from a CDN,
// a worker's script must still come from the page's origin: a same-origin blob then import()s the module (resolve():
// its import.meta.resolve), a script load (script-src) a CSP allows where a worker-src would not; messages are held
// until it runs, and a load that fails posts { type: 'error', request: 'start', message } naming the `what` worker.
// Pre-bundled by a dev server, the module is created from where the package's files really are (package_files.js).
export function packageWorker(create, resolve, what) {
  const worker = startedWorker(create, resolve, what);
  // Its first message: where the page's copies of the package's files are (wasm.js, acceptPackageFiles).
  worker.postMessage({ type: 'posembed-files', files: packageFiles() });
  return worker;
}

function startedWorker(create, resolve, what) {
  const moved = packageFile(new URL(resolve()));
  if (moved.href !== resolve()) return new Worker(moved, { type: 'module' });
  try {
    return create();
  } catch (error) {
    if (error.name !== 'SecurityError') throw error;
    const module = JSON.stringify(resolve());
    const starter = URL.createObjectURL(new Blob([`const held = [];
self.onmessage = ({ data }) => held.push(data);
import(${module}).then(() => {
  for (const data of held) self.dispatchEvent(new MessageEvent('message', { data }));
}, (error) => self.postMessage({ type: 'error', request: 'start', message: 'the ${what} worker could not load ' + ${module} + ': ' + error.message
  + ' (a page with a Content-Security-Policy must allow that origin in script-src and connect-src, and blob: in worker-src)' }));`], { type: 'text/javascript' }));
    const worker = new Worker(starter, { type: 'module' });
    worker.addEventListener('message', () => URL.revokeObjectURL(starter), { once: true });
    return worker;
  }
}
