// The frameworks tutorials are written in, as authors have them: per framework a small site made with the packed
// package and the framework from npm, configured with the README's lines for it (read from the README, as written),
// then built and served as a static site, and run by the framework's dev server, each opened in Chromium. Every
// element draws (the trainer trains: its worker was bundled), nothing fails on the page, Vue does not warn about
// the tags or hydration, each .wasm is fetched once, and a built site holds one copy of each.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { REPO, packAndInstall, readmeBlocks } from '../pack.mjs';
import { launchChromium, staticServer } from './browser.mjs';
import { tempFolder } from '../temp_folders.mjs';

const SECTION = '#### In docs frameworks and apps';
// The README's files for the frameworks, by the path their first comment names.
const README_FILES = Object.fromEntries(['js', 'astro'].flatMap((language) => readmeBlocks(language, SECTION))
  .map((block) => [block.match(/^(?:---\n)?\/\/ (\S+)/)?.[1], block]).filter(([path]) => path));
const [MDX_LINES] = readmeBlocks('mdx', SECTION);

const ELEMENTS = `<posembed-heatmap encoding="sinusoidal" length="16" d-model="32" axes="false"></posembed-heatmap>

<posembed-model config="Llama-3.1-8B"></posembed-model>

<posembed-train task="first" steps="40"></posembed-train>`;
const PAGE = (title, body) => `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>\n`;

// Each framework: its packages, its files (the README's among them), how it builds (into `out`) and serves in
// development (`dev`, with a port), and the page to open.
const FRAMEWORKS = {
  vitepress: {
    packages: ['vitepress@1'],
    files: {
      'docs/index.md': `# Positions\n\n${ELEMENTS}\n`,
      'docs/.vitepress/config.mjs': README_FILES['.vitepress/config.mjs'],
      'docs/.vitepress/theme/index.js': README_FILES['.vitepress/theme/index.js'],
    },
    build: ['vitepress', 'build', 'docs'], out: 'docs/.vitepress/dist',
    dev: (port) => ['vitepress', 'dev', 'docs', '--port', port],
  },
  'astro-starlight': {
    packages: ['astro@5', '@astrojs/starlight@0.37'],
    files: {
      'astro.config.mjs': "import { defineConfig } from 'astro/config';\nimport starlight from '@astrojs/starlight';\n\nexport default defineConfig({ integrations: [starlight({ title: 'Positions' })] });\n",
      'src/content.config.ts': "import { defineCollection } from 'astro:content';\nimport { docsLoader } from '@astrojs/starlight/loaders';\nimport { docsSchema } from '@astrojs/starlight/schema';\n\nexport const collections = { docs: defineCollection({ loader: docsLoader(), schema: docsSchema() }) };\n",
      'src/components/Posembed.astro': README_FILES['src/components/Posembed.astro'],
      'src/content/docs/index.mdx': `---\ntitle: Positions\n---\n${MDX_LINES}\n${ELEMENTS}\n`,
    },
    build: ['astro', 'build'], out: 'dist',
    dev: (port) => ['astro', 'dev', '--port', port],
  },
  docusaurus: {
    packages: ['@docusaurus/core@3', '@docusaurus/preset-classic@3', 'react@19', 'react-dom@19'],
    commonjs: true,
    files: {
      // The README's client module, in a whole config.
      'docusaurus.config.js': README_FILES['docusaurus.config.js'].replace('module.exports = {',
        "module.exports = {\n  title: 'Positions', url: 'http://localhost', baseUrl: '/',\n  presets: [['classic', { docs: { routeBasePath: '/' }, blog: false }]],"),
      'docs/index.mdx': `---\ntitle: Positions\n---\n\n${ELEMENTS}\n`,
    },
    build: ['docusaurus', 'build'], out: 'build',
    dev: (port) => ['docusaurus', 'start', '--port', port, '--no-open'],
  },
  'vite-vue': {
    packages: ['vite@8', 'vue@3', '@vitejs/plugin-vue@6'],
    files: {
      'vite.config.js': README_FILES['vite.config.js'],
      'index.html': PAGE('vue', '<div id="app"></div><script type="module" src="/main.js"></script>'),
      'main.js': "import 'posembed/components';\nimport { createApp } from 'vue';\nimport App from './App.vue';\n\ncreateApp(App).mount('#app');\n",
      'App.vue': `<script setup>\nimport { ref } from 'vue';\nconst length = ref(16);\n</script>\n<template>\n${ELEMENTS.replace('length="16"', ':length="length"').replace('axes="false"', ':axes="false"')}\n</template>\n`,
    },
    build: ['vite', 'build'], out: 'dist',
    dev: (port) => ['vite', '--port', port, '--strictPort'],
  },
  'vite-svelte': {
    packages: ['vite@8', 'svelte@5', '@sveltejs/vite-plugin-svelte@7'],
    files: {
      'vite.config.js': "import { svelte } from '@sveltejs/vite-plugin-svelte';\n\nexport default { plugins: [svelte()] };\n",
      'index.html': PAGE('svelte', '<div id="app"></div><script type="module" src="/main.js"></script>'),
      'main.js': "import 'posembed/components';\nimport { mount } from 'svelte';\nimport App from './App.svelte';\n\nmount(App, { target: document.querySelector('#app') });\n",
      'App.svelte': ELEMENTS.replace('length="16"', 'length={16}').replace('axes="false"', 'axes={false}'),
    },
    build: ['vite', 'build'], out: 'dist',
    dev: (port) => ['vite', '--port', port, '--strictPort'],
  },
  'vite-react': {
    packages: ['vite@8', 'react@19', 'react-dom@19', '@vitejs/plugin-react@6'],
    files: {
      'vite.config.js': "import react from '@vitejs/plugin-react';\n\nexport default { plugins: [react()] };\n",
      'index.html': PAGE('react', '<div id="app"></div><script type="module" src="/main.jsx"></script>'),
      // The README's lines for React: each element the app uses imported by name, defined before React first renders it.
      'main.jsx': "import 'posembed/elements/heatmap';\nimport 'posembed/elements/model';\nimport 'posembed/elements/train';\nimport { createRoot } from 'react-dom/client';\n\n"
        + 'createRoot(document.querySelector(\'#app\')).render(<>\n'
        + '  <posembed-heatmap encoding="sinusoidal" length={16} d-model={32} axes={false} />\n  <posembed-model config="Llama-3.1-8B" />\n  <posembed-train task="first" steps={40} />\n</>);\n',
    },
    build: ['vite', 'build'], out: 'dist',
    dev: (port) => ['vite', '--port', port, '--strictPort'],
  },
  webpack: {
    packages: ['webpack@5', 'webpack-cli@6', 'webpack-dev-server@5', 'html-webpack-plugin@5'],
    files: {
      'src/index.js': "import 'posembed/components';\n",
      'src/index.html': PAGE('webpack', ELEMENTS),
      'webpack.config.js': "import HtmlWebpackPlugin from 'html-webpack-plugin';\n\nexport default { mode: 'production', entry: './src/index.js', output: { path: new URL('./dist', import.meta.url).pathname, clean: true }, plugins: [new HtmlWebpackPlugin({ template: './src/index.html' })] };\n",
    },
    build: ['webpack', '--no-stats'], out: 'dist',
    dev: (port) => ['webpack', 'serve', '--mode', 'development', '--port', port],
  },
};

