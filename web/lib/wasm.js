import { packageFile } from './package_files.js';
import { outBuffer } from './validate.js';
import { WeightFileError } from './weight_errors.js';
import { HeapBlock } from './table.js';

// Loading the Emscripten module and owning its heap: every allocation the package makes goes through
// WasmCore, is freed in a finally block, and is counted, so tests can assert that nothing leaks.

// (func (result v128) i32.const 0 i8x16.splat): validates only where wasm SIMD is supported.
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 8, 1, 6, 0, 65, 0, 253, 15, 11]);

export function simdSupported() {
  return WebAssembly.validate(SIMD_PROBE);
}

// The heap reaches 4 GiB (-sMAXIMUM_MEMORY=4GB), but one allocation can take at most this: malloc grows the heap by
// a signed 32-bit step. Pointers past 2 GiB come back from wasm as negative int32s: alloc() reads them as unsigned.
export const MAX_HEAP_BYTES = 2 ** 31 - 2 ** 24;

// Floats an output (or RoPE's x) passes through the heap in when it streams to or from JS memory: 256 KiB
// into a caller's array, which stays in L2 while it is written and copied; 1 MiB into a new array, whose
// pages fault in as they are first written, which fewer, larger copies do faster (a fresh 64 MiB ALiBi bias:
// 23.0 ms in 256 KiB blocks, 19.9 ms in 1 MiB ones, 21.1 ms written whole on the heap and sliced).
export const STREAM_BLOCK = 65536;
const FRESH_STREAM_BLOCK = 262144;

const ERROR_TYPES = { RangeError, TypeError, Error, WeightFileError };

// A heap out sharing bytes with a heap input would be written while the kernel still reads the input: wrong
// values, without a word. Inputs marked inPlace are read element by element before being written, so an
// out may be the input itself (RoPE rotating x in place), though not overlap it shifted.
function refuseOverlap(out, inputs) {
  for (const { data, what, inPlace } of inputs) {
    if (inPlace && data.byteOffset === out.byteOffset) continue;
    const apart = data.byteOffset + data.byteLength <= out.byteOffset || out.byteOffset + out.byteLength <= data.byteOffset;
    if (!apart) throw new RangeError(`out must not overlap ${what} on the wasm heap: give it an array of its own (pe.allocate)`);
  }
}

// Where a result streamed in blocks goes: `target`, the caller's JS array `out` (checked: exactly `elements`
// of `type`) or, for a fresh result, a new one (it never needs its size on the heap; `what` names the data
// where JS cannot allocate that much), and the elements of each block.
export function streamTarget(out, elements, what, type = Float32Array) {
  if (out !== undefined) return { target: outBuffer(out, elements, type), blockElements: STREAM_BLOCK };
  try {
    return { target: new type(elements), blockElements: FRESH_STREAM_BLOCK };
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new RangeError(`${what} needs ${elements * type.BYTES_PER_ELEMENT} bytes, more than a new ${type.name} can hold here (${error.message})`);
  }
}

// A Node built-in module, imported where the code runs in Node. Its specifier depends on the running platform, so no
// bundler or minifier can make it a literal: a browser build neither bundles nor externalises it (Vite would make an
// external a chunk of its own, which a worker built as one file cannot have).
const nodeBuiltin = (name) => import(/* @vite-ignore */ /* webpackIgnore: true */ `${typeof process === 'object' ? 'node' : 'browser-has-no'}:${name}`);

async function readBytes(url) {
  if (url.protocol === 'file:') {
    const { readFile } = await nodeBuiltin('fs/promises');
    return readFile(url);
  }
  const response = await fetch(url);
  const bytes = response.ok ? new Uint8Array(await response.arrayBuffer()) : null;
  if (bytes && WASM_MAGIC.every((byte, i) => bytes[i] === byte)) return bytes;
  // A dev server's dependency cache (Vite's node_modules/.vite/deps, VitePress's .vitepress/cache/deps) holds the
  // package's modules pre-bundled, away from their .wasm files: the server answers with a page, or not at all.
  if (/\/(\.vite|cache)\/deps(_[^/]*)?\//.test(url.pathname)) {
    throw new Error(`posembed: ${url} is not there: the dev server's dependency pre-bundling moved posembed's modules away from their .wasm files. `
      + 'Leave posembed out of it: optimizeDeps: { exclude: [\'posembed\'] } in the Vite config (VitePress and Astro: under vite)');
  }
  if (!response.ok) throw new Error(`posembed: cannot fetch ${url}: HTTP ${response.status}`);
  return bytes;
}

