// Every control of every page at its limits: each number field at its min and at its max (read when it is set,
// since some follow their partner's value), each option of each select, each checkbox both ways, one at a
// time from the page's defaults. The page must draw without a page error, show no error, and keep its main
// thread free: no task over 100 ms (one that does not recur when the change is made again counts as noise
// from the machine, not as the page's).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PAGES, openDrawn, useSite, visibleErrors } from './browser.mjs';

const LONG_TASK_MS = 100;

// Lets the page finish what the change started: its synchronous work, its debounced redraws and the workers'
// answers. Resolves to the longest main-thread task meanwhile.
async function settle(page) {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
  await page.waitForTimeout(600);
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
  return page.evaluate(() => window.longTasks.splice(0).reduce((longest, t) => Math.max(longest, t), 0));
}

async function setField(field, tag, type, value) {
  if (type === 'checkbox') await field.setChecked(value);
  else if (tag === 'SELECT') await field.selectOption(value);
  else await field.fill(value);
}

describe('every control of every page at its limits', () => {
  const site = useSite();

  for (const name of PAGES) {
    it(`${name}.html: every control at its minimum and maximum draws without an error`, async () => {
      // The tokens page offline keeps its untrained table, whose controls a real model's table disables.
      const { page, problems } = await openDrawn(site, name, { offline: name === 'tokens' });
      await settle(page);  // the page's own start is not a control's doing
      const fields = page.locator('form input[type="number"][min][max], form select, form input[type="checkbox"]');
      const tried = [];
      for (const field of await fields.all()) {
        const { tag, type, fieldName, initial } = await field.evaluate((el) => ({ tag: el.tagName, type: el.type, fieldName: el.name, initial: el.type === 'checkbox' ? el.checked : el.value }));
        const values = tag === 'SELECT'
          ? await field.evaluate((el) => [...el.options].map((o) => o.value))
          : type === 'checkbox' ? [!initial, initial] : ['min', 'max'];
        for (const value of values) {
          const shown = tag === 'INPUT' && type !== 'checkbox' ? await field.evaluate((el, which) => el.getAttribute(which), value) : value;
          await setField(field, tag, type, shown);
          let longest = await settle(page);
          if (longest > LONG_TASK_MS) {
            await setField(field, tag, type, initial);
            await settle(page);
            await setField(field, tag, type, shown);
            longest = await settle(page);
          }
          assert.ok(longest <= LONG_TASK_MS, `${name}.html after ${fieldName} = ${shown}: a ${longest} ms task on the main thread, twice`);
          tried.push(`${fieldName}=${shown}`);
          assert.deepEqual(problems, [], `${name}.html after ${fieldName} = ${shown}`);
          assert.deepEqual(await visibleErrors(page), [], `${name}.html after ${fieldName} = ${shown}`);
        }
        await setField(field, tag, type, initial);
        await settle(page);
      }
      assert.ok(name === 'index' || name === 'components' || tried.length > 0, `${name}.html has controls to try`);
      await page.close();
    });
  }
});

describe('sliders', () => {
  const site = useSite();

  it('dragging the explorer\'s length slider redraws the heatmap while it moves, keeps the box in step, and no task passes 100 ms', async () => {
    const { page, problems } = await openDrawn(site, 'explorer');
    const slider = page.locator('#controls input.slider').first();
    // 1 to 4096 is too many values to aim at on a linear slider: it is logarithmic.
    assert.equal(await slider.getAttribute('aria-label'), 'length (slider, logarithmic)');
    await slider.scrollIntoViewIfNeeded();
    const box = await slider.boundingBox();
    await page.evaluate(() => window.longTasks.splice(0));
    const seen = new Set();
    await page.mouse.move(box.x + 2, box.y + box.height / 2);
    await page.mouse.down();
    for (let i = 1; i <= 20; i++) {
      await page.mouse.move(box.x + 2 + ((box.width - 4) * i) / 20, box.y + box.height / 2);
      await page.waitForTimeout(40);
      seen.add(await page.evaluate(() => document.querySelector('#heatmap').height));
    }
    await page.mouse.up();
    assert.ok(seen.size >= 4, `the heatmap had ${seen.size} heights while the slider moved`);
    await page.waitForFunction(() => document.querySelector('#heatmap').height === 1024);  // 4096 rows, drawn a row in 4
    assert.equal(await page.locator('#controls [name="length"]').inputValue(), '4096');
    const longest = await settle(page);
    assert.ok(longest <= LONG_TASK_MS, `a ${longest} ms task while dragging`);
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
