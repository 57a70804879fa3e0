// Every page as its readers meet it: on a 390-px phone without sideways scrolling, with no serious or
// critical accessibility violation (axe-core), and printed with every component drawn (without scrolling).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { PAGES, openDrawn, useSite } from './browser.mjs';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const ELEMENTS = 'posembed-heatmap, posembed-lookup, posembed-rope, posembed-bias, posembed-model';

describe('every page on a phone, to axe-core and in print', () => {
  const site = useSite();

  for (const name of PAGES) {
    it(`${name}.html: no sideways scrolling at 390 px, and no serious or critical axe-core violation`, async () => {
      const { page, problems } = await openDrawn(site, name, { width: 390 });
      const overflow = await page.evaluate(() => ({
        width: document.documentElement.scrollWidth,
        widest: [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > 391)
          .slice(0, 5).map((el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`),
      }));
      assert.ok(overflow.width <= 390, `page ${overflow.width} px wide: ${overflow.widest.join('; ')}`);
      // Every table wider than the phone scrolls in its own box, which says so.
      const silent = await page.evaluate(() => [...document.querySelectorAll('table')]
        .filter((table) => table.getBoundingClientRect().width > 391)
        .filter((table) => !table.closest('.table-scroll[data-scrolls][role="region"][tabindex="0"]')).map((table) => table.id || table.className));
      assert.deepEqual(silent, [], 'tables wider than the screen with no scroll cue');
      await page.evaluate(AXE);
      const violations = await page.evaluate(async () => {
        // eslint-disable-next-line no-undef
        const result = await axe.run(document, { resultTypes: ['violations'] });
        return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
      });
      assert.deepEqual(violations, []);
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  for (const name of PAGES) {
    it(`${name}.html: printed without scrolling, every component has drawn`, async () => {
      const { page, problems } = await site.open(`${name}.html`, { ready: false });
      await page.emulateMedia({ media: 'print' });
      const count = await page.locator(ELEMENTS).count();
      await page.waitForFunction((selector) => [...document.querySelectorAll(selector)]
        .every((el) => el.dataset.rendered || el.dataset.started || el.dataset.position), ELEMENTS, { timeout: 20000 });
      await page.pdf({ path: '/dev/null' });
      assert.deepEqual(problems, [], `${count} components`);
      await page.close();
    });
  }
});
