// The webgpu backend in Chromium (SwiftShader's WebGPU adapter): the golden vectors through the package as
// the browser loads it, each op inside a validation error scope, every buffer freed.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { REPO } from '../pack.mjs';
import { interpolateRdBu } from 'd3-scale-chromatic';
import { assertClose, loadVectors } from '../js/helpers.mjs';
import { launchChromium, openPage, startServer } from './browser.mjs';

describe('webgpu backend in Chromium', () => {
  let server;
  let browser;
  let page;
  let problems;

  before(async () => {
    server = await startServer(join(REPO, 'dist'));
    browser = await launchChromium({ webgpu: true });
    ({ page, problems } = await openPage(browser, `${server.url}index.js`));
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
  after(async () => {
    await browser?.close();
    await server?.close();
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

  it('the fused layer and the PE similarity matrix match the golden vectors', async () => {
    const combined = loadVectors('token_embedding').cases.find((c) => c.params.positional === 'sinusoidal');
    const [layer] = await run(`(pe, c) => {
      const layer = pe.transformerEmbedding({ vocabSize: c.input.table.shape[0], dModel: c.input.table.shape[1], maxLength: 16, scale: 'sqrt',
        paddingIdx: c.params.paddingIdx, weights: { data: Float32Array.from(c.input.table.data), shape: c.input.table.shape } });
      const out = layer.forward(c.input.ids);
      layer.dispose();
      return out;
    }`, combined);
    assertClose(layer, combined.expected, combined.tolerance.abs, combined.name);
    const dot = loadVectors('similarity').cases.find((c) => c.params.of === 'sinusoidal');
    const [matrix] = await run(`(pe, p) => {
      const table = pe.sinusoidal({ length: p.length, dModel: p.dModel });
      const product = pe.similarity(table);
      table.dispose();
      return product;
    }`, dot.params);
    assertClose(matrix, dot.expected, dot.tolerance.abs, dot.name);
    assert.deepEqual(problems, []);
  });
});

describe('the site on the webgpu backend', () => {
  let server;
  let browser;

  before(async () => {
    server = await startServer();
    browser = await launchChromium({ webgpu: true });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('computes the explorer and the lookup walkthrough on the GPU, with the same pictures and numbers', async () => {
    const { page, problems } = await openPage(browser, `${server.url}explorer.html`);
    await page.waitForSelector('html[data-ready="true"]', { timeout: 15000 });
    assert.equal(await page.getAttribute('html', 'data-backend'), 'webgpu');
    await page.waitForFunction(() => document.querySelector('#heatmap').width === 128 && !document.querySelector('#readout').textContent.includes('reading from the GPU'));
    const cells = [[0, 0], [1, 0], [0, 1], [4, 10], [20, 63]];
    const pixels = await page.evaluate((at) => at.map(([x, y]) => Array.from(document.querySelector('#heatmap').getContext('2d').getImageData(x, y, 1, 1).data.slice(0, 3))), cells);
    const rgb = (css) => css.match(/\d+/g).map(Number);
    cells.forEach(([column, row], i) => {
      const angle = row / 10000 ** ((2 * Math.floor(column / 2)) / 128);
      const value = column % 2 ? Math.cos(angle) : Math.sin(angle);
      const expected = rgb(interpolateRdBu((value + 1) / 2));
      assert.ok(pixels[i].every((c, k) => Math.abs(c - expected[k]) <= 3), `cell (${row}, ${column}): rgb(${pixels[i]}) vs rgb(${expected})`);
    });
    assert.match(await page.locator('#readout').textContent(), /table value \(float32\): -?\d\.\d{6}/);
    assert.equal(await page.locator('#lookup-steps .ids').textContent(), 'ids = [15, 17, 3, 19, 8, 19, 4, 18, 0, 0]');
    assert.deepEqual(problems, []);
  });
});
