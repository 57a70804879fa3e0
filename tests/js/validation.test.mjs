// Every validation rule of the package boundary: the error type and a message naming the parameter,
// the allowed range and the value given. After each rejected call the module keeps working.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/index.js';
import { MODULES } from './helpers.mjs';

describe('validation', () => {
  let pe;
  before(async () => { pe = await load(); });
  after(() => assert.equal(pe.memory().liveAllocations, 0, 'heap allocations left behind'));

  const sinusoidalCases = [
    [{ length: 4, dModel: 7 }, RangeError, 'dModel must be an even integer in [2, 65536], got 7'],
    [{ length: 4, dModel: 0 }, RangeError, 'dModel must be an even integer in [2, 65536], got 0'],
    [{ length: 4, dModel: 65538 }, RangeError, 'dModel must be an even integer in [2, 65536], got 65538'],
    [{ length: 4, dModel: NaN }, RangeError, 'dModel must be an even integer in [2, 65536], got NaN'],
    [{ length: 4, dModel: '8' }, TypeError, "dModel must be a number, got '8'"],
    [{ length: 4 }, TypeError, 'dModel must be a number, got undefined'],
    [{ length: 0, dModel: 8 }, RangeError, 'length must be an integer in [1, 16777216], got 0'],
    [{ length: -1, dModel: 8 }, RangeError, 'length must be an integer in [1, 16777216], got -1'],
    [{ length: 2.5, dModel: 8 }, RangeError, 'length must be an integer in [1, 16777216], got 2.5'],
    [{ length: Infinity, dModel: 8 }, RangeError, 'length must be an integer in [1, 16777216], got Infinity'],
    [{ length: 4, dModel: 8, base: 0 }, RangeError, 'base must be a number in [1, 1000000000000], got 0'],
    [{ length: 4, dModel: 8, base: NaN }, RangeError, 'base must be a number in [1, 1000000000000], got NaN'],
    [{ length: 4, dModel: 8, base: -Infinity }, RangeError, 'base must be a number in [1, 1000000000000], got -Infinity'],
    [{ length: 4, dModel: 8, layout: 'halves' }, RangeError, "layout must be one of 'interleaved', 'split', got 'halves'"],
    [{ length: 4, dModel: 8, layout: 1 }, TypeError, 'layout must be a string, got 1'],
    [{ length: 4, dModel: 8, timescale: 'fairseq' }, RangeError, "timescale must be one of 'standard', 't2t', got 'fairseq'"],
    [{ length: 4, dModel: 8, offset: -1 }, RangeError, 'offset must be an integer in [0, 2147483644], got -1'],
    [{ length: 4, dModel: 8, offset: 2 ** 31 }, RangeError, 'offset must be an integer in [0, 2147483644], got 2147483648'],
    [{ length: 4, dModel: 8, offset: 0.5 }, RangeError, 'offset must be an integer in [0, 2147483644], got 0.5'],
    [{ length: 4, dmodel: 8 }, TypeError, "sinusoidal options: unknown option 'dmodel'; known options are length, dModel, base, layout, timescale, offset, positions, out"],
  ];
  for (const [options, type, message] of sinusoidalCases) {
    it(`sinusoidal(${JSON.stringify(options)}) → ${type.name}: ${message}`, () => {
      assert.throws(() => pe.sinusoidal(options), (error) => error instanceof type && error.message === message);
    });
  }

  it('sinusoidal without options, or with a non-object, is a TypeError', () => {
    assert.throws(() => pe.sinusoidal(), { name: 'TypeError', message: 'length must be a number, got undefined' });
    assert.throws(() => pe.sinusoidal(5), { name: 'TypeError', message: 'sinusoidal options must be an options object, got 5' });
    assert.throws(() => pe.sinusoidal(null), { name: 'TypeError', message: 'sinusoidal options must be an options object, got null' });
  });

  const embeddingCases = [
    [{ vocabSize: 0, dModel: 4 }, RangeError, 'vocabSize must be an integer in [1, 16777216], got 0'],
    [{ vocabSize: 2 ** 24 + 1, dModel: 4 }, RangeError, 'vocabSize must be an integer in [1, 16777216], got 16777217'],
    [{ vocabSize: 10, dModel: 0 }, RangeError, 'dModel must be an integer in [1, 65536], got 0'],
    [{ vocabSize: 10, dModel: 4, paddingIdx: 10 }, RangeError, 'paddingIdx must be an integer in [0, 9], got 10'],
    [{ vocabSize: 10, dModel: 4, paddingIdx: -1 }, RangeError, 'paddingIdx must be an integer in [0, 9], got -1'],
    [{ vocabSize: 10, dModel: 4, scale: 'log' }, RangeError, "scale must be 'none', 'sqrt' or a number in [-1000000, 1000000], got 'log'"],
    [{ vocabSize: 10, dModel: 4, scale: NaN }, RangeError, 'scale must be a number in [-1000000, 1000000], got NaN'],
    [{ vocabSize: 10, dModel: 4, scale: {} }, TypeError, "scale must be 'none', 'sqrt' or a number in [-1000000, 1000000], got an object"],
    [{ vocabSize: 10, dModel: 4, init: { type: 'kaiming' } }, RangeError, "init.type must be one of 'normal', 'xavier-uniform', got 'kaiming'"],
    [{ vocabSize: 10, dModel: 4, init: { std: -1 } }, RangeError, 'init.std must be a number in [0, 1000000], got -1'],
    [{ vocabSize: 10, dModel: 4, init: { seed: -1 } }, RangeError, 'init.seed must be an integer in [0, 9007199254740991], got -1'],
    [{ vocabSize: 10, dModel: 4, init: { sed: 1 } }, TypeError, "init: unknown option 'sed'; known options are type, std, gain, seed"],
    [{ vocabSize: 2, dModel: 2, weights: new Float32Array(4) }, TypeError, 'weights must be a tensor { data: Float32Array, shape: [2, 2] }, got a Float32Array of length 4'],
    [{ vocabSize: 2, dModel: 2, weights: { data: new Float32Array(4), shape: [4, 1] } }, RangeError, 'weights.shape must be [2, 2], got [4,1]'],
    [{ vocabSize: 2, dModel: 2, weights: { data: new Float32Array(3), shape: [2, 2] } }, RangeError, 'weights.data must hold 4 elements, got 3'],
    [{ vocabSize: 2, dModel: 2, weights: { data: new Float32Array([0, NaN, 0, 0]), shape: [2, 2] } }, RangeError, 'weights.data[1] must be finite, got NaN'],
    [{ vocabSize: 2, dModel: 2, weights: { data: new Float32Array(4), shape: [2, 2] }, init: {} }, TypeError, 'tokenEmbedding: give either weights or init, not both'],
  ];
  for (const [options, type, message] of embeddingCases) {
    it(`tokenEmbedding(${JSON.stringify(options)}) → ${type.name}: ${message}`, () => {
      assert.throws(() => pe.tokenEmbedding(options), (error) => error instanceof type && error.message === message);
    });
  }

  describe('lookup ids', () => {
    let emb;
    before(() => { emb = pe.tokenEmbedding({ vocabSize: 20, dModel: 4 }); });
    after(() => emb.dispose());
    const idCases = [
      [[1, -1], RangeError, 'ids[1] must be a token id in [0, vocabSize - 1] = [0, 19], got -1'],
      [[20], RangeError, 'ids[0] must be a token id in [0, vocabSize - 1] = [0, 19], got 20'],
      [[2 ** 31], RangeError, 'ids[0] must be a token id in [0, vocabSize - 1] = [0, 19], got 2147483648'],
      [[1.5], RangeError, 'ids[0] must be a token id in [0, vocabSize - 1] = [0, 19], got 1.5'],
      [[NaN], RangeError, 'ids[0] must be a token id in [0, vocabSize - 1] = [0, 19], got NaN'],
      [['3'], TypeError, "ids[0] must be a number, got '3'"],
      [new Int32Array([0, 5, -1]), RangeError, 'ids[2] must be a token id in [0, vocabSize - 1] = [0, 19], got -1'],
      [new Int32Array([20]), RangeError, 'ids[0] must be a token id in [0, vocabSize - 1] = [0, 19], got 20'],
      [new Int32Array([2 ** 31 - 1]), RangeError, 'ids[0] must be a token id in [0, vocabSize - 1] = [0, 19], got 2147483647'],
      [[], RangeError, 'ids must hold at least one id, got none'],
      [new Float32Array([1]), TypeError, 'ids must be an array of token ids, an Int32Array or a tensor { data: Int32Array, shape }, got a Float32Array of length 1'],
      [{ data: new Int32Array(4), shape: [3] }, RangeError, 'ids.shape [3] holds 3 elements but ids.data has 4'],
      [{ data: [1, 2], shape: [2] }, TypeError, 'ids.data must be an Int32Array, got an array of length 2'],
      [{ data: new Int32Array(2), shape: [2.5] }, RangeError, 'ids.shape[0] must be an integer in [0, 2147483647], got 2.5'],
      ['abc', TypeError, "ids must be an array of token ids, an Int32Array or a tensor { data: Int32Array, shape }, got 'abc'"],
    ];
    for (const [ids, type, message] of idCases) {
      it(`lookup(${ids.constructor.name} ${JSON.stringify(Array.from(ids.data ?? ids))}) → ${type.name}: ${message}`, () => {
        assert.throws(() => emb.lookup(ids), (error) => error instanceof type && error.message === message);
        assert.equal(emb.lookup([3]).shape[1], 4, 'still usable afterwards');
      });
    }
  });

  it('load rejects unknown backends and options', async () => {
    await assert.rejects(load({ backend: 'cuda' }), { name: 'RangeError', message: "backend must be one of 'wasm', 'webgpu', 'auto', got 'cuda'" });
    await assert.rejects(load({ simd: 'yes' }), { name: 'TypeError', message: "simd must be 'auto', true or false, got yes" });
    await assert.rejects(load({ wasmBinary: 'x' }), { name: 'TypeError' });
    await assert.rejects(load({ threads: 0 }), { name: 'RangeError', message: 'threads must be an integer in [1, 64], got 0' });
    await assert.rejects(load({ threads: '2' }), { name: 'TypeError', message: "threads must be a number, got '2'" });
    await assert.rejects(load({ threads: 2, simd: false }), { message: 'threads: 2 needs the SIMD module (the threaded one is SIMD), but simd: false was asked for' });
    await assert.rejects(load({ cores: 4 }), { name: 'TypeError', message: /unknown option 'cores'/ });
    // Bad gpuLimits throw on every backend: with 'auto' they are no reason to fall back quietly.
    for (const backend of ['wasm', 'auto']) {
      await assert.rejects(load({ backend, gpuLimits: { maxBufferSize: -1 } }), { name: 'RangeError', message: 'gpuLimits.maxBufferSize must be an integer in [1, 9007199254740992], got -1' });
      await assert.rejects(load({ backend, gpuLimits: { maxTextureSize: 4 } }), { name: 'TypeError', message: /gpuLimits: unknown option 'maxTextureSize'/ });
    }
  });

  it("backend 'auto' uses wasm and says why", async () => {
    const auto = await load({ backend: 'auto' });
    assert.equal(auto.backend, 'wasm');
    assert.match(auto.fallbackReason, /WebGPU/);
    assert.equal(pe.fallbackReason, null);
  });

  it('a table too big for the wasm heap, or a result too big for a JS array, is refused before allocating, naming the bytes, and the module stays usable', () => {
    assert.throws(() => pe.tokenEmbedding({ vocabSize: 2 ** 24, dModel: 65536 }), {
      name: 'RangeError', message: 'a 16777216 x 65536 F32 tokenEmbedding table needs 4398046511104 bytes, more than the 2130706432 bytes the wasm heap can hold',
    });
    assert.throws(() => pe.sinusoidal({ length: 2 ** 24, dModel: 65536 }), { name: 'RangeError', message: /^the sinusoidal table needs 4398046511104 bytes, more than a new Float32Array can hold here/ });
    assert.throws(() => pe.alibiBias({ numHeads: 1024, keyLength: 65536 }), { name: 'RangeError', message: /^the ALiBi bias needs 17592186044416 bytes, more than a new Float32Array can hold here/ });
    assert.equal(pe.memory().liveAllocations, 0);
    assert.equal(pe.sinusoidal({ length: 2, dModel: 2 }).data[1], 1);
  });

  it('loads from wasmBinary and from wasmUrl', async () => {
    const { readFile } = await import('node:fs/promises');
    const bytes = await readFile(new URL('../../dist/posembed-simd.wasm', import.meta.url));
    const fromBytes = await load({ wasmBinary: bytes, simd: true });
    assert.equal(fromBytes.sinusoidal({ length: 2, dModel: 2 }).data[1], 1);
    assert.equal(fromBytes.threads, 1);
    assert.equal((await load({ wasmBinary: bytes, threads: 'auto' })).threads, 1, "given bytes, threads 'auto' keeps to the single-threaded module");
    const fromUrl = await load({ wasmUrl: new URL('../../dist/posembed-scalar.wasm', import.meta.url), simd: false });
    assert.equal(fromUrl.simd, false);
    assert.equal(fromUrl.sinusoidal({ length: 2, dModel: 2 }).data[1], 1);
    const threaded = await load({ wasmUrl: new URL('../../dist/posembed-threads.wasm', import.meta.url), threads: 2 });
    assert.equal(threaded.threads, 2);
    assert.equal(threaded.sinusoidal({ length: 2, dModel: 2 }).data[1], 1);
  });

  it("another module's bytes reject, saying so, instead of never settling", async () => {
    const { readFile } = await import('node:fs/promises');
    const simdBytes = await readFile(new URL('../../dist/posembed-simd.wasm', import.meta.url));
    await assert.rejects(load({ wasmBinary: simdBytes, threads: 2 }), { message: /^posembed: these wasm bytes are not posembed-threads\.wasm of this version \(.*\); give the \.wasm that came with the package$/ });
  });

  it("one thread by default; threads 'auto' gives the threaded module in Node, as many threads as cores up to 4, and the same results", async () => {
    const { availableParallelism } = await import('node:os');
    const single = await load();
    assert.equal(single.threads, 1);
    const auto = await load({ threads: 'auto' });
    assert.equal(auto.threads, Math.min(4, availableParallelism()));
    assert.equal(auto.simd, true);
    const options = { length: 4096, dModel: 256, offset: 70000 };
    assert.deepEqual(auto.sinusoidal(options).data, single.sinusoidal(options).data);
  });

  for (const { name, options } of MODULES) {
    it(`dispose() ends an instance (${name}): its workers stop, every later call says it was disposed, freeing what it made does not throw`, async () => {
      const workers = () => process.report.getReport().workers.length;
      const before = workers();
      const pe = await load(options);
      assert.equal(workers(), before + pe.threads - 1, 'one worker per thread beside the calling one');
      const table = pe.tokenEmbedding({ vocabSize: 10, dModel: 4 });
      const heap = pe.allocate(8);
      pe.dispose();
      await new Promise((resolve) => setTimeout(resolve, 50));  // a terminated worker leaves the report once it has exited
      assert.equal(workers(), before);
      const disposed = { name: 'Error', message: 'posembed: this instance was disposed (pe.dispose()); load() another to go on' };
      assert.throws(() => pe.sinusoidal({ length: 2, dModel: 4 }), disposed);
      assert.throws(() => pe.alibiSlopes(4), disposed);
      assert.throws(() => table.lookup([1]), disposed);
      assert.throws(() => heap.data, disposed);
      assert.throws(() => pe.tokenEmbedding({ vocabSize: 10, dModel: 4 }), disposed);
      table.dispose();
      heap.dispose();
      pe.dispose();
    });
  }
});

