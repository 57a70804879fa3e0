// Weights from .npy and .safetensors files: read whole from bytes, or opened lazily from a Blob (a dropped File,
// Node's fs.openAsBlob) reading only the tensors asked for; floats of every stored width as float32, integers as
// integer arrays.
// Loaded with the full module (load() waits for it: the package's 'weights' part), so that a page drawing with the
// elements never fetches it.
import { describe } from './validate.js';
import { WeightFetchError, WeightFileError } from './weight_errors.js';

export { WeightFetchError, WeightFileError };

function fileBytes(bytes) {
  if (bytes instanceof Uint8Array) return bytes;
  if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
  if (ArrayBuffer.isView(bytes)) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  throw new TypeError(`bytes must be a Uint8Array, an ArrayBuffer or a typed array holding the file, got ${describe(bytes)}`);
}

// The bytes a header reader needs before it knows the header's length (safetensors: 8, npy: up to 12).
const PREAMBLE = { npy: 12, safetensors: 8 };
// Elements converted per pass through the heap: the heap holds one chunk, never the tensor.
const CONVERT_CHUNK = 1 << 20;
// Bytes per read where progress is reported.
const READ_CHUNK = 16 << 20;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
// Stored types read as they are (little-endian, as the formats store them, and as every JS engine lays out memory).
const INTEGER_ARRAYS = { I32: Int32Array, I16: Int16Array, I8: Int8Array, U32: Uint32Array, U16: Uint16Array, U8: Uint8Array, BOOL: Uint8Array, F32: Float32Array };
const WIDE_INTEGERS = { I64: BigInt64Array, U64: BigUint64Array };
const READABLE = 'F64, F32, F16, BF16, F8_E4M3, F8_E5M2, I64, I32, I16, I8, U64, U32, U16, U8, BOOL';

// A URL as given, or relative to the page; a string that is neither (a path, in Node) is named with the way to read it.
function absoluteUrl(source) {
  try {
    return String(new URL(source, globalThis.location?.href));
  } catch {
    throw new TypeError(`source ${describe(String(source))} is not a URL (http:, https:, or relative to the page); a file on disk is read through its FileHandle (fs.promises.open) or as a Blob (fs.openAsBlob)`);
  }
}

// A file's bytes by range: in memory (read at once), a Blob (a dropped File; Node's fs.openAsBlob), a Node
// FileHandle (fs.promises.open: Node 20's openAsBlob gives files past 4 GB a wrong size) read lazily, or a URL read
// by HTTP Range. `owned`: the bytes read are fresh, so a tensor may be a view of them rather than a copy.
export async function byteSource(source, options) {
  if (typeof source === 'string' || (typeof URL === 'function' && source instanceof URL)) {
    const { urlSource } = await import('./url_source.js');
    return urlSource(absoluteUrl(source), options);
  }
  if (typeof Blob === 'function' && source instanceof Blob) {
    // With onProgress, a large range comes in chunks (into one array: memory for the range and one chunk).
    const read = async (start, end, onProgress) => {
      if (!onProgress || end - start <= READ_CHUNK) return new Uint8Array(await source.slice(start, end).arrayBuffer());
      const bytes = new Uint8Array(end - start);
      for (let at = start; at < end; at += READ_CHUNK) {
        bytes.set(new Uint8Array(await source.slice(at, Math.min(end, at + READ_CHUNK)).arrayBuffer()), at - start);
        onProgress((Math.min(end, at + READ_CHUNK) - start) / (end - start));
      }
      return bytes;
    };
    return { size: source.size, owned: true, read };
  }
  if (typeof source?.read === 'function' && typeof source?.stat === 'function') {
    const { size } = await source.stat();
    const read = async (start, end, onProgress) => {
      const bytes = new Uint8Array(end - start);
      for (let filled = 0; filled < bytes.length;) {
        const { bytesRead } = await source.read(bytes, filled, Math.min(READ_CHUNK, bytes.length - filled), start + filled);
        if (bytesRead === 0) throw new WeightFileError(`the file ended at byte ${start + filled}, before the ${end} bytes its header describes (at byte ${start + filled})`);
        filled += bytesRead;
        onProgress?.(filled / bytes.length);
      }
      return bytes;
    };
    return { size, owned: true, read };
  }
  if (!ArrayBuffer.isView(source) && !(source instanceof ArrayBuffer)) {
    throw new TypeError(`source must be a URL, a Blob or File, a Node FileHandle, or the file's bytes (a Uint8Array, an ArrayBuffer or a typed array), got ${describe(source)}`);
  }
  return inMemory(fileBytes(source));
}

