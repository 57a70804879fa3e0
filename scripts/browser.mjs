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

// Every element of the package, as a selector.
export const POSEMBED_ELEMENTS = 'posembed-heatmap, posembed-lookup, posembed-rope, posembed-bias, posembed-model, posembed-tokens, posembed-train';

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

// Adds <tag> with the attributes at the top of the page, waits for its first render (at most 30 s: an element that
// never draws fails the wait, named, rather than hanging its caller), lets a frame pass, and removes it. Resolves to
// the render's shape and any error the element shows.
export function drawElement(page, tag, attributes) {
  return page.evaluate(async ([name, given]) => {
    const el = document.createElement(name);
    for (const [key, value] of Object.entries(given)) el.setAttribute(key, value);
    const rendered = new Promise((resolve, reject) => {
      el.addEventListener('render', (event) => resolve(event.detail?.shape), { once: true });
      setTimeout(() => reject(new Error(`<${name}> ${JSON.stringify(given)} did not render within 30 s`)), 30000);
    });
    document.body.prepend(el);
    const shape = await rendered;
    await new Promise((resolve) => { setTimeout(resolve, 100); });
    const error = [...el.shadowRoot.querySelectorAll('.error, .pe-error')].find((e) => !e.hidden && e.textContent);
    el.remove();
    return { shape, error: error?.textContent ?? '' };
  }, [tag, attributes]);
}

// Records the page's main-thread long tasks from its first script on, for longestTask.
export function recordLongTasks(page) {
  return page.addInitScript(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.longTasks.push(Math.round(entry.duration)); })
      .observe({ type: 'longtask', buffered: true });
  });
}

// The longest main-thread task (ms) since the last call (0 when none passed 50 ms).
export function longestTask(page) {
  return page.evaluate(() => window.longTasks.splice(0).reduce((longest, t) => Math.max(longest, t), 0));
}

// Lets the page finish what a change started: its synchronous work, its debounced redraws and its workers' answers.
// Settled once SETTLED_AFTER_MS have passed (longer than the pages' 150 ms wait after a keystroke, several frames) and
// no figure in view is busy (aria-busy="true", in the page or a posembed element's shadow root, where the elements'
// figures are: a figure whose drawing waits on work); a page still busy after SETTLE_LIMIT_MS is left as it is, for the caller's checks to find. (Not "until
// nothing changes": some pages animate.)
const SETTLED_AFTER_MS = 250;
const SETTLE_LIMIT_MS = 10000;
export async function settle(page) {
  await page.evaluate(([afterMs, limitMs, elements]) => new Promise((resolve) => {
    const computing = () => [document, ...[...document.querySelectorAll(elements)].map((el) => el.shadowRoot).filter(Boolean)]
      .some((root) => [...root.querySelectorAll('[aria-busy="true"]')].some((busy) => busy.checkVisibility()));
    const started = performance.now();
    const check = () => {
      const waited = performance.now() - started;
      if ((waited >= afterMs && !computing()) || waited >= limitMs) requestAnimationFrame(() => setTimeout(resolve, 0));
      else setTimeout(check, 25);
    };
    requestAnimationFrame(() => setTimeout(check, 0));
  }), [SETTLED_AFTER_MS, SETTLE_LIMIT_MS, POSEMBED_ELEMENTS]);
}

async function setControl(field, { tag, type }, value) {
  if (type === 'checkbox') await field.setChecked(value);
  else if (tag === 'SELECT') await field.selectOption(value);
  else await field.fill(value);
}

// Sets each control of the page's forms to its limits, one at a time from the page's defaults: each number field
// at its min and at its max (read when it is set, since some follow their partner's value), each option of each
// select, each checkbox both ways. After each value the page settles and `afterEach(label, remake)` looks at it (a
// test's checks, the benchmark's timing; remake() undoes the change and makes it again, settled, with only the
// change's long tasks left recorded); then the control goes back to its default. Resolves to the labels tried.
export async function eachControlAtItsLimits(page, afterEach) {
  const tried = [];
  const fields = page.locator('form input[type="number"][min][max], form select, form input[type="checkbox"]');
  for (const field of await fields.all()) {
    const control = await field.evaluate((el) => ({ tag: el.tagName, type: el.type, name: el.name, initial: el.type === 'checkbox' ? el.checked : el.value }));
    const values = control.tag === 'SELECT'
      ? await field.evaluate((el) => [...el.options].map((o) => o.value))
      : control.type === 'checkbox' ? [!control.initial, control.initial] : ['min', 'max'];
    for (const value of values) {
      const shown = control.tag === 'INPUT' && control.type !== 'checkbox' ? await field.evaluate((el, which) => el.getAttribute(which), value) : value;
      await setControl(field, control, shown);
      await settle(page);
      const label = `${control.name} = ${shown}`;
      await afterEach(label, async () => {
        await setControl(field, control, control.initial);
        await settle(page);
        await page.evaluate(() => window.longTasks?.splice(0));  // undoing is not the change
        await setControl(field, control, shown);
        await settle(page);
      });
      tried.push(label);
    }
    await setControl(field, control, control.initial);
    await settle(page);
  }
  return tried;
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
