// The tarball users install, in a browser: bundled by Vite (which must find the .wasm through
// new URL(..., import.meta.url)), and loaded unbundled by the README's import-map example.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'vite';
import { packAndInstall, readmeExample } from '../pack.mjs';
import { launchChromium, openPage, startServer } from './browser.mjs';

describe('the installed package in Chromium', () => {
  let installed;
  let browser;
  const servers = [];

  before(async () => {
    installed = packAndInstall();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    for (const server of servers) await server.close();
  });

  // On an isolated page threads: 'auto' takes the threaded module (its worker script and glue found through
  // the bundle), elsewhere the single-threaded one; the results are the same bits either way.
  it('works when bundled with Vite and served under the strict CSP, with threads where the page is isolated; dispose() ends an instance', async () => {
    const { project } = installed;
    writeFileSync(join(project, 'index.html'), '<!doctype html><title>bundle</title><script type="module" src="./main.js"></script>');
    writeFileSync(join(project, 'main.js'), `
      import { load } from 'posembed';
      const pe = await load({ threads: 'auto' });
      const pos = pe.sinusoidal({ length: 3, dModel: 4, offset: 1 });
      const emb = pe.tokenEmbedding({ vocabSize: 4, dModel: 4, weights: { data: new Float32Array(16).fill(0.5), shape: [4, 4] }, scale: 'sqrt' });
      const single = await load({ threads: 1 });
      const large = { length: 4096, dModel: 256, offset: 9 };
      const [split, whole] = [pe.sinusoidal(large).data, single.sinusoidal(large).data];
      const same = split.every((v, i) => v === whole[i]);
      const rows = Array.from(emb.lookup([2]).data);
      // dispose() ends the instance (and its workers); another load() starts afresh.
      pe.dispose();
      let afterDispose = null;
      try { pe.sinusoidal({ length: 1, dModel: 2 }); } catch (error) { afterDispose = error.message; }
      const again = await load({ threads: 'auto' });
      document.body.dataset.result = JSON.stringify({
        simd: pe.simd, threads: pe.threads, isolated: globalThis.crossOriginIsolated, cores: navigator.hardwareConcurrency,
        pos: Array.from(pos.data.slice(0, 2)), rows, same, afterDispose, again: [again.threads, again.sinusoidal({ length: 1, dModel: 2 }).data[1]],
      });
    `);
    await build({ root: project, logLevel: 'silent', build: { outDir: join(project, 'bundle'), assetsInlineLimit: 0 } });
    for (const isolated of [true, false]) {
      const server = await startServer(join(project, 'bundle'), { isolated });
      servers.push(server);
      const { page, problems } = await openPage(browser, server.url);
      await page.waitForSelector('body[data-result]', { state: 'attached', timeout: 15000 }).catch((error) => { throw new Error(`${error.message}; page problems: ${problems.join('; ')}`); });
      const result = JSON.parse(await page.getAttribute('body', 'data-result'));
      assert.equal(result.isolated, isolated);
      assert.equal(result.threads, isolated ? Math.min(4, result.cores) : 1);
      assert.equal(result.simd, true);
      assert.ok(Math.abs(result.pos[0] - Math.sin(1)) < 1e-6 && Math.abs(result.pos[1] - Math.cos(1)) < 1e-6);
      assert.deepEqual(result.rows, [1, 1, 1, 1]);
      assert.equal(result.same, true);
      assert.equal(result.afterDispose, 'posembed: this instance was disposed (pe.dispose()); load() another to go on');
      assert.deepEqual(result.again, [result.threads, 1]);
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it("runs the README's web page example as written", async () => {
    const { project } = installed;
    writeFileSync(join(project, 'readme.html'), `<!doctype html><title>readme</title>\n${readmeExample('html')}`);
    const server = await startServer(project);
    servers.push(server);
    // The example is inline script, which the strict CSP of our server rightly refuses; a user's page may allow it.
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    const logged = new Promise((resolve) => page.on('console', async (message) => {
      if (message.type() === 'log') resolve(await Promise.all(message.args().map((arg) => arg.jsonValue())));
      if (message.type() === 'error') problems.push(message.text());
    }));
    await page.goto(`${server.url}readme.html`);
    const [posShape, rowsShape] = await logged;
    assert.deepEqual(posShape, [6, 8]);
    assert.deepEqual(rowsShape, [6, 8]);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
