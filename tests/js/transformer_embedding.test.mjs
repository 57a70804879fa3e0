import { it, before } from 'node:test';
import assert from 'node:assert/strict';
import { assertClose, describeEachModule, goldenEmbeddingOptions, loadVectors, writtenOnHeap } from './helpers.mjs';

describeEachModule('transformerEmbedding', (instance) => {
  let pe;
  before(() => { pe = instance(); });

  for (const c of loadVectors('token_embedding').cases.filter((x) => x.params.positional === 'sinusoidal')) {
    it(`matches golden combined vector ${c.name} (token * scale + sinusoidal), fused`, () => {
      const layer = pe.transformerEmbedding(goldenEmbeddingOptions(c));
      try {
        assertClose(layer.forward(c.input.ids), c.expected, c.tolerance.abs, c.name);
      } finally {
        layer.dispose();
      }
    });
  }

  it('learned positions and batches: forward = lookup * scale + positions row by row', () => {
    const layer = pe.transformerEmbedding({ vocabSize: 50, dModel: 6, maxLength: 8, positional: 'learned', scale: 2, seed: 4 });
    const ids = { data: new Int32Array([1, 2, 3, 4, 5, 6]), shape: [2, 3] };
    const out = layer.forward(ids);
    assert.deepEqual(out.shape, [2, 3, 6]);
    const tokens = layer.tokens.lookup(ids).data;
    const positions = layer.positions.lookup(3).data;
    out.data.forEach((v, i) => assert.ok(Math.abs(v - (tokens[i] + positions[i % 18])) < 1e-6));
    layer.dispose();
  });

  it('dropout only when training, inverted, reproducible from the seed', () => {
    const make = () => pe.transformerEmbedding({ vocabSize: 10, dModel: 32, maxLength: 16, positional: 'none', dropout: 0.5, seed: 7,
      weights: { data: new Float32Array(320).fill(1), shape: [10, 32] } });
    const [a, b] = [make(), make()];
    const ids = Array.from({ length: 16 }, (_, i) => i % 10);
    assert.ok(a.forward(ids).data.every((v) => v === 1));
    const first = a.forward(ids, { training: true }).data;
    assert.deepEqual(first, b.forward(ids, { training: true }).data);
    assert.notDeepEqual(a.forward(ids, { training: true }).data, first, 'the next call draws a new mask');
    assert.ok(first.every((v) => v === 0 || v === 2));
    const kept = first.filter((v) => v === 2).length / first.length;
    assert.ok(kept > 0.4 && kept < 0.6);
    a.dispose();
    b.dispose();
  });

  it('a fresh result or JS out larger than a block is written a block at a time: the values written whole on the heap, dropout included; a bad id leaves out untouched', () => {
    const options = { vocabSize: 500, dModel: 96, maxLength: 300, positional: 'sinusoidal', scale: 'sqrt', paddingIdx: 3, dropout: 0.2, seed: 8 };
    const ids = { data: Int32Array.from({ length: 10 * 300 }, (_, j) => (j * 37) % 500), shape: [10, 300] };  // 288,000 floats: 2 fresh blocks, 5 into a JS out
    for (const training of [false, true]) {
      const [whole, streamed] = [pe.transformerEmbedding(options), pe.transformerEmbedding(options)];  // the same seed
      const elements = ids.data.length * 96;
      const expected = writtenOnHeap(pe, elements, (out) => whole.forward(ids, { training, out }));
      const out = new Float32Array(elements);
      assert.equal(streamed.forward(ids, { training, out }).data, out);
      assert.deepEqual(out, expected);
      // Both generators are where the whole call left its own: the next calls agree too, fresh this time.
      assert.deepEqual(streamed.forward(ids, { training }).data, writtenOnHeap(pe, elements, (heapOut) => whole.forward(ids, { training, out: heapOut })));
      const bad = { data: ids.data.map((id, j) => (j === 1000 ? 500 : id)), shape: ids.shape };
      const before = out.slice();
      assert.throws(() => streamed.forward(bad, { training, out }), { name: 'RangeError', message: 'ids[1000] must be a token id in [0, vocabSize - 1] = [0, 499], got 500' });
      assert.deepEqual(out, before);
      whole.dispose();
      streamed.dispose();
    }
  });

  it('rejects sequences past maxLength and bad options; dispose frees everything', () => {
    const before = pe.memory().liveAllocations;
    const layer = pe.transformerEmbedding({ vocabSize: 10, dModel: 4, maxLength: 4 });
    assert.throws(() => layer.forward([1, 2, 3, 4, 5]), { name: 'RangeError', message: 'ids.shape[-1] (seq) must be an integer in [1, maxLength] = [1, 4], got 5' });
    assert.throws(() => layer.forward([1], { training: 1 }), { name: 'TypeError', message: 'training must be true or false, got 1' });
    layer.dispose();
    layer.dispose();
    assert.equal(pe.memory().liveAllocations, before);
    assert.throws(() => layer.forward([1]), { message: 'this transformerEmbedding has been disposed' });
    assert.throws(() => pe.transformerEmbedding({ vocabSize: 10, dModel: 4, maxLength: 4, dropout: 1 }), { name: 'RangeError', message: 'dropout must be a number in [0, 0.999999], got 1' });
    assert.throws(() => pe.transformerEmbedding({ vocabSize: 10, dModel: 4, maxLength: 4, positionWeights: {} }), { name: 'TypeError' });
    assert.equal(pe.memory().liveAllocations, before);
  });
});
