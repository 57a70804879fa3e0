// The site as `npm start` serves it, in Chromium: it loads cleanly, the heatmap's pixels are the encoding's
// colours, the controls re-render, and the lookup walkthrough shows the right numbers.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { rgb as parseColour } from 'd3-color';
import { interpolateRdBu, interpolateViridis } from 'd3-scale-chromatic';
import { load } from '../../dist/index.js';
import { formatValue } from '../../dist/components/figure.js';
import { useSite } from './browser.mjs';

const rgb = (css) => {
  const { r, g, b } = parseColour(css);
  return [r, g, b];
};
const RDBU_NEUTRAL = rgb(interpolateRdBu(0.5));
const RDBU_TOP = rgb(interpolateRdBu(1));

async function pixel(page, column, row) {
  return page.evaluate(([x, y]) => Array.from(document.querySelector('#heatmap').getContext('2d').getImageData(x, y, 1, 1).data.slice(0, 3)), [column, row]);
}

// Sets a control; for the explorer's own controls, waits until the heatmap is drawn again (or the error shown).
async function setControl(page, form, name, value) {
  const field = page.locator(`${form} [name="${name}"]`);
  if ((await field.evaluate((el) => el.tagName)) === 'SELECT') await field.selectOption(String(value));
  else await field.fill(String(value));
  if (form === '#controls') {
    await page.waitForFunction(() => !document.querySelector('#encoding-figure .pe-figure').classList.contains('stale')
      || !document.querySelector('#encoding-error').hidden);
  }
}

function assertColour(actual, expected, tolerance, label) {
  assert.ok(actual.every((c, i) => Math.abs(c - expected[i]) <= tolerance), `${label}: got rgb(${actual}), expected rgb(${expected})`);
}

