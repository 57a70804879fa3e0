// element.toBlob(): a drawn element's figures as a file an author puts in a paper or a slide, framed as on the page
// (title, axes, colour bar or legend, caption): SVG with the cells as one embedded image, or PNG at a scale.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import resvg from '@resvg/resvg-js';
import { openWithAllElements, useSite } from './browser.mjs';

describe('element.toBlob: framed SVG and PNG', () => {
  const site = useSite();
  let page;
  let problems;

  before(async () => {
    ({ page, problems } = await openWithAllElements(site));
  });

  // Adds the element and waits for its render event; then runs `then(element)` in the page and removes it.
  async function exported(tag, attributes, then) {
    await page.evaluate(async ([name, given]) => {
      const el = document.createElement(name);
      for (const [key, value] of Object.entries(given)) el.setAttribute(key, value);
      const rendered = new Promise((resolve) => el.addEventListener('render', resolve, { once: true }));
      document.body.prepend(el);
      window.exported = el;
      await rendered;
    }, [tag, attributes]);
    const result = await page.evaluate(then);
    await page.evaluate(() => window.exported.remove());
    return result;
  }

  it('a heatmap as SVG: axes, ticks at the positions drawn, the colour bar in words, the caption, and the cells as one image (kilobytes)', async () => {
    const svg = await exported('posembed-heatmap', { length: '64', 'd-model': '128', offset: '100' }, async () => (await window.exported.toBlob({ type: 'image/svg+xml' })).text());
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="\d+" height="\d+"/);
    assert.equal(svg.match(/<image /g).length, 1);
    for (const text of ['>position<', '>dimension<', '>100<', '>160<', 'red = negative, white = 0, blue = positive', 'Sinusoidal positions 100–163']) {
      assert.ok(svg.includes(text), `SVG lacks ${text}`);
    }
    assert.ok(svg.length < 100000, `${svg.length} bytes`);
    assert.ok(!svg.includes('pe-cursor'), 'the cursor is not exported');
    // Well-formed for other renderers too: resvg draws it, at the size it states.
    const drawn = new resvg.Resvg(svg, { logLevel: 'off' });
    assert.deepEqual([drawn.width, drawn.height], svg.match(/^<svg [^>]*width="(\d+)" height="(\d+)"/).slice(1).map(Number));
  });

  it('a heatmap as PNG at scale 2: the framed size, opaque where the background is given', async () => {
    const result = await exported('posembed-heatmap', { encoding: 'alibi', heads: '4', length: '16' }, async () => {
      const el = window.exported;
      const png = await el.toBlob({ type: 'image/png', scale: 2, background: '#ffffff' });
      const bitmap = await createImageBitmap(png);
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const ctx = canvas.getContext('2d');
      ctx.drawImage(bitmap, 0, 0);
      const corner = Array.from(ctx.getImageData(0, 0, 1, 1).data);
      const box = el.shadowRoot.querySelector('.pe-plot svg').getBoundingClientRect();
      return { type: png.type, width: bitmap.width, height: bitmap.height, corner, plot: [box.width, box.height] };
    });
    assert.equal(result.type, 'image/png');
    assert.ok(result.width >= 2 * result.plot[0] && result.height >= 2 * result.plot[1], JSON.stringify(result));
    assert.deepEqual(result.corner, [255, 255, 255, 255]);
  });

  // Every text the reader sees in the element (but its controls and readouts), and every colour key, in its SVG.
  const ELEMENTS = {
    'posembed-heatmap': { encoding: 'alibi', heads: '4', length: '8', causal: '', title: 'Four heads' },
    'posembed-bias': { heads: '3', length: '8', causal: '', title: 'Three heads' },
    'posembed-lookup': { text: 'Max(1,2)', 'd-model': '8' },
    'posembed-rope': { 'head-dim': '16', pairs: '3' },
    'posembed-model': { config: 'Llama-3.1-8B', title: 'Llama' },
  };
  for (const [tag, attributes] of Object.entries(ELEMENTS)) {
    it(`<${tag}>'s export holds every part the page shows: each visible text, each colour bar and picture`, async () => {
      const { svg, texts, colourBars } = await exported(tag, attributes, async () => {
        const el = window.exported;
        const root = el.shadowRoot;
        const outside = 'button, input, select, textarea, label, .controls, .readout, .pe-readout, .pe-status, .unknown-attributes, [hidden], style';
        const texts = [];
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const text = node.textContent.replace(/\s+/g, ' ').trim();
          const parent = node.parentElement;
          if (text && !parent.closest(outside) && parent.getClientRects().length && getComputedStyle(parent).visibility !== 'hidden') texts.push(text);
        }
        return { svg: await (await el.toBlob()).text(), texts, colourBars: root.querySelectorAll('.pe-colourbar').length };
      });
      // The SVG's text, words joined, whatever the lines it was wrapped into.
      const written = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1].replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&')).join(' ').replace(/\s+/g, ' ');
      const missing = texts.filter((text) => !written.includes(text));
      assert.deepEqual(missing, [], `<${tag}>: texts on the page but not in its export`);
      assert.ok(texts.length >= 3, `<${tag}>: ${texts.length} texts`);
      assert.equal((svg.match(/<linearGradient/g) ?? []).length, colourBars, `<${tag}>: a gradient for each of its ${colourBars} colour bars`);
      assert.deepEqual(problems, []);
    });
  }

  // One scene per figure (and one picture per drawing beside the figures: the RoPE dials and strip, the lookup's token
  // chips, a shared colour bar), drawn three ways: the live SVG's texts (ticks, axis titles, labels) are the exported SVG's, in the same
  // order, and the PNG is the SVG drawn (Chromium's own picture of the exported SVG, pixel by pixel).
  const SAME_SCENE = [
    ['posembed-heatmap', { length: '24', 'd-model': '32', title: 'Twenty-four positions' }], ['posembed-model', { config: 'Llama-3.1-8B' }],
    ['posembed-rope', { 'head-dim': '16', pairs: '3', scaling: 'linear', factor: '4', position: '5' }], ['posembed-bias', { heads: '2', length: '8' }],
    ['posembed-lookup', { text: 'Max(1,2)', 'd-model': '8' }],
  ];
  for (const [tag, attributes] of SAME_SCENE) {
    it(`<${tag}>: the live view, the SVG and the PNG draw the same scene`, async () => {
      const result = await exported(tag, attributes, async () => {
        const el = window.exported;
        // Dials stand still while they are exported.
        if (el.playing) {
          el.shadowRoot.querySelector('.play').click();
          await el.render();
        }
        const live = [...el.shadowRoot.querySelectorAll('svg text')].filter((t) => t.getClientRects().length > 0).map((t) => t.textContent).filter(Boolean);
        const svg = await (await el.toBlob({ background: '#ffffff' })).text();
        const png = new Uint8Array(await (await el.toBlob({ type: 'image/png', scale: 1, background: '#ffffff' })).arrayBuffer());
        return { live, svg, png: btoa(Array.from(png, (byte) => String.fromCharCode(byte)).join('')) };
      });
      // Drawn in a blank page (the site's policy allows no image from a blob or data URL).
      const blank = await page.context().browser().newPage();
      Object.assign(result, await blank.evaluate(async ({ svg, png }) => {
        const decoded = async (src) => {
          const image = new Image();
          image.src = src;
          await image.decode();
          return image;
        };
        const [fromPng, fromSvg] = [await decoded(`data:image/png;base64,${png}`), await decoded(URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' })))];
        const pixels = (source) => {
          const canvas = new OffscreenCanvas(fromPng.naturalWidth, fromPng.naturalHeight);
          const ctx = canvas.getContext('2d');
          ctx.drawImage(source, 0, 0);
          return ctx.getImageData(0, 0, canvas.width, canvas.height).data;
        };
        const [a, b] = [pixels(fromPng), pixels(fromSvg)];
        let far = 0;  // pixels that differ by more than text's anti-aliasing would
        for (let i = 0; i < a.length; i += 4) if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) > 192) far++;
        return { far, size: [fromPng.naturalWidth, fromPng.naturalHeight], svgSize: [fromSvg.naturalWidth, fromSvg.naturalHeight] };
      }, result));
      await blank.close();
      result.written = [...result.svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1].replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&'));
      assert.ok(result.live.length > 10, `${result.live.length} texts`);
      let at = 0;
      for (const text of result.live) {
        at = result.written.indexOf(text, at);
        assert.ok(at >= 0, `"${text}" is in the live view but not, in its order, in the SVG`);
      }
      assert.deepEqual(result.svgSize, result.size);
      assert.ok(result.far < result.size[0] * result.size[1] * 0.002, `${result.far} of ${result.size[0] * result.size[1]} pixels differ between the PNG and the SVG`);
      assert.deepEqual(problems, []);
    });
  }

  it('pictures beside the figures take the file\'s theme as figures do: the RoPE dials\' words in dark ink for light, light ink for dark', async () => {
    const inks = await exported('posembed-rope', { 'head-dim': '16', pairs: '2', position: '3' }, async () => {
      const el = window.exported;
      if (el.playing) el.shadowRoot.querySelector('.play').click();
      const ink = async (theme) => (await (await el.toBlob({ theme })).text()).match(/<text [^>]*fill="([^"]+)"[^>]*>pair 0: /)[1];
      return { light: await ink('light'), dark: await ink('dark') };
    });
    const lightness = (css) => { const [r, g, b] = css.match(/\d+/g).map(Number); return (r + g + b) / 765; };
    assert.ok(lightness(inks.light) < 0.4 && lightness(inks.dark) > 0.6, JSON.stringify(inks));
    assert.deepEqual(problems, []);
  });

  it('an element with nothing drawn (attributes in error) says so when asked for a file, whatever it holds before its first drawing', async () => {
    const message = await page.evaluate(async () => {
      const el = document.createElement('posembed-rope');
      el.setAttribute('head-dim', '3');
      document.body.prepend(el);
      await new Promise((resolve) => { setTimeout(resolve, 300); });
      try {
        await el.toBlob();
        return 'exported';
      } catch (error) {
        return error.message;
      } finally {
        el.remove();
      }
    });
    assert.match(message, /has drawn nothing to export yet/);
    assert.deepEqual(problems, []);
  });

  it('elements of several figures export them all; options are checked', async () => {
    const svg = await exported('posembed-bias', { heads: '2', length: '8' }, async () => (await window.exported.toBlob()).text());
    assert.equal(svg.match(/<image /g).length, 2);
    assert.ok(svg.includes('head 1 · slope'));
    const refused = await exported('posembed-heatmap', { length: '4', 'd-model': '4' }, async () => {
      const messages = [];
      for (const options of [{ type: 'image/gif' }, { scale: 0 }]) {
        try {
          await window.exported.toBlob(options);
        } catch (error) {
          messages.push(error.message);
        }
      }
      return messages;
    });
    assert.deepEqual(refused, ['type must be "image/svg+xml" or "image/png", got "image/gif"', 'scale must be a number in (0, 8], got 0']);
    assert.deepEqual(problems, []);
  });
});
