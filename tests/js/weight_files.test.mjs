import { it, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WeightFileError } from '../../dist/index.js';
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
});
