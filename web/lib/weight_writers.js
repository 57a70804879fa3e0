// Writing .safetensors and .npy files of float32 tensors: plain JS, apart from the readers (weight_files.js).
import { floatTensor } from './tensor.js';
import { describe } from './validate.js';

// Tensors { name: { data: Float32Array, shape } } as a .safetensors file (F32, little-endian, names in order);
// metadata: string values for the header's __metadata__.
export function writeSafetensors(tensors, metadata) {
  if (tensors === null || typeof tensors !== 'object' || Array.isArray(tensors) || ArrayBuffer.isView(tensors)) {
    throw new TypeError(`tensors must be an object of named tensors { [name]: { data: Float32Array, shape } }, got ${describe(tensors)}`);
  }
  const entries = Object.entries(tensors).map(([name, tensor]) => {
    if (name === '' || name === '__metadata__') throw new RangeError(`tensors: a tensor's name must be a non-empty string other than '__metadata__', got '${name}'`);
    return [name, floatTensor(`tensors['${name}']`, tensor)];
  });
  if (entries.length === 0) throw new RangeError('tensors must hold at least one tensor, got none');
  if (metadata !== undefined) {
    if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) throw new TypeError(`metadata must be an object of strings, got ${describe(metadata)}`);
    for (const [key, value] of Object.entries(metadata)) {
      if (typeof value !== 'string') throw new TypeError(`metadata['${key}'] must be a string (safetensors metadata holds only strings), got ${describe(value)}`);
    }
  }
  const header = metadata ? { __metadata__: metadata } : {};
  let offset = 0;
  for (const [name, { data, shape }] of entries) {
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + data.length * 4] };
    offset += data.length * 4;
  }
  // The header is padded with spaces to a multiple of 8 bytes (counted in UTF-8), so the data that follows is aligned.
  const unpadded = new TextEncoder().encode(JSON.stringify(header));
  const json = new Uint8Array(Math.ceil(unpadded.length / 8) * 8).fill(0x20);
  json.set(unpadded);
  const file = new Uint8Array(8 + json.length + offset);
  new DataView(file.buffer).setBigUint64(0, BigInt(json.length), true);
  file.set(json, 8);
  let at = 8 + json.length;
  for (const [, { data }] of entries) {
    file.set(new Uint8Array(littleEndianFloats(data)), at);
    at += data.length * 4;
  }
  return file;
}

// A float32 tensor as a .npy file (version 1.0, '<f4', C order).
export function writeNpy(tensor) {
  const { data, shape } = floatTensor('tensor', tensor);
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
