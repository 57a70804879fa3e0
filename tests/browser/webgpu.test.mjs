// The webgpu backend in Chromium (SwiftShader's WebGPU adapter): the golden vectors through the package as
// the browser loads it, each op inside a validation error scope, every buffer freed.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { build } from 'vite';
import { MASKED, colormap } from '../../dist/colormap.js';
import { REPO } from '../pack.mjs';
import { tempFolder } from '../temp_folders.mjs';
import { interpolateRdBu } from 'd3-scale-chromatic';
import { assertClose, goldenEmbeddingOptions, loadVectors } from '../js/helpers.mjs';
import { useSite } from './browser.mjs';

const rgb = (css) => css.match(/\d+/g).map(Number);

describe('webgpu backend in Chromium', () => {
  const site = useSite({ siteRoot: join(REPO, 'dist'), webgpu: true });
  let page;
  let problems;

  before(async () => {
    ({ page, problems } = await site.open('index.js', { ready: false }));
    const backend = await page.evaluate(async () => {
      const { load } = await import('/index.js');
      globalThis.pe = await load({ backend: 'webgpu' });
      // Runs ops(pe) in error scopes, reads every returned tensor, disposes it, and reports what happened.
      globalThis.onGpu = async (ops) => {
        const buffers = globalThis.pe.gpuBuffers;
        globalThis.pe.device.pushErrorScope('validation');
        const tensors = [].concat(ops(globalThis.pe));
        const results = [];
        for (const tensor of tensors) {
          const { data, shape } = await tensor.read();
          results.push({ data: Array.from(data, (v) => (v === -Infinity ? null : v)), shape });
          tensor.dispose();
        }
        const error = await globalThis.pe.device.popErrorScope();
        return { results, error: error?.message ?? null, leaked: globalThis.pe.gpuBuffers - buffers };
      };
      return globalThis.pe.backend;
    });
    assert.equal(backend, 'webgpu');
  });

  // Runs a function of pe (as source text, with its arguments) in the page.
  async function run(source, args) {
    const { results, error, leaked } = await page.evaluate(([code, values]) => globalThis.onGpu((pe) => new Function('pe', 'args', `return (${code})(pe, args)`)(pe, values)), [source, args]);
    assert.equal(error, null, 'validation error');
    assert.equal(leaked, 0, 'GPU buffers left behind');
    return results.map((r) => ({ data: Float32Array.from(r.data, (v) => (v === null ? -Infinity : v)), shape: r.shape }));
  }

  it('sinusoidal, ALiBi, RoPE and sincos2d match the golden vectors', async () => {
    for (const c of loadVectors('sinusoidal').cases) {
      assertClose((await run('(pe, p) => pe.sinusoidal(p)', c.params))[0], c.expected, c.tolerance.abs, c.name);
    }
    for (const c of loadVectors('alibi_bias').cases) {
      assertClose((await run('(pe, p) => pe.alibiBias(p)', c.params))[0], c.expected, c.tolerance.abs, c.name);
    }
    for (const c of loadVectors('rope_apply').cases) {
      const { rotaryDim, base, layout, scaling } = c.params;
      const args = { x: c.input.x, options: { positions: c.input.positions, rotaryDim, base, layout, scaling } };
      const [result] = await run('(pe, a) => pe.applyRope({ data: Float32Array.from(a.x.data), shape: a.x.shape }, a.options)', args);
      assertClose(result, c.expected, c.tolerance.abs, c.name);
    }
    for (const c of loadVectors('sincos2d').cases) {
      assertClose((await run('(pe, p) => pe.sincos2d(p)', c.params))[0], c.expected, c.tolerance.abs, c.name);
    }
  });

  it('the fused layer and the PE similarity matrices match the golden vectors', async () => {
    for (const c of loadVectors('token_embedding').cases.filter((x) => x.params.positional === 'sinusoidal')) {
      const options = goldenEmbeddingOptions(c);
      const [layer] = await run(`(pe, { options, ids }) => {
        const layer = pe.transformerEmbedding({ ...options, weights: { data: Float32Array.from(options.weights.data), shape: options.weights.shape } });
        const out = layer.forward(ids);
        layer.dispose();
        return out;
      }`, { options: { ...options, weights: { data: Array.from(options.weights.data), shape: options.weights.shape } }, ids: c.input.ids });
      assertClose(layer, c.expected, c.tolerance.abs, c.name);
    }
    for (const c of loadVectors('similarity').cases.filter((x) => x.params.of === 'sinusoidal')) {
      const [matrix] = await run(`(pe, p) => {
        const table = pe.sinusoidal({ length: p.length, dModel: p.dModel });
        const product = pe.similarity(table, null, { metric: p.metric });
        table.dispose();
        return product;
      }`, c.params);
      assertClose(matrix, c.expected, c.tolerance.abs, c.name);
    }
    assert.deepEqual(problems, []);
  });

  it('a heatmap the GPU has not drawn within a second is drawn from wasm, says so, and the instance stays on WebGPU', async () => {
    const drawn = await page.evaluate(async () => {
      const { drawGpuHeatmap } = await import('/components.js');
      const draw = async (backend) => {
        const tensor = globalThis.pe.sinusoidal({ length: 8, dModel: 16 });
        const canvas = document.createElement('canvas');
        const started = performance.now();
        await drawGpuHeatmap(canvas, tensor, backend, { colormap: 'RdBu', range: { min: -1, max: 1 } });
        tensor.dispose();
        const pixel = Array.from(canvas.getContext('2d').getImageData(1, 0, 1, 1).data.slice(0, 3));
        return { ms: performance.now() - started, by: canvas.dataset.drawnBy, why: canvas.dataset.drawnWhy ?? null, width: canvas.width, pixel };
      };
      const stalled = { renderHeatmap: () => new Promise(() => {}) };  // a GPU that never finishes drawing
      return { late: await draw(stalled), onTime: await draw(globalThis.pe), backend: globalThis.pe.backend };
    });
    const top = rgb(interpolateRdBu(1));  // row 0, column 1: cos 0 = 1
    assert.equal(drawn.late.by, 'wasm');
    assert.equal(drawn.late.why, 'the GPU had not drawn it within 1 s');
    assert.ok(drawn.late.ms >= 1000 && drawn.late.ms < 5000, `drawn after ${drawn.late.ms} ms`);
    assert.equal(drawn.late.width, 16);
    assert.ok(drawn.late.pixel.every((c, k) => Math.abs(c - top[k]) <= 3), `rgb(${drawn.late.pixel})`);
    assert.deepEqual({ ...drawn.onTime, ms: 0 }, { ms: 0, by: 'webgpu', why: null, width: 16, pixel: drawn.onTime.pixel });
    assert.ok(drawn.onTime.pixel.every((c, k) => Math.abs(c - top[k]) <= 3), `rgb(${drawn.onTime.pixel})`);
    assert.equal(drawn.backend, 'webgpu');
  });

  it('dispose() ends an instance of its own at once and destroys its device once the queue is done', async () => {
    const { lost, messages } = await page.evaluate(async () => {
      const { load } = await import('/index.js');
      const pe = await load({ backend: 'webgpu' });
      const table = pe.tokenEmbedding({ vocabSize: 10, dModel: 4 });  // its upload still queued
      const deviceLost = pe.device.lost;
      const disposing = pe.dispose();
      const attempts = [() => pe.sinusoidal({ length: 2, dModel: 4 }), () => pe.alibiSlopes(4), () => table.lookup([1])];
      const out = attempts.map((attempt) => { try { attempt(); return 'no error'; } catch (error) { return error.message; } });
      await disposing;
      table.dispose();
      return { lost: (await deviceLost).reason, messages: out };
    });
    assert.equal(lost, 'destroyed');
    assert.deepEqual(messages, Array(3).fill('posembed: this instance was disposed (pe.dispose()); load() another to go on'));
    assert.equal((await run('(pe) => pe.sinusoidal({ length: 2, dModel: 2 })'))[0].data[1], 1, 'the shared instance is untouched');
  });
});

