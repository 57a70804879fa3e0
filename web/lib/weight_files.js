// Weights from .npy and .safetensors files (f32, f16, bf16; f64 in .npy) as float32 tensors.
import { describe } from './validate.js';

// A malformed weights file; `offset` is the byte where the problem is.
export class WeightFileError extends Error {
  constructor(message) {
    super(message);
    this.name = 'WeightFileError';
    const at = message.match(/\(at byte (\d+)\)$/);
    this.offset = at ? Number(at[1]) : null;
  }
}

function fileBytes(bytes) {
  if (bytes instanceof Uint8Array) return bytes;
  if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
  if (ArrayBuffer.isView(bytes)) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  throw new TypeError(`bytes must be a Uint8Array, an ArrayBuffer or a typed array holding the file, got ${describe(bytes)}`);
}

// Copies the file onto the heap once and reads each tensor from there.
function readFile(core, bytes, npy) {
  const file = fileBytes(bytes);
  const copyFile = core.copier(file, 'bytes');
  return core.withHeap([[file.length, 'the weights file']], (filePointer) => {
    copyFile(filePointer);
    const info = core.module.weightFileInfo(filePointer, file.length, npy);
    core.check(info.error);
    return info.tensors.map(({ name, shape }, index) => {
      const elements = shape.reduce((product, n) => product * n, 1);
      const data = core.produce({ elements, what: `tensor '${name}'` },
        (outPointer) => core.module.readWeightTensor(filePointer, file.length, npy, index, outPointer, elements));
      return [name, { data, shape }];
    });
  });
}

export function readNpy(core, bytes) {
  return readFile(core, bytes, true)[0][1];
}

export function readSafetensors(core, bytes) {
  return Object.fromEntries(readFile(core, bytes, false));
}

// Tensors { name: { data: Float32Array, shape } } as a .safetensors file (F32, little-endian, names in order);
// metadata: string values for the header's __metadata__.
export function writeSafetensors(tensors, metadata) {
  const header = metadata ? { __metadata__: metadata } : {};
  let offset = 0;
  for (const [name, { data, shape }] of Object.entries(tensors)) {
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + data.length * 4] };
    offset += data.length * 4;
  }
  // The header is padded with spaces to a multiple of 8 bytes, so the data that follows is aligned.
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.length / 8) * 8;
  json = new TextEncoder().encode(JSON.stringify(header).padEnd(padded, ' '));
  const file = new Uint8Array(8 + json.length + offset);
  new DataView(file.buffer).setBigUint64(0, BigInt(json.length), true);
  file.set(json, 8);
  let at = 8 + json.length;
  for (const { data } of Object.values(tensors)) {
    file.set(new Uint8Array(littleEndianFloats(data)), at);
    at += data.length * 4;
  }
  return file;
}

// A float32 tensor as a .npy file (version 1.0, '<f4', C order).
export function writeNpy({ data, shape }) {
  const dictionary = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  const unpadded = 10 + dictionary.length + 1;  // magic, version, length, dictionary, newline
  const header = `${dictionary}${' '.repeat(Math.ceil(unpadded / 64) * 64 - unpadded)}\n`;
  const file = new Uint8Array(10 + header.length + data.length * 4);
  file.set([0x93, ...new TextEncoder().encode('NUMPY'), 1, 0], 0);
  new DataView(file.buffer).setUint16(8, header.length, true);
  file.set(new TextEncoder().encode(header), 10);
  file.set(new Uint8Array(littleEndianFloats(data)), 10 + header.length);
  return file;
}

function littleEndianFloats(data) {
  const bytes = new ArrayBuffer(data.length * 4);
  const view = new DataView(bytes);
  for (let i = 0; i < data.length; i++) view.setFloat32(i * 4, data[i], true);
  return bytes;
}
