// A tutorial author's first page: the tarball installed into a scratch project, then the README's component
// snippets run as written, from a blank page under the strict CSP: the script tag straight from node_modules,
// and the bundler import built by Vite; and the script tag from a CDN (another origin serving the package's
// files, as CDNs do, with CORS), in a page with no CSP or isolation, as most blogs are served. Every element
// must draw, and the trainer must train.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import { REPO, packAndInstall, readmeBlocks } from '../pack.mjs';
import { launchChromium, openPage, startServer, staticServer } from './browser.mjs';

const SECTION = '### Components and figures';
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const ELEMENTS = ['posembed-heatmap', 'posembed-lookup', 'posembed-rope', 'posembed-bias', 'posembed-train', 'posembed-model'];

// Scrolls each element into view and waits until it has drawn: a canvas with opaque pixels in its shadow
// root (the lookup: its table of ids; the RoPE dials: their count; the model: its summary once rendered). Resolves
// to what each drew.
async function drawnElements(page) {
  const drawn = {};
  for (const name of ELEMENTS) {
    await page.locator(name).first().scrollIntoViewIfNeeded();
    drawn[name] = await page.waitForFunction((tag) => {
      const root = document.querySelector(tag)?.shadowRoot;
      if (!root) return false;
      const ids = root.querySelector('.ids')?.textContent;
      if (ids) return ids;
      if (tag === 'posembed-model') return document.querySelector(tag).dataset.rendered ? `${root.querySelectorAll('figure:not([hidden])').length} figures: ${root.querySelector('.summary').textContent}` : false;
      const dials = root.querySelectorAll('.dials svg').length;
      if (dials) return `${dials} dials`;
      const canvas = [...root.querySelectorAll('canvas')].find((c) => c.width > 0 && c.height > 0);
      if (!canvas) return false;
      const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i] === 255) return `${root.querySelectorAll('canvas').length} canvas(es), ${canvas.width}×${canvas.height}`;
      return false;
    }, name, { timeout: 20000 }).then((handle) => handle.jsonValue(), (error) => { throw new Error(`<${name}> did not draw: ${error.message}`); });
  }
  return drawn;
}

