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
