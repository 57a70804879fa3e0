import { outBuffer } from './validate.js';
import { WeightFileError } from './weight_files.js';
import { HeapBlock } from './table.js';

// Loading the Emscripten module and owning its heap: every allocation the package makes goes through
// WasmCore, is freed in a finally block, and is counted, so tests can assert that nothing leaks.

// (func (result v128) i32.const 0 i8x16.splat): validates only where wasm SIMD is supported.
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 8, 1, 6, 0, 65, 0, 253, 15, 11]);

export function simdSupported() {
  return WebAssembly.validate(SIMD_PROBE);
}

// Heap pointers stay below 2^31 (-sMAXIMUM_MEMORY=2GB); one allocation can take at most this.
export const MAX_HEAP_BYTES = 2 ** 31 - 2 ** 24;

const ERROR_TYPES = { RangeError, TypeError, Error, WeightFileError };

async function readBytes(url) {
  if (url.protocol === 'file:') {
    // Node. The specifier is not a literal, so bundlers leave it alone in browser builds.
    const fsModule = 'node:fs/promises';
    const { readFile } = await import(/* @vite-ignore */ fsModule);
    return readFile(url);
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`posembed: cannot fetch ${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

export async function loadWasmCore({ simd, wasmUrl, wasmBinary }) {
  const factory = simd ? (await import('./posembed-simd.mjs')).default : (await import('./posembed-scalar.mjs')).default;
  const url = wasmUrl !== undefined ? new URL(wasmUrl, import.meta.url)
    : simd ? new URL('./posembed-simd.wasm', import.meta.url) : new URL('./posembed-scalar.wasm', import.meta.url);
  const bytes = wasmBinary ?? await readBytes(url);
  const module = await factory({ wasmBinary: bytes });
  return new WasmCore(module, simd ? 'simd' : 'scalar');
}

export class WasmCore {
  constructor(module, variant) {
    this.module = module;
    this.variant = variant;
    this.limits = module.limits();
    this.liveAllocations = 0;
  }

  // Reserves bytes on the heap for one call or one object. `what` names the data in the error.
  alloc(bytes, what) {
    if (bytes > MAX_HEAP_BYTES) {
      throw new RangeError(`${what} needs ${bytes} bytes, more than the ${MAX_HEAP_BYTES} bytes the wasm heap can hold`);
    }
    const pointer = this.module._malloc(Math.max(bytes, 1));
    if (pointer === 0) throw new RangeError(`${what} needs ${bytes} bytes, which the wasm heap cannot provide now`);
    this.liveAllocations++;
    return pointer;
  }

  free(pointer) {
    this.module._free(pointer);
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
  // memory growth during the call detaches old views).
  produce({ elements, what, out, type = Float32Array, inputs = [] }, kernel) {
    if (out !== undefined) outBuffer(out, elements, type);
    // Where arrays on the heap lie, read before the allocations below, which may grow the memory and
    // detach the caller's views of it.
    const direct = out !== undefined && this.onHeap(out);
    const outOffset = direct ? out.byteOffset : null;
    const inputOffsets = inputs.map((input) => (this.onHeap(input.data) ? input.data.byteOffset : null));
    const copied = inputs.filter((input, k) => inputOffsets[k] === null);
    const requests = [...(direct ? [] : [[elements * type.BYTES_PER_ELEMENT, what]]), ...copied.map((input) => [input.data.byteLength, input.what])];
    return this.withHeap(requests, (...pointers) => {
      const outPointer = direct ? outOffset : pointers.shift();
      const inputPointers = inputs.map((input, k) => {
        if (inputOffsets[k] !== null) return inputOffsets[k];
        const pointer = pointers.shift();
        this.view(input.data.constructor, pointer, input.data.length).set(input.data);
        return pointer;
      });
      this.check(kernel(outPointer, ...inputPointers));
      const result = this.view(type, outPointer, elements);
      if (direct) return result;
      if (out === undefined) return result.slice();  // one allocation and copy, much faster than new + set
      out.set(result);
      return out;
    });
  }

  // Copies `array` to a heap pointer, as a function to call after the allocations: an array on the heap
  // is copied from where it lay before them (they may grow the memory and detach its view).
  copier(array) {
    if (!this.onHeap(array)) return (pointer) => this.view(array.constructor, pointer, array.length).set(array);
    const from = array.byteOffset;
    const to = from + array.byteLength;
    return (pointer) => this.module.HEAPU8.copyWithin(pointer, from, to);
  }

  onHeap(array) {
    return ArrayBuffer.isView(array) && array.buffer === this.module.HEAPU8.buffer;
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
  }

  get data() {
    if (this.#block.pointer === 0) throw new Error('this heap array has been disposed');
    return this.#block.core.view(this.type, this.#block.pointer, this.length);
  }

  get disposed() {
    return this.#block.pointer === 0;
  }

  dispose() {
    this.#block.free();
  }
}