describe('site: positional encoding explorer', () => {
  const site = useSite();
  let page;
  let problems;

  before(async () => {
    ({ page, problems } = await site.open('explorer.html'));
  });

  it('loads with no console errors, under the strict CSP, cross-origin isolated (so posembed may use threads)', async () => {
    assert.equal(await page.title(), 'posembed · Positional encoding explorer');
    assert.equal(await page.evaluate(() => globalThis.crossOriginIsolated), true);
    assert.deepEqual(problems, []);
  });

  it('paints row 0 with sin columns neutral and cos columns at the top colour', async () => {
    assert.deepEqual(await page.evaluate(() => [document.querySelector('#heatmap').width, document.querySelector('#heatmap').height]), [128, 64]);
    for (const column of [0, 2, 64, 126]) assert.deepEqual(await pixel(page, column, 0), RDBU_NEUTRAL, `sin column ${column}`);
    for (const column of [1, 3, 65, 127]) assert.deepEqual(await pixel(page, column, 0), RDBU_TOP, `cos column ${column}`);
  });

  it('colours other cells by their value on the RdBu scale', async () => {
    for (const [row, column] of [[1, 0], [3, 1], [10, 4], [63, 20]]) {
      const pair = Math.floor(column / 2);
      const angle = row / 10000 ** ((2 * pair) / 128);
      const value = column % 2 ? Math.cos(angle) : Math.sin(angle);
      assertColour(await pixel(page, column, row), rgb(interpolateRdBu((value + 1) / 2)), 3, `cell (${row}, ${column}) = ${value}`);
    }
  });

  it('re-renders when dModel changes', async () => {
    const before = await page.evaluate(() => document.querySelector('#heatmap').toDataURL());
    await setControl(page, '#controls', 'dModel', 64);
    await page.waitForFunction(() => document.querySelector('#heatmap').width === 64);
    assert.notEqual(await page.evaluate(() => document.querySelector('#heatmap').toDataURL()), before);
    assert.deepEqual(await pixel(page, 1, 0), RDBU_TOP);
  });

  it('reads out the cell under the keyboard cursor with its formula, numbers substituted', async () => {
    await page.focus('#encoding-figure .pe-plot');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    const readout = page.locator('#readout');
    assert.equal(await readout.getAttribute('data-row'), '1');
    assert.equal(await readout.getAttribute('data-column'), '2');
    const text = await readout.textContent();
    assert.match(text, /10000\^\(2\/64\)/);
    assert.match(text, /sin\(1 \/ 1\.334\)/);
    assert.match(text, new RegExp(`= ${Math.sin(1 / 10000 ** (2 / 64)).toFixed(6)}`));
  });

  it('reads out the cell under the mouse', async () => {
    const box = await page.locator('#heatmap').boundingBox();
    const [cellWidth, cellHeight] = [box.width / 64, box.height / 64];
    await page.mouse.move(box.x + cellWidth * 5.5, box.y + cellHeight * 7.5);
    assert.equal(await page.locator('#readout').getAttribute('data-row'), '7');
    assert.equal(await page.locator('#readout').getAttribute('data-column'), '5');
    assert.match(await page.locator('#readout').textContent(), /cos\(7 \/ /);
  });

  it('shows the package error for an invalid control value and keeps the last picture', async () => {
    await setControl(page, '#controls', 'dModel', 7);
    const error = page.locator('#encoding-error');
    await error.waitFor({ state: 'visible' });
    assert.equal(await error.textContent(), 'dModel must be an even integer in [2, 65536], got 7');
    assert.equal(await error.getAttribute('role'), 'alert');
    assert.equal(await page.evaluate(() => document.querySelector('#heatmap').width), 64);
    await setControl(page, '#controls', 'dModel', 128);
    await error.waitFor({ state: 'hidden' });
  });

  it('honours layout, timescale and offset', async () => {
    await setControl(page, '#controls', 'layout', 'split');
    await page.waitForFunction(() => document.querySelector('#heatmap').width === 128);
    assert.deepEqual(await pixel(page, 63, 0), RDBU_NEUTRAL, 'split: the last sine column');
    assert.deepEqual(await pixel(page, 64, 0), RDBU_TOP, 'split: the first cosine column');
    await setControl(page, '#controls', 'offset', 1000000);
    const value = Math.cos(1000000);
    assertColour(await pixel(page, 64, 0), rgb(interpolateRdBu((value + 1) / 2)), 3, 'cos(1e6)');
    await setControl(page, '#controls', 'layout', 'interleaved');
    await setControl(page, '#controls', 'offset', 0);
  });

  it('shows the waves, the frequencies, the similarity of positions and the relative-offset rotation', async () => {
    await setControl(page, '#controls', 'dModel', 128);
    await setControl(page, '#controls', 'layout', 'interleaved');
    const rates = page.locator('#frequencies-figure');
    await page.waitForFunction(() => /pair 63\)/.test(document.querySelector('#frequencies-figure figcaption').textContent));
    await rates.locator('.pe-plot').focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    const pair1 = (await rates.locator('.pe-readout').textContent()).match(/^pair 1: ω = ([\d.e+-]+) rad per position/);
    assert.ok(pair1 && Math.abs(Number(pair1[1]) / 10000 ** (-2 / 128) - 1) < 1e-4, String(pair1));  // shown to 5 digits
    assert.ok(Number(await page.getAttribute('#offset', 'data-error')) < 1e-6);
    await setControl(page, '#offset-controls', 'k', 1000);
    await page.waitForFunction(() => document.querySelector('#offset').textContent.includes('R_1000'));
    assert.ok(Number(await page.getAttribute('#offset', 'data-error')) < 2e-6);
    // The diagonal of the similarity matrix holds its largest value, PE(p) · PE(p) = dModel / 2, the top colour.
    const diagonal = await page.evaluate(() => Array.from(document.querySelector('#similarity').getContext('2d').getImageData(10, 10, 1, 1).data.slice(0, 3)));
    assert.deepEqual(diagonal, rgb(interpolateRdBu(1)));
    await setControl(page, '#wave-controls', 'dimensions', '3, 5');
    await page.waitForFunction(() => [...document.querySelectorAll('#waves-figure .pe-legend > span')].map((s) => s.textContent).join() === 'dimension 3,dimension 5');
    await setControl(page, '#wave-controls', 'dimensions', '3, 500');
    await page.waitForFunction(() => /Dimension 500 left out: the table has 128 \(0–127\)/.test(document.querySelector('#waves-figure figcaption').textContent));
    await setControl(page, '#wave-controls', 'dimensions', '3, -1');
    await page.waitForFunction(() => /dimensions must be integers from 0, separated by commas, got -1/.test(document.querySelector('#waves-error').textContent));
    await setControl(page, '#wave-controls', 'dimensions', '0, 1, 8, 40');
    // Layouts side by side: the split table starts its cosines at column dModel/2.
    await page.locator('#layout-split').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelector('#layout-split').dataset.rendered && document.querySelector('#layout-t2t').dataset.rendered);
    const split = await page.evaluate(() => [31, 32].map((x) => Array.from(document.querySelector('#layout-split').shadowRoot.querySelector('canvas').getContext('2d').getImageData(x, 0, 1, 1).data.slice(0, 3))));
    assert.deepEqual(split, [RDBU_NEUTRAL, RDBU_TOP]);
  });

  it('walks Max(1,6,2) through the lookup: ids, and every one of the 64 columns of E[id] readable from the package', async () => {
    assert.equal(await page.locator('#lookup-steps .ids').textContent(), 'ids = [15, 17, 3, 19, 8, 19, 4, 18, 0, 0]');
    // The expected rows come from the package in Node: the same seeded table (seed 0, std 1/√64).
    const pe = await load();
    const emb = pe.tokenEmbedding({ vocabSize: 20, dModel: 64, paddingIdx: 0, init: { type: 'normal', std: 1 / 8, seed: 0 } });
    const readouts = page.locator('#lookup-steps .pe-readout');
    const plots = page.locator('#lookup-steps .pe-plot');
    await plots.nth(0).focus();
    await page.keyboard.press('Home');
    for (let column = 0; column < 64; column++) {
      const expected = emb.weights.data[15 * 64 + column];
      const text = await readouts.nth(0).textContent();
      assert.equal(text, `E[id], position 0 (Max), dimension ${column}: ${formatValue(expected)}`);
      await page.keyboard.press('ArrowRight');
    }
    // × √64: the same cell, 8 times larger; the padding row (9) reads zero before positions and PE(9) after.
    await plots.nth(1).focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await readouts.nth(1).textContent(), `E[id] × 8.0000, position 0 (Max), dimension 1: ${formatValue(Math.fround(emb.weights.data[15 * 64 + 1] * 8))}`);
    await plots.nth(0).focus();
    await page.keyboard.press('PageDown');
    assert.match(await readouts.nth(0).textContent(), /^E\[id\], position 9 \(<pad>\), dimension \d+: 0$/);
    emb.dispose();
    // The two commas (rows 3 and 5) are identical until positions are added.
    assert.match(await page.locator('#lookup-steps figcaption').nth(1).textContent(), /Rows 3 and 5 are both ',': identical so far \(largest difference 0\)/);
    assert.match(await page.locator('#lookup-steps figcaption').nth(3).textContent(), /rows 3 and 5 \(','\) differ \(largest difference [1-9]/);
  });

  it('lookup panel follows its controls (d_model 8, other text) and reports unknown symbols next to them', async () => {
    await setControl(page, '#lookup-controls', 'dModel', 8);
    await page.waitForFunction(() => document.querySelector('#lookup-steps canvas').width === 8);
    await setControl(page, '#lookup-controls', 'text', 'Min(9,9)');
    await page.waitForFunction(() => document.querySelector('#lookup-steps .ids').textContent === 'ids = [14, 17, 11, 19, 11, 18, 0, 0, 0, 0]');
    await setControl(page, '#lookup-controls', 'text', 'Max(x)');
    await page.waitForFunction(() => /'x' is not in the toy vocabulary/.test(document.querySelector('#lookup-error').textContent));
    assert.equal(await page.locator('#lookup-error').isVisible(), true);
    assert.deepEqual(problems, []);
  });
});