// The first bytes of every WebAssembly module: \0asm.
const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];

// Each .wasm URL fetched and compiled once per page (or process): the page's own load() and the elements' instance
// share the compiled module, and each instantiates it with a heap of its own. A failed fetch or compile is not kept.
const compiledModules = new Map();
function compiledModule(url) {
  const key = url.href;
  if (!compiledModules.has(key)) {
    const compiling = readBytes(url).then((bytes) => WebAssembly.compile(bytes).catch((error) => {
      throw new Error(`posembed: ${url} is not a WebAssembly module this engine can compile (${error.message})`);
    })).catch((error) => {
      compiledModules.delete(key);
      throw error;
    });
    compiledModules.set(key, compiling);
  }
  return compiledModules.get(key);
}

// Whether this engine can run the threaded module: it needs SharedArrayBuffer, which browsers give only to
// cross-origin-isolated pages (COOP/COEP headers), and Node always.
export function threadsSupported() {
  return typeof SharedArrayBuffer === 'function' && (globalThis.crossOriginIsolated === true || typeof process === 'object' && typeof process.versions?.node === 'string');
}

// threads: 'auto': as many threads as cores, up to 4 (the memory-bound ops gain little beyond), where the
// engine can run them; else 1.
async function autoThreads() {
  if (!threadsSupported()) return 1;
  let cores = globalThis.navigator?.hardwareConcurrency;
  if (!cores) {
    cores = (await nodeBuiltin('os')).availableParallelism();  // Node 20 has no navigator
  }
  return Math.max(1, Math.min(4, cores));
}

// This module's URL, which a given wasmUrl is relative to (apart from new URL(…), where bundlers would take the
// given URL for a pattern of files to copy).
const HERE = import.meta.url;

// Where each module's files lie: beside this module (by URLs bundlers follow and copy), unless this runs in one of
// the package's workers, which a site's bundler builds apart from the page: the page tells it its own URLs
// (packageWorker), so a built site carries one copy of each file.
const besideThisModule = () => ({
  'encoders-simd': packageFile(new URL('./posembed-encoders-simd.wasm', import.meta.url)),
  simd: packageFile(new URL('./posembed-simd.wasm', import.meta.url)),
  scalar: packageFile(new URL('./posembed-scalar.wasm', import.meta.url)),
  threads: packageFile(new URL('./posembed-threads.wasm', import.meta.url)),
  'threads-glue': packageFile(new URL('./posembed-threads.mjs', import.meta.url)),
  'threads-worker': packageFile(new URL('./posembed-threads.worker.js', import.meta.url)),
  'threads-worker-node': packageFile(new URL('./posembed-threads.worker.cjs', import.meta.url)),
});
let files = null;
const fileOf = (name) => (files ??= besideThisModule())[name];

// The files' URLs, to tell a worker ({ name: href }).
export const packageFiles = () => Object.fromEntries(Object.keys(besideThisModule()).map((name) => [name, fileOf(name).href]));

// In a package worker: takes the page's URLs from its first message, { type: 'posembed-files', files }, before
// the worker's own handlers see any.
export function acceptPackageFiles() {
  self.addEventListener('message', (event) => {
    if (event.data?.type !== 'posembed-files') return;
    event.stopImmediatePropagation();
    files = Object.fromEntries(Object.entries(event.data.files).map(([name, href]) => [name, new URL(href)]));
  });
}

// A build of posembed without the threaded module (see CMakeLists.txt), or one that cannot be loaded here.
class ThreadedModuleMissing extends Error {}

