import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WeightFileError, writeNpy, writeSafetensors } from '../../dist/index.js';
import { VECTORS_DIR, assertClose, describeEachModule } from './helpers.mjs';

const FORMATS = `${VECTORS_DIR}/formats`;
const expectations = JSON.parse(readFileSync(`${FORMATS}/expected.json`, 'utf8'));

describeEachModule('weight files', (instance) => {
  let pe;
  before(() => { pe = instance(); });
  const read = (name, bytes) => (name.endsWith('.npy') ? pe.readNpy(bytes) : pe.readSafetensors(bytes));

  for (const [name, expected] of Object.entries(expectations)) {
    it(`${name}: ${expected.ok ? 'reads as expected' : `refused (${expected.why})`}`, () => {
      const bytes = readFileSync(`${FORMATS}/${name}`);
      if (!expected.ok) {
        assert.throws(() => read(name, bytes), (error) => error instanceof WeightFileError && Number.isInteger(error.offset) && /\(at byte \d+\)$/.test(error.message));
        return;
      }
      const result = read(name, bytes);
      if (name.endsWith('.npy')) {
        assertClose(result, expected, 0, name);
      } else {
        assert.deepEqual(Object.keys(result).sort(), Object.keys(expected.tensors).sort());
        for (const [key, tensor] of Object.entries(expected.tensors)) assertClose(result[key], tensor, 0, key);
      }
    });
  }

  it('every truncation of the good files is refused with a WeightFileError, and the module stays usable', () => {
    for (const name of ['ok_f32.npy', 'ok_mixed.safetensors']) {
      const bytes = readFileSync(`${FORMATS}/${name}`);
      for (let length = 0; length < bytes.length; length++) {
        assert.throws(() => read(name, bytes.subarray(0, length)), WeightFileError, `${name} cut at ${length}`);
      }
    }
    assert.deepEqual(pe.readNpy(readFileSync(`${FORMATS}/ok_f32.npy`)).shape, [3, 4]);
  });

  it('takes ArrayBuffers and typed arrays; rejects other types', () => {
    const bytes = readFileSync(`${FORMATS}/ok_f16.npy`);
    const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    assert.deepEqual(pe.readNpy(copy), pe.readNpy(bytes));
    assert.throws(() => pe.readNpy('ok_f16.npy'), { name: 'TypeError', message: /bytes must be a Uint8Array/ });
  });

  it('a loaded table feeds tokenEmbedding', () => {
    const wte = pe.readSafetensors(readFileSync(`${FORMATS}/ok_mixed.safetensors`)).wte;
    const emb = pe.tokenEmbedding({ vocabSize: 3, dModel: 4, weights: wte });
    assert.deepEqual(emb.lookup([2]).data, wte.data.subarray(8, 12));
    emb.dispose();
  });

  it('tokenEmbedding of an opened file holds the rows the golden file holds, a fortran_order .npy too', async () => {
    for (const name of ['ok_f32.npy', 'ok_f16.npy', 'ok_fortran.npy']) {
      const file = await pe.openNpy(readFileSync(`${FORMATS}/${name}`));
      const emb = await file.tokenEmbedding({ name: 'array' });
      assertClose(emb.lookup([0, 1, 2]), expectations[name], 0, name);
      emb.dispose();
    }
  });
}, { fullModule: true });

describeEachModule('writing weight files', (instance) => {
  let pe;
  before(() => { pe = instance(); });

  it("writeNpy gives the golden ok_f32.npy's bytes for its table (numpy's .npy 1.0 layout)", () => {
    const bytes = readFileSync(`${FORMATS}/ok_f32.npy`);
    assert.deepEqual(Buffer.from(writeNpy(pe.readNpy(bytes))), bytes);
  });

  it('writeSafetensors round-trips through readSafetensors, its header padded to 8 bytes in UTF-8', () => {
    const tensors = { 'wte.weight': { data: new Float32Array([1, -2, 3.5, NaN, 0, 1e-30]), shape: [3, 2] }, 'é': { data: new Float32Array([7]), shape: [1] } };
    const file = writeSafetensors(tensors, { format: 'pt' });
    const headerLength = Number(new DataView(file.buffer).getBigUint64(0, true));
    assert.equal(headerLength % 8, 0);
    assert.deepEqual(JSON.parse(new TextDecoder().decode(file.subarray(8, 8 + headerLength))).__metadata__, { format: 'pt' });
    assert.deepEqual(pe.readSafetensors(file), tensors);
  });
}, { fullModule: true });

describe('writing weight files: what is refused', () => {
  const tensor = { data: new Float32Array(4), shape: [2, 2] };
  for (const [call, error] of [
    [() => writeNpy({ data: new Float32Array(3), shape: [2, 2] }), { name: 'RangeError', message: 'tensor.shape [2,2] holds 4 elements but tensor.data has 3' }],
    [() => writeNpy({ data: [1, 2], shape: [2] }), { name: 'TypeError', message: /^tensor must be a tensor \{ data: Float32Array, shape \}/ }],
    [() => writeNpy({ data: new Float32Array(2), shape: [2.5] }), { name: 'RangeError', message: /^tensor\.shape\[0\] must be an integer/ }],
    [() => writeSafetensors([tensor]), { name: 'TypeError', message: /^tensors must be an object of named tensors/ }],
    [() => writeSafetensors({}), { name: 'RangeError', message: 'tensors must hold at least one tensor, got none' }],
    [() => writeSafetensors({ __metadata__: tensor }), { name: 'RangeError', message: /name must be a non-empty string other than '__metadata__'/ }],
    [() => writeSafetensors({ a: { data: new Float64Array(4), shape: [2, 2] } }), { name: 'TypeError', message: /^tensors\['a'\] must be a tensor/ }],
    [() => writeSafetensors({ a: tensor }, { step: 3 }), { name: 'TypeError', message: /^metadata\['step'\] must be a string/ }],
    [() => writeSafetensors({ a: tensor }, 'pt'), { name: 'TypeError', message: /^metadata must be an object of strings/ }],
  ]) {
    it(`${error.message}`, () => assert.throws(call, error));
  }
});
