// The light module the elements draw with (load({ encodersOnly: true })): the same bits as the full SIMD module for
// every op it has (the golden suites run on it too, through describeEachModule), and a clear error for those it lacks.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/index.js';

describe('load({ encodersOnly: true })', () => {
  let light;
  let full;
  before(async () => {
    [light, full] = await Promise.all([load({ encodersOnly: true }), load({ threads: 1 })]);
  });

  it('is the light module, with the same bits as the full one', () => {
    assert.equal(light.encodersOnly, true);
    assert.equal(full.encodersOnly, false);
    const x = { data: Float32Array.from({ length: 2 * 3 * 8 }, (_, i) => Math.sin(i)), shape: [2, 3, 8] };
    const ops = [
      (pe) => pe.sinusoidal({ length: 33, dModel: 16, offset: 5 }),
      (pe) => pe.alibiBias({ numHeads: 6, queryLength: 5, keyLength: 7, causal: true }),
      (pe) => pe.t5Buckets({ queryLength: 9, keyLength: 9, numBuckets: 8, maxDistance: 16, bidirectional: true }),
      (pe) => pe.applyRope(x, { scaling: { type: 'yarn', factor: 4, originalMaxPositions: 64 } }),
      (pe) => pe.sincos2d({ gridH: 3, gridW: 4, dModel: 8, clsToken: true }),
      (pe) => pe.similarity(pe.sinusoidal({ length: 12, dModel: 8 }), undefined, { metric: 'cosine' }),
    ];
    for (const op of ops) {
      const [a, b] = [op(light), op(full)];
      assert.deepEqual(a.shape, b.shape);
      assert.deepEqual(a.data, b.data);
    }
  });

  it('says which ops need the full module, and stays usable', async () => {
    const needsFull = /needs the full module; this instance has the encoders only \(load\(\{ encodersOnly: true \}\)\): load\(\) one without it/;
    assert.throws(() => light.trainer(), needsFull);
    assert.throws(() => light.wordEmbeddings(), needsFull);
    assert.throws(() => light.readNpy(new Uint8Array(16)), needsFull);
    assert.throws(() => light.readSafetensors(new Uint8Array(16)), needsFull);
    assert.throws(() => light.pca(light.sinusoidal({ length: 12, dModel: 8 })), needsFull);
    const table = light.tokenEmbedding({ vocabSize: 4, dModel: 2 });
    assert.throws(() => table.pca(), /tokenEmbedding\.pca\(\) needs the full module/);
    table.dispose();
    await assert.rejects(light.openSafetensors(new Uint8Array(16)), needsFull);
    assert.equal(light.sinusoidal({ length: 1, dModel: 2 }).data[1], 1);
    assert.equal(light.memory().liveAllocations, 0);
  });

  it('refuses what it cannot be', async () => {
    await assert.rejects(load({ encodersOnly: 'yes' }), /^TypeError: encodersOnly must be true or false, got 'yes'/);
    await assert.rejects(load({ encodersOnly: true, threads: 2 }), /encodersOnly: true is the single-threaded SIMD module; it cannot be had with threads: 2/);
    await assert.rejects(load({ encodersOnly: true, simd: false }), /it cannot be had with simd: false/);
  });
});