// The module for `threads` (> 1: the threaded one, SIMD), `simd` and `encodersOnly` (the light SIMD module without
// the trainer, word vectors and weight-file readers, about half the bytes): its factory and where its .wasm lies.
async function moduleOf(simd, threads, encodersOnly) {
  if (encodersOnly) {
    return { factory: (await import('./posembed-encoders-simd.mjs')).default, url: fileOf('encoders-simd'), variant: 'encoders-simd' };
  }
  if (threads > 1) {
    let glue;
    try {
      glue = await import('./posembed-threads.mjs');
    } catch (error) {
      throw new ThreadedModuleMissing(`threads: ${threads} needs posembed-threads.mjs, which this build of posembed lacks or cannot load (${error.message})`);
    }
    return { factory: glue.default, url: fileOf('threads'), variant: 'threads' };
  }
  if (simd) return { factory: (await import('./posembed-simd.mjs')).default, url: fileOf('simd'), variant: 'simd' };
  return { factory: (await import('./posembed-scalar.mjs')).default, url: fileOf('scalar'), variant: 'scalar' };
}

// threads: a number, or 'auto' (autoThreads(), and one thread where the threaded module cannot be had).
export async function loadWasmCore({ simd, threads, wasmUrl, wasmBinary, encodersOnly = false }) {
  if (threads === 'auto') {
    const wanted = await autoThreads();
    return loadWasmCore({ simd, threads: wanted, wasmUrl, wasmBinary }).catch((error) => {
      if (!(error instanceof ThreadedModuleMissing)) throw error;
      return loadWasmCore({ simd, threads: 1, wasmUrl, wasmBinary });
    });
  }
  const { factory, url, variant } = await moduleOf(simd, threads, encodersOnly);
  const bytes = wasmBinary ?? await compiledModule(wasmUrl !== undefined ? new URL(wasmUrl, HERE) : url);
  const module = await instantiate(factory, bytes, variant, variant === 'threads' ? await threadedArguments(threads) : {});
  if (variant === 'threads') {
    module.setThreads(threads);
    if (module.threads() !== threads) throw new Error(`threads: ${threads} were asked for, but only ${module.threads()} could be started`);
  }
  return new WasmCore(module, variant);
}

// Runs an Emscripten factory on the wasm bytes (or a compiled module), instantiating them here: bytes that do not fit the module
// (another module's, another build's) reject with a message saying so, where the glue would only print
// the error and never settle. In Node, the threaded module's workers (started before the bytes are
// instantiated) are kept from holding the process open, whatever happens, and the global Worker its glue
// sets is taken back.
function instantiate(factory, bytes, variant, args) {
  const hadWorker = Object.hasOwn(globalThis, 'Worker');
  const globalWorker = globalThis.Worker;
  return new Promise((resolve, reject) => {
    const module = {
      ...args,
      instantiateWasm(imports, receive) {
        const instantiated = bytes instanceof WebAssembly.Module
          ? WebAssembly.instantiate(bytes, imports).then((instance) => ({ instance, module: bytes }))
          : WebAssembly.instantiate(bytes, imports);
        instantiated.then(({ instance, module: compiled }) => receive(instance, compiled), (error) => {
          reject(new Error(`posembed: these wasm bytes are not posembed-${variant}.wasm of this version (${error.message}); give the .wasm that came with the package`));
        });
        return {};
      },
    };
    // Node re-refs a worker when the glue listens to it, once it has loaded: unref after that too.
    factory(module).then((ready) => {
      ready.unrefWorkers?.();
      resolve(ready);
    }, reject);
    module.unrefWorkers?.();
  }).finally(() => {
    if (hadWorker) globalThis.Worker = globalWorker;
    else delete globalThis.Worker;
  });
}