describe('the site on the webgpu backend', () => {
  const site = useSite({ webgpu: true });

  // The explorer's default table (64 x 128 sinusoidal) at a few cells, against the colormap of float64 values.
  async function assertExplorerPicture(page) {
    const cells = [[0, 0], [1, 0], [0, 1], [4, 10], [20, 63]];
    const pixels = await page.evaluate((at) => at.map(([x, y]) => Array.from(document.querySelector('#heatmap').getContext('2d').getImageData(x, y, 1, 1).data.slice(0, 3))), cells);
    cells.forEach(([column, row], i) => {
      const angle = row / 10000 ** ((2 * Math.floor(column / 2)) / 128);
      const value = column % 2 ? Math.cos(angle) : Math.sin(angle);
      const expected = rgb(interpolateRdBu((value + 1) / 2));
      assert.ok(pixels[i].every((c, k) => Math.abs(c - expected[k]) <= 3), `cell (${row}, ${column}): rgb(${pixels[i]}) vs rgb(${expected})`);
    });
  }

  it('computes the explorer and the lookup walkthrough on the GPU, with the same pictures and numbers', async () => {
    const { page, problems } = await site.open('explorer.html');
    assert.equal(await page.getAttribute('html', 'data-backend'), 'webgpu');
    // Drawn by the render pipeline, then read back once for the readout, which fills in with no pointer over it.
    await page.waitForFunction(() => document.querySelector('#heatmap').width === 128);
    assert.equal(await page.getAttribute('#heatmap', 'data-drawn-by'), 'webgpu');
    await assertExplorerPicture(page);
    await page.waitForFunction(() => !document.querySelector('#readout').textContent.includes('reading from the GPU'));
    assert.match(await page.locator('#readout').textContent(), /table value \(float32\): -?\d\.\d{6}/);
    await page.locator('#heatmap').hover({ position: { x: 2, y: 2 } });
    assert.match(await page.locator('#readout').textContent(), /table value \(float32\): -?\d\.\d{6}/);
    assert.equal(await page.locator('#lookup-steps .ids').textContent(), 'ids = [15, 17, 3, 19, 8, 19, 4, 18, 0, 0]');
    assert.deepEqual(problems, []);
  });

  it('reads the table and paints it with canvas 2D where WebGPU cannot draw into a canvas', async () => {
    const context = await site.browser.newContext();
    await context.addInitScript(() => {
      const getContext = OffscreenCanvas.prototype.getContext;
      OffscreenCanvas.prototype.getContext = function withoutWebgpu(kind, ...rest) { return kind === 'webgpu' ? null : getContext.call(this, kind, ...rest); };
    });
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${site.server.url}explorer.html`);
    await page.waitForSelector('html[data-ready="true"]', { timeout: 15000 });
    assert.equal(await page.getAttribute('html', 'data-backend'), 'webgpu');
    await page.waitForFunction(() => document.querySelector('#heatmap').width === 128);
    await assertExplorerPicture(page);
    assert.ok(await page.locator('#encoding-error').isHidden());
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe('renderHeatmap in Chromium: a GpuTensor drawn by a render pipeline', () => {
  let page;
  let problems;
  let project;

  before(async () => {
    // The package as an app bundles it (the colormaps' library is a bare import), served under the strict CSP.
    project = tempFolder('render');
    writeFileSync(join(project, 'index.html'), '<!doctype html><title>render</title><body><script type="module" src="./main.js"></script></body>');
    writeFileSync(join(project, 'main.js'), `
      import { load } from ${JSON.stringify(join(REPO, 'dist/index.js'))};
      import { heatmapPixels } from ${JSON.stringify(join(REPO, 'dist/colormap.js'))};
      globalThis.pe = await load({ backend: 'webgpu' });
      globalThis.heatmapPixels = heatmapPixels;
      document.body.dataset.ready = 'true';
    `);
    await build({ root: project, logLevel: 'silent', build: { outDir: join(project, 'bundle'), assetsInlineLimit: 0 } });
  });
  const site = useSite({ siteRoot: () => join(project, 'bundle'), webgpu: true });  // after the build above
  before(async () => {
    ({ page, problems } = await site.open('', { ready: false }));
    await page.waitForSelector('body[data-ready]', { state: 'attached', timeout: 15000 });
  });

  // Each cell's colour must be the canvas 2D picture's, or its neighbour in the table where the float32
  // arithmetic of the shader and the float64 of heatmapPixels round a value within 1e-3 of half a step apart.
  function assertSamePicture(rgba, width, values, { colormap: name, range }, what) {
    const map = colormap(name, range);
    let ties = 0;
    values.forEach((value, cell) => {
      const actual = Array.from(rgba.subarray(cell * 4, cell * 4 + 3));
      if (!Number.isFinite(value)) {
        assert.deepEqual(actual, MASKED.rgb, `${what}: cell ${cell} (masked) is the masked grey`);
        return;
      }
      const position = ((value - map.low) / map.span) * (map.steps - 1);
      const nearest = map.index(value);
      const allowed = Math.abs((position % 1) - 0.5) < 1e-3 ? [nearest, position < nearest ? nearest - 1 : nearest + 1] : [nearest];
      if (allowed.length > 1) ties++;
      const colours = allowed.map((k) => Array.from(map.rgb.subarray(k * 3, k * 3 + 3)));
      assert.ok(colours.some((c) => c.every((v, k) => v === actual[k])), `${what}: cell (${Math.floor(cell / width)}, ${cell % width}) = ${value}: rgb(${actual}), expected rgb(${colours.join(' or ')})`);
    });
    return ties;
  }

  it('draws onto a page canvas (seen in a screenshot) and onto an OffscreenCanvas, the same colours as canvas 2D, reading nothing back', async () => {
    const options = { colormap: 'RdBu', range: { min: -1, max: 1 } };
    const drawn = await page.evaluate(async (o) => {
      const { pe } = globalThis;
      const buffers = pe.gpuBuffers;
      const tensor = pe.sinusoidal({ length: 48, dModel: 64, offset: 5 });
      let maps = 0;
      const mapAsync = GPUBuffer.prototype.mapAsync;
      GPUBuffer.prototype.mapAsync = function counted(...args) { maps++; return mapAsync.apply(this, args); };
      pe.device.pushErrorScope('validation');
      const canvas = Object.assign(document.createElement('canvas'), { id: 'gpu' });
      canvas.style.cssText = 'display:block;width:64px;height:48px';
      document.body.append(canvas);
      await pe.renderHeatmap(tensor, canvas, o);
      const offscreen = new OffscreenCanvas(1, 1);
      await pe.renderHeatmap(tensor, offscreen, o);
      const copy = Object.assign(document.createElement('canvas'), { width: offscreen.width, height: offscreen.height });
      copy.getContext('2d').drawImage(offscreen, 0, 0);
      const error = await pe.device.popErrorScope();
      const mapsWhileDrawing = maps;
      GPUBuffer.prototype.mapAsync = mapAsync;
      const { data } = await tensor.read();
      tensor.dispose();
      return {
        size: [canvas.width, canvas.height], error: error?.message ?? null, mapsWhileDrawing, leaked: pe.gpuBuffers - buffers,
        copied: Array.from(copy.getContext('2d').getImageData(0, 0, 64, 48).data), values: Array.from(data),
      };
    }, options);
    assert.deepEqual(drawn.size, [64, 48]);
    assert.equal(drawn.error, null);
    assert.equal(drawn.mapsWhileDrawing, 0, 'nothing mapped (read back) while drawing');
    assert.equal(drawn.leaked, 0);
    await new Promise((resolve) => setTimeout(resolve, 100));  // presented with the next frame
    const shot = PNG.sync.read(await page.locator('#gpu').screenshot());
    assert.deepEqual([shot.width, shot.height], [64, 48]);
    const ties = assertSamePicture(shot.data, 64, drawn.values, options, 'page canvas');
    assertSamePicture(Uint8Array.from(drawn.copied), 64, drawn.values, options, 'OffscreenCanvas');
    assert.ok(ties < 10, `${ties} cells near a rounding tie`);
    assert.deepEqual(problems, []);
  });

  it('draws one head of a causal ALiBi bias with viridis, masked cells grey', async () => {
    const options = { colormap: 'viridis', index: 2 };
    const drawn = await page.evaluate(async (o) => {
      const { pe } = globalThis;
      const slope = pe.alibiSlopes(4).data[2];
      const range = { min: -slope * 23, max: 0 };
      const tensor = pe.alibiBias({ numHeads: 4, keyLength: 24, causal: true });
      pe.device.pushErrorScope('validation');
      const offscreen = new OffscreenCanvas(1, 1);
      await pe.renderHeatmap(tensor, offscreen, { ...o, range });
      const copy = Object.assign(document.createElement('canvas'), { width: offscreen.width, height: offscreen.height });
      copy.getContext('2d').drawImage(offscreen, 0, 0);
      const error = await pe.device.popErrorScope();
      const { data } = await tensor.read();
      tensor.dispose();
      return { range, error: error?.message ?? null, copied: Array.from(copy.getContext('2d').getImageData(0, 0, 24, 24).data), head: Array.from(data.subarray(2 * 576, 3 * 576), (v) => (v === -Infinity ? null : v)) };
    }, options);
    assert.equal(drawn.error, null);
    const values = drawn.head.map((v) => (v === null ? -Infinity : v));
    assert.equal(values.filter((v) => v === -Infinity).length, (24 * 23) / 2);
    assertSamePicture(Uint8Array.from(drawn.copied), 24, values, { colormap: 'viridis', range: drawn.range }, 'ALiBi head 2');
  });

  it('refuses what it cannot draw, naming the parameter, and stays usable', async () => {
    const { messages, error, leaked } = await page.evaluate(async () => {
      const { pe } = globalThis;
      const buffers = pe.gpuBuffers;
      pe.device.pushErrorScope('validation');
      const canvas = new OffscreenCanvas(1, 1);
      const table = pe.sinusoidal({ length: 4, dModel: 8 });
      const buckets = pe.t5Buckets({ queryLength: 3, keyLength: 3 });
      const attempts = [
        () => pe.renderHeatmap(table, canvas, {}),
        () => pe.renderHeatmap(table, canvas, { range: { min: 1, max: -1 } }),
        () => pe.renderHeatmap(table, canvas, { range: { min: -1, max: 1 }, index: 1 }),
        () => pe.renderHeatmap(table, canvas, { range: { min: -1, max: 1 }, colormap: 'jet' }),
        () => pe.renderHeatmap(buckets, canvas, { range: { min: 0, max: 31 } }),
        () => pe.renderHeatmap({ data: new Float32Array(4), shape: [2, 2] }, canvas, { range: { min: 0, max: 1 } }),
      ];
      const out = [];
      for (const attempt of attempts) out.push(await attempt().then(() => 'drawn', (error) => `${error.name}: ${error.message}`));
      buckets.dispose();
      // Fault injection: the next bind group misses its last binding, which WebGPU's validation rejects.
      const createBindGroup = pe.device.createBindGroup.bind(pe.device);
      pe.device.createBindGroup = (descriptor) => {
        pe.device.createBindGroup = createBindGroup;
        return createBindGroup({ ...descriptor, entries: descriptor.entries.slice(0, -1) });
      };
      out.push(await pe.renderHeatmap(table, canvas, { range: { min: -1, max: 1 } }).then(() => 'drawn', (error) => `${error.name}: ${error.message}`));
      await pe.renderHeatmap(table, canvas, { range: { min: -1, max: 1 } });
      out.push(`drawn ${canvas.width} x ${canvas.height}`);
      table.dispose();
      out.push(await pe.renderHeatmap(table, canvas, { range: { min: -1, max: 1 } }).then(() => 'drawn', (error) => `${error.name}: ${error.message}`));
      const scope = await pe.device.popErrorScope();
      return { messages: out, error: scope?.message ?? null, leaked: pe.gpuBuffers - buffers };
    });
    assert.equal(error, null);
    assert.equal(leaked, 0);
    assert.match(messages[0], /^RangeError: range must be \{ min, max \} with finite min <= max/);
    assert.match(messages[1], /^RangeError: range must be/);
    assert.equal(messages[2], 'RangeError: index must be an integer in [0, 0], got 1');
    assert.equal(messages[3], "RangeError: colormap must be one of RdBu, viridis, got 'jet'");
    assert.match(messages[4], /^TypeError: renderHeatmap draws float32 GpuTensors/);
    assert.match(messages[5], /^TypeError: renderHeatmap draws a GpuTensor that is not disposed/);
    assert.match(messages[6], /^Error: WebGPU error while drawing the heatmap: /);
    assert.equal(messages[7], 'drawn 8 x 4');
    assert.match(messages[8], /^TypeError: renderHeatmap draws a GpuTensor that is not disposed/);
  });
});
