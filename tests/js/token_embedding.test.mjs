import { it, before } from 'node:test';
import assert from 'node:assert/strict';
import { assertClose, describeEachModule, loadVectors, writtenOnHeap } from './helpers.mjs';

describeEachModule('tokenEmbedding', (instance) => {
  let pe;
  before(() => { pe = instance(); });

  for (const c of loadVectors('token_embedding').cases) {
    it(`matches golden vector ${c.name}`, () => {
      const [vocabSize, dModel] = c.input.table.shape;
      const emb = pe.tokenEmbedding({
        vocabSize, dModel, paddingIdx: c.params.paddingIdx, scale: c.params.scale,
        weights: { data: Float32Array.from(c.input.table.data), shape: c.input.table.shape },
      });
      try {
        const result = emb.lookup(c.input.ids);
        if (c.params.positional === 'sinusoidal') {
          // The combined layer: scaled rows plus the interleaved encoding from position 0.
          const position = pe.sinusoidal({ length: c.input.ids.length, dModel });
          result.data.forEach((v, i) => { result.data[i] = v + position.data[i]; });
        }
        assertClose(result, c.expected, c.tolerance.abs, c.name);
      } finally {
        emb.dispose();
      }
    });
  }

  it('looks up batches: ids [batch, seq] give [batch, seq, dModel]', () => {
    const emb = pe.tokenEmbedding({ vocabSize: 10, dModel: 3, init: { seed: 4 } });
    const ids = { data: new Int32Array([1, 2, 3, 9, 0, 1]), shape: [2, 3] };
    const out = emb.lookup(ids);
    assert.deepEqual(out.shape, [2, 3, 3]);
    const table = emb.weights.data;
    ids.data.forEach((id, j) => assert.deepEqual(Array.from(out.data.subarray(3 * j, 3 * j + 3)), Array.from(table.subarray(3 * id, 3 * id + 3))));
    emb.dispose();
  });

  it('accepts number[], Int32Array and tensors alike', () => {
    const emb = pe.tokenEmbedding({ vocabSize: 10, dModel: 4, scale: 'sqrt', init: { seed: 1 } });
    const a = emb.lookup([3, 1, 4]);
    const b = emb.lookup(new Int32Array([3, 1, 4]));
    const c = emb.lookup({ data: new Int32Array([3, 1, 4]), shape: [3] });
    assert.deepEqual(a, b);
    assert.deepEqual(a, c);
    assert.equal(emb.scale, 2);
    emb.dispose();
  });

  it('seeded init is reproducible and differs by seed; the padding row is zero', () => {
    const make = (seed) => pe.tokenEmbedding({ vocabSize: 50, dModel: 16, paddingIdx: 3, init: { type: 'normal', std: 0.02, seed } });
    const [a, b, c] = [make(7), make(7), make(8)];
    assert.deepEqual(a.weights.data, b.weights.data);
    assert.notDeepEqual(a.weights.data, c.weights.data);
    assert.ok(a.weights.data.subarray(3 * 16, 4 * 16).every((v) => v === 0));
    assert.ok(a.lookup([3]).data.every((v) => v === 0));
    for (const e of [a, b, c]) e.dispose();
  });

  it('xavier-uniform init stays inside its bound', () => {
    const emb = pe.tokenEmbedding({ vocabSize: 100, dModel: 28, init: { type: 'xavier-uniform', gain: 2, seed: 1 } });
    const bound = 2 * Math.sqrt(6 / 128);
    const data = emb.weights.data;
    assert.ok(data.every((v) => Math.abs(v) <= bound));
    assert.ok(data.some((v) => Math.abs(v) > 0.95 * bound));
    emb.dispose();
  });

  it('padding id reads as zeros even when the given weights have a non-zero row there', () => {
    const weights = { data: new Float32Array(12).fill(1.5), shape: [3, 4] };
    const emb = pe.tokenEmbedding({ vocabSize: 3, dModel: 4, paddingIdx: 1, weights });
    assert.deepEqual(Array.from(emb.lookup([0, 1, 2]).data), [1.5, 1.5, 1.5, 1.5, 0, 0, 0, 0, 1.5, 1.5, 1.5, 1.5]);
    assert.equal(emb.weights.data[4], 1.5, 'weights are kept as given');
    emb.dispose();
  });

  it('writes lookups into out', () => {
    const emb = pe.tokenEmbedding({ vocabSize: 5, dModel: 4, init: { seed: 2 } });
    const out = new Float32Array(8);
    const result = emb.lookup([4, 2], { out });
    assert.equal(result.data, out);
    assert.deepEqual(Array.from(out), Array.from(emb.lookup([4, 2]).data));
    assert.throws(() => emb.lookup([4, 2], { out: new Float32Array(9) }), { name: 'RangeError', message: 'out must hold exactly 8 elements, got 9' });
    emb.dispose();
  });

  it('a fresh result or JS out larger than a block is written a block at a time, with the rows written whole on the heap; a bad id leaves out untouched', () => {
    const emb = pe.tokenEmbedding({ vocabSize: 300, dModel: 40, paddingIdx: 7, scale: 'sqrt', init: { seed: 5 } });
    const ids = { data: Int32Array.from({ length: 2 * 3500 }, (_, j) => (j * 131) % 300), shape: [2, 3500] };  // 280,000 floats: 2 fresh blocks, 5 into a JS out
    const expected = writtenOnHeap(pe, ids.data.length * 40, (out) => emb.lookup(ids, { out }));
    assert.deepEqual(emb.lookup(ids).data, expected);
    const out = new Float32Array(expected.length);
    assert.equal(emb.lookup(ids, { out }).data, out);
    assert.deepEqual(out, expected);
    const bad = Int32Array.from(ids.data, (id, j) => (j === 3000 ? 300 : id));
    assert.throws(() => emb.lookup(bad, { out }), { name: 'RangeError', message: 'ids[3000] must be a token id in [0, vocabSize - 1] = [0, 299], got 300' });
    assert.deepEqual(out, expected);
    emb.dispose();
  });

  it('dispose frees the table, twice is harmless, and use afterwards throws', () => {
    const before = pe.memory().liveAllocations;
    const emb = pe.tokenEmbedding({ vocabSize: 5, dModel: 4 });
    assert.equal(pe.memory().liveAllocations, before + 1);
    emb.dispose();
    emb.dispose();
    assert.equal(pe.memory().liveAllocations, before);
    assert.equal(emb.disposed, true);
    assert.throws(() => emb.lookup([1]), { message: 'this tokenEmbedding has been disposed' });
    assert.throws(() => emb.weights, { message: 'this tokenEmbedding has been disposed' });
  });

  it('weights are copies: changing them does not change the table', () => {
    const emb = pe.tokenEmbedding({ vocabSize: 5, dModel: 4, init: { seed: 2 } });
    const w = emb.weights;
    w.data.fill(9);
    assert.notEqual(emb.weights.data[0], 9);
    emb.dispose();
  });
});
