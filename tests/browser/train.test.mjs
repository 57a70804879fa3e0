// The Train page and <posembed-train>: training advances in a worker, the curves and scatters are drawn,
// questions are answered, and a removed element lets its worker go.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useSite, visibleErrors } from './browser.mjs';

const inShadow = (page, host, selector, fn = (el) => el.textContent) => page.locator(host).evaluate((el, [s, f]) => {
  const found = el.shadowRoot.querySelector(s);
  return found ? new Function(`return (${f})`)()(found) : null;
}, [selector, fn.toString()]);

const click = (page, host, selector) => page.locator(host).evaluate((el, s) => el.shadowRoot.querySelector(s).click(), selector);

describe('the Train page', () => {
  const site = useSite();

  it('<posembed-train> trains in a worker: the step advances, curves and scatter are drawn, Pause stops it', async () => {
    const { page, problems } = await site.open('train.html');
    const trainer = '#main-trainer';
    await page.waitForFunction(() => document.querySelector('#main-trainer').dataset.drawn === '0');
    // The page's own start first: three workers loading, their first pictures.
    await page.waitForFunction(() => document.querySelector('#first-none').dataset.drawn === '0' && document.querySelector('#words-figure').dataset.step === '0');
    assert.match(await inShadow(page, trainer, '.honest'), /^Untrained/);
    assert.equal(await inShadow(page, trainer, '.tokens svg', (svg) => svg.querySelectorAll('circle:not(.pe-cursor)').length), 20);
    assert.equal(await inShadow(page, trainer, '.tokens svg path.pe-path', (path) => path.getAttribute('d').split('L').length), 10, 'a line through the ten digits');
    assert.equal(await inShadow(page, trainer, '.loss .pe-status'), 'Nothing yet: press Start', 'an untrained curve says what it waits for');
    // Waiting on the reader is not work under way: no figure in view says it is busy (a hidden one may: the position
    // table of a trainer without learned positions).
    const busy = await page.evaluate(() => ['#main-trainer', '#first-none'].flatMap((id) => [...document.querySelector(id).shadowRoot.querySelectorAll('.pe-figure')]
      .filter((figure) => figure.checkVisibility()).map((figure) => figure.getAttribute('aria-busy'))));
    assert.ok(busy.length >= 8 && busy.every((value) => value === 'false'), busy.join());
    // (How long the page's thread is busy while training, and the gaps between its frames, are speed goals, timed by
    // `npm run bench`: scripts/bench/responsiveness.mjs.)
    await click(page, trainer, '[data-action="start"]');
    await page.waitForFunction(() => Number(document.querySelector('#main-trainer').dataset.drawn) >= 200, null, { timeout: 60000 });
    assert.match(await inShadow(page, trainer, '.honest'), /^After \d+ steps of training on Max, Min and First with learned positions/);
    // The token picture's caption says what this run's picture shows, with the number that decides it.
    const tokens = await inShadow(page, trainer, '.tokens figcaption');
    const rho = Number(tokens.match(/rank correlation (\d\.\d\d) with 0–9/)[1]);
    assert.equal(/the digits line up in their order/.test(tokens), rho >= 0.9, tokens);
    assert.equal(/have not lined up/.test(tokens), rho < 0.9, tokens);
    const curve = await inShadow(page, trainer, '.loss svg path[stroke="#1f5fbf"]', (path) => path.getAttribute('d').split('L').length);
    assert.ok(curve >= 3, `the loss curve has ${curve} points`);
    assert.ok(await inShadow(page, trainer, '.accuracy svg path[stroke="#1f5fbf"]', (path) => path.getAttribute('d').length > 0));
    assert.equal(await inShadow(page, trainer, '.similarity canvas', (c) => `${c.width}x${c.height}`), '20x20');
    // Learned positions by default: the table forms where the reader can watch it, its caption measured from it.
    assert.equal(await page.locator(trainer).evaluate((el) => el.shadowRoot.querySelector('.positions').hidden), false);
    assert.match(await inShadow(page, trainer, '.positions figcaption'), /Rows 1[2-5]–15 have hardly moved from their random start: no training question is that long.* row 2 \(always the first number\) against rows 4, 6, 8, 10 has cosine -?\d\.\d\d/);
    await click(page, trainer, '[data-action="pause"]');
    await page.waitForFunction(() => document.querySelector('#main-trainer').shadowRoot.querySelector('[data-action="start"]').disabled === false);
    const paused = Number(await page.locator(trainer).getAttribute('data-step'));
    await page.waitForTimeout(800);
    assert.equal(Number(await page.locator(trainer).getAttribute('data-step')), paused, 'no steps after Pause');
    assert.match(await inShadow(page, trainer, '.status'), new RegExp(`^step ${paused} · loss \\d\\.\\d{3} · held-out accuracy \\d+\\.\\d%`));
    // The token table's values grow as training pushes its rows apart.
    const [start, end] = (await inShadow(page, trainer, '.range figcaption')).match(/grows from (\d+\.\d\d) at the start to (\d+\.\d\d)/).slice(1).map(Number);
    assert.ok(end > start, `${start} → ${end}`);
    // The curves' readouts follow the newest point, not the first.
    const readStep = await inShadow(page, trainer, '.loss .pe-readout');
    assert.ok(Number(readStep.match(/^step ([\d,]+)/)[1].replace(/,/g, '')) >= 200, `the loss readout says "${readStep}"`);
    // Ask it; then longer lists than training's.
    await click(page, trainer, '.ask button');
    await page.waitForFunction(() => /^First\(3,1,2\) → \d$/.test(document.querySelector('#main-trainer').shadowRoot.querySelector('.answer').textContent));
    assert.equal(await inShadow(page, trainer, '.probabilities svg', (svg) => svg.querySelectorAll('rect').length >= 20), true);
    await click(page, trainer, '[data-action="extrapolate"]');
    // A learned table has no rows for lists that long: it says so instead of guessing.
    await page.waitForFunction(() => /^Cannot answer: learned positions cover 16 positions \(maxLength\); these examples need \d+/.test(document.querySelector('#main-trainer').shadowRoot.querySelector('.extrapolation').textContent));
    assert.deepEqual(problems, []);
    assert.deepEqual(await visibleErrors(page), []);
    await page.close();
  });

  it('the pace slows training to the steps a second asked for, and the replay goes back to any frame and on to the latest', async () => {
    const { page, problems } = await site.open('train.html');
    const trainer = '#main-trainer';
    await page.waitForFunction(() => document.querySelector('#main-trainer').dataset.drawn === '0');
    await page.locator(trainer).evaluate((el) => {
      const pace = el.shadowRoot.querySelector('select[name="pace"]');
      pace.value = '10';
      pace.dispatchEvent(new Event('change'));
    });
    // The pace is a ceiling: never more steps than 10 a second over the whole time from Start to stopped (how soon a
    // busy machine reaches them is its own affair).
    const started = Date.now();
    await click(page, trainer, '[data-action="start"]');
    await page.waitForFunction(() => Number(document.querySelector('#main-trainer').dataset.step) >= 15, null, { timeout: 60000 });
    await click(page, trainer, '[data-action="pause"]');
    await page.waitForFunction(() => document.querySelector('#main-trainer').shadowRoot.querySelector('[data-action="start"]').disabled === false);
    const seconds = (Date.now() - started) / 1000;
    const steps = Number(await page.locator(trainer).getAttribute('data-step'));
    assert.ok(steps >= 15 && steps <= 10 * seconds + 1, `${steps} steps in ${seconds.toFixed(1)} s at 10 a second`);
    // Back to the first frame: the untrained tables; then to the end: the latest again.
    const replay = async (to) => page.locator(trainer).evaluate((el, where) => {
      const slider = el.shadowRoot.querySelector('input[name="frame"]');
      slider.value = where === 'end' ? slider.max : String(where);
      slider.dispatchEvent(new Event('input'));
      return Number(slider.max);
    }, to);
    const frames = await replay(0);
    assert.ok(frames >= 5, `${frames + 1} frames kept`);
    await page.waitForFunction(() => /^Untrained/.test(document.querySelector('#main-trainer').shadowRoot.querySelector('.honest').textContent));
    assert.match(await inShadow(page, trainer, '#replay-step'), new RegExp(`^step 0 of ${steps} \\(move right`));
    await replay('end');
    await page.waitForFunction((n) => document.querySelector('#main-trainer').shadowRoot.querySelector('.honest').textContent.startsWith(`After ${n} steps`), steps);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('the token picture follows training: between frames the rows move, the picture never flips or turns over', async () => {
    const { page, problems } = await site.open('train.html');
    await page.waitForFunction(() => document.querySelector('#main-trainer').dataset.drawn === '0');
    // Every drawn frame's 20 points (screen coordinates), for at least eight frames of training.
    await page.evaluate(() => {
      const el = document.querySelector('#main-trainer');
      window.frames20 = [];
      new MutationObserver(() => {
        const circles = [...el.shadowRoot.querySelectorAll('.tokens svg circle:not(.pe-cursor)')];
        window.frames20.push(circles.map((c) => [Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))]));
      }).observe(el, { attributes: true, attributeFilter: ['data-drawn'] });
    });
    await click(page, '#main-trainer', '[data-action="start"]');
    await page.waitForFunction(() => window.frames20.length >= 8, null, { timeout: 60000 });
    await click(page, '#main-trainer', '[data-action="pause"]');
    const frames = await page.evaluate(() => window.frames20);
    // From one frame to the next (each centred), the best rotation and the best reflection onto the one before: the
    // rotation must fit better (no mirror image) and turn by less than 45° (no swapped or flipped axes).
    const centred = (points) => {
      const [mx, my] = [0, 1].map((k) => points.reduce((sum, p) => sum + p[k], 0) / points.length);
      return points.map(([x, y]) => [x - mx, y - my]);
    };
    for (let f = 1; f < frames.length; f++) {
      const [a, b] = [centred(frames[f]), centred(frames[f - 1])];
      let [m11, m12, m21, m22] = [0, 0, 0, 0];
      a.forEach(([x, y], i) => { m11 += x * b[i][0]; m12 += x * b[i][1]; m21 += y * b[i][0]; m22 += y * b[i][1]; });
      const rotation = Math.hypot(m11 + m22, m21 - m12);
      const reflection = Math.hypot(m11 - m22, m12 + m21);
      assert.ok(rotation >= reflection, `frame ${f} is the mirror image of frame ${f - 1}`);
      const turn = Math.abs(Math.atan2(m21 - m12, m11 + m22)) * (180 / Math.PI);
      assert.ok(turn < 45, `frame ${f} is turned ${turn.toFixed(0)}° from frame ${f - 1}`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('learned positions: the position table is drawn, and longer lists are refused in words', async () => {
    const { page, problems } = await site.open('train.html');
    await page.locator('#train-controls [name="positional"]').selectOption('learned');
    await page.waitForFunction(() => document.querySelector('#main-trainer').shadowRoot.querySelector('.positions canvas')?.height === 16);
    await click(page, '#main-trainer', '[data-action="extrapolate"]');
    await page.waitForFunction(() => /^Cannot answer: learned positions cover 16 positions/.test(document.querySelector('#main-trainer').shadowRoot.querySelector('.extrapolation').textContent));
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('an attribute out of range is named next to the element, and a good value draws again', async () => {
    const { page, problems } = await site.open('train.html');
    const trainer = '#first-none';
    const error = () => inShadow(page, trainer, '.error', (el) => (el.hidden ? '' : el.textContent));
    await page.waitForFunction(() => document.querySelector('#first-none').dataset.drawn === '0');
    for (const [name, bad, message] of [
      ['d-model', '30', '<posembed-train>: d-model must be a multiple of 2 × heads = 8 (an even head size), got "30"'],
      ['steps', '-1', '<posembed-train>: steps must be an integer in [1, 1000000], got "-1"'],
      ['learning-rate', 'fast', '<posembed-train>: learning-rate must be a number in (0, 1], got "fast"'],
    ]) {
      const good = await page.locator(trainer).getAttribute(name);
      await page.locator(trainer).evaluate((el, [n, v]) => el.setAttribute(n, v), [name, bad]);
      await page.waitForFunction(([host, m]) => document.querySelector(host).shadowRoot.querySelector('.error').textContent === m, [trainer, message]);
      if (good === null) await page.locator(trainer).evaluate((el, n) => el.removeAttribute(n), name);
      else await page.locator(trainer).evaluate((el, [n, v]) => el.setAttribute(n, v), [name, good]);
      await page.waitForFunction((host) => document.querySelector(host).shadowRoot.querySelector('.error').hidden, trainer);
      assert.equal(await error(), '', `${name} back to ${good}`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('a removed <posembed-train> ends its worker', async () => {
    const { page } = await site.open('train.html');
    await page.waitForFunction(() => document.querySelector('#first-none').dataset.drawn === '0');
    const before = page.workers().length;
    await page.evaluate(() => document.querySelector('#first-none').remove());
    for (let i = 0; i < 300 && page.workers().length >= before; i++) await page.waitForTimeout(100);
    assert.ok(page.workers().length < before, `workers ${before} → ${page.workers().length}`);
    assert.equal(await page.evaluate(() => document.querySelector('#main-trainer').isConnected), true);
    await page.close();
  });

  it('word embeddings learn live: the scatter is drawn and king\'s nearest words include queen', async () => {
    const { page, problems } = await site.open('train.html');
    await page.waitForFunction(() => document.querySelector('#words-figure').dataset.step === '0');
    await page.locator('#words-start').click();
    await page.waitForFunction(() => Number(document.querySelector('#words-figure').dataset.step) >= 3000, null, { timeout: 60000 });
    assert.equal(await page.locator('#words-figure svg circle:not(.pe-cursor)').count(), 16);
    // Each kind gathers tightly, yet every word's label stays readable: no two labels overprint.
    const overprinted = await page.locator('#words-figure svg').evaluate((svg) => {
      const boxes = [...svg.querySelectorAll('text[font-size="12"]:not(.pe-axis-label)')].map((text) => ({ word: text.textContent, box: text.getBBox() }));
      const overlap = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
      return boxes.flatMap((a, i) => boxes.slice(i + 1).filter((b) => overlap(a.box, b.box)).map((b) => `${a.word}/${b.word}`));
    });
    assert.deepEqual(overprinted, []);
    await page.locator('#words-nearest button').click();
    await page.waitForFunction(() => /^Nearest to king: /.test(document.querySelector('#words-result').textContent));
    assert.match(await page.locator('#words-result').textContent(), /queen/);
    // king − man + woman, as a figure: queen first, its bar the tallest.
    assert.match(await page.locator('#analogy-figure figcaption').textContent(), /on untrained vectors: random words/);
    await page.locator('#words-analogy button').click();
    await page.waitForFunction(() => /after 3000 steps/.test(document.querySelector('#analogy-figure figcaption').textContent));
    assert.equal(await page.getAttribute('#analogy-figure', 'data-nearest'), 'queen');
    assert.match(await page.locator('#analogy-figure figcaption').textContent(), /^king − man \+ woman after 3000 steps: nearest is queen \(cosine 0\.\d\d\)/);
    assert.equal(await page.locator('#analogy-figure svg rect:not(.pe-cursor)').count(), 6);
    await page.locator('#words-analogy [name="c"]').fill('duchess');
    await page.locator('#words-analogy button').click();
    await page.waitForFunction(() => /c: 'duchess' is not in the corpus's vocabulary/.test(document.querySelector('#analogy-figure .pe-status').textContent));
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('the comparison trains every positional option and tabulates both lengths; learned says it cannot run past its rows', async () => {
    const { page, problems } = await site.open('train.html');
    await page.locator('#compare').click();
    await page.waitForFunction(() => /^Done: 15 models trained/.test(document.querySelector('#compare-status').textContent), null, { timeout: 300000 });
    const rows = await page.locator('#compare-table tbody tr').evaluateAll((trs) => trs.map((tr) => [...[...tr.cells].map((td) => td.textContent), tr.dataset.near]));
    assert.deepEqual(rows.map(([positional]) => positional), ['none', 'sinusoidal', 'learned', 'rope', 'alibi']);
    for (const [positional, near, far, seeds] of rows) {
      // The mean of three seeds, and the lowest and highest of them.
      const accuracies = seeds.split(' ').map((a) => 100 * Number(a));
      assert.equal(accuracies.length, 3, positional);
      const mean = accuracies.reduce((a, b) => a + b, 0) / 3;
      assert.equal(near, `${mean.toFixed(1)}% (${Math.min(...accuracies).toFixed(0)}–${Math.max(...accuracies).toFixed(0)})`, positional);
      assert.match(far, positional === 'learned' ? /^cannot run: a learned table has no rows past position 15$/ : /^\d+\.\d% \(\d+–\d+\)$/, positional);
    }
    assert.ok(parseFloat(rows[1][1]) >= 90, `sinusoidal after 600 steps: ${rows[1][1]}`);
    assert.equal(await page.locator('#compare').isDisabled(), false);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('tables trained on the Train page open in the learned-position and token pages', () => {
  const site = useSite();

  it('the saved position table (.npy) and model (.safetensors) are read back there', async () => {
    const { page, problems } = await site.open('train.html');
    await page.locator('#train-controls [name="positional"]').selectOption('learned');
    await page.waitForFunction(() => document.querySelector('#main-trainer').shadowRoot.querySelector('.positions canvas')?.height === 16);
    await click(page, '#main-trainer', '[data-action="start"]');
    await page.waitForFunction(() => Number(document.querySelector('#main-trainer').dataset.step) >= 50, null, { timeout: 60000 });
    await click(page, '#main-trainer', '[data-action="pause"]');
    const folder = mkdtempSync(join(tmpdir(), 'posembed-saved-'));
    const save = async (action) => {
      const download = page.waitForEvent('download');
      await click(page, '#main-trainer', `[data-action="${action}"]`);
      const file = await download;
      const path = join(folder, file.suggestedFilename());
      await file.saveAs(path);
      return path;
    };
    const positions = await save('save-positions');
    const model = await save('save-model');
    assert.equal(basename(positions), 'wpe-mixed-learned.npy');
    assert.equal(basename(model), 'posembed-mixed-learned.safetensors');
    assert.deepEqual(problems, []);
    await page.close();

    const learned = await site.open('learned.html');
    for (const file of [positions, model]) {
      await learned.page.setInputFiles('#trained-file', file);
      await learned.page.waitForFunction((name) => document.querySelector('#learned-figure figcaption')?.textContent.startsWith(`Trained table from ${name}, [16 × 64]`), basename(file));
    }
    assert.equal(await learned.page.locator('#learned-controls [name="maxLength"]').isDisabled(), true);
    await learned.page.locator('#trained-clear').click();
    await learned.page.waitForFunction(() => document.querySelector('#learned-figure figcaption').textContent.startsWith('Untrained (random) learned table'));
    assert.deepEqual(learned.problems, []);
    await learned.page.close();

    const tokens = await site.open('tokens.html');
    await tokens.page.setInputFiles('#weights-file', model);
    await tokens.page.waitForFunction(() => document.querySelector('#weights-status').textContent.includes('from posembed-mixed-learned.safetensors'));
    assert.ok((await tokens.page.locator('#tensor-select option').allTextContents()).includes('wte.weight [20, 64] F32'));
    // The token table is the one chosen first, by its name.
    assert.equal(await tokens.page.locator('#tensor-select').inputValue(), 'wte.weight');
    await tokens.page.locator('#tensor-select').selectOption('wte.weight');
    await tokens.page.locator('#token-controls [name="text"]').fill('Max(1,6,2)');
    await tokens.page.waitForFunction(() => document.querySelector('#token-chips .token')?.textContent === 'Max → 15');
    assert.equal(await tokens.page.locator('#token-chips .token').count(), 8);
    assert.match(await tokens.page.locator('#nearest li').first().textContent(), /^"Max" \(15\): 1\.0000$/);
    await tokens.page.locator('#token-controls [name="text"]').fill('Max(1;2)');
    await tokens.page.waitForFunction(() => /the text must be toy tokens: ';' is not in the toy vocabulary/.test(document.querySelector('#token-error').textContent));
    assert.deepEqual(tokens.problems, []);
    await tokens.page.close();
  });
});