// The threaded module's arguments: threads - 1 pthread workers (loaded before it resolves), told where the
// worker script and the module's glue lie, by URLs bundlers follow. In Node, where they are worker_threads,
// the glue also gets CommonJS's require, and the worker script is the .cjs copy.
async function threadedArguments(threads) {
  const glue = fileOf('threads-glue');
  const node = glue.protocol === 'file:';
  const worker = fileOf(node ? 'threads-worker-node' : 'threads-worker');
  const args = { poolSize: threads - 1, mainScriptUrlOrBlob: glue.href, locateFile: (name) => (name.endsWith('.worker.js') ? (node ? worker : worker.href) : name) };
  if (node) {
    args.nodeRequire = (await nodeBuiltin('module')).createRequire(glue);
  }
  return args;
}

const TYPED_ARRAYS = [Float32Array, Float64Array, Int32Array, Uint32Array, Int16Array, Uint16Array, Int8Array, Uint8Array, Uint8ClampedArray];
function typedArrayType(array) {
  return TYPED_ARRAYS.find((type) => array instanceof type) ?? array.constructor;
}

export class WasmCore {
  #module;
  #limits;
  // The pe.allocate() arrays alive now, pointer → bytes: a heap view is used in place only within one.
  #heapArrays = new Map();
  // Each view of a heap array → the array: a view kept while the array object is dropped
  // (pe.allocate(n).data) keeps it alive, where the collector would otherwise free memory the view still sees.
  #viewOwners = new WeakMap();

  constructor(module, variant) {
    this.#module = module;
    this.variant = variant;
    this.encodersOnly = variant === 'encoders-simd';
    this.threads = variant === 'threads' ? module.threads() : 1;
    this.#limits = module.limits();
    this.liveAllocations = 0;
  }

  // Every op starts from one of these two: after dispose() both say so.
  get module() {
    this.assertLive();
    return this.#module;
  }

  get limits() {
    this.assertLive();
    return this.#limits;
  }

  get disposed() {
    return this.#module === null;
  }