export function inMemory(bytes) {
  return { size: bytes.length, owned: false, read: (start, end) => bytes.subarray(start, end) };
}

// Calls the core with `bytes` copied onto the heap.
function onHeap(core, bytes, what, call) {
  return core.withHeap([[Math.max(1, bytes.length), what]], (pointer) => {
    core.copier(bytes, what)(pointer);
    return call(pointer);
  });
}

function headerSize(core, first, fileSize, format) {
  const { error, size } = onHeap(core, first, 'the file\'s first bytes', (pointer) => core.module.weightHeaderSize(pointer, first.length, fileSize, format === 'npy'));
  core.check(error);
  return size;
}

function parseHeader(core, start, fileSize, format) {
  const info = onHeap(core, start, 'the file\'s header', (pointer) => core.module.weightFileInfo(pointer, start.length, fileSize, format === 'npy'));
  core.check(info.error);
  return { tensors: info.tensors, metadata: Object.fromEntries(info.metadata) };
}

// A typed array of `type` over `bytes`: a view where the bytes are ours and aligned, else a copy.
function asArray(type, bytes, owned) {
  if (owned && bytes.byteOffset % type.BYTES_PER_ELEMENT === 0) return new type(bytes.buffer, bytes.byteOffset, bytes.length / type.BYTES_PER_ELEMENT);
  const array = new type(bytes.length / type.BYTES_PER_ELEMENT);
  new Uint8Array(array.buffer).set(bytes);
  return array;
}

// A column-major payload (npy's fortran_order) in row-major order, any rank.
function rowMajor(data, shape) {
  const out = new data.constructor(data.length);
  const rank = shape.length;
  const index = new Array(rank).fill(0);
  const stride = shape.map((_, axis) => shape.slice(0, axis).reduce((product, n) => product * n, 1));
  for (let i = 0; i < out.length; i++) {
    let source = 0;
    for (let axis = 0; axis < rank; axis++) source += index[axis] * stride[axis];
    out[i] = data[source];
    for (let axis = rank - 1; axis >= 0 && ++index[axis] === shape[axis]; axis--) index[axis] = 0;
  }
  return out;
}

// One tensor's stored bytes as a typed array: floats as Float32Array (F16, BF16 and F8 exactly, F64 rounded to
// nearest), integers in their own type, I64 and U64 as Float64Array where every value is a safe integer.
function decode(core, entry, bytes, owned) {
  const where = `tensor '${entry.name}'`;
  if (!LITTLE_ENDIAN) throw new WeightFileError(`${where}: posembed reads weight files only on little-endian hosts (at byte ${entry.offset})`);
  if (!entry.known) throw new WeightFileError(`${where} has dtype '${entry.dtype}', which posembed does not read (it reads ${READABLE}) (at byte ${entry.offset})`);
  const elements = entry.shape.reduce((product, n) => product * n, 1);
  let data;
  if (INTEGER_ARRAYS[entry.dtype]) {
    data = asArray(INTEGER_ARRAYS[entry.dtype], bytes, owned);
  } else if (WIDE_INTEGERS[entry.dtype]) {
    const wide = asArray(WIDE_INTEGERS[entry.dtype], bytes, owned);
    data = new Float64Array(elements);
    for (let i = 0; i < elements; i++) {
      const value = Number(wide[i]);
      if (!Number.isSafeInteger(value)) {
        throw new WeightFileError(`${where} (${entry.dtype}) holds ${wide[i]} at element ${i}, outside JavaScript's safe integers ±(2^53 − 1) (at byte ${entry.offset + 8 * i})`);
      }
      data[i] = value;
    }
  } else {
    data = new Float32Array(elements);
    const size = bytes.length / Math.max(1, elements);
    const chunk = Math.min(CONVERT_CHUNK, Math.max(1, elements));
    core.withHeap([[chunk * size, `${where}'s bytes`], [chunk * 4, where]], (input, output) => {
      for (let first = 0; first < elements; first += chunk) {
        const count = Math.min(chunk, elements - first);
        core.view(Uint8Array, input, count * size).set(bytes.subarray(first * size, (first + count) * size));
        core.check(core.module.convertToFloat(entry.dtype, input, count * size, output, count));
        data.set(core.view(Float32Array, output, count), first);
      }
    });
  }
  return { data: entry.fortranOrder && entry.shape.length > 1 ? rowMajor(data, entry.shape) : data, shape: entry.shape.slice() };
}