describe("the README's component snippets, from a blank page of a project that installed the tarball", () => {
  let project;
  let browser;
  const servers = [];
  const [pageSnippet] = readmeBlocks('html', SECTION);
  const [bundlerSnippet] = readmeBlocks('js', SECTION);

  before(async () => {
    ({ project } = packAndInstall());
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    for (const server of servers) await server.close();
  });

  async function assertAllDraw(root, path, server) {
    if (!server) {
      server = await startServer(root);
      servers.push(server);
    }
    // Not a line in the reader's console: no GPU adapter asked for (this Chromium has none), nothing warned.
    const { page, problems } = await openPage(browser, `${server.url}${path}`, { warnings: true });
    const drawn = await drawnElements(page);
    assert.match(drawn['posembed-lookup'], /^ids = \[15, 17, 3, 19, 8, 19, 4, 18/);
    assert.match(drawn['posembed-heatmap'], /1 canvas\(es\), 128×64/);
    assert.match(drawn['posembed-bias'], /^8 canvas/);
    assert.match(drawn['posembed-train'], /20×20/);  // its similarity matrix, drawn from the worker's first snapshot
    assert.match(drawn['posembed-model'], /^4 figures: llama, 32 layers, 131K positions\. Layer 0: RoPE \(llama3\)/);
    await page.locator('posembed-train').evaluate((el) => el.shadowRoot.querySelector('[data-action="start"]').click());
    await page.waitForFunction(() => Number(document.querySelector('posembed-train').dataset.step) >= 20, null, { timeout: 30000 });
    assert.deepEqual(problems, []);
    await page.close();
  }

  it('one script tag from node_modules/posembed/dist: every element draws under the strict CSP', async () => {
    assert.match(pageSnippet, /<script type="module" src="\.\/node_modules\/posembed\/dist\/page\/components\.js"><\/script>/);
    writeFileSync(join(project, 'author.html'), `<!doctype html>\n<title>author</title>\n${pageSnippet}`);
    await assertAllDraw(project, 'author.html');
  });

  // Pages as authors have them: plain (light), dark by its own background, and docs themes' dark toggles, which
  // switch the page's colours with a class or a data attribute on <html> (VitePress: html.dark, its body's
  // background on a 0.5 s transition; Starlight: :root[data-theme="light"] over a dark default; Docusaurus:
  // html[data-theme="dark"]).
  const PAGES = {
    light: { css: '' },
    dark: { css: 'body { background: #121417; color: #e6e9ec; }' },
    'vitepress-like': {
      css: ':root { --bg: #ffffff; --fg: #213547; } html.dark { --bg: #1b1b1f; --fg: #dfdfd6; color-scheme: dark; } body { background: var(--bg); color: var(--fg); transition: color 0.5s, background-color 0.5s; }',
      toggle: () => document.documentElement.classList.add('dark'), from: 'light', to: 'dark',
    },
    'starlight-like': {
      css: ':root { --bg: #17181c; --fg: #c0c2c7; color-scheme: dark; } :root[data-theme="light"] { --bg: #ffffff; --fg: #23262f; color-scheme: light; } body { background: var(--bg); color: var(--fg); }',
      toggle: () => { document.documentElement.dataset.theme = 'light'; }, from: 'dark', to: 'light',
    },
    'docusaurus-like': {
      css: 'html { background: #ffffff; color: #1c1e21; } html[data-theme="dark"] { background: #1b1b1d; color: #e3e3e3; color-scheme: dark; }',
      toggle: () => { document.documentElement.dataset.theme = 'dark'; }, from: 'light', to: 'dark',
    },
  };
  const INK = { light: 'rgb(29, 35, 42)', dark: 'rgb(227, 231, 236)' };

  async function contrastProblems(tab) {
    if (!await tab.evaluate(() => 'axe' in globalThis)) await tab.evaluate(AXE);
    return tab.evaluate(async () => {
      // eslint-disable-next-line no-undef
      const result = await axe.run(document, { runOnly: ['color-contrast'], resultTypes: ['violations'] });
      return result.violations.flatMap((v) => v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary.split('\n').slice(1).join(' ')}`));
    });
  }
  // Each element's scheme, and the ink of the heatmap's tick labels.
  const schemesOf = (tab) => tab.evaluate((tags) => tags.map((tag) => document.querySelector(tag)?.getAttribute('data-posembed-scheme')).filter(Boolean), ELEMENTS);
  const tickInk = (tab) => tab.evaluate(() => getComputedStyle(document.querySelector('posembed-heatmap').shadowRoot.querySelector('.tick text')).fill);

  async function openThemed(name, os) {
    const server = servers.find((s) => s.root === project) ?? Object.assign(await startServer(project), { root: project });
    if (!servers.includes(server)) servers.push(server);
    writeFileSync(join(project, `${name}.css`), `${PAGES[name].css}\n`);
    writeFileSync(join(project, `${name}.html`), `<!doctype html>\n<title>${name}</title>\n<link rel="stylesheet" href="./${name}.css">\n${pageSnippet}`);
    const tab = await browser.newPage({ viewport: { width: 1200, height: 900 }, colorScheme: os });
    const problems = [];
    tab.on('pageerror', (error) => problems.push(error.message));
    await tab.goto(`${server.url}${name}.html`);
    await drawnElements(tab);
    return { tab, problems };
  }

  for (const [pageScheme, os] of [['light', 'dark'], ['dark', 'light'], ['light', 'light'], ['dark', 'dark']]) {
    it(`a ${pageScheme} page read on a ${os} OS: every element takes the page's scheme, and axe-core finds no contrast problem in the shadow roots`, async () => {
      const { tab, problems } = await openThemed(pageScheme, os);
      assert.deepEqual(await schemesOf(tab), ELEMENTS.map(() => pageScheme));
      assert.equal(await tickInk(tab), INK[pageScheme]);
      assert.deepEqual(await contrastProblems(tab), []);
      if (pageScheme === 'dark') {
        // Printed, the figures are light (the page's dark background is not printed).
        await tab.emulateMedia({ media: 'print' });
        assert.equal(await tickInk(tab), INK.light);
        await tab.emulateMedia({ media: 'screen' });
      }
      // Exports: in the scheme asked for; by default the one that reads on the background given; the figure on
      // screen keeps its own.
      const exported = await tab.evaluate(async () => {
        const heatmap = document.querySelector('posembed-heatmap');
        const text = (options) => heatmap.toBlob(options).then((blob) => blob.text());
        return { onWhite: await text({ background: 'white' }), onBlack: await text({ background: '#000' }), dark: await text({ theme: 'dark' }), light: await text({ theme: 'light' }),
          after: heatmap.getAttribute('data-posembed-scheme'), refused: await text({ theme: 'sepia' }).catch((error) => error.message) };
      });
      for (const [key, scheme] of [['onWhite', 'light'], ['onBlack', 'dark'], ['dark', 'dark'], ['light', 'light']]) {
        assert.ok(exported[key].includes(`fill="${INK[scheme]}"`), `${key}: no text in ${INK[scheme]}`);
        assert.ok(!exported[key].includes(`fill="${INK[scheme === 'light' ? 'dark' : 'light']}"`), `${key}: text in the other scheme's ink`);
      }
      assert.equal(exported.after, pageScheme);
      assert.equal(exported.refused, 'theme must be "light" or "dark", got "sepia"');
      assert.deepEqual(problems, []);
      await tab.close();
    });
  }

  for (const name of ['vitepress-like', 'starlight-like', 'docusaurus-like']) {
    it(`a ${name} page's own dark toggle turns the elements with it, on either OS scheme, with no mapping`, async () => {
      for (const os of ['light', 'dark']) {
        const { tab, problems } = await openThemed(name, os);
        const { toggle, from, to } = PAGES[name];
        assert.deepEqual(await schemesOf(tab), ELEMENTS.map(() => from), `${os} OS, before`);
        assert.deepEqual(await contrastProblems(tab), [], `${os} OS, before`);
        await tab.evaluate(toggle);
        await tab.waitForFunction((scheme) => [...document.querySelectorAll('[data-posembed-scheme]')].every((el) => el.getAttribute('data-posembed-scheme') === scheme), to, { timeout: 5000 });
        await tab.waitForTimeout(600);  // the page's own transition ends
        assert.equal(await tickInk(tab), INK[to], `${os} OS, after`);
        assert.deepEqual(await contrastProblems(tab), [], `${os} OS, after`);
        // theme="…" pins a scheme whatever the page does.
        await tab.evaluate((scheme) => document.querySelector('posembed-heatmap').setAttribute('theme', scheme), from);
        assert.equal(await tickInk(tab), INK[from]);
        assert.deepEqual(problems, []);
        await tab.close();
      }
    });
  }

  it('React 19 sets the elements\' properties: axes={false} and axes={true} draw without and with axes, onrender hears the render event, a misspelled attribute is named, invalid attributes leave no live controls', async () => {
    const app = join(project, 'react-app');
    mkdirSync(app);
    writeFileSync(join(app, 'index.html'), '<!doctype html>\n<title>react</title>\n<div id="root"></div>\n<script type="module" src="./main.js"></script>\n');
    // No JSX transform needed: createElement is what JSX compiles to.
    writeFileSync(join(app, 'main.js'), `
      import { defineElements } from 'posembed/components';
      import { createElement as h, useState } from 'react';
      import { createRoot } from 'react-dom/client';
      globalThis.renders = [];
      function Page() {
        const [axes, setAxes] = useState(false);
        globalThis.setAxes = setAxes;
        return h('section', null,
          h('posembed-heatmap', { id: 'map', encoding: 'sinusoidal', length: 16, 'd-model': 16, axes, title: 'A table', onrender: (event) => globalThis.renders.push(event.detail.encoding) }),
          h('posembed-rope', { id: 'rope', 'head-dim': 7, pairz: 3, lenght: 3 }));
      }
      // The README's line for React: the elements defined before React first renders them, so that it sets their
      // properties (axes={false}) rather than attributes (where false removes it).
      await defineElements();
      createRoot(document.querySelector('#root')).render(h(Page));
    `);
    const resolve = { alias: { react: join(REPO, 'node_modules/react'), 'react-dom': join(REPO, 'node_modules/react-dom') } };
    await build({ root: app, logLevel: 'silent', resolve, build: { outDir: join(app, 'dist'), assetsInlineLimit: 0 } });
    const server = await startServer(join(app, 'dist'));
    servers.push(server);
    const { page: tab, problems } = await openPage(browser, `${server.url}index.html`);
    const ticks = () => tab.evaluate(() => document.querySelector('#map').shadowRoot.querySelectorAll('.pe-plot .tick').length);
    await tab.waitForFunction(() => globalThis.renders.length >= 1, null, { timeout: 20000 });
    assert.equal(await tab.getAttribute('#map', 'axes'), 'false');
    assert.equal(await ticks(), 0);
    await tab.evaluate(() => globalThis.setAxes(true));
    await tab.waitForFunction(() => globalThis.renders.length >= 2, null, { timeout: 20000 });
    assert.ok(await ticks() > 0, 'axes={true} draws the axes');
    assert.equal(await tab.evaluate(() => document.querySelector('#map').shadowRoot.querySelector('.error, .pe-error:not([hidden])')?.textContent ?? ''), '');
    const rope = await tab.evaluate(() => {
      const root = document.querySelector('#rope').shadowRoot;
      return { note: root.querySelector('.unknown-attributes')?.textContent, error: root.querySelector('.error')?.textContent,
        liveButtons: [...root.querySelectorAll('button')].filter((b) => b.getClientRects().length > 0).length };
    });
    assert.equal(rope.note, '<posembed-rope>: no attribute "pairz" (did you mean "pairs"?); no attribute "lenght"; they are ignored.');
    assert.match(rope.error, /head-dim must be an even integer/);
    assert.equal(rope.liveButtons, 0);
    assert.deepEqual(problems, []);
    await tab.close();
  });

  it("import 'posembed/components' bundled by Vite: every element draws under the strict CSP", async () => {
    const app = join(project, 'bundled');
    mkdirSync(app);
    const elements = pageSnippet.replace(/<script[^>]*><\/script>\n*/, '');
    writeFileSync(join(app, 'index.html'), `<!doctype html>\n<title>bundled</title>\n<script type="module" src="./main.js"></script>\n${elements}`);
    writeFileSync(join(app, 'main.js'), bundlerSnippet);
    await build({ root: app, logLevel: 'silent', build: { outDir: join(app, 'dist'), assetsInlineLimit: 0 } });
    await assertAllDraw(join(app, 'dist'), 'index.html');
  });

  it('the script tag from a CDN under the README\'s Content-Security-Policy: every element draws, and the trainer trains', async () => {
    const cdn = await staticServer(join(project, 'node_modules', 'posembed'), { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' });
    servers.push(cdn);
    const [policy] = readmeBlocks('text', SECTION);
    const header = policy.trim().replace(/^Content-Security-Policy: /, '').replaceAll('https://cdn.example', new URL(cdn.url).origin);
    const blog = join(project, 'strict-blog');
    mkdirSync(blog);
    writeFileSync(join(blog, 'post.html'), `<!doctype html>\n<title>post</title>\n${pageSnippet.replace('./node_modules/posembed/', cdn.url)}`);
    const page = await staticServer(blog, { 'Content-Security-Policy': header });
    servers.push(page);
    await assertAllDraw(blog, 'post.html', page);
  });

  it('under a policy without blob: in worker-src, the trainer says why its worker cannot start', async () => {
    const cdn = await staticServer(join(project, 'node_modules', 'posembed'), { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' });
    servers.push(cdn);
    const origin = new URL(cdn.url).origin;
    const blog = join(project, 'no-blob-blog');
    mkdirSync(blog);
    writeFileSync(join(blog, 'post.html'), `<!doctype html>\n<title>post</title>\n<script type="module" src="${cdn.url}dist/page/components.js"></script>\n<posembed-train></posembed-train>`);
    const page = await staticServer(blog, { 'Content-Security-Policy': `default-src 'self'; script-src 'self' ${origin} 'wasm-unsafe-eval'; connect-src 'self' ${origin}; worker-src 'self'` });
    servers.push(page);
    const { page: tab } = await openPage(browser, `${page.url}post.html`);
    const message = await tab.waitForFunction(() => {
      const box = document.querySelector('posembed-train')?.shadowRoot?.querySelector('.error');
      return box && !box.hidden && box.textContent;
    }, null, { timeout: 20000 }).then((handle) => handle.jsonValue());
    assert.match(message, /^the training worker could not start.*worker-src/);
    await tab.close();
  });

  // What a page fetches until its heatmap has drawn: [{ path, gzip }], each response's body gzipped as a server would.
  // plain: served with no Content-Security-Policy (which would refuse an inline import map), as most blogs are.
  async function fetchedFor(root, path, { plain = false } = {}) {
    const server = await (plain ? staticServer(root) : startServer(root));
    servers.push(server);
    const tab = await browser.newPage();
    const bodies = [];
    tab.on('response', (response) => bodies.push(response.body().then((body) => ({ path: new URL(response.url()).pathname, gzip: gzipSync(body).length }))));
    await tab.goto(`${server.url}${path}`);
    await tab.waitForFunction(() => document.querySelector('posembed-heatmap')?.dataset.rendered, null, { timeout: 20000 });
    await new Promise((resolve) => { setTimeout(resolve, 500); });  // anything fetched after the first render counts too
    await tab.close();
    return Promise.all(bodies);
  }

  const HEATMAP = '<posembed-heatmap encoding="sinusoidal" length="64" d-model="64"></posembed-heatmap>';
  // What only other elements, training, WebGPU or weight files use.
  const NOT_FOR_A_HEATMAP = /posembed-(lookup|rope|bias|train|model)|trainer|word_embeddings|model_positions|model_presets|rope_check|webgpu\/(runtime|backend)|posembed-(simd|scalar|threads)\./;

  it('a page with one heatmap fetches only what it draws with: at most 200 kB gzip in at most 10 requests, the light wasm once (script tag and Vite)', async () => {
    writeFileSync(join(project, 'one.html'), `<!doctype html>\n<title>one</title>\n${pageSnippet.split('\n')[0]}\n${HEATMAP}`);
    const app = join(project, 'one-bundled');
    mkdirSync(app);
    writeFileSync(join(app, 'index.html'), `<!doctype html>\n<title>one</title>\n<script type="module" src="./main.js"></script>\n${HEATMAP}`);
    writeFileSync(join(app, 'main.js'), "import 'posembed/components';\n");
    await build({ root: app, logLevel: 'silent', build: { outDir: join(app, 'dist'), assetsInlineLimit: 0 } });
    for (const [root, path] of [[project, 'one.html'], [join(app, 'dist'), 'index.html']]) {
      const fetched = await fetchedFor(root, path);
      const total = fetched.reduce((sum, { gzip }) => sum + gzip, 0);
      const list = fetched.map(({ path: file, gzip }) => `${file} ${gzip}`).join(', ');
      assert.ok(total <= 200_000, `${path}: ${total} bytes gzip: ${list}`);
      // The script tag loads dist/page/, bundled; a bundler's site is split as that bundler splits it.
      if (root === project) assert.ok(fetched.length <= 10, `${path}: ${fetched.length} requests: ${list}`);
      assert.deepEqual(fetched.filter(({ path: file }) => file.endsWith('.wasm')).map(({ path: file }) => /posembed-encoders-simd[^/]*\.wasm$/.test(file)), [true], list);
      assert.deepEqual(fetched.filter(({ path: file }) => NOT_FOR_A_HEATMAP.test(file)), [], list);
    }
  });

  it("a page without a bundler that imports posembed through the README's import map and shows elements: one instance, the wasm fetched once", async () => {
    const [importMap] = readmeBlocks('html', '## Usage');
    const map = importMap.split('\n')[0];
    assert.match(map, /<script type="importmap">/);
    writeFileSync(join(project, 'own-map.html'), `<!doctype html>\n<title>own</title>\n${map}\n${pageSnippet.split('\n')[0]}
<script type="module">import { load } from 'posembed'; window.sum = (await load()).sinusoidal({ length: 2, dModel: 4 }).data.reduce((a, b) => a + b);</script>\n${HEATMAP}`);
    const fetched = await fetchedFor(project, 'own-map.html', { plain: true });
    const wasm = fetched.filter(({ path: file }) => file.endsWith('.wasm')).map(({ path: file }) => file);
    assert.deepEqual(wasm, ['/node_modules/posembed/dist/posembed-simd.wasm'], fetched.map(({ path: file }) => file).join(', '));
  });

  it("a page that loads posembed itself shares its instance with the elements: the wasm is fetched once", async () => {
    const app = join(project, 'own-load');
    mkdirSync(app);
    writeFileSync(join(app, 'index.html'), `<!doctype html>\n<title>own</title>\n<script type="module" src="./main.js"></script>\n${HEATMAP}`);
    writeFileSync(join(app, 'main.js'), "import 'posembed/components';\nimport { load } from 'posembed';\nawait load();\n");
    await build({ root: app, logLevel: 'silent', build: { outDir: join(app, 'dist'), assetsInlineLimit: 0 } });
    const wasm = (await fetchedFor(join(app, 'dist'), 'index.html')).filter(({ path: file }) => file.endsWith('.wasm')).map(({ path: file }) => file);
    assert.equal(wasm.length, 1, wasm.join(', '));
    assert.match(wasm[0], /posembed-simd[^/]*\.wasm$/);
  });

  it('the script tag from a CDN (another origin): every element draws, and the trainer trains in its worker', async () => {
    const cdn = await staticServer(join(project, 'node_modules', 'posembed'), { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' });
    servers.push(cdn);
    const blog = join(project, 'blog');
    mkdirSync(blog);
    writeFileSync(join(blog, 'post.html'), `<!doctype html>\n<title>post</title>\n${pageSnippet.replace('./node_modules/posembed/', cdn.url)}`);
    const page = await staticServer(blog, {});
    servers.push(page);
    assert.notEqual(new URL(cdn.url).origin, new URL(page.url).origin);
    await assertAllDraw(blog, 'post.html', page);
  });
});
