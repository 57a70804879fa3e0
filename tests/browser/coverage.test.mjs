// The README's coverage table (idea → page → figure) against the site: every figure it names is on its page, drawn.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../pack.mjs';
import { PAGES, openDrawn, useSite } from './browser.mjs';

function coverage() {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const table = readme.slice(readme.indexOf('<!-- coverage:start -->'), readme.indexOf('<!-- coverage:end -->'));
  return table.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| idea') && !line.startsWith('| ---'))
    .map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim().replace(/^`|`$/g, '')))
    .map(([idea, page, figure]) => ({ idea, page, figure }));
}

describe('the README\'s coverage table', () => {
  const site = useSite();
  const rows = coverage();

  it('names ideas, each on a page of the site with a figure, or marked not yet', () => {
    assert.ok(rows.length >= 30, `${rows.length} ideas`);
    for (const { idea, page, figure } of rows) {
      if (page === 'not yet') assert.equal(figure, '', idea);
      else {
        assert.ok(PAGES.includes(page.replace(/\.html$/, '')), `${idea}: ${page} is not a page of the site`);
        assert.ok(figure.startsWith('#'), `${idea}: ${figure}`);
      }
    }
  });

  for (const page of [...new Set(rows.filter((row) => row.page !== 'not yet').map((row) => row.page))]) {
    it(`${page}: every figure the table names is there and drawn`, async () => {
      const { page: opened } = await openDrawn(site, page.replace(/\.html$/, ''));
      for (const { idea, figure } of rows.filter((row) => row.page === page)) {
        assert.ok(await opened.locator(figure).count() > 0, `${idea}: ${page} has no ${figure}`);
        // Drawn: a picture with a size (in the light DOM or the element's shadow root), or for a note, its text.
        const shown = await opened.waitForFunction((selector) => {
          const el = document.querySelector(selector);
          const root = el.shadowRoot ?? el;
          const pictures = [...root.querySelectorAll('canvas, svg')].filter((p) => p.getBoundingClientRect().width > 0);
          return pictures.length > 0 || el.textContent.trim().length > 40;
        }, figure, { timeout: 30000 }).then(() => true, () => false);
        assert.ok(shown, `${idea}: ${figure} on ${page} shows nothing`);
      }
      await opened.close();
    });
  }
});
