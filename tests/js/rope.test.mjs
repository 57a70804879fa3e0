import { it, before } from 'node:test';
import assert from 'node:assert/strict';
import { assertClose, describeEachModule, loadVectors } from './helpers.mjs';

describeEachModule('rope', (instance) => {
  let pe;
  before(() => { pe = instance(); });

  for (const c of loadVectors('rope_inv_freq').cases) {
    it(`inverse frequencies match golden vector ${c.name}`, () => {
      const { invFreq, attentionFactor } = pe.ropeInvFreq(c.params);
      assert.deepEqual(invFreq.shape, c.expected.shape);
      invFreq.data.forEach((v, i) => assert.ok(Math.abs(v - c.expected.data[i]) <= c.tolerance.rel * Math.abs(c.expected.data[i]), `pair ${i}: ${v} vs ${c.expected.data[i]}`));
      assert.ok(Math.abs(attentionFactor - c.input.attentionFactor) < 1e-12);
    });
  }

  for (const c of loadVectors('rope_apply').cases) {
    it(`applyRope matches golden vector ${c.name}`, () => {
      const { rotaryDim, base, layout, scaling } = c.params;
      const x = { data: Float32Array.from(c.input.x.data), shape: c.input.x.shape };
      assertClose(pe.applyRope(x, { positions: c.input.positions, rotaryDim, base, layout, scaling }), c.expected, c.tolerance.abs, c.name);
    });
  }

  it('YaRN: applyRope and ropeInvFreq within 2e-6 of the float64 maths up to position 2^24 - 1', () => {
    // HF's formulas in float64: the ramp over pairs between the correction dimensions, then the rotation.
    const [headDim, base, factor, originalMaxPositions] = [128, 10000, 32, 4096];
    const correction = (rotations) => (headDim * Math.log(originalMaxPositions / (rotations * 2 * Math.PI))) / (2 * Math.log(base));
    const low = Math.max(Math.floor(correction(32)), 0);
    const high = Math.min(Math.ceil(correction(1)), headDim - 1);
    const invFreq = Array.from({ length: headDim / 2 }, (_, i) => {
      const plain = 1 / base ** ((2 * i) / headDim);
      const ramp = Math.min(1, Math.max(0, (i - low) / (high - low)));
      return (plain / factor) * ramp + plain * (1 - ramp);
    });
    const attention = 0.1 * Math.log(factor) + 1;
    const scaling = { type: 'yarn', factor, originalMaxPositions };
    const computed = pe.ropeInvFreq({ headDim, base, scaling });
    computed.invFreq.data.forEach((v, i) => assert.ok(Math.abs(v - invFreq[i]) <= 2e-6 * invFreq[i], `pair ${i}: ${v} vs ${invFreq[i]}`));
    const positions = [0, 4095, 32767, 2 ** 24 - 1];
    let worst = 0;
    for (const unit of [0, 5, 27, 40, 63, 64 + 27]) {
      const x = { data: new Float32Array(positions.length * headDim), shape: [positions.length, headDim] };
      positions.forEach((_, s) => { x.data[s * headDim + unit] = 1; });
      const { data } = pe.applyRope(x, { positions, scaling });
      const pair = unit % 64;
      positions.forEach((p, s) => {
        const angle = p * invFreq[pair];
        const [first, second] = unit < 64 ? [Math.cos(angle), Math.sin(angle)] : [-Math.sin(angle), Math.cos(angle)];
        worst = Math.max(worst, Math.abs(data[s * headDim + pair] - attention * first), Math.abs(data[s * headDim + pair + 64] - attention * second));
      });
    }
    assert.ok(worst <= 2e-6, `worst error ${worst}`);
  });

  it('rotates every head and batch of [batch, heads, seq, headDim] alike; offset = consecutive positions', () => {
    const seq = 3;
    const headDim = 8;
    const single = { data: Float32Array.from({ length: seq * headDim }, (_, i) => Math.sin(i)), shape: [seq, headDim] };
    const many = { data: new Float32Array(2 * 4 * seq * headDim), shape: [2, 4, seq, headDim] };
    for (let r = 0; r < 8; r++) many.data.set(single.data, r * seq * headDim);
    const expected = pe.applyRope(single, { positions: [10, 11, 12] }).data;
    const rotated = pe.applyRope(many, { offset: 10 });
    assert.deepEqual(rotated.shape, [2, 4, seq, headDim]);
    for (let r = 0; r < 8; r++) assert.deepEqual(rotated.data.subarray(r * seq * headDim, (r + 1) * seq * headDim), expected);
  });

  it('preserves norms of each rotated pair and passes the rest through (partial rotary)', () => {
    const x = { data: Float32Array.from({ length: 2 * 10 }, (_, i) => (i % 7) - 3), shape: [2, 10] };
    const { data } = pe.applyRope(x, { positions: [5, 1000000], rotaryDim: 6 });
    for (let row = 0; row < 2; row++) {
      for (let i = 0; i < 3; i++) {
        const a = row * 10 + i;
        const b = a + 3;
        assert.ok(Math.abs(Math.hypot(data[a], data[b]) - Math.hypot(x.data[a], x.data[b])) < 1e-5);
      }
      assert.deepEqual(data.subarray(row * 10 + 6, row * 10 + 10), x.data.subarray(row * 10 + 6, row * 10 + 10));
    }
  });

  it('dynamic scaling takes the sequence length from the positions when not given (or given as 0, as the core\'s table says)', () => {
    const scaling = { type: 'dynamic', factor: 2, originalMaxPositions: 4 };
    const x = { data: Float32Array.from({ length: 8 * 8 }, (_, i) => i / 10), shape: [8, 8] };
    const implicit = pe.applyRope(x, { scaling });
    const explicit = pe.applyRope(x, { scaling: { ...scaling, sequenceLength: 8 } });
    assert.deepEqual(implicit.data, explicit.data);
    assert.deepEqual(pe.applyRope(x, { scaling: { ...scaling, sequenceLength: 0 } }).data, explicit.data);
    assert.notDeepEqual(implicit.data, pe.applyRope(x).data);
  });

  it('every rule that chooses by the length encoded takes it from the positions: LongRoPE turns by its long factors past its trained length', () => {
    const scaling = { type: 'longrope', factor: 4, originalMaxPositions: 4096, shortFactor: [1, 1, 1, 1], longFactor: [2, 3, 4, 5] };
    const x = { data: Float32Array.from({ length: 2 * 8 }, (_, i) => 1 + i / 10), shape: [2, 8] };
    for (const positions of [[100, 101], [7999, 8000]]) {
      const implicit = pe.applyRope(x, { positions, scaling });
      assert.deepEqual(implicit.data, pe.applyRope(x, { positions, scaling: { ...scaling, sequenceLength: positions[1] + 1 } }).data, `positions ${positions}`);
      // Which list that is: the short one within the trained length, the long one past it.
      const onlyList = positions[1] < 4096 ? { longFactor: scaling.shortFactor } : { shortFactor: scaling.longFactor };
      assert.deepEqual(implicit.data, pe.applyRope(x, { positions, scaling: { ...scaling, ...onlyList } }).data, `positions ${positions}`);
    }
  });

  it('x larger than a block streams through the heap with the same result as x on the heap (fresh, JS out, heap out)', () => {
    const shape = [5, 700, 80];  // 280,000 floats: blocks of 3276 vectors fresh, 819 into a JS out, splitting heads and sequences
    const x = { data: Float32Array.from({ length: 5 * 700 * 80 }, (_, i) => Math.sin(i * 0.37)), shape };
    const cases = [
      { offset: 5 },
      { positions: Array.from({ length: 700 }, (_, i) => (i * 7919) % 100003), layout: 'interleaved', rotaryDim: 64 },
      { offset: 1_000_000, scaling: { type: 'yarn', factor: 4, originalMaxPositions: 4096 }, rotaryDim: 48 },
    ];
    for (const options of cases) {
      const onHeap = pe.allocate(x.data.length);
      onHeap.data.set(x.data);
      const expected = pe.applyRope({ data: onHeap.data, shape }, options).data;  // not streamed: x is on the heap
      assert.deepEqual(pe.applyRope(x, options).data, expected, JSON.stringify(options));
      const out = new Float32Array(x.data.length);
      assert.equal(pe.applyRope(x, { ...options, out }).data, out);
      assert.deepEqual(out, expected);
      const heapOut = pe.allocate(x.data.length);
      pe.applyRope(x, { ...options, out: heapOut.data });
      assert.deepEqual(heapOut.data, expected);
      for (const heap of [onHeap, heapOut]) heap.dispose();
    }
    assert.equal(pe.memory().liveAllocations, 0);
  });

  it('refuses x holding NaN or ±Infinity, naming the vector, whatever the path (a rotation in place leaves x as it was)', () => {
    const vectorMessage = (v) => `x must be finite: x.data[${v * 8}..${v * 8 + 7}] (vector ${v} of [..., seq, headDim]) holds NaN or ±Infinity`;
    const small = new Float32Array(4 * 8).fill(0.5);
    small[13] = NaN;
    assert.throws(() => pe.applyRope({ data: small, shape: [4, 8] }), { name: 'RangeError', message: vectorMessage(1) });
    small[13] = 0.5;
    small[31] = -Infinity;  // in the part partial rotary passes through
    assert.throws(() => pe.applyRope({ data: small, shape: [4, 8] }, { rotaryDim: 4, layout: 'interleaved' }), { name: 'RangeError', message: vectorMessage(3) });
    const vectors = 40000;  // 320,000 floats: streamed through the heap a block at a time
    const large = new Float32Array(vectors * 8).fill(0.25);
    large[(vectors - 3) * 8 + 2] = Infinity;
    large[(vectors - 1) * 8] = NaN;
    assert.throws(() => pe.applyRope({ data: large, shape: [vectors, 8] }), { name: 'RangeError', message: vectorMessage(vectors - 3) });
    assert.throws(() => pe.applyRope({ data: large, shape: [vectors, 8] }, { out: new Float32Array(vectors * 8) }), { name: 'RangeError', message: vectorMessage(vectors - 3) });
    const heap = pe.allocate(vectors * 8);
    heap.data.set(large);
    assert.throws(() => pe.applyRope({ data: heap.data, shape: [vectors, 8] }, { out: heap.data }), { name: 'RangeError', message: vectorMessage(vectors - 3) });
    assert.ok(heap.data.every((v, i) => Object.is(v, large[i])), 'x rotated in place is left as it was');
    heap.dispose();
    small[31] = 0.5;
    assert.deepEqual(pe.applyRope({ data: small, shape: [4, 8] }, { offset: 1 }).data.length, 32, 'the module goes on');
  });

  it('rejects bad parameters with their ranges', () => {
    const x = { data: new Float32Array(16), shape: [2, 8] };
    assert.throws(() => pe.applyRope(x, { rotaryDim: 5 }), { name: 'RangeError', message: 'rotaryDim must be an even integer in [2, 8], got 5' });
    assert.throws(() => pe.applyRope(x, { positions: [1] }), { name: 'RangeError', message: 'positions must hold one position per row of x (seq = 2), got 1' });
    assert.throws(() => pe.applyRope(x, { positions: [1, -2] }), { name: 'RangeError', message: 'positions[1] must be an integer in [0, 2147483647], got -2' });
    assert.throws(() => pe.applyRope(x, { positions: [1, 2], offset: 3 }), { name: 'TypeError' });
    assert.throws(() => pe.applyRope(x, { layout: 'neox' }), { name: 'RangeError', message: "layout must be one of 'half', 'interleaved', got 'neox'" });
    assert.throws(() => pe.applyRope({ data: new Float32Array(15), shape: [2, 8] }), { name: 'RangeError', message: 'x.shape [2,8] holds 16 elements but x.data has 15' });
    assert.throws(() => pe.applyRope(x, { scaling: { type: 'linear' } }), { name: 'TypeError', message: "scaling.factor is required for scaling.type 'linear'" });
    assert.throws(() => pe.applyRope(x, { scaling: { type: 'linear', factor: 2, lowFreqFactor: 1 } }), { name: 'TypeError', message: "scaling.lowFreqFactor does not apply to scaling.type 'linear' (it takes factor)" });
    assert.throws(() => pe.applyRope(x, { scaling: { type: 'linear', factor: 0.5 } }), { name: 'RangeError', message: 'scaling.factor must be a number in [1, 1000000], got 0.5' });
    assert.throws(() => pe.applyRope(x, { scaling: { type: 'yarn', factor: 4, originalMaxPositions: 0.5 } }), { name: 'RangeError', message: 'scaling.originalMaxPositions must be an integer in [1, 2147483647], got 0.5' });
    assert.throws(() => pe.ropeInvFreq({ headDim: 7 }), { name: 'RangeError', message: 'headDim must be an even integer in [2, 65536], got 7' });
  });
});
