import { it, before } from 'node:test';
import assert from 'node:assert/strict';
import { assertClose, describeEachModule, loadVectors, writtenOnHeap } from './helpers.mjs';

describeEachModule('alibi', (instance) => {
  let pe;
  before(() => { pe = instance(); });

  for (const c of loadVectors('alibi_slopes').cases) {
    it(`slopes match golden vector ${c.name}`, () => {
      const { data, shape } = pe.alibiSlopes(c.params.numHeads);
      assert.deepEqual(shape, c.expected.shape);
      data.forEach((v, h) => assert.ok(Math.abs(v - c.expected.data[h]) <= c.tolerance.rel * c.expected.data[h], `head ${h}: ${v}`));
    });
  }

  for (const c of loadVectors('alibi_bias').cases) {
    it(`bias matches golden vector ${c.name}`, () => {
      assertClose(pe.alibiBias(c.params), c.expected, c.tolerance.abs, c.name);
    });
  }

  it('aligns queries to the last keys and masks the future with -Infinity', () => {
    const { data, shape } = pe.alibiBias({ numHeads: 2, queryLength: 2, keyLength: 5, causal: true });
    assert.deepEqual(shape, [2, 2, 5]);
    // Head 0 slope 1/16; query 0 is key position 3.
    assert.deepEqual(Array.from(data.subarray(0, 5)), [-3 / 16, -2 / 16, -1 / 16, -0, -Infinity]);
    assert.deepEqual(Array.from(data.subarray(5, 10)), [-4 / 16, -3 / 16, -2 / 16, -1 / 16, -0]);
  });

  it('queryLength defaults to keyLength; out is honoured', () => {
    const out = new Float32Array(3 * 4 * 4);
    const result = pe.alibiBias({ numHeads: 3, keyLength: 4, out });
    assert.equal(result.data, out);
    assert.deepEqual(result.shape, [3, 4, 4]);
  });

  it('a fresh result or JS out larger than a block is written a block at a time, with the values written whole on the heap', () => {
    for (const options of [{ numHeads: 10, keyLength: 200, queryLength: 150, causal: true }, { numHeads: 3, keyLength: 70000, queryLength: 20 }]) {
      // 300,000 floats: 2 fresh blocks, 5 into a JS out; rows of 70,000 keys: 3 rows, or 1, per block
      const elements = options.numHeads * options.queryLength * options.keyLength;
      const expected = writtenOnHeap(pe, elements, (out) => pe.alibiBias({ ...options, out }));
      assert.deepEqual(pe.alibiBias(options).data, expected);
      const out = new Float32Array(elements);
      assert.equal(pe.alibiBias({ ...options, out }).data, out);
      assert.deepEqual(out, expected);
    }
  });

  it('rejects bad parameters with their ranges', () => {
    assert.throws(() => pe.alibiSlopes(0), { name: 'RangeError', message: 'numHeads must be an integer in [1, 4096], got 0' });
    assert.throws(() => pe.alibiSlopes(2.5), { name: 'RangeError', message: 'numHeads must be an integer in [1, 4096], got 2.5' });
    assert.throws(() => pe.alibiBias({ numHeads: 2, queryLength: 6, keyLength: 5 }), { name: 'RangeError', message: 'queryLength must be an integer in [1, 5], got 6' });
    assert.throws(() => pe.alibiBias({ numHeads: 2, keyLength: 5, causal: 'yes' }), { name: 'TypeError', message: "causal must be true or false, got 'yes'" });
  });
});
