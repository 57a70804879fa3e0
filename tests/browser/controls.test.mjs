// Every control of every page at its limits: each number field at its min and at its max (read when it is set,
// since some follow their partner's value), each option of each select, each checkbox both ways, one at a
// time from the page's defaults. The page must draw without a page error and show no error. (How long the page's
// thread is busy after each change is a speed goal, timed by `npm run bench`: scripts/bench/responsiveness.mjs.)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachControlAtItsLimits, settle } from '../../scripts/browser.mjs';
import { PAGES, openDrawn, useSite, visibleErrors } from './browser.mjs';

describe('every control of every page at its limits', () => {
  const site = useSite();

  for (const name of PAGES) {
    it(`${name}.html: every control at its minimum and maximum draws without an error`, async () => {
      // The tokens page offline keeps its untrained table, whose controls a real model's table disables.
      const { page, problems } = await openDrawn(site, name, { offline: name === 'tokens' });
      await settle(page);
      const tried = await eachControlAtItsLimits(page, async (label) => {
        assert.deepEqual(problems, [], `${name}.html after ${label}`);
        assert.deepEqual(await visibleErrors(page), [], `${name}.html after ${label}`);
      });
      assert.ok(name === 'index' || name === 'components' || tried.length > 0, `${name}.html has controls to try`);
      await page.close();
    });
  }
});

describe('sliders', () => {
  const site = useSite();

  it('dragging the explorer\'s length slider redraws the heatmap while it moves, and keeps the box in step', async () => {
    const { page, problems } = await openDrawn(site, 'explorer');
    const slider = page.locator('#controls input.slider').first();
    // 1 to 4096 is too many values to aim at on a linear slider: it is logarithmic.
    assert.equal(await slider.getAttribute('aria-label'), 'length (slider, logarithmic)');
    await slider.scrollIntoViewIfNeeded();
    const box = await slider.boundingBox();
    // Held down, the slider moved a quarter of its way at a time: the heatmap redraws at each stop before the button
    // is let go (however long a redraw takes here; a stop it does not redraw at fails the wait).
    const heights = [await page.evaluate(() => document.querySelector('#heatmap').height)];
    await page.mouse.move(box.x + 2, box.y + box.height / 2);
    await page.mouse.down();
    for (let i = 1; i <= 4; i++) {
      await page.mouse.move(box.x + 2 + ((box.width - 4) * i) / 4, box.y + box.height / 2, { steps: 5 });
      const height = await page.waitForFunction((before) => {
        const now = document.querySelector('#heatmap').height;
        return now !== before ? now : false;
      }, heights.at(-1), { timeout: 30000 });
      heights.push(await height.jsonValue());
    }
    await page.mouse.up();
    await page.waitForFunction(() => document.querySelector('#heatmap').height === 1024);  // 4096 rows, drawn a row in 4
    assert.equal(await page.locator('#controls [name="length"]').inputValue(), '4096');
    // A base spans decades: its slider is logarithmic, to three significant figures; typing moves the slider.
    const base = page.locator('#controls [name="base"] + input.slider');
    assert.equal(await base.getAttribute('aria-label'), 'base (slider, logarithmic)');
    await base.fill('500');  // halfway between 2 and 1e12 on a log scale
    assert.equal(await page.locator('#controls [name="base"]').inputValue(), String(Number((2 * Math.sqrt(1e12 / 2)).toPrecision(3))));
    await page.locator('#controls [name="base"]').fill('10000');
    assert.equal(await base.inputValue(), String(Math.round((Math.log(10000 / 2) / Math.log(1e12 / 2)) * 1000)));
    assert.deepEqual(problems, []);
    assert.deepEqual(await visibleErrors(page), []);
    await page.close();
  });
});
