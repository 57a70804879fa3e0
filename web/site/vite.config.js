// Builds the static site into build/site: one HTML page each. `posembed` and `posembed/components` resolve to
// the package as users get it (dist/): the pages use the same elements and figure layer an author's page does.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const PAGES = ['index', 'explorer', 'tokens', 'rope', 'bias', 'patches', 'learned', 'train', 'model', 'bench', 'components'];

// Every page's shared <head> lines, navigation and footer, written once (web/site/partials) and put in before
// Vite reads the page ('pre'), so the stylesheet and icon they link are bundled like any other.
const partials = {
  name: 'posembed-partials',
  transformIndexHtml: {
    order: 'pre',
    handler: (html) => html.replace(/<!-- posembed:(\w+) -->\n/g, (_, name) => readFileSync(here(`partials/${name}.html`), 'utf8')),
  },
};

export default defineConfig({
  root: here('.'),
  plugins: [partials],
  worker: { format: 'es' },  // the weights reader is a module worker
  base: './',
  resolve: {
    alias: [
      { find: /^posembed$/, replacement: here('../../dist/index.js') },
      { find: /^posembed\/components$/, replacement: here('../../dist/components.js') },
      { find: /^posembed\/colormap$/, replacement: here('../../dist/colormap.js') },
      { find: /^posembed\/vocabulary-map$/, replacement: here('../../dist/vocabulary_map.js') },
      { find: /^posembed\/task-worker$/, replacement: here('../../dist/task_worker.js') },
    ],
  },
  build: {
    outDir: here('../../build/site'),
    emptyOutDir: true,
    target: 'es2022',
    // The .wasm files stay files (never inlined as data: URLs, which a strict CSP refuses).
    assetsInlineLimit: 0,
    // The token page carries GPT-2's BPE ranks (about 490 kB): large by design, loaded by that page alone.
    chunkSizeWarningLimit: 1024,
    rollupOptions: {
      input: Object.fromEntries(PAGES.map((page) => [page, here(`${page}.html`)])),
    },
  },
});
