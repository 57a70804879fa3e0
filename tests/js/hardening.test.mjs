// The package as a tested property: random invalid input never crashes it or leaves it unusable; objects
// are freed by dispose() or, when dropped, by the garbage collector; sizes beyond the heap are refused;
// two instances and interleaved calls do not disturb each other.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { load } from '../../dist/index.js';
import { assertClose, goldenEmbeddingOptions, loadVectors } from './helpers.mjs';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

// Values that are no valid size, count or option value.
const invalidNumber = fc.oneof(
  fc.constantFrom(-1, 0.5, -0, NaN, Infinity, -Infinity, 2 ** 31, 2 ** 53, -(2 ** 31), 1e300),
  fc.double({ noNaN: false }).filter((v) => !Number.isInteger(v)),
  fc.integer({ min: -(2 ** 31), max: -1 }),
);
const wrongType = fc.oneof(fc.string(), fc.boolean(), fc.constant(null), fc.constant({}), fc.constant([]), fc.bigInt(), fc.constant(() => 1));

// One invalid call: which function, which parameter, what value.
const CALLS = [
  ['sinusoidal', 'length', (pe, v) => pe.sinusoidal({ length: v, dModel: 8 })],
  ['sinusoidal', 'dModel', (pe, v) => pe.sinusoidal({ length: 4, dModel: v })],
  ['sinusoidal', 'offset', (pe, v) => pe.sinusoidal({ length: 4, dModel: 8, offset: v })],
  ['sinusoidal', 'base', (pe, v) => pe.sinusoidal({ length: 4, dModel: 8, base: typeof v === 'number' ? -Math.abs(v) - 1 : v })],
  ['tokenEmbedding', 'vocabSize', (pe, v) => pe.tokenEmbedding({ vocabSize: v, dModel: 4 })],
  ['tokenEmbedding', 'dModel', (pe, v) => pe.tokenEmbedding({ vocabSize: 4, dModel: v })],
  ['lookup', 'ids', (pe, v, ctx) => ctx.table.lookup([1, v])],
  ['alibiBias', 'numHeads', (pe, v) => pe.alibiBias({ numHeads: v, keyLength: 4 })],
  ['alibiBias', 'keyLength', (pe, v) => pe.alibiBias({ numHeads: 2, keyLength: v })],
  ['t5Bucket', 'numBuckets', (pe, v) => pe.t5Bucket([1, 2], { numBuckets: v })],
  ['t5Buckets', 'queryLength', (pe, v) => pe.t5Buckets({ queryLength: v, keyLength: 4 })],
  ['applyRope', 'rotaryDim', (pe, v) => pe.applyRope({ data: new Float32Array(16), shape: [2, 8] }, { rotaryDim: v })],
  ['applyRope', 'positions', (pe, v) => pe.applyRope({ data: new Float32Array(16), shape: [2, 8] }, { positions: [0, v] })],
  ['ropeInvFreq', 'headDim', (pe, v) => pe.ropeInvFreq({ headDim: v })],
  ['sincos2d', 'gridH', (pe, v) => pe.sincos2d({ gridH: v, gridW: 2, dModel: 8 })],
  ['learnedPositions', 'maxLength', (pe, v) => pe.learnedPositions({ maxLength: v, dModel: 4 })],
  ['interpolatePositions', 'newLength', (pe, v) => pe.interpolatePositions({ data: new Float32Array(8), shape: [4, 2] }, v)],
  ['transformerEmbedding', 'maxLength', (pe, v) => pe.transformerEmbedding({ vocabSize: 4, dModel: 4, maxLength: v })],
  ['pca', 'components', (pe, v) => pe.pca({ data: new Float32Array(12), shape: [4, 3] }, { components: v })],
  ['allocate', 'elements', (pe, v) => pe.allocate(v)],
  ['allocate', 'type', (pe, v) => pe.allocate(4, { type: v })],
  ['sinusoidal', 'layout', (pe, v) => pe.sinusoidal({ length: 4, dModel: 8, layout: v })],
  ['sinusoidal', 'timescale', (pe, v) => pe.sinusoidal({ length: 4, dModel: 8, timescale: v })],
  ['sinusoidal', 'positions', (pe, v) => pe.sinusoidal({ positions: [1, v], dModel: 8 })],
  ['sinusoidal', 'out', (pe, v) => pe.sinusoidal({ length: 4, dModel: 8, out: v })],
  ['alibiSlopes', 'numHeads', (pe, v) => pe.alibiSlopes(v)],
  ['alibiBias', 'queryLength', (pe, v) => pe.alibiBias({ numHeads: 2, keyLength: 4, queryLength: v })],
  ['alibiBias', 'causal', (pe, v) => pe.alibiBias({ numHeads: 2, keyLength: 4, causal: v })],
  ['t5Bucket', 'relativePositions', (pe, v) => pe.t5Bucket([0, v])],
  ['t5Bucket', 'maxDistance', (pe, v) => pe.t5Bucket([1], { maxDistance: v })],
  ['t5Bucket', 'bidirectional', (pe, v) => pe.t5Bucket([1], { bidirectional: v })],
  ['t5Buckets', 'keyLength', (pe, v) => pe.t5Buckets({ queryLength: 4, keyLength: v })],
  ['t5Bias', 'queryLength', (pe, v) => pe.t5Bias({ data: new Float32Array(64), shape: [32, 2] }, { queryLength: v, keyLength: 3 })],
  ['t5Bias', 'table', (pe, v) => pe.t5Bias(v, { queryLength: 2, keyLength: 3 })],
  ['ropeInvFreq', 'base', (pe, v) => pe.ropeInvFreq({ headDim: 8, base: typeof v === 'number' ? -Math.abs(v) - 1 : v })],
  ['ropeInvFreq', 'scaling', (pe, v) => pe.ropeInvFreq({ headDim: 8, scaling: v })],
  ['ropeInvFreq', 'factor', (pe, v) => pe.ropeInvFreq({ headDim: 8, scaling: { type: 'linear', factor: typeof v === 'number' ? -Math.abs(v) - 1 : v } })],
  ['ropeInvFreq', 'originalMaxPositions', (pe, v) => pe.ropeInvFreq({ headDim: 8, scaling: { type: 'yarn', factor: 2, originalMaxPositions: v } })],
  ['ropeInvFreq', 'lowFreqFactor', (pe, v) => pe.ropeInvFreq({ headDim: 8, scaling: { type: 'llama3', factor: 2, originalMaxPositions: 64, lowFreqFactor: typeof v === 'number' ? -Math.abs(v) - 1 : v } })],
  ['applyRope', 'x', (pe, v) => pe.applyRope(v)],
  ['applyRope', 'offset', (pe, v) => pe.applyRope({ data: new Float32Array(16), shape: [2, 8] }, { offset: v })],
  ['applyRope', 'layout', (pe, v) => pe.applyRope({ data: new Float32Array(16), shape: [2, 8] }, { layout: v })],
  ['sincos2d', 'gridW', (pe, v) => pe.sincos2d({ gridH: 2, gridW: v, dModel: 8 })],
  ['sincos2d', 'dModel', (pe, v) => pe.sincos2d({ gridH: 2, gridW: 2, dModel: v })],
  ['sincos2d', 'clsToken', (pe, v) => pe.sincos2d({ gridH: 2, gridW: 2, dModel: 8, clsToken: v })],
  ['interpolatePositions', 'table', (pe, v) => pe.interpolatePositions(v, 4)],
  ['learnedPositions', 'dModel', (pe, v) => pe.learnedPositions({ maxLength: 4, dModel: v })],
  ['learnedPositions lookup', 'length|positions', (pe, v, ctx) => ctx.positions.lookup(v)],
  ['tokenEmbedding', 'paddingIdx', (pe, v) => pe.tokenEmbedding({ vocabSize: 4, dModel: 4, paddingIdx: v })],
  ['tokenEmbedding', 'scale', (pe, v) => pe.tokenEmbedding({ vocabSize: 4, dModel: 4, scale: typeof v === 'number' ? 1e7 + Math.abs(v) : v })],
  ['tokenEmbedding', 'init', (pe, v) => pe.tokenEmbedding({ vocabSize: 4, dModel: 4, init: { std: typeof v === 'number' ? -Math.abs(v) - 1 : v } })],
  ['tokenEmbedding', 'weights', (pe, v) => pe.tokenEmbedding({ vocabSize: 4, dModel: 4, weights: v })],
  ['nearest', 'k', (pe, v, ctx) => ctx.table.nearest([1, 0, 0, 0], { k: v })],
  ['nearest', 'query', (pe, v, ctx) => ctx.table.nearest([1, 0, v, 0])],
  ['nearest', 'metric', (pe, v, ctx) => ctx.table.nearest([1, 0, 0, 0], { metric: v })],
  ['transformerEmbedding', 'dropout', (pe, v) => pe.transformerEmbedding({ vocabSize: 4, dModel: 4, maxLength: 4, dropout: typeof v === 'number' ? 1 + Math.abs(v) : v })],
  ['transformerEmbedding', 'positional', (pe, v) => pe.transformerEmbedding({ vocabSize: 4, dModel: 4, maxLength: 4, positional: v })],
  ['transformerEmbedding', 'seed', (pe, v) => pe.transformerEmbedding({ vocabSize: 4, dModel: 4, maxLength: 4, seed: v })],
  ['forward', 'training', (pe, v, ctx) => ctx.layer.forward([1, 2], { training: v })],
  ['forward', 'ids', (pe, v, ctx) => ctx.layer.forward([1, v])],
  ['similarity', 'a', (pe, v) => pe.similarity(v)],
  ['similarity', 'metric', (pe, v) => pe.similarity({ data: new Float32Array(4), shape: [2, 2] }, null, { metric: v })],
  ['pca', 'x', (pe, v) => pe.pca(v)],
  ['readNpy', 'bytes', (pe, v) => pe.readNpy(v)],
  ['readSafetensors', 'bytes', (pe, v) => pe.readSafetensors(v)],
];