// Every tensor of a file held in memory, read at once (readNpy, readSafetensors).
function readFile(core, bytes, format) {
  const source = inMemory(fileBytes(bytes));
  const start = source.read(0, headerSize(core, source.read(0, PREAMBLE[format]), source.size, format));
  return parseHeader(core, start, source.size, format).tensors
    .map((entry) => [entry.name, decode(core, entry, source.read(entry.offset, entry.offset + entry.bytes), false)]);
}

export function readNpy(core, bytes) {
  return readFile(core, bytes, 'npy')[0][1];
}

export function readSafetensors(core, bytes) {
  return Object.fromEntries(readFile(core, bytes, 'safetensors'));
}

// A file opened lazily: its header read, each tensor's bytes read when asked for.
class WeightFile {
  #core;
  #source;
  #entries;

  constructor(core, source, { tensors, metadata }) {
    this.#core = core;
    this.#source = source;
    this.#entries = new Map(tensors.map((entry) => [entry.name, entry]));
    this.names = tensors.map((entry) => entry.name);
    this.metadata = metadata;
  }

  #entry(name) {
    const entry = this.#entries.get(name);
    if (entry) return entry;
    const listed = this.names.slice(0, 8).map((n) => `'${n}'`).join(', ');
    throw new RangeError(`name must be one of the file's ${this.names.length} tensors (${listed}${this.names.length > 8 ? ', …' : ''}), got ${describe(name)}`);
  }

  info(name) {
    const { dtype, shape, bytes } = this.#entry(name);
    return { dtype, shape: shape.slice(), bytes };
  }

  // onProgress(fraction): called as the tensor's bytes arrive.
  async tensor(name, { onProgress } = {}) {
    const entry = this.#entry(name);
    return decode(this.#core, entry, await this.#source.read(entry.offset, entry.offset + entry.bytes, onProgress), this.#source.owned);
  }

  // The model's token table as a TokenEmbedding on the heap (token_table.js, loaded with the first call).
  async tokenEmbedding(options = {}) {
    const { readTokenTable, tokenTableName } = await import('./token_table.js');
    const entry = this.#entry(options.name ?? tokenTableName(this.names));
    return readTokenTable(this.#core, this.#source, entry, options, () => this.tensor(entry.name, options));
  }
}


const FETCH_OPTIONS = ['fetch', 'headers', 'signal', 'onProgress'];
function fetchOptions(options, op) {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object') throw new TypeError(`${op} options must be an object { fetch, headers, signal, onProgress }, got ${describe(options)}`);
  for (const key of Object.keys(options)) if (!FETCH_OPTIONS.includes(key)) throw new TypeError(`${op}: unknown option '${key}' (options: ${FETCH_OPTIONS.join(', ')})`);
  return options;
}

// onProgress(fraction): as the header's bytes arrive.
async function openFile(core, source, format, name, options) {
  const bytes = await byteSource(source, options);
  const first = await bytes.read(0, Math.min(PREAMBLE[format], bytes.size));
  const start = await bytes.read(0, headerSize(core, first, bytes.size, format), options.onProgress);
  const header = parseHeader(core, start, bytes.size, format);
  if (format === 'npy') header.tensors[0].name = name;
  return new WeightFile(core, bytes, header);
}

export function openSafetensors(core, source, options) {
  return openFile(core, source, 'safetensors', undefined, fetchOptions(options, 'openSafetensors'));
}

// The array's name: the file's, without .npy, where the source is a File or a URL.
export function openNpy(core, source, options) {
  const named = typeof source === 'string' ? source.split(/[?#]/)[0].split('/').pop() : source?.name;
  return openFile(core, source, 'npy', typeof named === 'string' && named ? named.replace(/\.npy$/, '') : 'array', fetchOptions(options, 'openNpy'));
}

// A sharded checkpoint: its model.safetensors.index.json ({ metadata, weight_map: { tensor: shard file } }) and
// the shards, as Files (named) or { [file name]: Blob | bytes }, a URL, or one .safetensors file alone. Only the
// headers are read here (checkpoint.js, loaded with the first call).
export function openCheckpoint(core, files, options) {
  const checked = fetchOptions(options, 'openCheckpoint');
  const byUrl = typeof files === 'string' || (typeof URL === 'function' && files instanceof URL);
  return import('./checkpoint.js').then((checkpoint) => (byUrl
    ? checkpoint.openCheckpointUrl(core, absoluteUrl(files), checked)
    : checkpoint.openCheckpointFiles(core, files, checked)));
}
