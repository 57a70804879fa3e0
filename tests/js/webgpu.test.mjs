// The webgpu backend in Node: Dawn (the webgpu package) on Chromium's SwiftShader Vulkan driver. Every case
// runs inside a validation error scope, asserts no error, and frees every GPU buffer it made.
import { describe, it, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { create } from 'webgpu';
import { load, GpuTensor } from '../../dist/index.js';
import { GPU_KERNELS } from '../../dist/core_tables.js';
import { assertClose, expectedData, goldenEmbeddingOptions, loadVectors, maxAbsError } from './helpers.mjs';

process.env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';
const unhandled = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason));

describe('webgpu backend', () => {
  let pe;
  let wasm;

  before(async () => {
    pe = await load({ backend: 'webgpu', gpu: create([]) });
    wasm = await load();
  });
  after(() => {
    assert.equal(pe.gpuBuffers, 0, 'GPU buffers left behind');
    assert.deepEqual(unhandled, []);
  });
  // Every test in a validation error scope of its own, which must come back empty.
  beforeEach(() => pe.device.pushErrorScope('validation'));
  afterEach(async () => assert.equal(await pe.device.popErrorScope(), null, 'a WebGPU validation error'));

  // Runs fn inside validation and out-of-memory error scopes; every tensor it returns is read, then disposed.
  async function onGpu(fn) {
    const buffers = pe.gpuBuffers;
    pe.device.pushErrorScope('validation');
    pe.device.pushErrorScope('out-of-memory');
    const tensors = [].concat(await fn());
    const results = [];
    for (const tensor of tensors) {
      assert.ok(tensor instanceof GpuTensor, 'a GpuTensor');
      results.push(await tensor.read());
      tensor.dispose();
    }
    assert.equal(await pe.device.popErrorScope(), null, 'out-of-memory error');
    assert.equal(await pe.device.popErrorScope(), null, 'validation error');
    assert.equal(pe.gpuBuffers, buffers, 'every buffer freed');
    return results.length === 1 ? results[0] : results;
  }

  it('is the webgpu backend, with no fallback', () => {
    assert.equal(pe.backend, 'webgpu');
    assert.equal(pe.fallbackReason, null);
  });

  it('offers every op the wasm backend does, and a real model\'s positions on the host: modelPositions, ropeCache, checkRopeCache, and applyRope with a spec', async () => {
    const ops = (object) => new Set([...Object.getOwnPropertyNames(Object.getPrototypeOf(object)), ...Object.keys(object)]
      .filter((name) => name !== 'constructor' && (typeof object[name] === 'function' || name === 'modelPresets')));
    const missing = [...ops(wasm)].filter((name) => !ops(pe).has(name));
    assert.deepEqual(missing, []);
    const spec = pe.modelPositions('Llama-3.1-8B').layer(0).rope;
    const positions = Int32Array.from([0, 1, 131071]);
    assert.deepEqual(pe.ropeCache(spec, { positions }).cos.data, wasm.ropeCache(spec, { positions }).cos.data);
    assert.equal(pe.checkRopeCache(spec, { ...wasm.ropeCache(spec, { positions }), positions }).verdict, 'exact');
    const x = { data: Float32Array.from({ length: 2 * 3 * 128 }, (_, i) => Math.sin(i)), shape: [1, 2, 3, 128] };
    const onGpu = pe.applyRope(x, { spec, positions: { data: Int32Array.from([5, 6, 7]), shape: [1, 3] } });
    assert.deepEqual((await onGpu.read()).data, wasm.applyRope(x, { spec, positions: { data: Int32Array.from([5, 6, 7]), shape: [1, 3] } }).data);
    onGpu.dispose();
  });

  it('trains on the wasm instance beside it: pe.trainer and pe.wordEmbeddings are there on the webgpu backend too', () => {
    const trainer = pe.trainer({ dModel: 16, heads: 2, batchSize: 4 });
    assert.equal(trainer.step(3).step, 3);
    assert.equal(trainer.predict('Max(1,2)').probabilities.length, 20);
    trainer.dispose();
    const words = pe.wordEmbeddings({ corpus: ['a b c', 'b c d'], dim: 4 });
    assert.ok(Number.isFinite(words.step(2).loss));
    words.dispose();
  });

  for (const c of loadVectors('sinusoidal').cases) {
    it(`sinusoidal matches golden vector ${c.name}`, async () => {
      assertClose(await onGpu(() => pe.sinusoidal(c.params)), c.expected, c.tolerance.abs, c.name);
    });
  }

  it('sinusoidal stays within 1e-5 of float64 at positions up to 2^24 (observed bound printed)', async () => {
    let worst = 0;
    for (const [layout, timescale, offset] of [['interleaved', 'standard', 0], ['split', 't2t', 999_937], ['interleaved', 'standard', 16_777_000]]) {
      const { data } = await onGpu(() => pe.sinusoidal({ length: 200, dModel: 128, layout, timescale, offset }));
      for (let row = 0; row < 200; row++) {
        for (let pair = 0; pair < 64; pair++) {
          const angle = (offset + row) / 10000 ** (timescale === 't2t' ? pair / 63 : (2 * pair) / 128);
          const [s, c] = layout === 'interleaved' ? [2 * pair, 2 * pair + 1] : [pair, 64 + pair];
          worst = Math.max(worst, Math.abs(data[row * 128 + s] - Math.sin(angle)), Math.abs(data[row * 128 + c] - Math.cos(angle)));
        }
      }
    }
    console.log(`# webgpu sinusoidal: max error vs float64 ${worst.toExponential(2)}`);
    assert.ok(worst <= 1e-5, `worst ${worst}`);
  });

  for (const c of loadVectors('alibi_bias').cases) {
    it(`alibiBias matches golden vector ${c.name}`, async () => {
      assertClose(await onGpu(() => pe.alibiBias(c.params)), c.expected, c.tolerance.abs, c.name);
    });
  }

  // Calls of each op of the core's table that has a WGSL kernel: a small one and one over many workgroups.
  const KERNEL_CASES = {
    sincos2d: [{ gridH: 3, gridW: 5, dModel: 8, clsToken: true }, { gridH: 64, gridW: 40, dModel: 128 }],
    t5Buckets: [{ queryLength: 1, keyLength: 1 }, { queryLength: 300, keyLength: 9, numBuckets: 8, maxDistance: 20, bidirectional: false }],
  };
  it('every op of the core\'s table with a WGSL kernel runs on the GPU and gives the wasm result exactly', async () => {
    assert.deepEqual(Object.keys(KERNEL_CASES).sort(), Object.keys(GPU_KERNELS).sort());
    for (const [op, cases] of Object.entries(KERNEL_CASES)) {
      for (const options of cases) {
        const { data, shape } = await onGpu(() => pe[op](options));
        const expected = wasm[op](options);
        assert.deepEqual(shape, expected.shape, op);
        assert.deepEqual(data, expected.data, `${op} ${JSON.stringify(options)}`);
      }
    }
  });

  it('t5Buckets equal the host buckets of key - query exactly; t5Bias gathers the table', async () => {
    for (const c of loadVectors('t5_bucket').cases) {
      const { data } = await onGpu(() => pe.t5Buckets({ queryLength: 7, keyLength: 300, ...c.params }));
      const relative = Int32Array.from({ length: 7 * 300 }, (_, i) => (i % 300) - Math.floor(i / 300));
      assert.deepEqual(data, pe.t5Bucket(relative, c.params).data);
    }
    const table = { data: Float32Array.from({ length: 32 * 3 }, (_, i) => i / 8), shape: [32, 3] };
    const gpu = await onGpu(() => pe.t5Bias(table, { queryLength: 5, keyLength: 9 }));
    assert.deepEqual(gpu.data, wasm.t5Bias(table, { queryLength: 5, keyLength: 9 }).data);
  });

  for (const c of loadVectors('rope_apply').cases) {
    it(`applyRope matches golden vector ${c.name}`, async () => {
      const { rotaryDim, base, layout, scaling } = c.params;
      const x = { data: Float32Array.from(c.input.x.data), shape: c.input.x.shape };
      assertClose(await onGpu(() => pe.applyRope(x, { positions: c.input.positions, rotaryDim, base, layout, scaling })), c.expected, c.tolerance.abs, c.name);
    });
  }

  it('applyRope takes a GpuTensor as x: results stay on the GPU between ops', async () => {
    const [chained, direct] = await onGpu(() => {
      const table = pe.sinusoidal({ length: 12, dModel: 16 });
      const rotated = pe.applyRope(table, { offset: 100 });
      table.dispose();
      return [rotated, pe.sinusoidal({ length: 12, dModel: 16 })];
    });
    assert.ok(maxAbsError(chained.data, wasm.applyRope(direct, { offset: 100 }).data) < 1e-6);
  });

  for (const c of loadVectors('sincos2d').cases) {
    it(`sincos2d matches golden vector ${c.name}`, async () => {
      assertClose(await onGpu(() => pe.sincos2d(c.params)), c.expected, c.tolerance.abs, c.name);
    });
  }

  it('similarity matches the golden PE similarity matrices, from a GPU tensor, and cosine of two matrices (and of rows of extreme size) matches wasm', async () => {
    for (const c of loadVectors('similarity').cases.filter((x) => x.params.of === 'sinusoidal')) {
      assertClose(await onGpu(() => {
        const table = pe.sinusoidal({ length: c.params.length, dModel: c.params.dModel });
        const product = pe.similarity(table, null, { metric: c.params.metric });
        table.dispose();
        return product;
      }), c.expected, c.tolerance.abs, c.name);
    }
    const a = { data: Float32Array.from({ length: 37 * 21 }, (_, i) => Math.sin(i * 0.37)), shape: [37, 21] };
    const b = { data: Float32Array.from({ length: 19 * 21 }, (_, i) => Math.cos(i * 0.11)), shape: [19, 21] };
    const gpu = await onGpu(() => pe.similarity(a, b, { metric: 'cosine' }));
    assert.ok(maxAbsError(gpu.data, wasm.similarity(a, b, { metric: 'cosine' }).data) < 1e-5);
    // Rows past f32's squares: along (1, 2, -2) at 1e38, 1e-30 and 1, along (1, 0, 0) at 1e-20, and zero.
    // (GPUs may flush subnormals to zero, so none here.)
    const extremes = { data: Float32Array.from([1e38, 2e38, -2e38, 1e-30, 2e-30, -2e-30, 1e-20, 0, 0, 0, 0, 0, 1, 2, -2]), shape: [5, 3] };
    const cosines = await onGpu(() => pe.similarity(extremes, null, { metric: 'cosine' }));
    assert.ok(maxAbsError(cosines.data, wasm.similarity(extremes, null, { metric: 'cosine' }).data) < 1e-6);
  });

  it('token lookup and the fused layer match the golden vectors', async () => {
    for (const c of loadVectors('token_embedding').cases) {
      const options = goldenEmbeddingOptions(c);
      const layer = options.positional ? pe.transformerEmbedding(options) : pe.tokenEmbedding(options);
      const result = await onGpu(() => (options.positional ? layer.forward(c.input.ids) : layer.lookup(c.input.ids)));
      layer.dispose();
      assertClose(result, c.expected, c.tolerance.abs, c.name);
    }
  });

  it('100,000 GpuTensor create/dispose cycles return the GPU buffers to where they were; dropped ones are freed when collected', async () => {
    const start = pe.gpuBuffers;
    for (let i = 0; i < 100000; i++) pe.sinusoidal({ positions: [i % 1000], dModel: 4 }).dispose();
    assert.equal(pe.gpuBuffers, start);
    (() => { for (let i = 0; i < 20; i++) pe.sinusoidal({ positions: [i], dModel: 4 }); })();
    assert.equal(pe.gpuBuffers, start + 20);
    const { setFlagsFromString } = await import('node:v8');
    const { runInNewContext } = await import('node:vm');
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc');
    for (let round = 0; round < 20 && pe.gpuBuffers > start; round++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(pe.gpuBuffers, start);
  });

  it('calls interleaved with awaits give the same results as sequential calls', async () => {
    const jobs = Array.from({ length: 12 }, (_, i) => async () => {
      await new Promise((resolve) => setTimeout(resolve, i % 3));
      const tensor = pe.sinusoidal({ length: 8, dModel: 16, offset: 1000 * i });
      await new Promise((resolve) => setTimeout(resolve, (i + 1) % 2));
      const { data } = await tensor.read();
      tensor.dispose();
      return data;
    });
    const together = await Promise.all(jobs.map((job) => job()));
    together.forEach((data, i) => assert.ok(maxAbsError(data, wasm.sinusoidal({ length: 8, dModel: 16, offset: 1000 * i }).data) < 1e-6));
  });

  it('validates on the host before dispatch: bad ids, sizes beyond the device limits, non-finite x and b, views of disposed heap arrays', async () => {
    const emb = pe.tokenEmbedding({ vocabSize: 20, dModel: 4 });
    assert.throws(() => emb.lookup(new Int32Array([3, 20])), { name: 'RangeError', message: 'ids[1] must be a token id in [0, vocabSize - 1] = [0, 19], got 20' });
    emb.dispose();
    assert.throws(() => pe.sinusoidal({ length: 2 ** 24, dModel: 1024 }), { name: 'RangeError', message: /more than this GPU's maxBufferSize of \d+ bytes/ });
    assert.throws(() => pe.sinusoidal({ length: 4, dModel: 7 }), { name: 'RangeError', message: 'dModel must be an even integer in [2, 65536], got 7' });
    const nonfinite = Float32Array.from({ length: 32 }, (_, i) => (i === 20 ? NaN : 0.5));
    assert.throws(() => pe.applyRope({ data: nonfinite, shape: [4, 8] }), { name: 'RangeError', message: 'x must be finite: x.data[16..23] (vector 2 of [..., seq, headDim]) holds NaN or ±Infinity' });
    assert.throws(() => pe.similarity({ data: new Float32Array(32), shape: [4, 8] }, { data: nonfinite, shape: [4, 8] }), { name: 'RangeError', message: 'b.data[20] must be finite, got NaN' });
    const disposed = pe.allocate(32);
    const view = disposed.data;
    disposed.dispose();
    assert.throws(() => pe.applyRope({ data: view, shape: [4, 8] }), { name: 'RangeError', message: 'x.data is a view of a pe.allocate() array that was disposed' });
    assert.throws(() => pe.similarity({ data: view, shape: [4, 8] }), { name: 'RangeError', message: 'a.data is a view of a pe.allocate() array that was disposed' });
    assert.throws(() => pe.t5Bias({ data: view, shape: [32, 1] }, { queryLength: 2, keyLength: 2 }), { name: 'RangeError', message: 'table.data is a view of a pe.allocate() array that was disposed' });
  });
});

describe('webgpu outputs larger than one binding', () => {
  it('are written slice by slice: sinusoidal and RoPE of 164 MB through 128 MB bindings', async () => {
    const pe = await load({ backend: 'webgpu', gpu: create([]), gpuLimits: { maxStorageBufferBindingSize: 2 ** 27 } });
    const wasm = await load();
    assert.equal(pe.device.limits.maxStorageBufferBindingSize, 2 ** 27);
    pe.device.pushErrorScope('validation');
    const length = 40000;
    const dModel = 1024;
    const table = pe.sinusoidal({ length, dModel, offset: 7 });
    const { data } = await table.read();
    // Rows on both sides of the slice boundary (element 2^25), and the last row.
    for (const row of [0, 32767, 32768, length - 1]) {
      const expected = wasm.sinusoidal({ length: 1, dModel, offset: 7 + row }).data;
      assert.ok(maxAbsError(data.subarray(row * dModel, (row + 1) * dModel), expected) < 1e-6, `row ${row}`);
    }
    // The same 164 MB as x [4 heads, 10000 positions, 1024]: x is read slice by slice with the output.
    table.shape = [4, 10000, dModel];
    const rotatedOnGpu = pe.applyRope(table, { offset: 3 });
    const rotated = await rotatedOnGpu.read();
    table.dispose();
    rotatedOnGpu.dispose();
    assert.equal(await pe.device.popErrorScope(), null);
    assert.equal(pe.gpuBuffers, 0);
    for (const row of [0, 32767, 32768, length - 1]) {
      const x = { data: data.slice(row * dModel, (row + 1) * dModel), shape: [1, dModel] };
      const expected = wasm.applyRope(x, { positions: [3 + (row % 10000)] }).data;
      assert.ok(maxAbsError(rotated.data.subarray(row * dModel, (row + 1) * dModel), expected) < 1e-5, `rope row ${row}`);
    }
  });
});

describe('webgpu tables larger than one binding', () => {
  it("a GPT-2-sized token table (50257 x 768, 154 MB) is bound in parts of whole rows through 128 MB bindings", async () => {
    const pe = await load({ backend: 'webgpu', gpu: create([]), gpuLimits: { maxStorageBufferBindingSize: 2 ** 27 } });
    const wasm = await load();
    const vocabSize = 50257;
    const dModel = 768;
    const rowsPerPart = Math.floor(2 ** 27 / 4 / dModel);  // 43690: rows 43690 and on are in the second part
    const weights = { data: wasm.tokenEmbedding({ vocabSize, dModel, init: { seed: 5 } }).weights.data, shape: [vocabSize, dModel] };
    const ids = new Int32Array([0, rowsPerPart - 1, rowsPerPart, rowsPerPart + 1, vocabSize - 1, 7, rowsPerPart]);
    pe.device.pushErrorScope('validation');
    const gpuTokens = pe.tokenEmbedding({ vocabSize, dModel, weights, paddingIdx: 7, scale: 'sqrt' });
    const hostTokens = wasm.tokenEmbedding({ vocabSize, dModel, weights, paddingIdx: 7, scale: 'sqrt' });
    const looked = pe.gpuBuffers;
    const result = gpuTokens.lookup(ids);
    assert.deepEqual((await result.read()).data, hostTokens.lookup(ids).data);
    result.dispose();
    assert.equal(pe.gpuBuffers, looked);

    const layer = { vocabSize, dModel, maxLength: 8, positional: 'sinusoidal', weights };
    const gpuLayer = pe.transformerEmbedding(layer);
    const fused = gpuLayer.forward({ data: ids, shape: [1, ids.length] });
    assert.ok(maxAbsError((await fused.read()).data, wasm.transformerEmbedding(layer).forward({ data: ids, shape: [1, ids.length] }).data) < 1e-5);
    fused.dispose();
    for (const owner of [gpuTokens, hostTokens, gpuLayer]) owner.dispose();
    assert.equal(await pe.device.popErrorScope(), null);
    assert.equal(pe.gpuBuffers, 0);

    // More than four parts: a RangeError that names the limit, and nothing left on the GPU.
    const huge = { data: new Float32Array(4 * rowsPerPart * dModel + dModel), shape: [4 * rowsPerPart + 1, dModel] };
    assert.throws(() => pe.tokenEmbedding({ vocabSize: huge.shape[0], dModel: huge.shape[1], weights: huge }),
      { name: 'RangeError', message: /the embedding table needs \d+ bytes, more than 4 bindings of whole rows within this GPU's maxStorageBufferBindingSize of 134217728 bytes/ });
    assert.equal(pe.gpuBuffers, 0);
  });
});

describe('webgpu similarity beyond one binding', () => {
  it('runs in blocks of rows that fit one binding and one dispatch: dot and cosine, host and GPU operands', async () => {
    // A small device, as gpuLimits asks (WebGPU itself would raise these to its defaults): 1 MiB bindings and
    // 8 workgroups a dimension, so blocks of at most 128 rows.
    const gpuLimits = { maxStorageBufferBindingSize: 2 ** 20, maxComputeWorkgroupsPerDimension: 8 };
    const pe = await load({ backend: 'webgpu', gpu: create([]), gpuLimits });
    const wasm = await load();
    pe.device.pushErrorScope('validation');
    // Every entry against wasm's (float32 sums in another order: 1e-5 relative).
    const check = async (result, expected, columns, what) => {
      const { data } = await result.read();
      result.dispose();
      assert.equal(data.length, expected.length);
      data.forEach((value, index) => {
        if (Math.abs(value - expected[index]) > 1e-5 * Math.max(1, Math.abs(expected[index]))) {
          assert.fail(`${what} [${Math.floor(index / columns)}, ${index % columns}]: ${value} vs ${expected[index]}`);
        }
      });
    };
    const tall = wasm.sinusoidal({ length: 4200, dModel: 64, offset: 3 });  // 1.08 MB: two bindings
    const few = wasm.sinusoidal({ length: 150, dModel: 64, offset: 4190 });
    for (const metric of ['dot', 'cosine']) {
      // out [150, 4200] (2.5 MB): blocks of 128 rows of a by 128 rows of b.
      await check(pe.similarity(few, tall, { metric }), wasm.similarity(few, tall, { metric }).data, 4200, `few x tall (${metric})`);
    }
    const tallOnGpu = pe.sinusoidal({ length: 4200, dModel: 64, offset: 3 });  // written in 66 slices of one dispatch
    await check(pe.similarity(tallOnGpu, few, { metric: 'cosine' }), wasm.similarity(tall, few, { metric: 'cosine' }).data, 150, 'tall (GpuTensor) x few');
    tallOnGpu.dispose();
    // One row of the output wider than a binding cannot be split into blocks of rows: a RangeError naming it.
    const wide = wasm.sinusoidal({ length: 300000, dModel: 2 });
    assert.throws(() => pe.similarity(wasm.sinusoidal({ length: 2, dModel: 2 }), wide),
      { name: 'RangeError', message: /maxStorageBufferBindingSize of 1048576 bytes/ });
    assert.equal(await pe.device.popErrorScope(), null);
    assert.equal(pe.gpuBuffers, 0);
  });
});

describe('webgpu position tables beyond one binding', () => {
  it('bind only the rows a sequence uses; a sequence whose rows exceed a binding is refused, naming the limit', async () => {
    const pe = await load({ backend: 'webgpu', gpu: create([]), gpuLimits: { maxStorageBufferBindingSize: 2 ** 20 } });
    const wasm = await load();
    // Learned positions [2000, 256]: 2 MB, twice the 1 MiB bindings this device is held to.
    const positionWeights = { data: wasm.learnedPositions({ maxLength: 2000, dModel: 256, init: { seed: 2 } }).weights.data, shape: [2000, 256] };
    const options = { vocabSize: 50, dModel: 256, maxLength: 2000, positional: 'learned', positionWeights, seed: 1 };
    const [onGpu, onWasm] = [pe.transformerEmbedding(options), wasm.transformerEmbedding(options)];
    const ids = { data: Int32Array.from({ length: 3 * 700 }, (_, j) => (j * 7) % 50), shape: [3, 700] };
    pe.device.pushErrorScope('validation');
    const result = onGpu.forward(ids);
    assert.ok(maxAbsError((await result.read()).data, onWasm.forward(ids).data) < 1e-6);
    result.dispose();
    const long = { data: new Int32Array(1100), shape: [1, 1100] };
    assert.throws(() => onGpu.forward(long), { name: 'RangeError', message: "the position rows of a sequence of 1100 need 1126400 bytes, more than this GPU's maxStorageBufferBindingSize of 1048576 bytes" });
    assert.equal(await pe.device.popErrorScope(), null);
    onGpu.dispose();
    onWasm.dispose();
    assert.equal(pe.gpuBuffers, 0);
  });
});

describe('webgpu fallback', () => {
  it("'auto' without WebGPU falls back to wasm and says why; 'webgpu' throws", async () => {
    const auto = await load({ backend: 'auto' });
    assert.equal(auto.backend, 'wasm');
    assert.match(auto.fallbackReason, /no navigator\.gpu.*using wasm/);
    await assert.rejects(load({ backend: 'webgpu' }), { message: /WebGPU is not available here/ });
    await assert.rejects(load({ backend: 'webgpu', gpu: { requestAdapter: async () => null } }), { message: 'WebGPU is available but no adapter was found' });
  });

  it('a validation error mid-run: the result is computed again on wasm, the same, and later calls use wasm', async () => {
    const pe = await load({ backend: 'webgpu', gpu: create([]) });
    const expected = (await load()).alibiBias({ numHeads: 3, keyLength: 7, causal: true });
    // Fault injection: the next bind group misses its last binding, which WebGPU's validation rejects.
    const createBindGroup = pe.device.createBindGroup.bind(pe.device);
    pe.device.createBindGroup = (descriptor) => {
      pe.device.createBindGroup = createBindGroup;
      return createBindGroup({ ...descriptor, entries: descriptor.entries.slice(0, -1) });
    };
    const faulty = pe.alibiBias({ numHeads: 3, keyLength: 7, causal: true });
    assert.deepEqual((await faulty.read()).data, expected.data);
    faulty.dispose();
    assert.equal(pe.backend, 'wasm');
    assert.match(pe.fallbackReason, /^a WebGPU error \(.+\); using wasm$/);
    assert.deepEqual((await pe.alibiBias({ numHeads: 3, keyLength: 7, causal: true }).read()).data, expected.data);
  });

  it('dispose() ends the instance and the wasm one beside it at once, and destroys the device once its queue is done: GPU ops, host ops and GPU tables all say so', async () => {
    const pe = await load({ backend: 'webgpu', gpu: create([]) });
    const table = pe.tokenEmbedding({ vocabSize: 10, dModel: 4 });  // its upload still queued
    const lost = pe.device.lost;
    const disposing = pe.dispose();
    const disposed = { name: 'Error', message: 'posembed: this instance was disposed (pe.dispose()); load() another to go on' };
    assert.throws(() => pe.sinusoidal({ length: 5, dModel: 8 }), disposed);
    assert.throws(() => pe.alibiSlopes(4), disposed);
    assert.throws(() => table.lookup([1]), disposed);
    await disposing;
    assert.equal((await lost).reason, 'destroyed');
    table.dispose();
    await pe.dispose();
  });

  it('a result whose device is lost before it is read (mapAsync fails) is computed again on wasm, and later ops use wasm', async () => {
    const pe = await load({ backend: 'webgpu', gpu: create([]) });
    const expected = (await load()).alibiBias({ numHeads: 2, keyLength: 6 });
    const pending = pe.alibiBias({ numHeads: 2, keyLength: 6 });
    pe.device.destroy();
    assert.deepEqual((await pending.read()).data, expected.data);
    assert.equal(pe.backend, 'wasm');
    assert.match(pe.fallbackReason, /^a WebGPU error \(.+\); using wasm$/);
    pending.dispose();
  });

  it('after a device loss, ops fall back to wasm with the same results and say so', async () => {
    const pe = await load({ backend: 'auto', gpu: create([]) });
    assert.equal(pe.backend, 'webgpu');
    const before = pe.sinusoidal({ length: 5, dModel: 8, offset: 3 });
    const expected = await before.read();
    before.dispose();
    pe.device.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = pe.sinusoidal({ length: 5, dModel: 8, offset: 3 });
    assert.equal(pe.backend, 'wasm');
    assert.match(pe.fallbackReason, /the WebGPU device was lost/);
    assert.ok(maxAbsError((await after.read()).data, expectedData(Array.from(expected.data))) < 1e-6);
    const x = { data: new Float32Array(16).fill(1), shape: [2, 8] };
    assert.deepEqual((await pe.applyRope(x, { offset: 2 }).read()).data, (await load()).applyRope(x, { offset: 2 }).data);
  });
});
