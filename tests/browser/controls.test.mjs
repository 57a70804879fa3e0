// Every control of every page at its limits: each number field at its min and at its max (read when it is set,
// since some follow their partner's value), each option of each select, each checkbox both ways, one at a
// time from the page's defaults. The page must draw without a page error and show no error.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PAGES, openDrawn, useSite, visibleErrors } from './browser.mjs';

// Lets the page finish what the change started: its synchronous work, then its async draws.
async function settle(page) {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
  await page.waitForTimeout(250);
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
}

describe('every control of every page at its limits', () => {
  const site = useSite();

  for (const name of PAGES) {
    it(`${name}.html: every control at its minimum and maximum draws without an error`, async () => {
      const { page, problems } = await openDrawn(site, name);
      const fields = page.locator('form input[type="number"][min][max], form select, form input[type="checkbox"]');
      const tried = [];
      for (const field of await fields.all()) {
        const { tag, type, fieldName, initial } = await field.evaluate((el) => ({ tag: el.tagName, type: el.type, fieldName: el.name, initial: el.type === 'checkbox' ? el.checked : el.value }));
        const values = tag === 'SELECT'
          ? await field.evaluate((el) => [...el.options].map((o) => o.value))
          : type === 'checkbox' ? [!initial, initial] : ['min', 'max'];
        for (const value of values) {
          let shown = value;
          if (type === 'checkbox') await field.setChecked(value);
          else if (tag === 'SELECT') await field.selectOption(value);
          else {
            shown = await field.evaluate((el, which) => el.getAttribute(which), value);
            await field.fill(shown);
          }
          await settle(page);
          tried.push(`${fieldName}=${shown}`);
          assert.deepEqual(problems, [], `${name}.html after ${fieldName} = ${shown}`);
          assert.deepEqual(await visibleErrors(page), [], `${name}.html after ${fieldName} = ${shown}`);
        }
        if (type === 'checkbox') await field.setChecked(initial);
        else if (tag === 'SELECT') await field.selectOption(initial);
        else await field.fill(initial);
        await settle(page);
      }
      assert.ok(name === 'index' || name === 'components' || tried.length > 0, `${name}.html has controls to try`);
      await page.close();
    });
  }
});
