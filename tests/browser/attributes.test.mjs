// What an author meets with attributes: every problem named as written, with its range and the value, all at once,
// next to the element; sizes over an element's budget refused, and its largest drawings within it drawn; nothing clamped or ignored;
// the heatmap's offset on its axis; the author's own matrix as element.data; 'render' and 'change' events.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { COMMON_ATTRIBUTES, ELEMENT_SCHEMAS } from '../../dist/element_schemas.js';
import { drawElement } from '../../scripts/browser.mjs';
import { LARGEST_DRAWINGS } from '../../scripts/bench/responsiveness.mjs';
import { REPO } from '../pack.mjs';
import { openWithAllElements, useSite } from './browser.mjs';

// The page's element, given attributes, and its error line once it has read them.
async function errorOf(page, tag, attributes) {
  return page.evaluate(async ([name, given]) => {
    const el = document.createElement(name);
    for (const [key, value] of Object.entries(given)) el.setAttribute(key, value);
    document.body.append(el);
    el.scrollIntoView();
    const line = () => [...el.shadowRoot.querySelectorAll('.error, .pe-error')].find((e) => !e.hidden && e.textContent);
    for (let i = 0; i < 1200 && !line(); i++) await new Promise((resolve) => { setTimeout(resolve, 25); });
    const text = line()?.textContent ?? '';
    el.remove();
    return text;
  }, [tag, attributes]);
}

