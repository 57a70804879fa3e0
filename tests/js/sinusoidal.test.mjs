import { it, before } from 'node:test';
import assert from 'node:assert/strict';
import { assertClose, describeEachModule, loadVectors, writtenOnHeap } from './helpers.mjs';

describeEachModule('sinusoidal', (instance) => {
  let pe;
  before(() => { pe = instance(); });

  for (const c of loadVectors('sinusoidal').cases) {
    it(`matches golden vector ${c.name}`, () => {
      assertClose(pe.sinusoidal(c.params), c.expected, c.tolerance.abs, c.name);
    });
  }

  it('stays within 2e-6 of float64 at positions up to 2^24, for every layout and timescale', () => {
    let worst = 0;
    for (const layout of ['interleaved', 'split']) {
      for (const timescale of ['standard', 't2t']) {
        for (const offset of [0, 4093, 999_983, 16_777_150]) {
          const dModel = 96;
          const { data } = pe.sinusoidal({ length: 40, dModel, layout, timescale, offset, base: 10000 });
          const half = dModel / 2;
          for (let row = 0; row < 40; row++) {
            for (let pair = 0; pair < half; pair++) {
              const exponent = timescale === 't2t' ? pair / (half - 1) : (2 * pair) / dModel;
              const angle = (offset + row) / 10000 ** exponent;
              const [sinColumn, cosColumn] = layout === 'interleaved' ? [2 * pair, 2 * pair + 1] : [pair, half + pair];
              worst = Math.max(worst, Math.abs(data[row * dModel + sinColumn] - Math.sin(angle)), Math.abs(data[row * dModel + cosColumn] - Math.cos(angle)));
            }
          }
        }
      }
    }
    assert.ok(worst <= 2e-6, `worst error ${worst}`);
  });

  it('writes into a caller buffer given as out, and returns it', () => {
    const out = new Float32Array(8 * 16).fill(NaN);
    const tensor = pe.sinusoidal({ length: 8, dModel: 16, out });
    assert.equal(tensor.data, out);
    assert.deepEqual(tensor.shape, [8, 16]);
    assert.deepEqual(Array.from(out), Array.from(pe.sinusoidal({ length: 8, dModel: 16 }).data));
  });

  it('writes a fresh table or JS out larger than a block a block at a time (at given positions too), bit for bit the table written whole on the heap', () => {
    const positions = Array.from({ length: 300 }, (_, i) => (i * 7919) % 1000003);
    for (const options of [{ length: 17000, dModel: 16, offset: 99 }, { length: 300, dModel: 2048, layout: 'split', timescale: 't2t' }, { positions, dModel: 1024 }]) {
      const rows = options.length ?? options.positions.length;  // the positions: 307,200 floats, 2 fresh blocks, 5 into a JS out
      const expected = writtenOnHeap(pe, rows * options.dModel, (out) => pe.sinusoidal({ ...options, out }));
      assert.deepEqual(pe.sinusoidal(options).data, expected);
      const out = new Float32Array(rows * options.dModel).fill(NaN);
      assert.equal(pe.sinusoidal({ ...options, out }).data, out);
      assert.deepEqual(out, expected);
    }
  });

  it('rejects an out of the wrong size or type and leaves it untouched', () => {
    const out = new Float32Array(10).fill(7);
    assert.throws(() => pe.sinusoidal({ length: 8, dModel: 16, out }), { name: 'RangeError', message: 'out must hold exactly 128 elements, got 10' });
    assert.ok(out.every((v) => v === 7));
    assert.throws(() => pe.sinusoidal({ length: 2, dModel: 2, out: new Float64Array(4) }), { name: 'TypeError', message: /out must be a Float32Array, got a Float64Array/ });
    assert.throws(() => pe.sinusoidal({ length: 2, dModel: 2, out: [0, 0, 0, 0] }), TypeError);
  });

  it('returns a fresh array on each call, owned by the caller', () => {
    const a = pe.sinusoidal({ length: 4, dModel: 8 });
    const b = pe.sinusoidal({ length: 4, dModel: 8 });
    assert.notEqual(a.data, b.data);
    assert.notEqual(a.data.buffer, b.data.buffer);
    a.data.fill(0);
    assert.equal(b.data[1], 1);
  });
});

describeEachModule('sinusoidal at given positions', (instance) => {
  it('equals the rows of the consecutive table', () => {
    const pe = instance();
    const table = pe.sinusoidal({ length: 50, dModel: 16, offset: 4000, layout: 'split' });
    const rows = pe.sinusoidal({ positions: [4049, 4000, 4010], dModel: 16, layout: 'split' });
    assert.deepEqual(rows.shape, [3, 16]);
    [49, 0, 10].forEach((r, i) => rows.data.subarray(i * 16, i * 16 + 16).forEach((v, c) => assert.ok(Math.abs(v - table.data[r * 16 + c]) < 1e-6)));
    assert.throws(() => pe.sinusoidal({ positions: [1], length: 1, dModel: 4 }), { name: 'TypeError' });
    assert.throws(() => pe.sinusoidal({ positions: [-1], dModel: 4 }), { name: 'RangeError', message: 'positions[0] must be an integer in [0, 2147483647], got -1' });
  });
});