describe('hardening', () => {
  let pe;
  before(async () => { pe = await load(); });
  after(() => assert.equal(pe.memory().liveAllocations, 0, 'heap allocations left behind'));

  it('10,000 random invalid calls each throw a TypeError or RangeError naming the parameter; valid calls still match the vectors', () => {
    const emb = pe.tokenEmbedding({ vocabSize: 20, dModel: 4 });
    const context = { table: emb, positions: pe.learnedPositions({ maxLength: 8, dModel: 4 }), layer: pe.transformerEmbedding({ vocabSize: 8, dModel: 4, maxLength: 4 }) };
    const start = pe.memory().liveAllocations;
    let rejected = 0;
    fc.assert(fc.property(fc.integer({ min: 0, max: CALLS.length - 1 }), fc.oneof(invalidNumber, wrongType), (which, value) => {
      const [fn, parameter, call] = CALLS[which];
      let thrown = null;
      try {
        const result = call(pe, value, context);
        result?.dispose?.();
      } catch (error) {
        thrown = error;
      }
      if (thrown === null) return true;  // a value that happens to be valid (-0 as an offset): the call must simply work
      rejected++;
      assert.ok(thrown instanceof TypeError || thrown instanceof RangeError, `${fn}(${parameter} = ${String(value)}): ${thrown}`);
      assert.ok(parameter.split('|').some((name) => thrown.message.includes(name) || thrown.message.includes(name.replace(/s$/, ''))), `${fn}: message '${thrown.message}' does not name ${parameter}`);
      return true;
    }), { numRuns: 10000, seed: 20261122 });
    assert.ok(rejected > 9000, `only ${rejected} of 10000 generated calls were invalid`);
    assert.equal(pe.memory().liveAllocations, start, 'rejected calls leave nothing allocated');
    for (const object of Object.values(context)) object.dispose();
    for (const c of loadVectors('sinusoidal').cases) assertClose(pe.sinusoidal(c.params), c.expected, c.tolerance.abs, c.name);
    for (const c of loadVectors('token_embedding').cases) {
      const options = goldenEmbeddingOptions(c);
      const layer = options.positional ? pe.transformerEmbedding(options) : pe.tokenEmbedding(options);
      assertClose(options.positional ? layer.forward(c.input.ids) : layer.lookup(c.input.ids), c.expected, c.tolerance.abs, c.name);
      layer.dispose();
    }
  });

  it('100,000 create/dispose cycles of every stateful object return the heap to where it was', () => {
    const warm = () => {
      pe.tokenEmbedding({ vocabSize: 16, dModel: 8, init: { seed: 1 } }).dispose();
      pe.learnedPositions({ maxLength: 8, dModel: 4 }).dispose();
      pe.transformerEmbedding({ vocabSize: 16, dModel: 8, maxLength: 8 }).dispose();
      pe.allocate(64).dispose();
    };
    warm();
    const before = pe.memory();
    for (let i = 0; i < 25000; i++) warm();
    assert.deepEqual(pe.memory(), before);
  });

  it('objects dropped without dispose() are freed once collected', async () => {
    const before = pe.memory().liveAllocations;
    (() => {
      for (let i = 0; i < 50; i++) {
        pe.tokenEmbedding({ vocabSize: 8, dModel: 4 });
        pe.transformerEmbedding({ vocabSize: 8, dModel: 4, maxLength: 4 });
        pe.allocate(16);
      }
    })();
    assert.ok(pe.memory().liveAllocations >= before + 200);
    for (let round = 0; round < 20 && pe.memory().liveAllocations > before; round++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(pe.memory().liveAllocations, before);
  });

  it('a view kept from a heap array that is itself dropped (pe.allocate(n).data) keeps it alive: nothing else is given its memory', async () => {
    let kept = pe.allocate(1024).data;
    const live = pe.memory().liveAllocations;
    for (let round = 0; round < 5; round++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(pe.memory().liveAllocations, live, 'the array lives on while its view does');
    const table = pe.tokenEmbedding({ vocabSize: 32, dModel: 32, init: { seed: 1 } });  // as large: would take freed memory
    const weights = table.weights.data;
    pe.sinusoidal({ length: 32, dModel: 32, out: kept });
    assert.deepEqual(table.weights.data, weights);
    assert.deepEqual(kept, pe.sinusoidal({ length: 32, dModel: 32 }).data);
    table.dispose();
    kept = null;
    for (let round = 0; round < 20 && pe.memory().liveAllocations >= live; round++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(pe.memory().liveAllocations, live - 1, 'and is freed once the view goes too');
  });

  it('a request the heap cannot hold fails cleanly, naming the bytes, and the module stays usable', () => {
    assert.throws(() => pe.allocate(2 ** 29), { name: 'RangeError', message: /needs 2147483648 bytes, more than the 2130706432 bytes the wasm heap can hold/ });
    // Two arrays of 1.5 GiB: the heap grows past 2 GiB to hold both; a third does not fit in its 4 GiB.
    const big = [pe.allocate(3 * 2 ** 27), pe.allocate(3 * 2 ** 27)];
    big[1].data[3 * 2 ** 27 - 1] = 7;  // the last element, past 3 GiB of the heap
    assert.equal(big[1].data[3 * 2 ** 27 - 1], 7);
    assert.throws(() => pe.allocate(3 * 2 ** 27), { name: 'RangeError', message: /needs 1610612736 bytes, which the wasm heap cannot provide now/ });
    big.forEach((array) => array.dispose());
    assert.equal(pe.sinusoidal({ length: 2, dModel: 2 }).data[1], 1);
  });

  it('two instances, and calls interleaved with awaits, give the same results as sequential calls', async () => {
    const other = await load({ simd: false });
    const jobs = Array.from({ length: 20 }, (_, i) => async () => {
      await new Promise((resolve) => setTimeout(resolve, i % 3));
      const which = i % 2 ? pe : other;
      return which.sinusoidal({ length: 16, dModel: 8, offset: i * 1000 }).data;
    });
    const together = await Promise.all(jobs.map((job) => job()));
    together.forEach((data, i) => {
      const sequential = pe.sinusoidal({ length: 16, dModel: 8, offset: i * 1000 }).data;
      data.forEach((v, k) => assert.ok(Math.abs(v - sequential[k]) < 1e-6));
    });
  });
});

describe('differential: the SIMD module against the scalar one, on random parameters', () => {
  let simd;
  let scalar;
  before(async () => {
    simd = await load({ simd: true });
    scalar = await load({ simd: false });
  });

  const close = (a, b, tolerance) => a.data.length === b.data.length && a.data.every((v, i) => Math.abs(v - b.data[i]) <= tolerance || (v === b.data[i]));

  it('sinusoidal, RoPE, ALiBi and cosine similarity agree to float rounding', () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 48 }).map((h) => 2 * h), fc.integer({ min: 0, max: 2 ** 24 }),
      fc.constantFrom('interleaved', 'split'), fc.constantFrom('standard', 't2t'),
      (length, dModel, offset, layout, timescale) => {
        const options = { length, dModel, offset, layout, timescale };
        assert.ok(close(simd.sinusoidal(options), scalar.sinusoidal(options), 1e-6), JSON.stringify(options));
        const x = { data: Float32Array.from({ length: 3 * length * dModel }, (_, i) => Math.sin(i)), shape: [3, length, dModel] };
        const rope = { offset: offset % 1000, rotaryDim: dModel, layout: layout === 'split' ? 'half' : 'interleaved' };
        assert.ok(close(simd.applyRope(x, rope), scalar.applyRope(x, rope), 4e-6), `rope ${JSON.stringify(rope)}`);
        const alibi = { numHeads: 1 + (dModel % 7), keyLength: length, causal: offset % 2 === 0 };
        assert.ok(close(simd.alibiBias(alibi), scalar.alibiBias(alibi), 1e-6 * length));
        const a = { data: x.data.subarray(0, length * dModel), shape: [length, dModel] };
        assert.ok(close(simd.similarity(a, null, { metric: 'cosine' }), scalar.similarity(a, null, { metric: 'cosine' }), 1e-5));
        return true;
      }), { numRuns: 60, seed: 7 });
  });
});

