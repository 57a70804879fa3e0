// Runs a compute-worker task and resolves to its result; onProgress gets the fraction done, for tasks that
// report it. Errors come back as the package threw them (RangeError or TypeError, with its message).
let worker = null;
let nextId = 0;
const pending = new Map();

export function compute(task, args, { onProgress } = {}) {
  if (!worker) {
    worker = new Worker(new URL('./compute-worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = ({ data: { id, result, error, progress } }) => {
      const { resolve, reject, onProgress: report } = pending.get(id);
      if (progress !== undefined) {
        report?.(progress);
        return;
      }
      pending.delete(id);
      if (error) reject(new (error.name === 'TypeError' ? TypeError : RangeError)(error.message));
      else resolve(result);
    };
  }
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress });
    worker.postMessage({ id, task, args });
  });
}
