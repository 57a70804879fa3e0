// The pages and the web components, in Chromium under the site's strict CSP: every page loads cleanly, the
// components draw the expected colours, follow their attributes, work twice on a page and free what they hold.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { rgb as parseColour } from 'd3-color';
import { interpolateRdBu, interpolateViridis } from 'd3-scale-chromatic';
import { MASKED } from '../../dist/colormap.js';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pngjs from 'pngjs';
import { REPO } from '../pack.mjs';
import { tempFolder } from '../temp_folders.mjs';
import { PAGES, gpt2PositionsFixture, t5BiasFixture, useSite } from './browser.mjs';
import { formatValue } from '../../dist/scene.js';

const rgb = (css) => { const { r, g, b } = parseColour(css); return [r, g, b]; };

// Pixel (x, y) of the n-th canvas in an element's shadow root, after scrolling it into view and waiting for a render.
async function shadowPixel(page, selector, x, y, n = 0) {
  return page.evaluate(([s, px, py, i]) => {
    const canvas = document.querySelector(s).shadowRoot.querySelectorAll('canvas')[i];
    return Array.from(canvas.getContext('2d').getImageData(px, py, 1, 1).data.slice(0, 3));
  }, [selector, x, y, n]);
}

async function rendered(page, selector) {
  await page.locator(selector).scrollIntoViewIfNeeded();
  await page.waitForFunction((s) => document.querySelector(s).dataset.rendered || document.querySelector(s).dataset.started || document.querySelector(s).dataset.position, selector);
}

const DEVELOPER_PAGES = ['components', 'bench'];