describe('weight files with random bytes flipped in their headers', () => {
  it('are read, or refused with a WeightFileError naming a byte; nothing else happens', async () => {
    const pe = await load();
    const { readFileSync } = await import('node:fs');
    const { WeightFileError } = await import('../../dist/index.js');
    const { VECTORS_DIR } = await import('./helpers.mjs');
    for (const name of ['ok_f32.npy', 'ok_fortran.npy', 'ok_mixed.safetensors']) {
      const original = readFileSync(`${VECTORS_DIR}/formats/${name}`);
      const headerEnd = name.endsWith('.npy') ? 10 + original.readUInt16LE(8) : 8 + Number(original.readBigUInt64LE(0));
      fc.assert(fc.property(fc.integer({ min: 0, max: headerEnd - 1 }), fc.integer({ min: 1, max: 255 }), (at, mask) => {
        const bytes = Uint8Array.from(original);
        bytes[at] ^= mask;
        try {
          const result = name.endsWith('.npy') ? pe.readNpy(bytes) : pe.readSafetensors(bytes);
          assert.ok(result);
        } catch (error) {
          assert.ok(error instanceof WeightFileError && Number.isInteger(error.offset), `${name}, byte ${at} ^ ${mask}: ${error}`);
        }
        return true;
      }), { numRuns: 1500, seed: 11 });
    }
    assert.equal(pe.memory().liveAllocations, 0);
  });
});
