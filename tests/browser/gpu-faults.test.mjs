// WebGPU faults never reach the page: Chromium with the SwiftShader adapter but without ANGLE's SwiftShader, where
// presenting a WebGPU canvas drops the WebGPU instance (as a flaky GPU may). Every page falls back to wasm and
// canvas 2D by itself, draws, and shows no error.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rgb as parseColour } from 'd3-color';
import { interpolateRdBu } from 'd3-scale-chromatic';
import { PAGES, openDrawn, useSite, visibleErrors } from './browser.mjs';

const rgb = (css) => { const { r, g, b } = parseColour(css); return [r, g, b]; };

describe('pages where WebGPU cannot present a canvas', () => {
  const site = useSite({ webgpu: 'adapter-only' });

  for (const name of PAGES) {
    it(`${name}.html draws with no page error and no error shown`, async () => {
      const { page, problems } = await openDrawn(site, name);
      await page.waitForTimeout(500);  // a dropped instance is reported after the frame that presents
      assert.deepEqual(problems, []);
      assert.deepEqual(await visibleErrors(page), []);
      await page.close();
    });
  }

  it('explorer: the heatmap is drawn all the same (row 0: sin neutral, cos at the top colour), redraws, and its readout reads the table', async () => {
    const { page, problems } = await openDrawn(site, 'explorer');
    const pixel = (x, y) => page.evaluate(([px, py]) => Array.from(document.querySelector('#heatmap').getContext('2d').getImageData(px, py, 1, 1).data.slice(0, 3)), [x, y]);
    await page.waitForFunction(() => document.querySelector('#heatmap').width === 128);
    // An adapter is there, so load({ backend: 'auto' }) took WebGPU; the page went on on wasm after the fault.
    assert.equal(await page.evaluate(async () => Boolean(await navigator.gpu?.requestAdapter())), true);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.backend), 'wasm');
    await page.waitForFunction(() => document.querySelector('#heatmap').getContext('2d').getImageData(1, 0, 1, 1).data[3] === 255);
    assert.deepEqual(await pixel(0, 0), rgb(interpolateRdBu(0.5)));
    assert.deepEqual(await pixel(1, 0), rgb(interpolateRdBu(1)));
    await page.locator('#controls [name="dModel"]').fill('64');
    await page.waitForFunction(() => document.querySelector('#heatmap').width === 64);
    assert.deepEqual(await pixel(1, 0), rgb(interpolateRdBu(1)));
    await page.locator('#encoding-figure .pe-plot').focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => /table value \(float32\): 1\.000000/.test(document.querySelector('#readout').textContent));
    await page.waitForTimeout(500);
    assert.deepEqual(problems, []);
    assert.deepEqual(await visibleErrors(page), []);
    await page.close();
  });
});