describe('site pages and components', () => {
  const site = useSite();

  for (const name of PAGES) {
    it(`${name}.html loads under the strict CSP with no console errors, and links to every page: the learner's in the navigation, the developers' in the footer`, async () => {
      const { page, problems } = await site.open(`${name}.html`, { ready: false });
      const hrefs = (selector) => page.locator(selector).evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      assert.deepEqual(await hrefs('nav.site-nav a'), PAGES.filter((page) => !DEVELOPER_PAGES.includes(page)).map((page) => `./${page}.html`));
      assert.deepEqual(await hrefs('footer nav.developer-nav a'), DEVELOPER_PAGES.map((page) => `./${page}.html`));
      await page.waitForTimeout(300);
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  it('<posembed-heatmap> draws row 0 with sin columns neutral and cos columns at the top colour', async () => {
    const { page, problems } = await site.open('components.html', { ready: false });
    await rendered(page, '#heatmap-a');
    for (const column of [0, 2, 60]) assert.deepEqual(await shadowPixel(page, '#heatmap-a', column, 0), rgb(interpolateRdBu(0.5)));
    for (const column of [1, 3, 61]) assert.deepEqual(await shadowPixel(page, '#heatmap-a', column, 0), rgb(interpolateRdBu(1)));
    assert.deepEqual(problems, []);
    await page.close();
  });

  it("the command line's PNG has the page's pixels for the same parameters", async () => {
    const { page } = await site.open('components.html', { ready: false });
    await rendered(page, '#heatmap-a');
    const onPage = await page.evaluate(() => {
      const canvas = document.querySelector('#heatmap-a').shadowRoot.querySelector('canvas');
      return { width: canvas.width, height: canvas.height, data: Array.from(canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data) };
    });
    const file = join(tempFolder('figure'), 'heatmap.png');
    execFileSync(process.execPath, [join(REPO, 'dist/cli.js'), 'render', 'sinusoidal', '--length', '32', '--d-model', '64', '--colormap', 'RdBu', '--cell-size', '1', '--bare', '-o', file]);
    const png = pngjs.PNG.sync.read(readFileSync(file));
    assert.deepEqual([png.width, png.height], [onPage.width, onPage.height]);
    assert.deepEqual(Array.from(png.data), onPage.data);
    await page.close();
  });

  it('components page: two of each render; attributes re-render; the keyboard reads values out', async () => {
    const { page, problems } = await site.open('components.html', { ready: false });
    for (const id of ['#heatmap-a', '#heatmap-b', '#lookup-a', '#lookup-b', '#rope-a', '#rope-b', '#bias-a', '#bias-b']) await rendered(page, id);
    // heatmap-b: ALiBi head 2 of 8, causal, viridis: the diagonal (distance 0) is the largest value.
    assert.deepEqual(await shadowPixel(page, '#heatmap-b', 5, 5), rgb(interpolateViridis(1)));
    const before = await page.evaluate(() => document.querySelector('#heatmap-a').shadowRoot.querySelector('canvas').width);
    await page.evaluate(() => document.querySelector('#heatmap-a').setAttribute('d-model', '16'));
    await page.waitForFunction(() => document.querySelector('#heatmap-a').shadowRoot.querySelector('canvas').width === 16);
    assert.equal(before, 64);
    const readout = (id) => page.locator(id).evaluate((el) => el.shadowRoot.querySelector('.pe-readout').textContent);
    await page.locator('#heatmap-a').evaluate((el) => el.shadowRoot.querySelector('.pe-plot').focus());
    await page.keyboard.press('ArrowRight');
    assert.equal(await readout('#heatmap-a'), 'position 0, dimension 1: 1');
    await page.keyboard.press('ArrowDown');
    assert.equal(await readout('#heatmap-a'), `position 1, dimension 1: ${Math.fround(Math.cos(1)).toFixed(4)}`);
    // heatmap-b is causal: the cell right of the first query's own key is masked.
    await page.locator('#heatmap-b').evaluate((el) => el.shadowRoot.querySelector('.pe-plot').focus());
    await page.keyboard.press('ArrowRight');
    assert.equal(await readout('#heatmap-b'), 'query position 0, key position 1: masked');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await readout('#heatmap-b'), 'query position 0, key position 0: 0');
    // Every heatmap has its axes, a colour bar that names the negative colour, and a caption.
    const frame = await page.locator('#heatmap-a').evaluate((el) => ({
      axisLabels: Array.from(el.shadowRoot.querySelectorAll('.pe-axis-label'), (t) => t.textContent),
      ticks: el.shadowRoot.querySelectorAll('.tick').length,
      colourBar: el.shadowRoot.querySelector('.pe-colourbar').textContent,
      caption: el.shadowRoot.querySelector('figcaption').textContent,
    }));
    assert.deepEqual(frame.axisLabels, ['dimension', 'position']);
    assert.ok(frame.ticks > 10, `${frame.ticks} ticks`);
    assert.match(frame.colourBar, /red = negative, white = 0, blue = positive/);
    assert.match(frame.caption, /Sinusoidal positions \[32 × 16\]/);
    // axes="false" and legend="false" leave them out.
    await page.evaluate(() => { const el = document.querySelector('#heatmap-a'); el.setAttribute('axes', 'false'); el.setAttribute('legend', 'false'); });
    await page.waitForFunction(() => document.querySelector('#heatmap-a').shadowRoot.querySelectorAll('.pe-axis-label, .pe-colourbar').length === 0);
    // Both lookups: their own texts.
    const ids = await page.evaluate(() => ['#lookup-a', '#lookup-b'].map((s) => document.querySelector(s).shadowRoot.querySelector('.ids').textContent));
    assert.deepEqual(ids, ['ids = [15, 17, 3, 19, 8, 19, 4, 18, 0, 0]', 'ids = [16, 17, 5, 19, 6, 18, 0, 0, 0, 0]']);
    // A lookup follows its attributes.
    await page.evaluate(() => document.querySelector('#lookup-a').setAttribute('text', 'First(3,1,2)'));
    await page.waitForFunction(() => document.querySelector('#lookup-a').shadowRoot.querySelector('.ids').textContent === 'ids = [12, 17, 5, 19, 3, 19, 4, 18, 0, 0]');
    // Bias: one canvas per head.
    assert.equal(await page.evaluate(() => document.querySelector('#bias-a').shadowRoot.querySelectorAll('canvas').length), 4);
    assert.equal(await page.evaluate(() => document.querySelector('#bias-b').shadowRoot.querySelectorAll('canvas').length), 3);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('figures that talk to each other: the heatmap\'s cursor event in the data\'s terms drives a line plot of that row, and the line\'s cursor sets the heatmap\'s', async () => {
    const { page, problems } = await site.open('components.html', { ready: false });
    const heatmap = page.locator('#linked-heatmap');
    await heatmap.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelector('#linked-heatmap').dataset.rendered && document.querySelector('#linked-row .pe-plot svg'));
    const heard = page.evaluate(() => new Promise((resolve, reject) => {
      document.querySelector('#linked-heatmap').addEventListener('cursor', (event) => resolve(event.detail), { once: true });
      setTimeout(() => reject(new Error('no cursor event within 30 s of the pointer moving onto the heatmap')), 30000);
    }));
    // Row 10, column 3 of a 48 × 64 table: the pointer there, placed on the canvas as it stands when the pointer moves
    // (the elements above it may still be drawing and move it down the page).
    const canvas = page.locator('#linked-heatmap canvas').first();
    const { width, height } = await canvas.boundingBox();
    await canvas.hover({ position: { x: (3.5 / 64) * width, y: (10.5 / 48) * height } });
    const detail = await heard;
    assert.deepEqual({ row: detail.row, column: detail.column, figure: detail.figure }, { row: 10, column: 3, figure: 0 });
    assert.ok(Math.abs(detail.value - Math.cos(10 / 10000 ** (2 / 64))) < 1e-6, `value ${detail.value}`);
    await page.waitForFunction(() => /^Position 10 across its 64 dimensions/.test(document.querySelector('#linked-row figcaption').textContent));
    // The other way: the element's settable cursor, shown while the reader is elsewhere.
    await page.mouse.move(0, 0);
    const set = await page.evaluate(() => {
      const el = document.querySelector('#linked-heatmap');
      el.cursor = { row: 7, column: 20 };
      const figure = el.shadowRoot.querySelector('figure');
      return { cursor: el.cursor, linked: figure.classList.contains('pe-linked'), visible: getComputedStyle(figure.querySelector('.pe-cursor')).visibility, readout: figure.querySelector('.pe-readout').textContent };
    });
    assert.deepEqual([set.cursor.row, set.cursor.column, set.linked, set.visible], [7, 20, true, 'visible']);
    assert.match(set.readout, /^position 7, dimension 20:/);
    const refused = await page.evaluate(() => { try { document.querySelector('#linked-heatmap').cursor = 5; return null; } catch (error) { return error.message; } });
    assert.match(refused, /^cursor must be an object such as \{ row, column \} or \{ index \}, got 5$/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('<posembed-bias> panels keep square cells (8 heads of 32 positions), at 1366 and 390 px', async () => {
    for (const width of [1366, 390]) {
      const { page, problems } = await site.open('components.html', { ready: false, width });
      const sizes = await page.evaluate(async () => {
        const el = document.createElement('posembed-bias');
        el.setAttribute('heads', '8');
        el.setAttribute('length', '32');
        const rendered = new Promise((resolve) => el.addEventListener('render', resolve, { once: true }));
        document.querySelector('main').prepend(el);
        await rendered;
        return [...el.shadowRoot.querySelectorAll('canvas')].map((canvas) => { const box = canvas.getBoundingClientRect(); return [box.width, box.height]; });
      });
      assert.equal(sizes.length, 8);
      for (const [w, h] of sizes) assert.ok(Math.abs(w - h) <= 1 && w >= 60, `${width} px: a panel of ${w} × ${h}`);
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('at 390 px no element\'s text runs past its edge or shrinks below 11 px (the model\'s rule labels, the heatmaps\' ticks, the dials, the RoPE strip)', async () => {
    for (const [path, tags] of [['components.html', ['posembed-heatmap', 'posembed-rope', 'posembed-bias', 'posembed-lookup']], ['model.html', ['posembed-model']], ['rope.html', ['posembed-rope']]]) {
      const { page, problems } = await site.open(path, { ready: false, width: 390 });
      for (const [n, element] of (await page.locator(tags.join(', ')).all()).entries()) {
        const tag = `${await element.evaluate((el) => el.localName)} #${n}`;
        await element.scrollIntoViewIfNeeded();
        await element.evaluate((el) => new Promise((resolve) => {
          if (el.dataset.rendered) resolve();
          else el.addEventListener('render', resolve, { once: true });
        }));
        const clipped = await element.evaluate((el) => {
          const edge = el.getBoundingClientRect();
          return [...el.shadowRoot.querySelectorAll('svg text')].filter((text) => {
            const box = text.getBoundingClientRect();
            return text.textContent && box.width > 0 && (box.left < edge.left - 1 || box.right > edge.right + 1);
          }).map((text) => text.textContent);
        });
        assert.deepEqual(clipped, [], `${path} <${tag}>: text past its edge`);
        // Text drawn smaller than the page's 11 px is not read on a phone (the RoPE strip's pair numbers shrank so).
        const tiny = await element.evaluate((el) => [...el.shadowRoot.querySelectorAll('svg text')]
          .filter((text) => text.textContent && text.getBoundingClientRect().height > 0 && text.getBoundingClientRect().height < 11)
          .map((text) => `${text.textContent} (${text.getBoundingClientRect().height.toFixed(1)} px)`));
        assert.deepEqual(tiny, [], `${path} <${tag}>: text too small to read at 390 px`);
      }
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('the chrome\'s words come from element.strings: a German page\'s buttons, labels and "Computing…", every word listed, an unknown one refused', async () => {
    const { page, problems } = await site.open('components.html', { ready: false });
    const result = await page.evaluate(async () => {
      document.documentElement.lang = 'de';
      const rope = document.createElement('posembed-rope');
      rope.strings = { play: 'Abspielen', pause: 'Anhalten', back: '−1 Position', forward: '+1 Position', computing: 'Rechne…' };
      const rendered = new Promise((resolve) => rope.addEventListener('render', resolve, { once: true }));
      document.querySelector('main').prepend(rope);
      await rendered;
      const buttons = [...rope.shadowRoot.querySelectorAll('button')].map((b) => b.textContent);
      const lookup = document.createElement('posembed-lookup');
      lookup.strings = { expression: 'Ausdruck', vocabulary: 'Das Vokabular aus 20 Tokens' };
      document.querySelector('main').prepend(lookup);
      const labels = [...lookup.shadowRoot.querySelectorAll('[data-string]')].map((node) => node.textContent);
      const heatmap = document.createElement('posembed-heatmap');
      heatmap.strings = { computing: 'Rechne…' };
      document.querySelector('main').prepend(heatmap);
      heatmap.figure.stale(true);
      const status = heatmap.shadowRoot.querySelector('.pe-status').textContent;
      let refused = null;
      try { rope.strings = { spielen: 'x' }; } catch (error) { refused = error.message; }
      return { buttons, labels, status, words: rope.strings, refused };
    });
    // The rope plays on its own where motion is not reduced: Anhalten then, else Abspielen.
    assert.match(result.buttons[0], /^(Abspielen|Anhalten)$/);
    assert.deepEqual(result.buttons.slice(1), ['−1 Position', '+1 Position']);
    assert.ok(result.labels.includes('Ausdruck') && result.labels.includes('Das Vokabular aus 20 Tokens') && result.labels.includes('seed'), result.labels.join(', '));
    assert.equal(result.status, 'Rechne…');
    assert.deepEqual(result.words, { computing: 'Rechne…', play: 'Abspielen', pause: 'Anhalten', back: '−1 Position', forward: '+1 Position' });
    assert.match(result.refused, /^strings: <posembed-rope> has no word 'spielen' \(its words: computing, play, pause, back, forward\)$/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('<posembed-heatmap> also draws learned, RoPE and similarity matrices, labelled', async () => {
    const { page, problems } = await site.open('components.html', { ready: false });
    await rendered(page, '#heatmap-a');
    const redraw = async (attributes) => {
      const before = await page.getAttribute('#heatmap-a', 'data-rendered');
      await page.evaluate((a) => { for (const [k, v] of Object.entries(a)) document.querySelector('#heatmap-a').setAttribute(k, v); }, attributes);
      await page.waitForFunction((b) => document.querySelector('#heatmap-a').dataset.rendered !== b, before);
      return page.locator('#heatmap-a').evaluate((el) => ({
        caption: el.shadowRoot.querySelector('figcaption').textContent,
        size: [el.shadowRoot.querySelector('canvas').width, el.shadowRoot.querySelector('canvas').height],
        diagonal: Array.from(el.shadowRoot.querySelector('canvas').getContext('2d').getImageData(5, 5, 1, 1).data.slice(0, 3)),
      }));
    };
    const similarity = await redraw({ encoding: 'similarity', length: '24', 'd-model': '32', metric: 'cosine' });
    assert.deepEqual(similarity.size, [24, 24]);
    assert.deepEqual(similarity.diagonal, rgb(interpolateRdBu(1)), 'cosine 1 on the diagonal');
    assert.match(similarity.caption, /^Cosine similarity of sinusoidal positions/);
    const learned = await redraw({ encoding: 'learned', length: '16', 'd-model': '8', 'new-length': '40' });
    assert.deepEqual(learned.size, [8, 40]);
    assert.match(learned.caption, /^Untrained \(random\) learned position table \[16 × 8\], stretched to 40 rows/);
    const rope = await redraw({ encoding: 'rope', length: '12', 'd-model': '16', scaling: 'linear', factor: '2' });
    assert.deepEqual(rope.size, [16, 12]);
    assert.match(rope.caption, /linear scaling ×2/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('rope: scaling attributes come from the core\'s table; dynamic past the trained length turns the slow pairs slower than the grey unscaled hands', async () => {
    const { page, problems } = await site.open('components.html', { ready: false });
    const turned = await page.evaluate(async () => {
      const rope = document.createElement('posembed-rope');
      const attributes = { 'head-dim': '16', pairs: '8', scaling: 'dynamic', factor: '4', 'original-max-positions': '16', position: '100', speed: '0.001' };
      for (const [name, value] of Object.entries(attributes)) rope.setAttribute(name, value);
      const rendered = new Promise((resolve) => rope.addEventListener('render', resolve, { once: true }));
      document.querySelector('main').prepend(rope);
      await rendered;
      // Each dial: its grey unscaled hand, then its own (the last two lines).
      return [...rope.shadowRoot.querySelectorAll('.dials svg')].map((dial) => {
        const [plain, hand] = [...dial.querySelectorAll('line')].slice(-2).map((line) => Math.atan2(-(line.getAttribute('y2') - line.getAttribute('y1')), line.getAttribute('x2') - line.getAttribute('x1')));
        return Math.abs(Math.atan2(Math.sin(hand - plain), Math.cos(hand - plain)));
      });
    });
    assert.equal(turned.length, 8);
    assert.ok(turned[0] < 1e-6, `the fastest pair keeps its angle: ${turned[0]}`);
    assert.ok(turned.slice(1).some((gap) => gap > 0.05), `the scaled hands stand apart from the unscaled: ${turned.map((g) => g.toFixed(3))}`);
    assert.deepEqual(problems, []);
  });

  it('rope: the halves and pairs dials turn together, at the same position on the page\'s clock', async () => {
    const { page, problems } = await site.open('rope.html', { ready: false });
    await rendered(page, '#rope-half');
    await rendered(page, '#rope-pairs');
    // A third dial that starts a second later (as one that took longer to load would) joins at the same position.
    await page.waitForTimeout(1000);
    await page.evaluate(() => {
      const late = document.createElement('posembed-rope');
      late.id = 'rope-late';
      for (const [name, value] of Object.entries({ 'head-dim': '16', layout: 'interleaved', pairs: '4' })) late.setAttribute(name, value);
      document.querySelector('#rope-pairs').after(late);
    });
    await rendered(page, '#rope-late');
    // On the page's clock, every position is shown by all three dials at once, as they draw it (a dial that kept a
    // clock of its own, started a second later, would stay a few positions off and never agree); and they advance.
    // How soon each draws its tick is the machine's: not asked.
    const agreed = [];
    for (let i = 0; i < 5; i++) {
      const at = await page.waitForFunction((after) => {
        const positions = ['#rope-half', '#rope-pairs', '#rope-late'].map((id) => Number(document.querySelector(id).dataset.position));
        return positions.every((p) => p === positions[0]) && positions[0] > after ? positions[0] : false;
      }, agreed.at(-1) ?? -1, { timeout: 30000, polling: 'raf' });
      agreed.push(await at.jsonValue());
    }
    assert.equal(new Set(agreed).size, 5, `the dials agreed at ${agreed.join(', ')}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('rope: pauses, steps with the arrow keys, and draws the hands from applyRope', async () => {
    const { page, problems } = await site.open('rope.html', { ready: false });
    await rendered(page, '#rope-half');
    await page.locator('#rope-half').evaluate((el) => el.shadowRoot.querySelector('button').click());
    const paused = Number(await page.getAttribute('#rope-half', 'data-position'));
    await page.waitForTimeout(600);
    assert.equal(Number(await page.getAttribute('#rope-half', 'data-position')), paused, 'no motion while paused');
    await page.locator('#rope-half').evaluate((el) => el.shadowRoot.querySelector('.dials').focus());
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((p) => Number(document.querySelector('#rope-half').dataset.position) === p + 1, paused);
    assert.equal(await page.locator('#rope-half').evaluate((el) => el.shadowRoot.querySelector('button').getAttribute('aria-pressed')), 'true');
    // The hands are where applyRope puts each pair's (1, 0): pair 0 of the halves layout turns 1 radian per position.
    const hand = await page.locator('#rope-half').evaluate((el) => {
      const line = el.shadowRoot.querySelectorAll('.dials svg')[0].querySelectorAll('line')[2];
      return Math.atan2(-(line.y2.baseVal.value - line.y1.baseVal.value), line.x2.baseVal.value - line.x1.baseVal.value);
    });
    const expected = Math.atan2(Math.sin(paused + 1), Math.cos(paused + 1));
    assert.ok(Math.abs(hand - expected) < 1e-3, `pair 0 at ${hand}, expected ${expected}`);
    // Which dimensions pair: the halves layout (head dim 16) pairs dimension 0 with 8, the interleaved one 0 with 1.
    assert.match(await page.locator('#rope-half').evaluate((el) => el.shadowRoot.querySelector('.dials svg text').textContent), /^pair 0: dims 0 & 8$/);
    assert.match(await page.locator('#rope-pairs').evaluate((el) => el.shadowRoot.querySelector('.dials svg text').textContent), /^pair 0: dims 0 & 1$/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('rope page: the scaling rules drive the dials (grey hands unscaled); reduced motion starts them paused', async () => {
    const { page, problems } = await site.open('rope.html');
    await page.selectOption('#scaling-controls [name="shown"]', 'linear');
    await page.fill('#scaling-controls [name="factor"]', '4');
    await page.waitForFunction(() => document.querySelector('#rope-scaled').getAttribute('scaling') === 'linear'
      && document.querySelector('#rope-scaled').getAttribute('factor') === '4');
    await page.waitForFunction(() => /linear scaling ×4 \(grey: unscaled\)/.test(document.querySelector('#rope-scaled').shadowRoot.querySelector('.caption').textContent));
    // Pair 0 under linear ×4 turns a quarter as fast: its hand at position m is at m/4 radians, the grey one at m.
    const hands = await page.locator('#rope-scaled').evaluate((el) => {
      const lines = [...el.shadowRoot.querySelectorAll('.dials svg')[0].querySelectorAll('line')].slice(2);
      const angle = (l) => Math.atan2(-(l.y2.baseVal.value - l.y1.baseVal.value), l.x2.baseVal.value - l.x1.baseVal.value);
      return { plain: angle(lines[0]), scaled: angle(lines[1]), dashed: lines[0].getAttribute('stroke-dasharray'), position: Number(el.dataset.position) };
    });
    const wrap = (a) => Math.atan2(Math.sin(a), Math.cos(a));
    assert.ok(hands.dashed, 'the unscaled hand is dashed');
    assert.ok(Math.abs(wrap(hands.scaled - hands.position / 4)) < 1e-3, JSON.stringify(hands));
    assert.ok(Math.abs(wrap(hands.plain - hands.position)) < 1e-2, JSON.stringify(hands));
    assert.deepEqual(problems, []);
    await page.close();
    const context = await site.browser.newContext({ reducedMotion: 'reduce' });
    const still = await context.newPage();
    await still.goto(`${site.server.url}rope.html`);
    await still.waitForFunction(() => document.querySelector('#rope-half').dataset.rendered);
    assert.equal(await still.locator('#rope-half').evaluate((el) => el.shadowRoot.querySelector('.play').textContent), 'Play');
    const at = await still.getAttribute('#rope-half', 'data-position');
    await still.waitForTimeout(700);
    assert.equal(await still.getAttribute('#rope-half', 'data-position'), at, 'no motion with reduced motion asked for');
    await context.close();
  });

  it('removing a component frees its resources; including the script twice is harmless', async () => {
    const { page, problems } = await site.open('components.html', { ready: false });
    await rendered(page, '#lookup-a');
    await page.waitForFunction(() => document.querySelector('#lookup-a').holdsTable);
    const released = await page.evaluate(() => {
      const element = document.querySelector('#lookup-a');
      element.remove();
      return !element.holdsTable;
    });
    assert.equal(released, true);
    await page.evaluate(() => import(document.querySelector('script[type="module"]').src));
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('rope page: scalings', () => {
  const site = useSite();

  it('tabulates and plots ropeInvFreq of every scaling, following its parameters', async () => {
    const { page, problems } = await site.open('rope.html');
    const { load } = await import('../../dist/index.js');
    const pe = await load();
    const check = async (headDim, base, scaling) => {
      const { invFreq, attentionFactor } = pe.ropeInvFreq({ headDim, base, scaling });
      const cells = (await page.locator(`#scaling-table tr[data-scaling="${scaling.type}"] td`).allTextContents()).slice(1).map(Number);
      const expected = [invFreq.data[0], invFreq.data.at(-1), attentionFactor];
      cells.forEach((v, i) => assert.ok(Math.abs(v / expected[i] - 1) < 1e-4, `${scaling.type}: ${v} vs ${expected[i]}`));
    };
    await check(128, 500000, { type: 'llama3', factor: 8, originalMaxPositions: 8192, lowFreqFactor: 1, highFreqFactor: 4 });
    await check(128, 500000, { type: 'yarn', factor: 8, originalMaxPositions: 8192, betaFast: 32, betaSlow: 1 });
    await page.fill('#scaling-controls [name="factor"]', '4');
    await page.fill('#scaling-controls [name="headDim"]', '64');
    await check(64, 500000, { type: 'linear', factor: 4 });
    await check(64, 500000, { type: 'dynamic', factor: 4, originalMaxPositions: 8192, sequenceLength: 32768 });
    await page.fill('#scaling-controls [name="factor"]', '0.5');
    assert.equal(await page.locator('#scaling-error').textContent(), 'scaling.factor must be a number in [1, 1000000], got 0.5');
    assert.deepEqual(problems, []);
  });
});

describe('patches and learned pages', () => {
  const site = useSite();
  let pe;
  before(async () => {
    const { load } = await import('../../dist/index.js');
    pe = await load();
  });

  it('patches: the chosen patch is the most similar to itself, keys move it, the cls token shifts the table', async () => {
    const { page, problems } = await site.open('patches.html');
    // MAE's layout: the first half of each row follows the patch's column (its grid[0] is the horizontal coordinate).
    assert.equal(await page.getAttribute('#patch-readout', 'data-first-half'), 'column');
    assert.match(await page.locator('#patch-readout').textContent(), /The first 128 numbers of each row encode the patch's column \(they change only when the column does\), the last 128 its row\.$/);
    const pixel = (x, y) => page.evaluate(([px, py]) => Array.from(document.querySelector('#patches-figure canvas').getContext('2d').getImageData(px, py, 1, 1).data.slice(0, 3)), [x, y]);
    assert.deepEqual(await pixel(4, 3), rgb(interpolateViridis(1)));
    await page.focus('#patches-figure .pe-plot');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.querySelector('#patch-readout').textContent.startsWith('patch (row 3, column 5)'));
    assert.deepEqual(await pixel(5, 3), rgb(interpolateViridis(1)));
    // The least similar value shown is the package's: cosine of patch (3, 5) against every patch.
    const positions = pe.sincos2d({ gridH: 14, gridW: 14, dModel: 256 });
    const query = { data: positions.data.slice((3 * 14 + 5) * 256, (3 * 14 + 6) * 256), shape: [1, 256] };
    const lowest = Math.min(...pe.similarity(query, positions, { metric: 'cosine' }).data);
    assert.match(await page.locator('#patch-readout').textContent(), new RegExp(`${lowest.toFixed(4)} to the least similar patch\\.`));
    await page.check('#patch-controls [name="clsToken"]');
    await page.waitForFunction(() => document.querySelector('#patch-readout').textContent.includes('after the cls row'));
    assert.deepEqual(problems, []);
  });

  it('patches: positions by time (a pause shows) and by (section, word), their cosines as the formula gives them in float64', async () => {
    const { page, problems } = await site.open('patches.html');
    // Cosine of two sinusoid rows (d columns, base 10⁴) whose positions differ by each of `offsets` per block of columns.
    const cosine = (d, ...offsets) => offsets.reduce((sum, k) => sum + Array.from({ length: d / 2 }, (_, i) => Math.cos(k * 10000 ** (-2 * i / d))).reduce((a, b) => a + b, 0), 0) / (offsets.length * d / 2);
    for (const pause of [300, 0, 3600]) {
      await page.locator('#time-positions [name="pause"]').fill(String(pause));
      await page.waitForFunction((p) => JSON.parse(document.querySelector('#time-positions').dataset.across ?? '{}').pause === p, pause);
      const { times, index, time } = JSON.parse(await page.locator('#time-positions').getAttribute('data-across'));
      const caption = await page.locator('#time-positions figure:nth-of-type(2) figcaption').textContent();
      assert.match(caption, new RegExp(`^By time, events 7 and 8 are ${times[8] - times[7]} s apart and their cosine is ${time.toFixed(2)}`));
      assert.match(caption, pause === 0 ? /does not stand out/ : /the pause shows/, `pause ${pause}: ${caption}`);
      assert.equal(times[8] - times[7] >= pause, true, `${times}`);
      assert.ok(Math.abs(index - cosine(64, 1)) < 1e-5, `by index: ${index}`);
      assert.ok(Math.abs(time - cosine(64, times[8] - times[7])) < 1e-5, `by time, pause ${pause}: ${time} against ${cosine(64, times[8] - times[7])}`);
    }
    assert.ok(JSON.parse(await page.locator('#time-positions').getAttribute('data-across')).time < 0.5, 'an hour\'s pause sets the events apart');
    for (const [sections, words] of [[3, 6], [2, 2], [8, 16]]) {
      await page.locator('#hierarchy-positions [name="sections"]').fill(String(sections));
      await page.locator('#hierarchy-positions [name="words"]').fill(String(words));
      await page.waitForFunction((n) => document.querySelector('#hierarchy-positions figcaption').textContent.includes(`are ${n} apart`), words);
      const { flat, nested } = JSON.parse(await page.locator('#hierarchy-positions').getAttribute('data-pairs'));
      // Flat: one 64-column sinusoid; nested: a 32-column half per level (section, word).
      assert.ok(Math.abs(flat.neighbours - cosine(64, 1)) < 1e-5 && Math.abs(flat.firsts - cosine(64, words)) < 1e-5, JSON.stringify(flat));
      assert.ok(Math.abs(nested.neighbours - cosine(32, 1, words - 1)) < 1e-5 && Math.abs(nested.firsts - cosine(32, 1, 0)) < 1e-5, JSON.stringify(nested));
      assert.ok(nested.firsts > nested.neighbours);
    }
    await page.locator('#hierarchy-positions [name="words"]').fill('17');
    await page.waitForFunction(() => /words per section must be an integer in \[2, 16\], got 17/.test(document.querySelector('#hierarchy-positions .idea-error').textContent));
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('patches: other 2-D positions, a learned row per patch and a factorised row + column, untrained, against sin-cos', async () => {
    const { page, problems } = await site.open('patches.html');
    // The same seeded tables in Node, and the mean cosine to patch (2, 5) along its row and column and elsewhere.
    const [gridH, gridW, dModel, chosen] = [8, 8, 128, 2 * 8 + 5];
    const table = (maxLength, seed) => pe.learnedPositions({ maxLength, dModel, init: { type: 'normal', std: 0.02, seed } }).weights.data;
    const [perPatch, byRow, byColumn] = [table(gridH * gridW, 1), table(gridH, 2), table(gridW, 3)];
    const factorised = new Float64Array(gridH * gridW * dModel);
    for (let p = 0; p < gridH * gridW; p++) {
      for (let i = 0; i < dModel; i++) factorised[p * dModel + i] = byRow[Math.floor(p / gridW) * dModel + i] + byColumn[(p % gridW) * dModel + i];
    }
    const means = (data) => {
      const row = (p) => data.subarray(p * dModel, (p + 1) * dModel);
      const cosine = (a, b) => a.reduce((s, v, i) => s + v * b[i], 0) / Math.sqrt(a.reduce((s, v) => s + v * v, 0) * b.reduce((s, v) => s + v * v, 0));
      const groups = { line: [], other: [] };
      for (let p = 0; p < gridH * gridW; p++) {
        if (p === chosen) continue;
        const sameLine = Math.floor(p / gridW) === 2 || p % gridW === 5;
        groups[sameLine ? 'line' : 'other'].push(cosine(row(chosen), row(p)));
      }
      return [groups.line, groups.other].map((g) => g.reduce((s, v) => s + v, 0) / g.length);
    };
    const sincos = pe.sincos2d({ gridH, gridW, dModel }).data;
    const expected = [sincos, perPatch, factorised].map(means);
    const shown = JSON.parse(await page.getAttribute('#patch-kinds', 'data-means'));
    for (const [kind, [line, other]] of shown.entries()) {
      assert.ok(Math.abs(line - expected[kind][0]) < 1e-3 && Math.abs(other - expected[kind][1]) < 1e-3, `${kind}: ${shown[kind]} vs ${expected[kind]}`);
    }
    // What each kind knows before training: sin-cos and the factorised table favour the row and column; a table per
    // patch does not (its rows are independent random vectors).
    assert.ok(expected[0][0] > expected[0][1]);
    assert.ok(expected[2][0] > 0.3 && Math.abs(expected[2][1]) < 0.15, `${expected[2]}`);
    assert.ok(Math.abs(expected[1][0]) < 0.15 && Math.abs(expected[1][1]) < 0.15, `${expected[1]}`);
    const captions = await page.locator('#patch-kinds figcaption').allTextContents();
    assert.match(captions[1], /^8,192 parameters \(64 patches × 128\), random before training/);
    assert.match(captions[2], /^2,048 parameters \(\(8 \+ 8\) × 128\)/);
    // A smaller grid moves the chosen patch onto it, and a patch typed past the grid's edge is put on its edge.
    await page.fill('#patch-kinds [name="gridH"]', '2');
    await page.waitForFunction(() => /^1,280 parameters \(\(2 \+ 8\) × 128\)/.test(document.querySelectorAll('#patch-kinds figcaption')[2].textContent));
    assert.equal(await page.inputValue('#patch-kinds [name="row"]'), '1');
    await page.fill('#patch-kinds [name="row"]', '5');
    assert.equal(await page.inputValue('#patch-kinds [name="row"]'), '1');
    assert.equal(await page.locator('#patch-kinds .idea-error').isHidden(), true);
    assert.deepEqual(problems, []);
  });

  it('learned: GPT-2\'s real table read by Range from its checkpoint on the Hub (the tests\' Hub: a fixture), drawn on the data\'s scale, its captions computed from it; offline, the page says why', async () => {
    const { page, problems } = await site.open('learned.html');
    await page.waitForFunction(() => document.querySelector('#gpt2-positions').dataset.rows);
    assert.equal(await page.getAttribute('#gpt2-positions', 'data-rows'), '1024');
    assert.equal(await page.locator('#gpt2-status').textContent(), 'GPT-2\'s position table: wpe.weight [1024 × 768], read from https://huggingface.co/openai-community/gpt2/resolve/main/model.safetensors.');
    assert.deepEqual(await page.locator('#gpt2-table canvas').evaluate((c) => [c.width, c.height]), [768, 1024]);
    // The caption's numbers are the table's: the mean cosine of neighbouring rows.
    const { data } = gpt2PositionsFixture();
    const row = (p) => data.subarray(p * 768, (p + 1) * 768);
    const cosine = (a, b) => a.reduce((sum, v, i) => sum + v * b[i], 0) / Math.sqrt(a.reduce((s2, v) => s2 + v * v, 0) * b.reduce((s2, v) => s2 + v * v, 0));
    let neighbours = 0;
    for (let p = 0; p + 1 < 1024; p += 8) neighbours += cosine(row(p), row(p + 1));
    neighbours /= Math.ceil(1023 / 8);
    assert.match(await page.locator('#gpt2-similarity figcaption').textContent(), new RegExp(`^The mean cosine of two positions' rows: ${neighbours.toFixed(2)} for neighbours`));
    assert.deepEqual(problems, []);
    await page.close();
    // Offline (the Hub unreachable): the figures give way to a sentence that says why; the rest of the page works.
    const { page: offline, problems: offlineProblems } = await site.open('learned.html', { offline: true, ready: false });
    await offline.waitForFunction(() => document.querySelector('#gpt2-positions').dataset.rows === '0');
    assert.match(await offline.locator('#gpt2-status').textContent(), /^GPT-2's table could not be read from the Hub \(.+\)\. Offline, this page has only the untrained tables below\.$/);
    assert.equal(await offline.locator('#gpt2-table figure').isHidden(), true);
    await offline.waitForSelector('html[data-ready="true"]');
    assert.deepEqual(offlineProblems, []);
    await offline.close();
  });

  it('learned: the table with its missing rows shown as missing, stretched by interpolation, and the lookup past maxLength refused', async () => {
    const { page, problems } = await site.open('learned.html');
    const canvases = () => page.evaluate(() => Array.from(document.querySelectorAll(':is(#learned-figure, #stretched-figure, #sinusoidal-figure) .pe-plot canvas'), (c) => [c.width, c.height]));
    assert.deepEqual(await canvases(), [[32, 64], [32, 64], [32, 64]]);
    assert.match(await page.locator('#past-end').textContent(), /^lookup\(64\) → RangeError: length 64 is past maxLength 32: .*interpolatePositions.*sinusoidal/);
    // A tutorial counts LLaMA among the models that learn positions; the configs the package reads say otherwise (a
    // note written after the figures).
    await page.waitForSelector('#who-learns[data-schemes]');
    assert.equal(await page.getAttribute('#who-learns', 'data-schemes'),
      'learned, 1024 rows | learned, 512 rows | RoPE, no position table | RoPE with llama3 scaling, no position table');
    // Rows 32–63 of the learned table are missing: the masked grey, and named in the colour bar.
    const masked = await page.evaluate(() => Array.from(document.querySelector('#learned-figure canvas').getContext('2d').getImageData(0, 32, 1, 1).data.slice(0, 3)));
    assert.deepEqual(masked, MASKED.rgb);
    assert.match(await page.locator('#learned-figure .pe-colourbar').textContent(), /grey = no row \(past maxLength\)/);
    assert.match(await page.locator('#learned-figure figcaption').textContent(), /^Untrained \(random\)/);
    await page.fill('#learned-controls [name="newLength"]', '16');
    await page.waitForFunction(() => document.querySelector('#past-end').textContent === 'lookup(16) → [16, 32]: within the table.');
    await page.fill('#learned-controls [name="newLength"]', '64');
    await page.waitForFunction(() => document.querySelector('#past-end').textContent.startsWith('lookup(64)'));
    // The stretched table's first and last rows are the learned table's.
    const [first, last] = await page.evaluate(() => {
      const c = document.querySelector('#stretched-figure canvas').getContext('2d');
      const l = document.querySelector('#learned-figure canvas').getContext('2d');
      return [[c.getImageData(0, 0, 32, 1).data.join(), l.getImageData(0, 0, 32, 1).data.join()], [c.getImageData(0, 63, 32, 1).data.join(), l.getImageData(0, 31, 32, 1).data.join()]];
    });
    assert.equal(first[0], first[1]);
    assert.equal(last[0], last[1]);
    assert.deepEqual(problems, []);
  });
});

describe('benchmark page', () => {
  const site = useSite();

  it('runs the shared cases in the browser and reports times and errors against float64', async () => {
    const { page, problems } = await site.open('bench.html');
    await page.selectOption('#bench-controls [name="size"]', 'small');
    await page.fill('#bench-controls [name="runs"]', '2');
    await page.click('#bench-run');
    await page.waitForFunction(() => document.querySelector('#bench-status').textContent.startsWith('Done'), null, { timeout: 120000 });
    const rows = await page.locator('#bench-table tbody tr').count();
    assert.equal(rows, 6);
    const errors = await page.evaluate(() => Array.from(document.querySelectorAll('#bench-table td[data-error]'), (td) => [td.dataset.error, Number(td.textContent)]));
    for (const [name, error] of errors) assert.ok(error < (name === 'plain JS' ? 1e-3 : 1e-4), `${name}: ${error}`);
    assert.ok(errors.some(([name]) => name === 'posembed wasm scalar'));
    // The site is served cross-origin isolated: threads wherever the browser has more than one core.
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    assert.equal(errors.some(([name]) => name === 'posembed wasm threads'), cores > 1);
    const times = await page.evaluate(() => Array.from(document.querySelectorAll('#bench-table td[data-impl]'), (td) => Number(td.textContent)));
    assert.ok(times.every((t) => Number.isFinite(t) && t >= 0));
    assert.deepEqual(problems, []);
  });
});

describe('ALiBi and T5 page', () => {
  const site = useSite();

  it('T5\'s bias from t5-small\'s trained table, read by Range from the Hub (the tests\' Hub: a fixture); element.table refuses a table of the wrong shape by name', async () => {
    const { page, problems } = await site.open('bias.html');
    await page.waitForFunction(() => document.querySelector('#t5-source').dataset.table === 't5-small');
    await page.locator('#t5').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => /from t5-small's trained table \(its encoder's\)/.test(document.querySelector('#t5').shadowRoot.querySelector('.caption').textContent));
    assert.match(await page.locator('#t5').evaluate((el) => el.shadowRoot.querySelector('.caption').textContent), /^T5 relative bias, 8 heads, 32 buckets, from t5-small's trained table/);
    assert.equal(await page.locator('#t5').evaluate((el) => el.shadowRoot.querySelectorAll('canvas').length), 8);
    // Query 0, key 5, head 2: the table's value at the bucket of distance +5.
    const { load } = await import('../../dist/index.js');
    const pe = await load();
    const bucket = pe.t5Bucket([5], { numBuckets: 32, maxDistance: 128, bidirectional: true }).data[0];
    const { data } = t5BiasFixture();
    await page.locator('#t5').evaluate((el) => el.shadowRoot.querySelectorAll('.pe-plot')[2].focus());
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
    assert.equal(await page.locator('#t5').evaluate((el) => el.shadowRoot.querySelectorAll('.pe-readout')[2].textContent), `query 0, key 5: ${formatValue(data[bucket * 8 + 2])}`);
    const refused = await page.locator('#t5').evaluate(async (el) => {
      el.table = { data: [1, 2], shape: [1, 2] };
      await new Promise((resolve) => { setTimeout(resolve, 300); });
      return el.shadowRoot.querySelector('.error').textContent;
    });
    assert.equal(refused, 'table.shape is [buckets, heads]: buckets must be in [4, 1024], got 1');
    assert.deepEqual(problems, []);
  });

  it('its controls drive the components and the bucket plot, with the package numbers', async () => {
    const { page, problems } = await site.open('bias.html');
    const { load } = await import('../../dist/index.js');
    const pe = await load();
    const readout = (o) => {
      const b = pe.t5Bucket([-1, 0, 1, -200, 200], o).data;
      return `bucket(−1) = ${b[0]}, bucket(0) = ${b[1]}, bucket(+1) = ${b[2]}, bucket(±200) = ${b[3]}, ${b[4]}`;
    };
    assert.equal(await page.locator('#t5-readout').textContent(), readout({ numBuckets: 32, maxDistance: 128, bidirectional: true }));
    await page.uncheck('#t5-controls [name="bidirectional"]');
    await page.fill('#t5-controls [name="buckets"]', '16');
    await page.waitForFunction((text) => document.querySelector('#t5-readout').textContent === text, readout({ numBuckets: 16, maxDistance: 128, bidirectional: false }));
    assert.equal(await page.getAttribute('#t5-buckets', 'bidirectional'), 'false');
    await page.fill('#t5-controls [name="maxDistance"]', '2');
    assert.match(await page.locator('#t5-error').textContent(), /^maxDistance must be an integer in \[9, 2147483647\], got 2$/);
    await page.fill('#alibi-controls [name="heads"]', '3');
    await page.uncheck('#alibi-controls [name="causal"]');
    await page.locator('#alibi').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelector('#alibi').shadowRoot.querySelectorAll('canvas').length === 3 && !document.querySelector('#alibi').hasAttribute('causal'));
    // Not causal: the top-right corner is a finite bias, not the grey of a masked cell.
    await page.waitForFunction((masked) => {
      const canvas = document.querySelector('#alibi').shadowRoot.querySelector('canvas');
      return Array.from(canvas.getContext('2d').getImageData(canvas.width - 1, 0, 1, 1).data.slice(0, 3)).some((v, i) => v !== masked[i]);
    }, MASKED.rgb);
    // One colour scale for all heads by default: the heads with smaller slopes are lighter in their farthest cell
    // (ALiBi's ramp: farther is more negative, darker in viridis), and the caption says why a gentle head looks flat.
    // Each head over its own range when asked: the same colour in every head's farthest cell.
    const corners = () => page.evaluate(() => Array.from(document.querySelector('#alibi').shadowRoot.querySelectorAll('canvas'),
      (canvas) => Array.from(canvas.getContext('2d').getImageData(canvas.width - 1, 0, 1, 1).data.slice(0, 3))));
    const caption = () => page.locator('#alibi').evaluate((el) => el.shadowRoot.querySelector('.caption').textContent);
    assert.match(await caption(), /One colour scale for all heads, so sizes compare/);
    const shared = await corners();
    await page.uncheck('#alibi-controls [name="shared"]');
    await page.waitForFunction(() => /Each head coloured over its own range: compare their shapes here, not their sizes/.test(document.querySelector('#alibi').shadowRoot.querySelector('.caption').textContent));
    const perHead = await corners();
    assert.deepEqual(perHead[1], perHead[0]);
    assert.deepEqual(perHead[2], perHead[0]);
    const lightness = (rgb) => rgb[0] + rgb[1] + rgb[2];
    const slopes = pe.alibiSlopes(3).data;  // 1/16, 1/256, 1/4: three heads are not a plain geometric series
    const [steep, middle, shallow] = [0, 1, 2].sort((a, b) => slopes[b] - slopes[a]);
    assert.deepEqual(shared[steep], perHead[steep], 'the steepest head spans the shared range');
    assert.ok(lightness(shared[steep]) < lightness(shared[middle]) && lightness(shared[middle]) < lightness(shared[shallow]), `corners ${JSON.stringify(shared)}`);
    // What the bias does to attention: the last query's softmax weights from the bias alone, a row per head, and a
    // caption with the numbers drawn (the steepest head's share of the nearest four keys).
    const weights = await page.locator('#alibi-weights figcaption').textContent();
    const share = (slope) => {
      const w = Array.from({ length: 32 }, (_, k) => Math.exp(-slope * (31 - k)));
      const sum = w.reduce((a, b) => a + b, 0);
      return Math.round((100 * w.slice(28).reduce((a, b) => a + b, 0)) / sum);
    };
    const eight = pe.alibiSlopes(8).data;
    await page.fill('#alibi-controls [name="heads"]', '8');
    await page.waitForFunction((text) => document.querySelector('#alibi-weights figcaption').textContent !== text, weights);
    assert.match(await page.locator('#alibi-weights figcaption').textContent(),
      new RegExp(`^Head 1 \\(slope 0\\.50\\) puts ${share(eight[0])}% of the last query's attention on the nearest 4 keys; head 8 \\(slope 0\\.0039\\) only ${share(eight[7])}%`));
    assert.equal(await page.locator('#alibi-weights .pe-plot').getAttribute('aria-label'), 'Attention weights of the last query over the keys, for each head, from the ALiBi bias alone. Arrow keys move the cursor and read values.');
    assert.deepEqual(problems, []);
  });

  it('relative position vectors: Shaw\'s clipped offsets flat past K, Transformer-XL\'s sinusoid of the offset never flat', async () => {
    const { page, problems } = await site.open('bias.html');
    const section = '#relative-vectors';
    // The index map: clip(j − i, −8, 8) at known cells, read through the keyboard readout.
    await page.locator(`${section} .pe-plot`).first().focus();
    await page.keyboard.press('PageDown');
    await page.keyboard.press('End');
    assert.match(await page.locator(`${section} .pe-readout`).first().textContent(), /query 47, key 47: vector a_0/);
    await page.keyboard.press('Home');
    assert.match(await page.locator(`${section} .pe-readout`).first().textContent(), /query 47, key 0: vector a_-8/);
    assert.equal(await page.getAttribute(section, 'data-shaw-distinct-past-clip'), '1');
    // Transformer-XL's term at k = 1 and k = 47 against float64: (q + v) · R_k with R's sines first, then cosines.
    // The page's q and v: 64 entries in [-1, 1] each, from mulberry32 seeded 7 and 11 (its published steps).
    const mulberry32 = (seed) => {
      let a = seed >>> 0;
      return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = Math.imul(a ^ (a >>> 15), 1 | a);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
      };
    };
    const [q, v] = [7, 11].map((seed) => { const next = mulberry32(seed); return Array.from({ length: 64 }, () => next() * 2 - 1); });
    const xl = (k) => {
      let sum = 0;
      for (let i = 0; i < 32; i++) {
        const angle = k * 10000 ** (-2 * i / 64);
        sum += (q[i] + v[i]) * Math.sin(angle) + (q[32 + i] + v[32 + i]) * Math.cos(angle);
      }
      return sum;
    };
    const readout = await page.locator(`${section} > .readout`).textContent();
    const [, atOne, atLast] = readout.match(/k = 1: Shaw [-\d.]+, Transformer-XL ([-\d.]+); k = 47: Shaw [-\d.]+, Transformer-XL ([-\d.]+)\./);
    assert.ok(Math.abs(Number(atOne) - xl(1)) < 2e-4 && Math.abs(Number(atLast) - xl(47)) < 2e-4, `${readout} vs ${xl(1)}, ${xl(47)}`);
    // K past the length: every offset has its own vector, and the caption says so.
    await page.fill(`${section} [name="clip"]`, '60');
    await page.waitForFunction((s) => Array.from(document.querySelectorAll(`${s} figcaption`)).some((c) => /K reaches past this length/.test(c.textContent)), section);
    await page.fill(`${section} [name="clip"]`, '0');
    await page.waitForFunction((s) => !document.querySelector(`${s} .idea-error`).hidden, section);
    assert.match(await page.locator(`${section} .idea-error`).textContent(), /^clipping distance K must be an integer in \[1, 64\], got 0$/);
    assert.deepEqual(problems, []);
  });
});
