// posembed: transformer input layers (token embeddings and positional encodings), computed in
// WebAssembly SIMD. `load()` gives an instance whose ops take plain options and return plain tensors.
import { HeapArray, loadWasmCore, simdSupported, threadsSupported } from './wasm.js';
import { describe, integer, oneOf, options } from './validate.js';
import { sinusoidal } from './sinusoidal.js';
import { TokenEmbedding } from './token_embedding.js';
import { alibiBias } from './alibi.js';
import { CORE_OP_NAMES, installCoreOpMethods, runCoreOp } from './core_ops.js';
import { t5Bias, t5Bucket } from './t5.js';
import { applyRope, ropeCache, ropeInvFreq } from './rope.js';
import { interpolatePositions, LearnedPositions } from './learned_positions.js';
import { WeightFetchError, WeightFileError } from './weight_errors.js';
import { writeNpy, writeSafetensors } from './weight_writers.js';
import { pca, similarity } from './analysis.js';
import { TransformerEmbedding } from './transformer_embedding.js';
import { acquireDevice } from './webgpu/device.js';
import { GpuTensor } from './webgpu/tensor.js';
import { loadedPart, loadPart } from './parts.js';
import { recordPageInstance } from './page_instance.js';

export { simdSupported, threadsSupported, WeightFetchError, WeightFileError, GpuTensor, writeNpy, writeSafetensors };

export class Posembed {
  #core;

  constructor(core, { backend = 'wasm', fallbackReason = null } = {}) {
    this.#core = core;
    this.backend = backend;
    this.fallbackReason = fallbackReason;
    this.simd = core.variant !== 'scalar';
    this.threads = core.threads;
    this.encodersOnly = core.encodersOnly;
  }

