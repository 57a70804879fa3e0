// sincos2d, learned positions and their interpolation.
import { it, before } from 'node:test';
import assert from 'node:assert/strict';
import { assertClose, describeEachModule, loadVectors, writtenOnHeap } from './helpers.mjs';

describeEachModule('2-D and learned positions', (instance) => {
  let pe;
  before(() => { pe = instance(); });

  for (const c of loadVectors('sincos2d').cases) {
    it(`sincos2d matches golden vector ${c.name}`, () => {
      assertClose(pe.sincos2d(c.params), c.expected, c.tolerance.abs, c.name);
    });
  }

  for (const c of loadVectors('learned_interpolate').cases) {
    it(`interpolatePositions matches golden vector ${c.name}`, () => {
      const table = { data: Float32Array.from(c.input.table.data), shape: c.input.table.shape };
      assertClose(pe.interpolatePositions(table, c.params.newLength), c.expected, c.tolerance.abs, c.name);
    });
  }

  it('interpolatePositions of rows at the ends of the float range: exact ends, no overflow', () => {
    const top = 3.4028234663852886e38;
    const { data } = pe.interpolatePositions({ data: Float32Array.from([-3e38, 3e38, top, 3e38, -3e38, top]), shape: [2, 3] }, 7);
    assert.deepEqual([data[0], data[1], data[18], data[19], data[9], data[10]], [Math.fround(-3e38), Math.fround(3e38), Math.fround(3e38), Math.fround(-3e38), 0, 0]);
    for (let i = 0; i < 7; i++) assert.equal(data[i * 3 + 2], top);
  });

  it('sincos2d: the cls row is zeros and patch (r, c) encodes c then r', () => {
    const { data, shape } = pe.sincos2d({ gridH: 2, gridW: 3, dModel: 8, clsToken: true });
    assert.deepEqual(shape, [7, 8]);
    assert.ok(data.subarray(0, 8).every((v) => v === 0));
    const patch = data.subarray(8 * (1 + 1 * 3 + 2), 8 * (1 + 1 * 3 + 3));  // row 1, column 2
    const w = [1, 0.01];
    const expected = [Math.sin(2 * w[0]), Math.sin(2 * w[1]), Math.cos(2 * w[0]), Math.cos(2 * w[1]), Math.sin(w[0]), Math.sin(w[1]), Math.cos(w[0]), Math.cos(w[1])];
    patch.forEach((v, i) => assert.ok(Math.abs(v - expected[i]) < 2e-6, `channel ${i}`));
    assert.throws(() => pe.sincos2d({ gridH: 2, gridW: 2, dModel: 6 }), { name: 'RangeError', message: 'dModel must be a multiple of 4 in [4, 65536], got 6' });
  });

  it('sincos2d writes a heap out whose view the allocation of its 1-D table detaches by growing the heap', () => {
    // Each call needs more heap than the last left free: its out (2^22, then 2^23 values) and its table (half that).
    for (const gridW of [2 ** 14, 2 ** 15]) {
      const heap = pe.allocate(gridW * 256);
      try {
        const heapBefore = pe.memory().heapBytes;
        const result = pe.sincos2d({ gridH: 1, gridW, dModel: 256, out: heap.data });
        assert.ok(pe.memory().heapBytes > heapBefore, 'the heap grew during the call');
        // Read before the reference's own allocations, which may grow the heap again and detach result.data.
        const indices = [0, 1, 1000, gridW * 256 - 1];
        const written = indices.map((j) => [result.data[j], heap.data[j]]);
        const expected = pe.sincos2d({ gridH: 1, gridW, dModel: 256 }).data;
        indices.forEach((j, k) => assert.deepEqual(written[k], [expected[j], expected[j]], `value ${j}`));
      } finally {
        heap.dispose();
      }
    }
  });

  it('sincos2d larger than a block is written a block at a time, the same as written whole on the heap', () => {
    const options = { gridH: 40, gridW: 30, dModel: 256, clsToken: true };  // 307,456 floats: 2 fresh blocks, 5 into a JS out
    const elements = (1 + 40 * 30) * 256;
    const expected = writtenOnHeap(pe, elements, (out) => pe.sincos2d({ ...options, out }));
    assert.deepEqual(pe.sincos2d(options).data, expected);
    const out = new Float32Array(elements);
    assert.equal(pe.sincos2d({ ...options, out }).data, out);
    assert.deepEqual(out, expected);
    assert.ok(expected.subarray(0, 256).every((v) => v === 0));
    assert.equal(expected[256 + 64], 1);  // patch (0, 0): cos(0) in the column half
  });

  it('learned positions: lookup by length or positions, weights, seeded init, dispose', () => {
    const table = pe.learnedPositions({ maxLength: 16, dModel: 4, init: { seed: 3 } });
    const all = table.weights;
    assert.deepEqual(all.shape, [16, 4]);
    assert.deepEqual(table.lookup(3).data, all.data.subarray(0, 12));
    assert.deepEqual(Array.from(table.lookup([15, 0]).data), [...all.data.subarray(60, 64), ...all.data.subarray(0, 4)]);
    const std = Math.sqrt(all.data.reduce((s, v) => s + v * v, 0) / all.data.length);
    assert.ok(std > 0.01 && std < 0.03, `std ${std} for init std 0.02`);
    table.dispose();
    table.dispose();
    assert.throws(() => table.lookup(1), { message: 'this learnedPositions has been disposed' });
  });

  it('learned positions: a fresh lookup or JS out larger than a block is written a block at a time, with the rows written whole on the heap', () => {
    const table = pe.learnedPositions({ maxLength: 400, dModel: 800, init: { seed: 4 } });
    const positions = Array.from({ length: 400 }, (_, i) => (i * 7) % 400);  // 320,000 floats: 2 fresh blocks, 5 into a JS out
    const expected = writtenOnHeap(pe, 400 * 800, (out) => table.lookup(positions, { out }));
    assert.deepEqual(table.lookup(positions).data, expected);
    const out = new Float32Array(expected.length);
    assert.equal(table.lookup(positions, { out }).data, out);
    assert.deepEqual(out, expected);
    table.dispose();
  });

  it('learned positions: past maxLength is a RangeError that names the ways out', () => {
    const table = pe.learnedPositions({ maxLength: 8, dModel: 2, weights: { data: new Float32Array(16), shape: [8, 2] } });
    assert.throws(() => table.lookup(9), { name: 'RangeError', message: /^length 9 is past maxLength 8: .*interpolatePositions.*sinusoidal/ });
    assert.throws(() => table.lookup([1, 8]), { name: 'RangeError', message: /^positions\[1\] = 8 is past maxLength 8/ });
    const stretched = pe.interpolatePositions(table.weights, 12);
    assert.deepEqual(stretched.shape, [12, 2]);
    table.dispose();
  });
});