describe('element attributes in the author\'s words', () => {
  const site = useSite();
  let page;
  let problems;

  before(async () => {
    ({ page, problems } = await openWithAllElements(site));
  });

  it('names each bad attribute as written, with its range and the value, every problem at once', async () => {
    const cases = [
      ['posembed-heatmap', { encoding: 'alibi', heads: '0' }, '<posembed-heatmap>: heads must be an integer in [1, 64], got "0"'],
      ['posembed-heatmap', { length: '0', 'd-model': '7' }, '<posembed-heatmap>: 2 attributes need fixing: length must be an integer in [1, 8192], got "0"; d-model must be an even integer in [2, 4096], got "7"'],
      ['posembed-heatmap', { encoding: 'similarity', metric: 'manhattan' }, '<posembed-heatmap>: metric must be one of "dot", "cosine", got "manhattan"'],
      ['posembed-heatmap', { encoding: 'alibi', heads: '4', head: '4' }, '<posembed-heatmap>: head must be below heads (4), got "4"'],
      ['posembed-bias', { kind: 't5', heads: '-1' }, '<posembed-bias>: heads must be an integer in [1, 64], got "-1"'],
      ['posembed-bias', { kind: 't5', buckets: 'NaN' }, '<posembed-bias>: buckets must be an integer in [4, 1024], got "NaN"'],
      ['posembed-rope', { position: '-5' }, '<posembed-rope>: position must be an integer in [0, 2147483647], got "-5"'],
      ['posembed-rope', { pairs: '999' }, '<posembed-rope>: pairs must be an integer in [1, 512], got "999"'],
      ['posembed-rope', { pairs: '40' }, '<posembed-rope>: pairs must be at most head-dim / 2 = 32, got "40"'],
      ['posembed-rope', { speed: '-1' }, '<posembed-rope>: speed must be a number in (0, 1000], got "-1"'],
      ['posembed-lookup', { 'd-model': '513', scale: 'log' }, '<posembed-lookup>: 2 attributes need fixing: d-model must be an even integer in [2, 512], got "513"; scale must be one of "sqrt", "none", got "log"'],
      ['posembed-train', { heads: '3', 'd-model': '64' }, '<posembed-train>: d-model must be a multiple of 2 × heads = 6 (an even head size), got "64"'],
      ['posembed-model', { layer: 'first' }, '<posembed-model>: layer must be an integer in [0, 100000], got "first"'],
      ['posembed-model', { config: 'gpt2', layer: '12' }, '<posembed-model>: layer must be below the model\'s 12 layers, got "12"'],
    ];
    for (const [tag, attributes, message] of cases) assert.equal(await errorOf(page, tag, attributes), message, `${tag} ${JSON.stringify(attributes)}`);
    assert.deepEqual(problems, []);
  });

  it('refuses sizes over an element\'s budget, naming the limit', async () => {
    const message = await errorOf(page, 'posembed-heatmap', { length: '8192', 'd-model': '4096' });
    assert.equal(message, '<posembed-heatmap>: the sinusoidal table would have 33,554,432 cells, over this element\'s 1,048,576: lower length or d-model');
    assert.match(await errorOf(page, 'posembed-heatmap', { encoding: 'alibi', length: '4096', heads: '64' }), /over this element's 1,048,576: lower length or d-model/);
    assert.match(await errorOf(page, 'posembed-heatmap', { encoding: 'similarity', length: '1024', 'd-model': '4096' }), /takes 4,294,967,296 multiply-adds, over this element's 268,435,456/);
    assert.match(await errorOf(page, 'posembed-bias', { heads: '64', length: '512' }), /heads × length² would be 16,777,216 cells, over this element's 1,048,576/);
  });

  // How long these take on the page's thread is a speed goal, timed by `npm run bench` (scripts/bench/responsiveness.mjs).
  it('the largest drawings within the budget draw, with no error', async () => {
    for (const attributes of LARGEST_DRAWINGS) {
      const drawn = await drawElement(page, 'posembed-heatmap', attributes);
      assert.equal(drawn.error, '', JSON.stringify(attributes));
      assert.ok(drawn.shape.reduce((a, b) => a * b, 1) > 0, `${JSON.stringify(attributes)}: drew ${drawn.shape}`);
    }
  });

  it('<posembed-heatmap offset="100"> labels the positions it draws; element.data draws the author\'s matrix; both fire render', async () => {
    const result = await page.evaluate(async () => {
      const el = document.createElement('posembed-heatmap');
      el.setAttribute('offset', '100');
      el.setAttribute('length', '8');
      el.setAttribute('d-model', '16');
      const events = [];
      document.body.addEventListener('render', (event) => events.push(event.detail), { once: false });
      document.body.append(el);
      el.scrollIntoView();
      while (!el.dataset.rendered) await new Promise((resolve) => { setTimeout(resolve, 25); });
      const ticks = [...el.shadowRoot.querySelectorAll('.tick text')].map((t) => t.textContent);
      const readout = el.shadowRoot.querySelector('.pe-readout').textContent;
      el.data = { data: [1, 2, 3, 4, 5, 6], shape: [2, 3], caption: 'my matrix', range: { min: 0, max: 6 } };
      while (events.length < 2) await new Promise((resolve) => { setTimeout(resolve, 25); });
      const caption = el.shadowRoot.querySelector('figcaption').textContent;
      el.data = { data: [1, 2], shape: [2, 3] };
      await new Promise((resolve) => { setTimeout(resolve, 100); });
      const refused = el.shadowRoot.querySelector('.pe-error').textContent;
      el.remove();
      return { ticks, readout, caption, refused, events };
    });
    assert.ok(result.ticks.includes('100') && result.ticks.includes('107'), `ticks: ${result.ticks}`);
    assert.match(result.readout, /^position 100, dimension 0: /);
    assert.equal(result.caption, 'my matrix');
    assert.deepEqual(result.events.map((e) => [e.encoding, e.shape]), [['sinusoidal', [8, 16]], ['data', [2, 3]]]);
    assert.equal(result.refused, '<posembed-heatmap>: data.shape [2, 3] holds 6 values but data.data has 2');
  });

  it('<posembed-rope> fires change when the reader plays, pauses or steps it', async () => {
    const changes = await page.evaluate(async () => {
      const el = document.createElement('posembed-rope');
      el.setAttribute('head-dim', '8');
      const seen = [];
      el.addEventListener('change', (event) => seen.push(event.detail));
      document.body.append(el);
      el.scrollIntoView();
      while (!el.dataset.rendered) await new Promise((resolve) => { setTimeout(resolve, 25); });
      if (el.playing) el.shadowRoot.querySelector('.play').click();
      el.shadowRoot.querySelector('.forward').click();
      el.remove();
      return seen;
    });
    assert.equal(changes.at(-1).playing, false);
    assert.ok(changes.length >= 1);
  });

  it('the README\'s attribute table names every attribute of every element (those all take, once, with every value)', () => {
    const readme = readFileSync(`${REPO}/README.md`, 'utf8');
    for (const [tag, schema] of Object.entries(ELEMENT_SCHEMAS)) {
      const row = readme.split('\n').find((line) => line.startsWith(`| \`<${tag}>\``));
      assert.ok(row, `no README row for <${tag}>`);
      for (const name of Object.keys(schema.attributes)) {
        if (!(name in COMMON_ATTRIBUTES)) assert.match(row, new RegExp(`[\`( ]${name}[\`) ,:]`), `<${tag}>'s README row lacks ${name}`);
      }
    }
    for (const [name, spec] of Object.entries(COMMON_ATTRIBUTES)) {
      assert.ok(readme.includes(`Every element takes \`${name}="${spec.values[0]}"\``), `the README does not say every element takes ${name}`);
      for (const value of spec.values) assert.ok(readme.includes(`"${value}"`), `the README lacks ${name}="${value}"`);
    }
  });
});

describe('theming: every custom property in the README with both defaults', () => {
  it('lists each --posembed-* colour the elements read, with its light and dark default', async () => {
    const { THEME_PROPERTIES } = await import('../../dist/components/theme.js');
    const readme = readFileSync(`${REPO}/README.md`, 'utf8');
    for (const [name, [light, dark]] of Object.entries(THEME_PROPERTIES)) {
      assert.ok(readme.includes(`| \`--posembed-${name}\` | \`${light}\` | \`${dark}\` |`), `README lacks --posembed-${name} with ${light} / ${dark}`);
    }
  });
});