  // A method for each op stated whole in the core (core_ops.js): alibiSlopes(numHeads, opts), ….
  static {
    installCoreOpMethods(this, CORE_OP_NAMES, (pe, op, args) => runCoreOp(pe.#core, op, args));
  }

  // The core for an op of the full module (`what`): an encoders-only instance says so rather than failing inside.
  #fullCore(what) {
    return this.#core.full(what);
  }

  sinusoidal(opts) {
    return sinusoidal(this.#core, opts);
  }

  tokenEmbedding(opts) {
    return new TokenEmbedding(this.#core, opts);
  }

  alibiBias(opts) {
    return alibiBias(this.#core, opts);
  }

  t5Bucket(relativePositions, opts) {
    return t5Bucket(this.#core, relativePositions, opts);
  }

  t5Bias(table, opts) {
    return t5Bias(this.#core, table, opts);
  }

  ropeInvFreq(opts) {
    return ropeInvFreq(this.#core, opts);
  }

  applyRope(x, opts) {
    return applyRope(this.#core, x, opts);
  }

  // A real model's positional layer from its config.json (or a preset name): layer(i) → kind, RoPE spec, score scale.
  modelPositions(config, options) {
    return loadedPart('models', 'modelPositions()').modelPositions(this.#core, config, options);
  }

  // The public configs' position fields, by name.
  get modelPresets() {
    return loadedPart('models', 'modelPresets').MODEL_PRESETS;
  }

  // The cos/sin cache of a RopeSpec at positions, in HF's layout, exact or as float32 / bfloat16 / float16 give it.
  ropeCache(spec, opts) {
    return ropeCache(this.#core, spec, opts);
  }

  // Whether a runtime's cos/sin cache is the exact maths, a float32/bf16/f16 computation of it, or a mismatch (and why).
  checkRopeCache(spec, opts) {
    return loadedPart('models', 'checkRopeCache()').checkRopeCache(this.#core, spec, opts);
  }

  learnedPositions(opts) {
    return new LearnedPositions(this.#core, opts);
  }

  interpolatePositions(table, newLength, opts) {
    return interpolatePositions(this.#core, table, newLength, opts);
  }

  // The readers of weight files: the 'weights' part, loaded with the full module.
  #weightFiles(what) {
    return { core: this.#fullCore(what), reading: loadedPart('weights', what) };
  }

  readNpy(bytes) {
    const { core, reading } = this.#weightFiles('readNpy()');
    return reading.readNpy(core, bytes);
  }

  readSafetensors(bytes) {
    const { core, reading } = this.#weightFiles('readSafetensors()');
    return reading.readSafetensors(core, bytes);
  }

  // A real model's input layer: config and positions, tokenizer, checkpoint, token table.
  async openModel(source, options) {
    await loadPart('models');
    const { openModel } = await import('./model.js');
    return openModel(this, source, options);
  }

  // The tokenizer (and @huggingface/tokenizers) load with the first call.
  async openTokenizer(source, options) {
    const { openTokenizer } = await import('./tokenizer.js');
    return openTokenizer(source, options);
  }

  // The GGUF reader (and @huggingface/gguf) load with the first call.
  async checkGguf(source, config, options) {
    const { checkGguf } = await import('./gguf_check.js');
    return checkGguf(this.#core, source, config, options);
  }

  async openSafetensors(source, options) {
    const { core, reading } = this.#weightFiles('openSafetensors()');
    return reading.openSafetensors(core, source, options);
  }

  async openNpy(source, options) {
    const { core, reading } = this.#weightFiles('openNpy()');
    return reading.openNpy(core, source, options);
  }

  async openCheckpoint(files, options) {
    const { core, reading } = this.#weightFiles('openCheckpoint()');
    return reading.openCheckpoint(core, files, options);
  }

  similarity(a, b, opts) {
    return similarity(this.#core, a, b, opts);
  }

  pca(x, opts) {
    return pca(this.#fullCore('pca()'), x, opts);
  }

  transformerEmbedding(opts) {
    return new TransformerEmbedding(this.#core, opts);
  }

  // The tutorials' toy transformer, trained here: trainer.step(n), evaluate(), predict('Max(1,6,2)'), ...
  trainer(opts) {
    const core = this.#fullCore('trainer()');
    return new (loadedPart('training', 'trainer()').Trainer)(core, opts);
  }

  // Skip-gram word vectors over a generated corpus (or given sentences): step(n), vectors, nearest(word).
  wordEmbeddings(opts) {
    const core = this.#fullCore('wordEmbeddings()');
    return new (loadedPart('training', 'wordEmbeddings()').WordEmbeddings)(core, opts);
  }

  // A Float32Array (or Int32Array) living on the wasm heap: as `out` it is written without a copy, as an
  // input it is read in place. Read `.data` again after calls; dispose() frees it.
  allocate(elements, opts) {
    const o = options('allocate options', opts, ['type']);
    const type = oneOf('type', o.type ?? 'float32', ['float32', 'int32']) === 'float32' ? Float32Array : Int32Array;
    return new HeapArray(this.#core, integer('elements', elements, 1, 2 ** 29), type);
  }

  // Heap size and the number of live allocations (tables not yet disposed): for leak checks.
  memory() {
    return { heapBytes: this.#core.heapBytes, liveAllocations: this.#core.liveAllocations };
  }

  // Ends this instance: the threaded module's workers stop at once and its memory is freed once unreferenced.
  // Every later call, on it or on the tables and heap arrays it made, throws. Calling it again does nothing.
  dispose() {
    this.#core.dispose();
  }

  get disposed() {
    return this.#core.disposed;
  }

  // The C++ core's limits the options' ranges name (op_schemas.js): maxLength, maxDModel, maxPosition, ...
  get limits() {
    const { sinusoidalBlockRows, ...limits } = this.#core.limits;
    return limits;
  }
}

// load's gpuLimits: whole numbers of bytes (or workgroups), at least 1.
function gpuLimits(value) {
  const o = options('gpuLimits', value, ['maxStorageBufferBindingSize', 'maxBufferSize', 'maxComputeWorkgroupsPerDimension']);
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined).map(([name, v]) => [name, integer(`gpuLimits.${name}`, v, 1, 2 ** 53)]));
}

const LOAD_OPTIONS = ['backend', 'simd', 'threads', 'wasmUrl', 'wasmBinary', 'gpu', 'gpuLimits', 'encodersOnly'];

// A full instance is the page's own, which the elements share (page_instance.js); an encoders-only one is theirs.
export function load(opts) {
  const loading = loadInstance(opts);
  if (opts?.encodersOnly !== true) recordPageInstance(loading);
  return loading;
}

async function loadInstance(opts) {
  const o = options('load options', opts, LOAD_OPTIONS);
  const backend = oneOf('backend', o.backend ?? 'wasm', ['wasm', 'webgpu', 'auto']);
  const simd = o.simd ?? 'auto';
  if (simd !== 'auto' && typeof simd !== 'boolean') throw new TypeError(`simd must be 'auto', true or false, got ${simd}`);
  if (simd === true && !simdSupported()) throw new Error('simd: true was asked for, but this engine does not support WebAssembly SIMD');
  const encodersOnly = o.encodersOnly ?? false;
  if (typeof encodersOnly !== 'boolean') throw new TypeError(`encodersOnly must be true or false, got ${describe(encodersOnly)}`);
  if (o.wasmBinary !== undefined && !(o.wasmBinary instanceof ArrayBuffer || ArrayBuffer.isView(o.wasmBinary))) {
    throw new TypeError('wasmBinary must be an ArrayBuffer or a typed array holding the .wasm file');
  }
  // One thread unless asked: copies between JS arrays and shared memory take V8 about twice as long, so
  // threads pay where the data stays on the heap (see the README).
  const threads = o.threads === 'auto' ? 'auto' : integer('threads', o.threads ?? 1, 1, 64);
  if (threads > 1 && simd === false) throw new Error(`threads: ${threads} needs the SIMD module (the threaded one is SIMD), but simd: false was asked for`);
  if (threads > 1 && !simdSupported()) throw new Error(`threads: ${threads} needs WebAssembly SIMD (the threaded module is SIMD), which this engine does not support`);
  if (threads > 1 && !threadsSupported()) {
    throw new Error(`threads: ${threads} needs SharedArrayBuffer, which browsers give only to cross-origin-isolated pages (served with Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp); use threads: 1 or 'auto' here`);
  }
  if (encodersOnly && (threads !== 1 || simd === false)) {
    throw new Error(`encodersOnly: true is the single-threaded SIMD module; it cannot be had with ${threads !== 1 ? `threads: ${threads}` : 'simd: false'}`);
  }
  const limits = gpuLimits(o.gpuLimits);  // bad options throw, whichever backend; they are no reason to fall back
  const useSimd = simd === 'auto' ? simdSupported() : simd;
  const [core] = await Promise.all([
    loadWasmCore({
      // Given bytes or a URL are those of one module: 'auto' then keeps to the single-threaded one. Without SIMD
      // the encoders-only module cannot run: the full scalar one serves instead.
      simd: useSimd, threads: threads !== 'auto' ? threads : useSimd && o.wasmUrl === undefined && o.wasmBinary === undefined ? 'auto' : 1,
      wasmUrl: o.wasmUrl, wasmBinary: o.wasmBinary, encodersOnly: encodersOnly && useSimd,
    }),
    ...(encodersOnly ? [] : [loadPart('models'), loadPart('training'), loadPart('weights')]),
  ]);
  return withBackend(core, backend, o.gpu, limits);
}

async function withBackend(core, backend, gpu, limits) {
  if (backend === 'wasm') return new Posembed(core);
  let device;
  try {
    device = await acquireDevice(gpu, limits);
  } catch (error) {
    if (backend === 'webgpu') throw error;
    return new Posembed(core, { backend: 'wasm', fallbackReason: `${error.message}; using wasm` });
  }
  const { GpuRuntime, PosembedGpu } = await loadPart('webgpu');
  return new PosembedGpu(core, new Posembed(core), new GpuRuntime(device));
}
