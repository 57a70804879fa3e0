// Debian's Chromium, driven by playwright-core, and the site's own server (scripts/serve.mjs): what the browser tests
// and the benchmark's browser runs share.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const REPO = fileURLToPath(new URL('..', import.meta.url));

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

// WebGPU without a GPU: Chromium's SwiftShader Vulkan adapter.
const WEBGPU_ADAPTER_ARGS = ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-vulkan=swiftshader', '--use-webgpu-adapter=swiftshader'];
// The compositor on ANGLE's SwiftShader too: without it, presenting a WebGPU canvas destroys the WebGPU instance
// ("A valid external Instance reference no longer exists") in headless Chromium, as a flaky GPU may do.
const WEBGPU_PRESENT_ARGS = ['--use-angle=swiftshader', '--enable-unsafe-swiftshader'];

// Scrolls each element of `selector` on the page into view and waits until it has drawn (what each element sets
// when it has: data-rendered, data-started, data-position, data-drawn), at most `timeoutMs` each.
export async function drawEveryElement(page, selector, { timeoutMs = Infinity } = {}) {
  for (const element of await page.locator(selector).all()) {
    await element.scrollIntoViewIfNeeded();
    await element.evaluate((el, limit) => new Promise((resolve) => {
      const done = () => el.dataset.rendered || el.dataset.started || el.dataset.position || el.dataset.drawn;
      if (done()) return resolve();
      if (Number.isFinite(limit)) setTimeout(resolve, limit);
      new MutationObserver((_, observer) => { if (done()) { observer.disconnect(); resolve(); } }).observe(el, { attributes: true });
    }), timeoutMs);
  }
}

// webgpu: false (no adapter), true (an adapter that presents), or 'adapter-only' (an adapter whose canvases
// cannot be presented: the pages must fall back by themselves).
export function launchChromium({ webgpu = false } = {}) {
  const gpu = webgpu ? [...WEBGPU_ADAPTER_ARGS, ...(webgpu === 'adapter-only' ? [] : WEBGPU_PRESENT_ARGS)] : [];
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: [...CHROMIUM_ARGS, ...gpu] });
}

// Starts scripts/serve.mjs (what `npm start` runs) on a free port, cross-origin isolated unless isolated is
// false; resolves to { url, close }.
export function startServer(siteRoot, { isolated = true } = {}) {
  const env = { ...process.env, PORT: '0', HOST: '127.0.0.1', ISOLATED: isolated ? '1' : '0', ...(siteRoot ? { SITE_ROOT: siteRoot } : {}) };
  const server = spawn(process.execPath, ['scripts/serve.mjs'], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 10000);
    server.on('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
    server.stdout.on('data', (chunk) => {
      output += chunk;
      const match = output.match(/http:\/\/[\d.]+:\d+\//);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[0], close: () => new Promise((done) => { server.once('exit', done); server.kill(); }) });
      }
    });
  });
}