// A growth of the single-threaded module's memory detaches earlier views (they read as empty); the threaded
// module's memory is shared, and earlier views keep their length and still see the heap.
for (const { name, options } of MODULES.filter((m) => m.name !== 'wasm scalar')) {
  describe(`heap arrays: out and inputs without copies (${name})`, () => {
    const detaches = !(options.threads > 1);  // the single-threaded modules: SIMD (full or encoders-only)
    let pe;
    before(async () => { pe = await load(options); });
    after(() => assert.equal(pe.memory().liveAllocations, 0, 'heap allocations left behind'));

    it('an allocated out is written in place and equals the copied result', () => {
      const heap = pe.allocate(64 * 32);
      const result = pe.sinusoidal({ length: 64, dModel: 32, out: heap.data });
      assert.equal(result.data.buffer, heap.data.buffer);
      assert.deepEqual(heap.data, pe.sinusoidal({ length: 64, dModel: 32 }).data);
      heap.dispose();
    });

    it('a heap out may be the x that RoPE rotates (or the relative positions t5Bucket maps); any other overlap with a heap input is refused', () => {
      const x = Float32Array.from({ length: 4 * 8 }, (_, i) => Math.cos(i));
      const rotated = pe.applyRope({ data: x, shape: [4, 8] }, { offset: 2, layout: 'interleaved' }).data;
      const heap = pe.allocate(4 * 8);
      heap.data.set(x);
      pe.applyRope({ data: heap.data, shape: [4, 8] }, { offset: 2, layout: 'interleaved', out: heap.data });
      assert.deepEqual(heap.data, rotated);
      const relative = pe.allocate(5, { type: 'int32' });
      relative.data.set([-300, -2, 0, 3, 300]);
      pe.t5Bucket(relative.data, { out: relative.data });
      assert.deepEqual(relative.data, pe.t5Bucket([-300, -2, 0, 3, 300]).data);
      const square = pe.allocate(8 * 8);
      square.data.set(Float32Array.from({ length: 64 }, (_, i) => Math.sin(i)));
      const a = { data: square.data, shape: [8, 8] };
      assert.throws(() => pe.similarity(a, a, { out: square.data }), { name: 'RangeError', message: 'out must not overlap a on the wasm heap: give it an array of its own (pe.allocate)' });
      const half = square.data.subarray(16, 48);  // [4, 8] inside the same bytes as a
      assert.throws(() => pe.applyRope({ data: square.data.subarray(0, 32), shape: [4, 8] }, { out: half }), { name: 'RangeError', message: /^out must not overlap x/ });
      assert.throws(() => pe.interpolatePositions({ data: square.data.subarray(0, 24), shape: [3, 8] }, 4, { out: half }), { name: 'RangeError', message: /^out must not overlap the table/ });
      for (const array of [heap, relative, square]) array.dispose();
    });

    it('a view of a disposed heap array is refused as out and as input, before anything is written', () => {
      const disposed = pe.allocate(64);
      const view = disposed.data;
      disposed.dispose();
      const table = pe.tokenEmbedding({ vocabSize: 8, dModel: 8, init: { seed: 2 } });  // may take the freed memory
      const weights = table.weights.data;
      const reused = pe.allocate(64);  // or this one may
      reused.data.fill(7);
      assert.throws(() => pe.sinusoidal({ length: 8, dModel: 8, out: view }), { name: 'RangeError', message: 'out is a view of a pe.allocate() array that was disposed' });
      assert.throws(() => pe.similarity({ data: view, shape: [8, 8] }), { name: 'RangeError', message: 'a is a view of a pe.allocate() array that was disposed' });
      assert.throws(() => pe.applyRope({ data: view, shape: [8, 8] }), { name: 'RangeError', message: 'x.data is a view of a pe.allocate() array that was disposed' });
      // A view made by hand on heap bytes outside every live heap array (here: the module's static data) too.
      const stray = new Float32Array(reused.data.buffer, 0, 64);
      assert.throws(() => pe.sinusoidal({ length: 8, dModel: 8, out: stray }), { name: 'RangeError', message: 'out is a view of the wasm heap outside every live pe.allocate() array: was its array disposed?' });
      assert.deepEqual(table.weights.data, weights);
      assert.ok(reused.data.every((v) => v === 7));
      table.dispose();
      reused.dispose();
    });

    it('a heap input is read in place, and chains: RoPE of a heap tensor into another heap array', () => {
      const x = pe.allocate(4 * 8);
      x.data.set(Float32Array.from({ length: 32 }, (_, i) => i / 7));
      const y = pe.allocate(4 * 8);
      pe.applyRope({ data: x.data, shape: [4, 8] }, { offset: 3, out: y.data });
      assert.deepEqual(y.data, pe.applyRope({ data: x.data.slice(), shape: [4, 8] }, { offset: 3 }).data);
      x.dispose();
      y.dispose();
    });

    it('a call whose own copies grow the heap still writes a heap out and reads heap inputs where they were', async () => {
      const pe = await load(options);  // its own instance: the growth here must not make room for the other tests
      // x from JS is larger than the heap's free space: copying it in grows the memory mid-call, detaching the
      // views passed as out and as the heap input.
      const rows = Math.ceil(pe.memory().heapBytes / 4 / 64) + 1024;
      const x = { data: Float32Array.from({ length: rows * 64 }, (_, i) => Math.sin(i)), shape: [rows, 64] };
      const out = pe.allocate(rows * 64);
      const rotated = pe.applyRope(x, { offset: 5, out: out.data });
      assert.equal(rotated.data.length, rows * 64);
      const expected = pe.applyRope(x, { offset: 5 }).data;  // (this call may grow the heap again: read out.data after it)
      assert.deepEqual(out.data, expected);
      const a = pe.allocate(3 * 64);
      a.data.set(x.data.subarray(0, 3 * 64));
      const grow = { data: Float32Array.from({ length: (pe.memory().heapBytes / 4 / 64 + 1024) * 64 }, (_, i) => Math.cos(i)), shape: [pe.memory().heapBytes / 4 / 64 + 1024, 64] };
      const products = pe.similarity({ data: a.data, shape: [3, 64] }, grow);
      assert.deepEqual(products.data, pe.similarity({ data: x.data.slice(0, 3 * 64), shape: [3, 64] }, grow).data);
      // Weights on the heap for a table whose allocation grows the memory.
      const length = Math.ceil(pe.memory().heapBytes / 4 / 64 / 2) + 1024;  // the table and its weights do not fit
      const weights = pe.allocate(length * 64);
      weights.data.fill(0.25);
      const view = weights.data;
      const heapBytes = pe.memory().heapBytes;
      const table = pe.learnedPositions({ maxLength: length, dModel: 64, weights: { data: view, shape: [length, 64] } });
      assert.ok(pe.memory().heapBytes > heapBytes, 'the table grew the heap');
      assert.equal(view.length, detaches ? 0 : length * 64);
      assert.ok(table.weights.data.every((v) => v === 0.25));
      table.dispose();
      // A query on the heap is copied from where it lies.
      const emb = pe.tokenEmbedding({ vocabSize: 50, dModel: 64, init: { seed: 3 } });
      const query = pe.allocate(64);
      query.data.set(x.data.subarray(64, 128));
      assert.deepEqual(emb.nearest(query.data, { k: 4 }), emb.nearest(x.data.slice(64, 128), { k: 4 }));
      emb.dispose();
      query.dispose();
      for (const heap of [out, a, weights]) heap.dispose();
      assert.equal(pe.memory().liveAllocations, 0);
    });

    it('views re-read after a memory growth stay valid', () => {
      const heap = pe.allocate(16);
      const before = heap.data;
      const big = pe.tokenEmbedding({ vocabSize: 4096, dModel: 8192 });  // 128 MiB: grows the heap
      assert.equal(before.length, detaches ? 0 : 16, detaches ? 'the old view is detached by the growth' : 'a view of shared memory outlives a growth');
      if (detaches) {
        assert.throws(() => pe.sinusoidal({ length: 4, dModel: 4, out: before }),
          { name: 'RangeError', message: "out must hold exactly 16 elements, got 0: its buffer is detached, as a view of the wasm heap is once the heap grows (read the pe.allocate() array's .data again after each call)" });
        assert.throws(() => pe.applyRope({ data: before, shape: [4, 4] }), { name: 'RangeError', message: /^x.shape \[4,4\] holds 16 elements but x.data has 0: its buffer is detached/ });
      }
      assert.throws(() => pe.sinusoidal({ length: 4, dModel: 4, out: new Float32Array(0) }), { name: 'RangeError', message: 'out must hold exactly 16 elements, got 0' });
      if (!detaches) {
        // The old view lies on another SharedArrayBuffer object over the same memory: still the heap array,
        // written in place.
        assert.notEqual(before.buffer, heap.data.buffer);
        assert.equal(pe.sinusoidal({ length: 4, dModel: 4, out: before }).data.buffer, heap.data.buffer);
        assert.equal(before[1], 1);
      }
      assert.equal(heap.data.length, 16);
      pe.sinusoidal({ length: 4, dModel: 4, out: heap.data });
      assert.equal(heap.data[1], 1);
      big.dispose();
      heap.dispose();
      heap.dispose();
      assert.throws(() => heap.data, { message: 'this heap array has been disposed' });
      if (!detaches) assert.throws(() => pe.sinusoidal({ length: 4, dModel: 4, out: before }), { name: 'RangeError', message: 'out is a view of a pe.allocate() array that was disposed' });
    });
  });
}