  assertLive() {
    if (this.#module === null) throw new Error('posembed: this instance was disposed (pe.dispose()); load() another to go on');
  }

  // This core, for `what` (an op or a method) that the encoders-only module lacks.
  full(what) {
    if (this.encodersOnly) throw new Error(`posembed: ${what} needs the full module; this instance has the encoders only (load({ encodersOnly: true })): load() one without it`);
    return this;
  }

  // Lets the module go: the threaded module's workers end now (a page would otherwise keep them until it
  // closes), its memory once nothing holds it.
  dispose() {
    this.#module?.PThread?.terminateAllThreads();
    this.#module = null;
  }

  // Reserves bytes on the heap for one call or one object. `what` names the data in the error.
  alloc(bytes, what) {
    if (bytes > MAX_HEAP_BYTES) {
      throw new RangeError(`${what} needs ${bytes} bytes, more than the ${MAX_HEAP_BYTES} bytes the wasm heap can hold`);
    }
    const pointer = this.module._malloc(Math.max(bytes, 1)) >>> 0;
    if (pointer === 0) throw new RangeError(`${what} needs ${bytes} bytes, which the wasm heap cannot provide now`);
    this.liveAllocations++;
    return pointer;
  }

  free(pointer) {
    if (this.disposed) return;  // the whole heap went with the module
    this.#heapArrays.delete(pointer);
    this.#module._free(pointer);
    this.liveAllocations--;
  }

  // Runs fn(pointers) with the given allocations, freeing them whatever happens.
  withHeap(requests, fn) {
    const pointers = [];
    try {
      for (const [bytes, what] of requests) pointers.push(this.alloc(bytes, what));
      return fn(...pointers);
    } finally {
      for (const pointer of pointers) this.free(pointer);
    }
  }

  // The pattern of every op: copies `inputs` (typed arrays) onto the heap, runs kernel(outPointer,
  // ...inputPointers) into a heap buffer of `elements` values of `type`, checks its status and copies the
  // result into `out` (validated: exactly `elements` long) or a new array, which it returns. The heap
  // buffers are freed whatever happens. Arrays that already live on this heap (from pe.allocate) are used
  // in place: no copy in, and an `out` there is written directly (a fresh view of it is returned, since a
  // memory growth during the call detaches old views); it may share bytes only with inputs marked inPlace.
  produce({ elements, what, out, type = Float32Array, inputs = [] }, kernel) {
    if (out !== undefined) outBuffer(out, elements, type);
    const direct = out !== undefined && this.onHeap(out, 'out');
    if (direct) refuseOverlap(out, inputs.filter((input) => this.onHeap(input.data, input.what)));
    const outOffset = direct ? out.byteOffset : null;  // before allocating: a growth detaches the view
    const outAgain = direct ? this.keep(out, 'out') : null;
    const placed = this.#placed(inputs);
    const requests = [...(direct ? [] : [[elements * type.BYTES_PER_ELEMENT, what]]), ...placed.requests];
    return this.withHeap(requests, (...pointers) => {
      const outPointer = direct ? outOffset : pointers.shift();
      this.check(kernel(outPointer, ...placed.pointers(pointers)));
      if (direct) return outAgain();
      const result = this.view(type, outPointer, elements);
      if (out === undefined) return result.slice();  // one allocation and copy, much faster than new + set
      out.set(result);
      return out;
    });
  }

  // produce() for an output of `rows` rows of `rowElements` values, with kernel(outPointer, firstRow,
  // rowCount, ...inputPointers) able to write any run of rows (the same values whatever the run). Into a JS
  // array larger than a block (the caller's, or a new one for a fresh result), the rows are written a block
  // at a time into one heap block that stays in cache and each block is copied out: one pass over the
  // array's memory, where writing it whole on the heap and copying it would take three, and the heap never
  // holds more than the block.
  // A kernel with a cost per call (similarity packs b each time) passes its own blockElements: results up
  // to that size are written whole, larger ones in blocks of about that size.
  produceRows({ rows, rowElements, what, out, type = Float32Array, inputs = [], blockElements: kernelBlock }, kernel) {
    const elements = rows * rowElements;
    if (elements <= (kernelBlock ?? STREAM_BLOCK) || (out !== undefined && this.onHeap(out, 'out'))) {
      return this.produce({ elements, what, out, type, inputs }, (outPointer, ...pointers) => kernel(outPointer, 0, rows, ...pointers));
    }
    const { target, blockElements } = streamTarget(out, elements, what, type);
    const perBlock = Math.max(1, Math.floor((kernelBlock ?? blockElements) / rowElements));
    const placed = this.#placed(inputs);
    return this.withHeap([[perBlock * rowElements * type.BYTES_PER_ELEMENT, what], ...placed.requests], (block, ...pointers) => {
      const inputPointers = placed.pointers(pointers);
      for (let first = 0; first < rows; first += perBlock) {
        const count = Math.min(perBlock, rows - first);
        this.check(kernel(block, first, count, ...inputPointers));
        target.set(this.view(type, block, count * rowElements), first * rowElements);
      }
      return target;
    });
  }

  // Inputs on their way to the heap: `requests` for the allocations the ones elsewhere need, then, once
  // allocated, pointers(allocated) copies them in and gives every input's address. Those already on the
  // heap stay where they are, found before any allocation (which may grow the memory and detach views).
  // Float inputs marked `finite` are checked there, before the kernel runs: a SIMD pass over a vocabulary's
  // table takes a few milliseconds where a JS loop over its values takes tens.
  #placed(inputs) {
    const offsets = inputs.map((input) => (this.onHeap(input.data, input.what) ? input.data.byteOffset : null));
    return {
      requests: inputs.filter((_, k) => offsets[k] === null).map((input) => [input.data.byteLength, input.what]),
      pointers: (allocated) => inputs.map((input, k) => {
        const pointer = offsets[k] ?? allocated.shift();
        if (offsets[k] === null) this.copier(input.data, input.what)(pointer);
        if (input.finite) {
          const bad = this.module.firstNonFinite(pointer, input.data.length);
          if (bad >= 0) throw new RangeError(`${input.what}.data[${bad}] must be finite, got ${this.f32(pointer, input.data.length)[bad]}`);
        }
        return pointer;
      }),
    };
  }