function run(command, args, cwd, { env = {}, timeout = 600000 } = {}) {
  return new Promise((resolve, reject) => {
    let output = '';
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
    for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => { output += chunk; });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output.slice(-3000)}`));
    });
  });
}

const freePort = () => new Promise((resolve) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    server.close(() => resolve(String(port)));
  });
});

// A framework's dev server, until close(): its process group killed.
async function devServer(dir, framework) {
  const port = await freePort();
  const args = framework.dev(port);
  const child = spawn(join(dir, 'node_modules/.bin', args[0]), args.slice(1), { cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => { output += chunk; });
  const url = `http://localhost:${port}/`;
  const deadline = Date.now() + 120000;
  for (;;) {
    const ready = await fetch(url).then((response) => response.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${args[0]} dev server did not answer at ${url}:\n${output.slice(-2000)}`);
    await new Promise((resolve) => { setTimeout(resolve, 500); });
  }
  return { url, close: async () => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone already */ } } };
}

// Opens the page and checks it as the file's header says.
async function assertElementsWork(browser, url, what) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const problems = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    const text = message.text();
    if (/hydrat|Failed to resolve component|posembed/i.test(text) && ['error', 'warning'].includes(message.type())) problems.push(`${message.type()}: ${text}`);
  });
  const wasm = [];
  page.on('response', (response) => { if (new URL(response.url()).pathname.endsWith('.wasm')) wasm.push(new URL(response.url()).pathname); });
  await page.goto(url, { waitUntil: 'load', timeout: 120000 });
  for (const tag of ['posembed-heatmap', 'posembed-model']) {
    await page.locator(tag).first().scrollIntoViewIfNeeded();
    const drawn = await page.waitForFunction((t) => document.querySelector(t)?.dataset.rendered, tag, { timeout: 60000 }).then(() => true, () => false);
    const error = await page.evaluate((t) => document.querySelector(t)?.shadowRoot?.querySelector('.error:not([hidden]), .pe-error:not([hidden])')?.textContent ?? '', tag);
    assert.ok(drawn, `${what}: <${tag}> did not draw ${error} ${problems.join('; ')}`);
  }
  // axes="false" reached the element as false (Vue, Svelte and React set it as a property or an attribute).
  assert.equal(await page.evaluate(() => document.querySelector('posembed-heatmap').shadowRoot.querySelectorAll('.pe-plot .tick').length), 0, `${what}: axes="false"`);
  await page.locator('posembed-train').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector('posembed-train')?.shadowRoot?.querySelector('[data-action="start"]'), null, { timeout: 60000 });
  await page.locator('posembed-train').evaluate((el) => el.shadowRoot.querySelector('[data-action="start"]').click());
  const trained = await page.waitForFunction(() => Number(document.querySelector('posembed-train').dataset.step) >= 5, null, { timeout: 60000 }).then(() => true, () => false);
  const trainError = await page.evaluate(() => document.querySelector('posembed-train').shadowRoot.querySelector('.error:not([hidden])')?.textContent ?? '');
  assert.ok(trained, `${what}: the trainer did not train ${trainError}`);
  assert.deepEqual(problems, [], what);
  assert.deepEqual(wasm.filter((file, i) => wasm.indexOf(file) !== i), [], `${what}: a .wasm fetched twice: ${wasm.join(', ')}`);
  await page.close();
}

// The .wasm files of a built site, by the package's module each is a copy of (bundlers rename them: by content).
const digest = (bytes) => createHash('sha256').update(bytes).digest('hex');
const PACKAGE_WASM = Object.fromEntries(readdirSync(join(REPO, 'dist')).filter((name) => name.endsWith('.wasm'))
  .map((name) => [digest(readFileSync(join(REPO, 'dist', name))), name.replace(/\.wasm$/, '')]));
function wasmCopies(dir) {
  const copies = {};
  for (const file of readdirSync(dir, { recursive: true })) {
    if (!String(file).endsWith('.wasm')) continue;
    const module = PACKAGE_WASM[digest(readFileSync(join(dir, String(file))))] ?? `${file} (not one of the package's)`;
    copies[module] = (copies[module] ?? 0) + 1;
  }
  return copies;
}

describe('the elements in the frameworks authors use: the README\'s lines, a static build and a dev server each, in Chromium', () => {
  let browser;
  let tarball;
  const projects = {};
  const servers = [];

  before(async () => {
    const { project } = packAndInstall();
    tarball = join(project, readdirSync(project).find((file) => file.endsWith('.tgz')));
    // Every framework's packages installed at once (npm's time is mostly the network's).
    await Promise.all(Object.entries(FRAMEWORKS).map(async ([name, framework]) => {
      const dir = tempFolder(`framework-${name}`);
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `site-${name}`, private: true, ...(framework.commonjs ? {} : { type: 'module' }) }));
      for (const [path, text] of Object.entries(framework.files)) {
        assert.ok(text, `${name}: the README has no block for ${path}`);
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
      await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', tarball, ...framework.packages], dir);
      projects[name] = dir;
    }));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    for (const server of servers) await server.close();
  });

  for (const [name, framework] of Object.entries(FRAMEWORKS)) {
    it(`${name}: the static build draws every element, trains, and holds one copy of each .wasm`, async () => {
      const dir = projects[name];
      await run(join(dir, 'node_modules/.bin', framework.build[0]), framework.build.slice(1), dir);
      const out = join(dir, framework.out);
      const copies = wasmCopies(out);
      assert.deepEqual(Object.values(copies).filter((count) => count !== 1), [], `${name}: ${JSON.stringify(copies)}`);
      assert.ok(copies['posembed-encoders-simd'] === 1 && copies['posembed-simd'] === 1, `${name}: ${JSON.stringify(copies)}`);
      const server = await staticServer(out);
      servers.push(server);
      await assertElementsWork(browser, server.url, `${name} (built)`);
    });

    it(`${name}: its dev server draws every element and trains`, async () => {
      const server = await devServer(projects[name], framework);
      servers.push(server);
      await assertElementsWork(browser, server.url, `${name} (dev server)`);
    });
  }
});
