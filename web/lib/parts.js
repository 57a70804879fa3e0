// The parts of the package a page fetches only when it uses them: a page that draws with the elements never loads
// the trainer, the model configs and port checker, the weight-file readers, or the WebGPU runtime. load() waits for the parts its instance
// offers before it resolves, so that every op stays synchronous; the elements load a part when one of them needs it.
const PARTS = {
  models: () => Promise.all([import('./model_positions.js'), import('./model_presets.js'), import('./rope_check.js')]),
  training: () => Promise.all([import('./trainer.js'), import('./word_embeddings.js')]),
  weights: () => Promise.all([import('./weight_files.js')]),
  webgpu: () => Promise.all([import('./webgpu/runtime.js'), import('./webgpu/backend.js')]),
};

const loaded = new Map();   // name -> the part's exports, once fetched
const loading = new Map();  // name -> the promise of them; a failed fetch is not kept

// Resolves to the part's exports (its modules' exports merged).
export function loadPart(name) {
  if (!loading.has(name)) {
    loading.set(name, PARTS[name]().then((modules) => {
      const exports = Object.assign({}, ...modules);
      loaded.set(name, exports);
      return exports;
    }, (error) => {
      loading.delete(name);
      throw error;
    }));
  }
  return loading.get(name);
}

// The exports of a part already loaded, for a synchronous op (`what`) that needs them.
export function loadedPart(name, what) {
  const part = loaded.get(name);
  if (!part) throw new Error(`posembed: ${what} needs the package's '${name}' part, which this page has not loaded: an instance from load() has it`);
  return part;
}
