// The home page's guided tour, idea by idea: what each figure must show, checked against the package in Node
// and against the invariants the tour teaches.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rgb as parseColour } from 'd3-color';
import { interpolateRdBu, interpolateViridis } from 'd3-scale-chromatic';
import { MASKED } from '../../dist/colormap.js';
import { load } from '../../dist/index.js';
import { TOY_VOCABULARY, toyIds } from '../../dist/toy_vocabulary.js';
import { useSite } from './browser.mjs';

const rgb = (css) => { const { r, g, b } = parseColour(css); return [r, g, b]; };

// Pixel (column, row) of the n-th heatmap canvas in a section: one canvas pixel per cell.
const cellColour = (page, section, n, column, row) => page.evaluate(([s, i, x, y]) => {
  const canvas = document.querySelectorAll(`${s} .pe-plot canvas`)[i];
  return Array.from(canvas.getContext('2d').getImageData(x, y, 1, 1).data.slice(0, 3));
}, [section, n, column, row]);

async function setField(page, section, name, value) {
  await page.locator(`${section} [name="${name}"]`).fill(String(value));
}

describe('the guided tour (index.html)', () => {
  const site = useSite();
  let page;
  let problems;
  let pe;
  before(async () => {
    ({ page, problems } = await site.open('index.html'));
    pe = await load();
  });
  after(() => page?.close());

  it('on a phone (390 px), every idea is at most about three screens long (its own content, without the ideas within it), and an idea within a section opens with its own heading', async () => {
    const phone = await site.open('index.html', { width: 390 });
    const ideas = await phone.page.evaluate(() => [...document.querySelectorAll('main section[id], main .idea[id]')].map((idea) => {
      const nested = [...idea.querySelectorAll('.idea[id]')].reduce((sum, inner) => sum + inner.getBoundingClientRect().height, 0);
      const first = [...idea.children].find((child) => !child.matches('form, p.idea-error'));
      return { id: idea.id, height: idea.getBoundingClientRect().height - nested, nested: Boolean(idea.parentElement.closest('section[id]')), heading: first?.matches('h2, h3') ?? false };
    }));
    await phone.page.close();
    assert.ok(ideas.length >= 18, `${ideas.length} ideas`);
    for (const idea of ideas) {
      assert.ok(idea.height <= 2700, `${idea.id}: ${Math.round(idea.height)} px at 390 px wide (more than about three screens of 844 px)`);
      assert.ok(idea.heading, `${idea.id} opens without a heading`);
    }
  });

  it('12 · what a positional encoding should do, each property measured on each encoding', async () => {
    const cell = (property, encoding) => page.locator(`#desiderata tbody tr:nth-child(${property}) td[data-encoding="${encoding}"]`);
    const holds = async (property, encoding) => (await cell(property, encoding).getAttribute('data-holds')) === 'true';
    // Rows: bounded, past the training length, relative, nothing to learn, far distances apart.
    assert.deepEqual(await Promise.all(['sinusoidal', 'learned', 'rope', 'alibi', 't5'].map((e) => holds(2, e))), [true, false, true, true, true]);
    assert.deepEqual(await Promise.all(['sinusoidal', 'learned', 'rope', 'alibi', 't5'].map((e) => holds(4, e))), [true, false, true, true, false]);
    assert.equal(await holds(1, 'alibi'), false);
    assert.equal(await holds(5, 't5'), false);
    // The numbers behind them, against float64: ALiBi's head 1 slope is 2^-1 for 8 heads, at distance 63.
    assert.match(await cell(1, 'alibi').textContent(), /bias at distance 63 is -31\.5$/);
    assert.match(await cell(2, 'learned').textContent(), /lookup\(64\) → RangeError: length 64 is past maxLength 32$/);
    const spread = Number((await cell(3, 'sinusoidal').textContent()).match(/largest difference ([\d.e+-]+)\)/)[1]);
    assert.ok(spread < 1e-4, `${spread}`);
    assert.match(await cell(5, 't5').textContent(), /distances from 32 on share one bucket \(distance 32: bucket (\d+), distance 63: bucket \1\)/);
  });

  it('tells one story in a beginner\'s order, from a token\'s row to Llama 3.1 at 128K; each figure with a caption and an accessible name', async () => {
    const titles = await page.locator('main h2').allTextContents();
    assert.deepEqual(titles, ['A token as a row of numbers', 'From text to rows: the lookup', 'Without positions, order is invisible',
      'Why not just count?', 'A binary clock', 'Sines and cosines: the barber pole', 'Why multiply by √d_model', 'Add, or put side by side?',
      'Relative position', 'Past the training length', 'How Llama 3.1 reads 128,000 tokens', 'What a positional encoding should do', 'Further']
      .map((title, i) => `${i + 1} · ${title}`));
    assert.deepEqual(await page.locator('.tour-index a').evaluateAll((as) => as.map((a) => a.getAttribute('href'))),
      await page.locator('main > section').evaluateAll((all) => all.map((s) => `#${s.id}`)));
    const figures = await page.locator('main .pe-figure').evaluateAll((all) => all.map((f) => ({
      name: f.querySelector('.pe-plot').getAttribute('aria-label'), caption: f.querySelector('figcaption').textContent })));
    assert.ok(figures.length >= 14, `${figures.length} figures`);
    for (const figure of figures) {
      assert.ok(figure.name && figure.name.length > 10, JSON.stringify(figure));
      assert.ok(figure.caption.length > 30, JSON.stringify(figure));
    }
    // The capstone: Llama 3.1 in plain words, then how far each pair turns over 8K and 128K.
    const capstone = page.locator('#capstone-model');
    await capstone.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelector('#capstone-model').dataset.rendered);
    assert.match(await capstone.evaluate((el) => el.shadowRoot.querySelector('.story').textContent), /pretrained on texts of up to 8,192 tokens and reads up to 131,072/);
    assert.equal(await capstone.evaluate((el) => el.shadowRoot.querySelector('figure:not([hidden]) .pe-title').textContent), 'How far each pair turns');
  });

  it('1 · one-hot rows: every two tokens √2 apart, and one-hot × table is the lookup, to the bit; the memory it would take', async () => {
    const section = page.locator('#one-hot');
    assert.equal(await section.getAttribute('data-largest-difference'), '0');
    const [nearest, farthest] = (await section.getAttribute('data-distances')).split(' ').map(Number);
    assert.ok(Math.abs(nearest - Math.SQRT2) < 1e-6 && Math.abs(farthest - Math.SQRT2) < 1e-6, `${nearest} ${farthest}`);
    assert.equal(await section.locator('.one-hot canvas').evaluate((c) => `${c.width}x${c.height}`), '20x8');
    // Each one-hot row lights exactly one cell: the token's id in the toy vocabulary (Max is 15).
    const firstRow = await section.locator('.one-hot canvas').evaluate((c) => Array.from(c.getContext('2d').getImageData(0, 0, 20, 1).data));
    const lit = [...Array(20).keys()].filter((column) => firstRow[4 * column + 1] > 200);
    assert.deepEqual(lit, [15]);
    assert.match(await section.locator('.memory').textContent(), /8 × 1024 × 50257 × 4 bytes = 1\.65 GB; as ids it is 32\.8 kB, and the table they index, \[50257 × 768\], 154 MB once/);
    await section.locator('[name="text"]').fill('First(3,3)');
    await page.waitForFunction(() => document.querySelector('#one-hot .one-hot canvas').height === 6);
    assert.equal(await section.getAttribute('data-largest-difference'), '0');
    await section.locator('[name="text"]').fill('Max(1,6,2)');
    await page.waitForFunction(() => document.querySelector('#one-hot .one-hot canvas').height === 8);
  });

  it('4 · why not just count: the raw count reaches length − 1, the fraction\'s step is 1/length', async () => {
    await setField(page, '#counting', 'length', 200);
    await page.waitForFunction(() => /reaches 199/.test(document.querySelector('#counting figcaption').textContent));
    await page.locator('#counting .pe-plot').nth(0).focus();
    await page.keyboard.press('End');
    assert.match(await page.locator('#counting .pe-readout').nth(0).textContent(), /^position p 199: raw count p 199, p \/ length 0\.9950, /);
    await page.locator('#counting .pe-plot').nth(1).focus();
    await page.keyboard.press('Home');
    assert.equal(await page.locator('#counting .pe-readout').nth(1).textContent(), 'p/len, 10: 0.1000');
    await page.keyboard.press('ArrowRight');
    // The sinusoids' step from p to p + 1, from the package: the same at every length.
    const table = pe.sinusoidal({ length: 2, dModel: 64 });
    let step = 0;
    for (let c = 0; c < 64; c++) step += (table.data[64 + c] - table.data[c]) ** 2;
    assert.equal(await page.locator('#counting .pe-readout').nth(1).textContent(), `sin, 10: ${Math.sqrt(step).toFixed(4)}`);
    // The second plot follows the slider too: the reader's length among the bars, and in the caption.
    assert.deepEqual((await page.locator('#counting .pe-figure').nth(1).locator('.tick text').allTextContents()).filter((t) => t.includes('yours')), ['p/len, 200 (yours)', 'sin, 200 (yours)']);
    assert.match(await page.locator('#counting figcaption').nth(1).textContent(), /0\.005 in your 200-token one/);
  });

  it('5 · binary clock: the bits of each position beside the sinusoids at doubling wavelengths', async () => {
    // Position 5 = 101b: bits 2^0 and 2^2 on (top colour), 2^1 off.
    assert.deepEqual(await cellColour(page, '#binary', 0, 0, 5), rgb(interpolateViridis(1)));
    assert.deepEqual(await cellColour(page, '#binary', 0, 1, 5), rgb(interpolateViridis(0)));
    assert.deepEqual(await cellColour(page, '#binary', 0, 2, 5), rgb(interpolateViridis(1)));
    assert.match(await page.locator('#binary figcaption').nth(1).textContent(), /6\.28, 12\.6, 25\.1, 50\.3 positions \(each 2\.000× the last\)/);
    // Row 0 of the sinusoids: sin columns 0 (neutral), cos columns 1 (top colour).
    assert.deepEqual(await cellColour(page, '#binary', 1, 0, 0), rgb(interpolateRdBu(0.5)));
    assert.deepEqual(await cellColour(page, '#binary', 1, 1, 0), rgb(interpolateRdBu(1)));
  });

  it('6 · barber pole: the table with its axes and colour bar, and each pair\'s wavelength read from it', async () => {
    const frame = await page.locator('#barber .pe-figure').nth(0).evaluate((f) => ({
      labels: Array.from(f.querySelectorAll('.pe-axis-label'), (t) => t.textContent), bar: f.querySelector('.pe-colourbar').textContent }));
    assert.deepEqual(frame.labels, ['dimension', 'position']);
    assert.match(frame.bar, /red = negative, white = 0, blue = positive/);
    // One legend line: the colour words beside the ramp, not under it.
    const [ramp, words] = await page.locator('#barber .pe-figure').nth(0).evaluate((f) => ['svg', 'span'].map((tag) => {
      const box = f.querySelector(`.pe-colourbar > ${tag}`).getBoundingClientRect();
      return { left: box.left, right: box.right, top: box.top, bottom: box.bottom };
    }));
    assert.ok(words.left >= ramp.right && words.top < ramp.bottom, `ramp ${JSON.stringify(ramp)}, words ${JSON.stringify(words)}`);
    await page.locator('#barber .pe-plot').nth(1).focus();
    await page.keyboard.press('End');
    // Pair 31 of the tutorial's d = 64: wavelength 2π·10000^(62/64).
    const expected = 2 * Math.PI * 10000 ** (62 / 64);
    const shown = Number((await page.locator('#barber .pe-readout').nth(1).textContent()).match(/wavelength ([\d.e+]+)/)[1]);
    assert.ok(Math.abs(shown - expected) / expected < 2e-3, `${shown} vs ${expected}`);
    // The tutorial's misprinted divisors, against the table's: 10000^(2i/64) in float64.
    const measured = (await page.locator('#barber .tutorial-note[data-note="divisors"]').getAttribute('data-measured')).split(' ');
    assert.deepEqual(measured, [1, 2, 10, 31].map((i) => (10000 ** ((2 * i) / 64)).toPrecision(i === 31 ? 4 : 3)));
    assert.match(await page.locator('#barber .tutorial-note[data-note="divisors"]').textContent(), /prints, for i = 1, 2, 10 and 31, 1\.17, 1\.37, 3\.98, 6812\. Read from the package's table at d = 64 they are 1\.33, 1\.78, 17\.8, 7499/);
    // Check yourself: PE(2, 4) at d = 64 and row 0's pattern, read from the package's table.
    assert.equal(await page.locator('#barber [data-answer="pe-2-4"] .value').textContent(), Math.sin(2 / 10000 ** (4 / 64)).toFixed(4));
    assert.equal(await page.locator('#barber [data-answer="row-0"] .value').textContent(), '0, 1, 0, 1, 0, 1, 0, 1, …');
    assert.equal(await page.locator('#barber .check-yourself').count(), 3);
  });

  it('6 · every position its own signature: distances by offset for three bases, near collisions only with few columns', async () => {
    // ‖PE(p) − PE(p + k)‖ in float64: each pair contributes 2 − 2 cos(ω_i k).
    const apart = (base, dModel, k) => {
      let sum = 0;
      for (let i = 0; i < dModel / 2; i++) sum += 2 - 2 * Math.cos(k * base ** (-2 * i / dModel));
      return Math.sqrt(sum);
    };
    const table = () => page.locator('#signature tbody tr').evaluateAll((rows) => rows.map((row) => ({
      base: Number(row.dataset.base), collides: row.dataset.collides === 'true', still: Number(row.dataset.still),
      cells: Array.from(row.cells, (cell) => cell.textContent) })));
    let measured = await table();
    assert.deepEqual(measured.map((row) => row.base), [100, 1e4, 1e6]);
    for (const row of measured) {
      assert.equal(row.cells[1], apart(row.base, 64, 1).toFixed(3));
      assert.equal(row.collides, false);
      // Pairs turning under π/4 over 1023 positions.
      const still = Array.from({ length: 32 }, (_, i) => row.base ** (-2 * i / 64) * 1023 < Math.PI / 4).filter(Boolean).length;
      assert.equal(row.still, still);
    }
    assert.match(measured[0].cells[3], /^544 \(comes round within the length\)$/);
    assert.match(await page.locator('#signature figcaption').textContent(), /Base 100's slowest pair comes round every 544 positions/);
    assert.equal(await page.locator('#signature .pe-legend').textContent(), 'base 100base 10⁴base 10⁶');
    // Four pairs: in 1024 positions every base puts a far position closer than a neighbour, at the offset float64 finds.
    await setField(page, '#signature', 'dModel', 8);
    await page.waitForFunction(() => document.querySelectorAll('#signature tbody tr[data-collides="true"]').length === 3);
    measured = await table();
    for (const row of measured) {
      const distances = Array.from({ length: 1024 }, (_, k) => apart(row.base, 8, k));
      let closest = 10;
      for (let k = 11; k < 1024; k++) if (distances[k] < distances[closest]) closest = k;
      assert.ok(distances[closest] < distances[1]);
      assert.equal(row.cells[2], `${distances[closest].toFixed(3)} at k = ${closest}: closer than a neighbour`);
    }
    assert.match(await page.locator('#signature figcaption').textContent(), /With only 4 pairs, base 100, base 10⁴, base 10⁶ put a far position closer than a neighbour/);
    await setField(page, '#signature', 'dModel', 64);
    await page.waitForFunction(() => document.querySelectorAll('#signature tbody tr[data-collides="true"]').length === 0);
  });

  it('2 · dropout once, after the sum: zeroed cells, the rest the plain sum × 1/(1 − p)', async () => {
    const read = () => page.locator('#dropout').evaluate((s) => [Number(s.dataset.zeroed), Number(s.dataset.largestDifference)]);
    for (const p of [0.1, 0.5, 0]) {
      await setField(page, '#dropout', 'p', p);
      await page.waitForFunction((text) => document.querySelector('#dropout .dropout-check').textContent.includes(text), `at p = ${p})`);
      const [zeroed, largest] = await read();
      // 256 cells: zeroed ~ Binomial(256, p), within five standard deviations.
      assert.ok(Math.abs(zeroed - 256 * p) <= 5 * Math.sqrt(256 * p * (1 - p)) + 1e-9, `p = ${p}: ${zeroed} zeroed`);
      assert.ok(largest < 1e-5, `p = ${p}: ${largest}`);
    }
    await setField(page, '#dropout', 'p', 0.95);
    await page.waitForFunction(() => /dropout p must be a number in \[0, 0\.9\], got 0\.95/.test(document.querySelector('#dropout .idea-error').textContent));
    await setField(page, '#dropout', 'p', 0.1);
  });

  it('3 · permutation: without positions the outputs are the same rows reordered (equivariant), their mean unmoved (invariant); with positions they differ', async () => {
    const difference = () => page.locator('#permutation').evaluate((s) => Number(s.dataset.permutedDifference));
    assert.ok(await difference() < 1e-5, `without positions: ${await difference()}`);
    assert.ok(await page.locator('#permutation').evaluate((s) => Number(s.dataset.meanDifference)) < 1e-6);
    assert.match(await page.locator('#permutation .verdict').textContent(), /permutation-equivariant .* permutation-invariant \(here it moves by (0|\d\.\d+ × 10⁻[⁰¹²³⁴⁵⁶⁷⁸⁹]+)\)\.$/);
    // A recurrent network over the same rows, no positions: its last states differ for the two orders.
    assert.ok(await page.locator('#permutation').evaluate((s) => Number(s.dataset.recurrentApart)) > 0.05);
    assert.match(await page.locator('#permutation .verdict').textContent(), /^Without positions: .* the last rows are identical/);
    await page.locator('#permutation [name="positions"]').check();
    await page.waitForFunction(() => /^With positions/.test(document.querySelector('#permutation .verdict').textContent));
    assert.ok(await difference() > 0.05, `with positions: ${await difference()}`);
    await page.locator('#permutation [name="positions"]').uncheck();
    await setField(page, '#permutation', 'second', 'First(6,2,3)');
    await page.waitForFunction(() => /same tokens in another order/.test(document.querySelector('#permutation .idea-error').textContent));
    await setField(page, '#permutation', 'second', 'First(6,2,1)');
    await page.waitForFunction(() => document.querySelector('#permutation .idea-error').hidden);
  });

  it('3 · a causal mask lets order in: the same digit\'s output moves with its position under the mask and not without it, as computed here', async () => {
    const apart = async () => JSON.parse(await page.locator('#causal-order').getAttribute('data-apart'));
    // The page's figure against one attention layer computed here in float64 on the same seeded rows.
    const d = 16;
    const embedding = pe.tokenEmbedding({ vocabSize: TOY_VOCABULARY.length, dModel: d, paddingIdx: 0, scale: 'sqrt', init: { std: 1 / Math.sqrt(d), seed: 0 } });
    const expected = (count) => {
      const x = embedding.lookup(toyIds(['First', ...Array(count).fill('1')])).data;
      const output = (r) => {
        const scores = Array.from({ length: r + 1 }, (_, k) => x.subarray(r * d, r * d + d).reduce((sum, v, c) => sum + v * x[k * d + c], 0) / Math.sqrt(d));
        const top = Math.max(...scores);
        const weights = scores.map((score) => Math.exp(score - top));
        const total = weights.reduce((a, b) => a + b, 0);
        return Array.from({ length: d }, (_, c) => weights.reduce((sum, w, k) => sum + (w / total) * x[k * d + c], 0));
      };
      const [first, last] = [output(1), output(count)];
      return Math.hypot(...first.map((v, c) => v - last[c]));
    };
    await page.locator('#causal-order').scrollIntoViewIfNeeded();
    let measured = await apart();
    assert.ok(Math.abs(measured.masked - expected(16)) < 1e-5, `${measured.masked} against ${expected(16)}`);
    assert.ok(measured.open < 1e-6, `without the mask, the digits' outputs differ by ${measured.open}`);
    assert.match(await page.locator('#causal-order figcaption').textContent(), new RegExp(`the "1" at position 16 lies ${measured.masked.toFixed(2)} from the first one`));
    for (const count of [2, 64]) {
      await setField(page, '#causal-order', 'count', count);
      await page.waitForFunction((n) => document.querySelector('#causal-order figcaption').textContent.includes(`"1" ${n} times`), count);
      measured = await apart();
      assert.ok(Math.abs(measured.masked - expected(count)) < 1e-5, `${count} digits: ${measured.masked} against ${expected(count)}`);
    }
    await setField(page, '#causal-order', 'count', 65);
    await page.waitForFunction(() => /digits must be an integer in \[2, 64\], got 65/.test(document.querySelector('#causal-order .idea-error').textContent));
    await setField(page, '#causal-order', 'count', 16);
    embedding.dispose();
  });

  it('9 · the sinusoids\' dot product is a sum of cosines and the same before as after; RoPE\'s q·k is not', async () => {
    const section = page.locator('#relative-direction');
    await section.scrollIntoViewIfNeeded();
    for (const base of [10000, 10, 1e6]) {
      await setField(page, '#relative-direction', 'base', base);
      await page.waitForFunction((b) => JSON.parse(document.querySelector('#relative-direction').dataset.asymmetry ?? '{}').base === b, base);
      // Neighbours' score from the sum of cosines, in float64 here.
      const neighbours = Array.from({ length: 32 }, (_, i) => Math.cos(base ** (-2 * i / 64))).reduce((a, b) => a + b, 0) / 32;
      await page.waitForFunction((text) => document.querySelector('#relative-direction figcaption').textContent.includes(text), `Its neighbours (k = ±1) score ${neighbours.toFixed(2)};`);
      const { sinusoid, rope, fourier } = JSON.parse(await section.getAttribute('data-asymmetry'));
      assert.ok(sinusoid < 1e-5 && fourier < 1e-5, `base ${base}: sinusoid ${sinusoid}, fourier ${fourier}`);
      assert.ok(rope > 0.3, `RoPE's q·k at k and −k differ by ${rope}`);
      assert.equal(await page.locator('#relative-direction .idea-error').isHidden(), true);
    }
    await setField(page, '#relative-direction', 'base', 5);
    await page.waitForFunction(() => /base must be a number in \[10, 1000000\], got 5/.test(document.querySelector('#relative-direction .idea-error').textContent));
    await setField(page, '#relative-direction', 'base', 10000);
  });

  it('the tutorials\' remaining slips, each corrected with numbers computed here: doc 000\'s d = 6 table, its % 2π advice, doc 002\'s initial ranges', async () => {
    const measured = async (selector) => JSON.parse(await page.locator(selector).getAttribute('data-measured'));
    const six = await measured('#barber .tutorial-note[data-note="six-columns"]');
    assert.equal(six.six, Math.sin(7 / 10000 ** (2 / 6)).toFixed(3));
    assert.equal(six.eight, Math.sin(7 / 10).toFixed(3));
    assert.deepEqual(six.eightDivisors, ['1', '10', '100']);
    assert.deepEqual(six.sixDivisors, ['1', '21.5', '464']);
    // Position 1,000,000 at d = 512: the float32 product's error against float64, before and after % 2π.
    const far = await measured('#extrapolation .tutorial-note');
    let worst = 0;
    for (let i = 0; i < 256; i++) {
      const div = 10000 ** (-i / 256);
      const off = Math.fround(1e6 * Math.fround(div)) - 1e6 * div;
      worst = Math.max(worst, Math.abs(off - 2 * Math.PI * Math.round(off / (2 * Math.PI))));
    }
    assert.ok(Math.abs(far.product - worst) < 1e-6 && far.remainder >= worst * 0.5 && far.slow < 1e-5, JSON.stringify({ far, worst }));
    assert.match(await page.locator('#extrapolation .tutorial-note').textContent(), new RegExp(`already up to ${worst.toFixed(3)} rad off`));
    const ranges = await measured('#balance .tutorial-note[data-note="initial-ranges"]');
    assert.ok(ranges.uniform <= 0.125 && ranges.uniform > 0.12 && ranges.sum <= 1.125, JSON.stringify(ranges));
    assert.equal(ranges.glorot, Math.sqrt(6 / 84));
    const normal = pe.tokenEmbedding({ vocabSize: 20, dModel: 64, init: { std: 1, seed: 0 } });
    assert.ok(Math.abs(ranges.standard - Math.max(...Array.from(normal.weights.data, Math.abs))) < 1e-6);
    normal.dispose();
  });

  it('7 · √d balance: row lengths against d_model, scaled and not', async () => {
    await page.locator('#balance .pe-plot').nth(1).focus();
    await page.keyboard.press('End');
    const text = await page.locator('#balance .pe-readout').nth(1).textContent();
    const [, unscaled, scaled, position, learned] = text.match(/^d_model 1024: token row ([\d.]+), token row × √d ([\d.]+), sinusoidal position row ([\d.]+), learned position row \(std 0\.02\) ([\d.]+)$/).map(Number);
    assert.ok(Math.abs(position - Math.sqrt(512)) < 1e-3, text);
    assert.ok(Math.abs(unscaled - 1) < 0.1 && Math.abs(scaled - 32) < 3, text);
    assert.ok(Math.abs(learned - 0.02 * 32) < 0.05, text);
    const learnedAt512 = Number(await page.locator('#balance').getAttribute('data-learned-at512'));
    assert.ok(Math.abs(learnedAt512 - 0.02 * Math.sqrt(512)) < 0.04, `${learnedAt512}`);
    await page.locator('#balance [name="scale"]').uncheck();
    await page.waitForFunction(() => /Unscaled/.test(document.querySelector('#balance figcaption').textContent));
    // The tutorial's std ≈ 1 tables at d = 512: rows of about √512, ×√512 about 512, positions √256 = 16.
    const [plain, times, positions] = (await page.locator('#balance .tutorial-note[data-note="unit-initialisation"]').getAttribute('data-measured')).split(' ').map(Number);
    assert.ok(Math.abs(plain - Math.sqrt(512)) < 1.5 && Math.abs(times - 512) < 35 && Math.abs(positions - 16) < 1e-3, `${plain} ${times} ${positions}`);
    assert.match(await page.locator('#balance .tutorial-note[data-note="unit-initialisation"]').textContent(), /×√d would bury the positions/);
  });

  it('8 · add vs concat: d columns against 2d, and the four terms of a dot product', async () => {
    const widths = await page.locator('#add-concat .pe-plot canvas').evaluateAll((all) => all.map((c) => c.width));
    assert.deepEqual(widths, [8, 16]);
    await page.locator('#add-concat .pe-plot').nth(2).focus();
    await page.keyboard.press('End');
    assert.match(await page.locator('#add-concat .pe-readout').nth(2).textContent(), /^position·position: /);
    // Rows 2 and 4 are positions 2 and 4: position·position = PE(2)·PE(4) from the package.
    const table = pe.sinusoidal({ length: 5, dModel: 8 });
    let expected = 0;
    for (let c = 0; c < 8; c++) expected += table.data[16 + c] * table.data[32 + c];
    assert.equal(await page.locator('#add-concat .pe-readout').nth(2).textContent(), `position·position: ${expected.toFixed(4)}`);
  });

  it('9 · why sines and cosines: a pair is a point on a circle, and R_k · PE(p) is PE(p + k) from the table', async () => {
    const gap = () => page.locator('#relative-circle').evaluate((s) => Number(s.dataset.gap));
    assert.ok(await gap() < 1e-6, `${await gap()}`);
    assert.equal(await page.locator('#relative-circle svg circle:not(.pe-cursor)').count(), 48);
    for (const [pair, p, k] of [[0, 0, 40], [31, 10, 37], [12, 47, 0]]) {
      await setField(page, '#relative-circle', 'pair', pair);
      await setField(page, '#relative-circle', 'p', p);
      await setField(page, '#relative-circle', 'k', k);
      await page.waitForFunction((text) => document.querySelector('#relative-circle .rotation-check').textContent.startsWith(text), `R_${k} · PE(${p}) for pair ${pair}:`);
      assert.ok(await gap() < 1e-6, `pair ${pair}, p ${p}, k ${k}: ${await gap()}`);
    }
    await setField(page, '#relative-circle', 'k', 1);  // p = 47: no position 48
    await page.waitForFunction(() => /k \(at most 47 − p\) must be an integer in \[0, 0\], got 1/.test(document.querySelector('#relative-circle .idea-error').textContent));
    await setField(page, '#relative-circle', 'p', 3);
    await page.waitForFunction(() => document.querySelector('#relative-circle .idea-error').hidden);
  });

  it('9 · relative: PE(p)·PE(p + k) the same for every p; RoPE\'s score unchanged when both positions move', async () => {
    await page.locator('#relative-dots .pe-plot').focus();
    for (let k = 0; k < 30; k++) {
      const values = (await page.locator('#relative-dots .pe-readout').textContent()).match(/p = \d+ (-?[\d.]+)/g).map((s) => Number(s.split(' ').at(-1)));
      assert.equal(values.length, 4);
      for (const v of values) assert.ok(Math.abs(v - values[0]) < 2e-3, `k = ${k}: ${values}`);
      await page.keyboard.press('ArrowRight');
    }
    const score = () => page.locator('#relative-rope').evaluate((s) => Number(s.dataset.score));
    const first = await score();
    for (let shift = 0; shift < 5; shift++) {
      await page.locator('#relative-rope button.shift[data-by="1"]').click();
      await page.waitForFunction((m) => document.querySelector('#relative-rope .rope-score').textContent.includes(`m = ${m},`), 11 + shift);
      assert.ok(Math.abs(await score() - first) < 1e-4, `after moving both by ${shift + 1}: ${await score()} vs ${first}`);
    }
    // A click on a cell puts the query and the key there.
    await page.locator('#relative-rope .pe-plot canvas').scrollIntoViewIfNeeded();
    const box = await page.locator('#relative-rope .pe-plot canvas').boundingBox();
    await page.mouse.click(box.x + (box.width / 32) * 7.5, box.y + (box.height / 32) * 3.5);
    await page.waitForFunction(() => document.querySelector('#relative-rope .rope-score').textContent.includes('m = 3, k rotated to n = 7'));
    await setField(page, '#relative-rope', 'n', 20);
    await page.waitForFunction(() => document.querySelector('#relative-rope .rope-score').textContent.includes('n = 20'));
    assert.ok(Math.abs(await score() - first) > 1e-3, 'another distance, another score');
  });

  it('9, 10 · every encoding\'s score past the training length, and the learned table\'s missing rows shown as missing', async () => {
    // Small multiples, a family each: added to the input, RoPE and its scalings, a bias on the score.
    assert.deepEqual(await page.locator('#relative-all .pe-title').allTextContents(), ['Added to the input', 'RoPE, and its scalings ×2', 'A bias on the score']);
    const readout = (panel) => page.locator('#relative-all .pe-readout').nth(panel).textContent();
    await page.locator('#relative-all .pe-plot').nth(0).focus();
    await page.keyboard.press('End');
    assert.match(await readout(0), /^distance between query and key 128: none \(q·k\) -?[\d.]+, sinusoidal, added -?[\d.]+, learned \(untrained\), added missing$/);
    await page.locator('#relative-all .pe-plot').nth(1).focus();
    await page.keyboard.press('End');
    assert.match(await readout(1), /^distance between query and key 128: RoPE -?[\d.]+, RoPE, linear scaling ×2 -?[\d.]+, RoPE, dynamic ×2 -?[\d.]+, RoPE, llama3 ×2 -?[\d.]+, RoPE, YaRN ×2 -?[\d.]+$/);
    await page.locator('#relative-all .pe-plot').nth(2).focus();
    await page.keyboard.press('End');
    assert.match(await readout(2), /ALiBi \(head 4 of 8\) -?[\d.]+, T5 \(untrained bias per bucket\) -?[\d.]+$/);
    // Linear scaling ×2 halves every rate: its score at distance 2k is plain RoPE's at k.
    await page.locator('#relative-all .pe-plot').nth(1).focus();
    const at = async (distance) => {
      await page.keyboard.press('Home');
      for (let i = 0; i < distance; i++) await page.keyboard.press('ArrowRight');
      const text = await readout(1);
      assert.match(text, new RegExp(`^distance between query and key ${distance}:`));
      return { rope: Number(text.match(/RoPE (-?[\d.]+)/)[1]), linear: Number(text.match(/RoPE, linear scaling ×2 (-?[\d.]+)/)[1]) };
    };
    for (const k of [5, 21]) assert.equal((await at(2 * k)).linear, (await at(k)).rope, `distance ${k}`);
    await page.locator('#extrapolation [name="encoding"]').selectOption('learned');
    await page.waitForFunction(() => /grey = no row/.test(document.querySelector('#extrapolation .pe-colourbar').textContent));
    // Rows 0–31 drawn, rows 32–63 missing (the masked grey).
    assert.notDeepEqual(await cellColour(page, '#extrapolation', 0, 0, 31), MASKED.rgb);
    assert.deepEqual(await cellColour(page, '#extrapolation', 0, 0, 32), MASKED.rgb);
    assert.deepEqual(problems, []);
  });
});