  // Copies `array` to a heap pointer, as a function to call after the allocations: an array on the heap
  // is copied from where it lay before them (they may grow the memory and detach its view).
  copier(array, what) {
    // The heap viewed as the array's element type: a Node Buffer is a Uint8Array whose constructor (Buffer) must not
    // be called with new (DEP0005), so the view's type is the typed array Buffer derives from.
    if (!this.onHeap(array, what)) return (pointer) => this.view(typedArrayType(array), pointer, array.length).set(array);
    const from = array.byteOffset;
    const to = from + array.byteLength;
    return (pointer) => this.module.HEAPU8.copyWithin(pointer, from, to);
  }

  // For an op that allocates before it reads an input or writes its `out` (a growth of the memory detaches
  // views of the heap): call before allocating; the function it returns gives the array again afterwards, a
  // fresh view of the same bytes (of the same heap array) where it lies on the heap.
  keep(array, what) {
    if (!this.onHeap(array, what)) return () => array;
    const { constructor, byteOffset, length } = array;
    const owner = this.#viewOwners.get(array);
    return () => (owner ? this.heapArrayView(owner, constructor, byteOffset, length) : this.view(constructor, byteOffset, length));
  }

  // Whether array (named `what` in errors) is a view of this heap; one there must lie within a live heap
  // array: a view kept past its array's dispose() would read freed memory, and write into what has reused it.
  onHeap(array, what) {
    if (!ArrayBuffer.isView(array)) return false;
    const owner = this.#viewOwners.get(array);
    if (owner?.disposed) throw new RangeError(`${what} is a view of a pe.allocate() array that was disposed`);
    // A heap array's view from before a growth of the threaded module's shared memory lies on another
    // SharedArrayBuffer object over the same memory: still this heap.
    if (array.buffer !== this.module.HEAPU8.buffer && !owner) return false;
    const [from, to] = [array.byteOffset, array.byteOffset + array.byteLength];
    for (const [pointer, bytes] of this.#heapArrays) {
      if (pointer <= from && to <= pointer + bytes) return true;
    }
    throw new RangeError(`${what} is a view of the wasm heap outside every live pe.allocate() array: was its array disposed?`);
  }

  // A new heap array's block, and views of it that keep it alive.
  trackHeapArray(pointer, bytes) {
    this.#heapArrays.set(pointer, bytes);
  }

  heapArrayView(owner, type, pointer, length) {
    const view = this.view(type, pointer, length);
    this.#viewOwners.set(view, owner);
    return view;
  }

  view(type, pointer, length) {
    return new type(this.module.HEAPU8.buffer, pointer, length);
  }

  // Views are made fresh on every use: a memory growth detaches the old buffer.
  f32(pointer, length) {
    return this.view(Float32Array, pointer, length);
  }

  // The bindings return null or { name, message }.
  check(status) {
    if (status !== null) throw new (ERROR_TYPES[status.name] ?? Error)(status.message);
  }

  get heapBytes() {
    return this.module.HEAPU8.buffer.byteLength;
  }
}

// An array on the wasm heap, for `out` and inputs without copies. `data` is a fresh view on every read:
// a memory growth (any call may cause one) detaches earlier views, so read `data` again after calls.
export class HeapArray {
  #block;

  constructor(core, elements, type) {
    this.length = elements;
    this.type = type;
    this.#block = new HeapBlock(this, core, elements * type.BYTES_PER_ELEMENT, `a heap array of ${elements} elements`);
    core.trackHeapArray(this.#block.pointer, elements * type.BYTES_PER_ELEMENT);
  }

  get data() {
    if (this.#block.pointer === 0) throw new Error('this heap array has been disposed');
    return this.#block.core.heapArrayView(this, this.type, this.#block.pointer, this.length);
  }

  get disposed() {
    return this.#block.pointer === 0;
  }

  dispose() {
    this.#block.free();
  }
}
