import { it, before } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachModule, loadVectors, writtenOnHeap } from './helpers.mjs';

describeEachModule('t5', (instance) => {
  let pe;
  before(() => { pe = instance(); });

  for (const c of loadVectors('t5_bucket').cases) {
    it(`buckets match golden vector ${c.name} exactly`, () => {
      const { data, shape } = pe.t5Bucket(c.input.relativePosition, c.params);
      assert.ok(data instanceof Int32Array);
      assert.deepEqual(shape, c.expected.shape);
      assert.deepEqual(Array.from(data), c.expected.data);
    });
  }

  it('t5Buckets is bucket(key - query) over the matrix', () => {
    const { data, shape } = pe.t5Buckets({ queryLength: 4, keyLength: 6, numBuckets: 32, maxDistance: 128 });
    assert.deepEqual(shape, [4, 6]);
    const relative = [];
    for (let i = 0; i < 4; i++) for (let j = 0; j < 6; j++) relative.push(j - i);
    assert.deepEqual(Array.from(data), Array.from(pe.t5Bucket(relative).data));
  });

  it('t5Bias gathers table[bucket][head] into [numHeads, q, k]', () => {
    const numBuckets = 8;
    const numHeads = 3;
    const table = { data: Float32Array.from({ length: numBuckets * numHeads }, (_, i) => i / 4), shape: [numBuckets, numHeads] };
    const bias = pe.t5Bias(table, { queryLength: 3, keyLength: 5, numBuckets, maxDistance: 16 });
    assert.deepEqual(bias.shape, [numHeads, 3, 5]);
    const buckets = pe.t5Buckets({ queryLength: 3, keyLength: 5, numBuckets, maxDistance: 16 }).data;
    for (let h = 0; h < numHeads; h++) {
      for (let c = 0; c < 15; c++) assert.equal(bias.data[h * 15 + c], table.data[buckets[c] * numHeads + h]);
    }
  });

  it('a fresh t5Bias or JS out larger than a block is written a block at a time, with the values written whole on the heap', () => {
    const table = { data: Float32Array.from({ length: 32 * 4 }, (_, i) => Math.sin(i)), shape: [32, 4] };
    for (const lengths of [{ queryLength: 250, keyLength: 300 }, { queryLength: 2, keyLength: 70000 }]) {  // 300,000 floats: 2 fresh blocks, 5 into a JS out; rows of 70,000
      const elements = 4 * lengths.queryLength * lengths.keyLength;
      const expected = writtenOnHeap(pe, elements, (out) => pe.t5Bias(table, { ...lengths, out }));
      assert.deepEqual(pe.t5Bias(table, lengths).data, expected);
      const out = new Float32Array(elements);
      assert.equal(pe.t5Bias(table, { ...lengths, out }).data, out);
      assert.deepEqual(out, expected);
    }
  });

  it('a fresh t5Buckets or JS out larger than a block is written a block at a time: bucket(key - query), as on the heap', () => {
    const [queryLength, keyLength] = [600, 500];  // 300,000 ints: 2 fresh blocks, 5 into a JS out
    const byRelative = pe.t5Bucket(Int32Array.from({ length: queryLength + keyLength - 1 }, (_, r) => r - (queryLength - 1))).data;
    const expected = Int32Array.from({ length: queryLength * keyLength }, (_, c) => byRelative[(c % keyLength) - Math.floor(c / keyLength) + queryLength - 1]);
    assert.deepEqual(pe.t5Buckets({ queryLength, keyLength }).data, expected);
    const out = new Int32Array(queryLength * keyLength);
    assert.equal(pe.t5Buckets({ queryLength, keyLength, out }).data, out);
    assert.deepEqual(out, expected);
    const heap = pe.allocate(queryLength * keyLength, { type: 'int32' });
    pe.t5Buckets({ queryLength, keyLength, out: heap.data });
    assert.deepEqual(heap.data, expected);
    heap.dispose();
  });

  it('writes a heap out, and reads a heap table, whose views the buckets\' computation detaches by growing the heap', () => {
    const byRelative = (p) => pe.t5Bucket([p]).data[0];
    const onHeap = pe.allocate(32);  // the bias table, read after the growth from where it lay
    onHeap.data.set(Float32Array.from({ length: 32 }, (_, i) => i));
    // Each call needs more heap than the last left free: its out (2^21, then 2^22 values) and twice as much
    // for the buckets of as many relative positions.
    const calls = [[2 ** 21, 'int32', (keyLength, out) => pe.t5Buckets({ queryLength: 1, keyLength, out })],
      [2 ** 22, 'float32', (keyLength, out) => pe.t5Bias({ data: onHeap.data, shape: [32, 1] }, { queryLength: 1, keyLength, out })]];
    for (const [keyLength, type, call] of calls) {
      const heap = pe.allocate(keyLength, { type });
      try {
        const heapBefore = pe.memory().heapBytes;
        const result = call(keyLength, heap.data);
        assert.ok(pe.memory().heapBytes > heapBefore, 'the heap grew during the call');
        for (const j of [0, 1, 17, 1000, keyLength - 1]) {
          assert.equal(result.data[j], byRelative(j));
          assert.equal(heap.data[j], byRelative(j));
        }
      } finally {
        heap.dispose();
      }
    }
    onHeap.dispose();
  });

  it('rejects bad parameters with their ranges', () => {
    assert.throws(() => pe.t5Bias({ data: new Float32Array(32), shape: [32, 1] }, { queryLength: 2 ** 24 + 1, keyLength: 2 }), { name: 'RangeError', message: 'queryLength must be an integer in [1, 16777216], got 16777217' });
    assert.throws(() => pe.t5Bucket([1.5]), { name: 'RangeError', message: 'relativePositions[0] must be an integer in [-2147483647, 2147483647], got 1.5' });
    assert.throws(() => pe.t5Bucket([1], { numBuckets: 3 }), { name: 'RangeError', message: 'numBuckets must be an integer in [4, 65536], got 3' });
    assert.throws(() => pe.t5Bucket([1], { maxDistance: 8 }), { name: 'RangeError', message: 'maxDistance must be an integer in [9, 2147483647], got 8' });
    assert.throws(() => pe.t5Bucket('1'), { name: 'TypeError' });
    assert.throws(() => pe.t5Bias({ data: new Float32Array(6), shape: [3, 2] }, { queryLength: 2, keyLength: 2, numBuckets: 3 }), { name: 'RangeError', message: 'numBuckets must be an integer in [4, 65536], got 3' });
    assert.throws(() => pe.t5Bias({ data: new Float32Array(10), shape: [10, 1] }, { queryLength: 2, keyLength: 2, numBuckets: 8 }),
      { name: 'RangeError', message: 'table.shape must be [numBuckets, numHeads] = [8, numHeads] (numBuckets is 8), got [10, 1]' });
    // A model's [numHeads, numBuckets] table, transposed by mistake, is refused rather than read as another model.
    assert.throws(() => pe.t5Bias({ data: new Float32Array(8 * 32), shape: [8, 32] }, { queryLength: 2, keyLength: 2 }),
      { name: 'RangeError', message: 'table.shape must be [numBuckets, numHeads] = [32, numHeads] (numBuckets defaults to 32), got [8, 32]: a [numHeads, numBuckets] table? pass its transpose' });
  });
});
