// Builds the static site into build/site: one HTML page each, and the components as one script with a fixed
// name (posembed-components.js) that tutorial authors include. `posembed` resolves to the package as users
// get it (dist/).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const PAGES = ['index', 'explorer', 'tokens', 'rope', 'bias', 'patches', 'learned', 'bench', 'components'];

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
  resolve: { alias: { posembed: here('../../dist/index.js') } },
  build: {
    outDir: here('../../build/site'),
    emptyOutDir: true,
    target: 'es2022',
    // The .wasm files stay files (never inlined as data: URLs, which a strict CSP refuses).
    assetsInlineLimit: 0,
    rollupOptions: {
      input: {
        ...Object.fromEntries(PAGES.map((page) => [page, here(`${page}.html`)])),
        'posembed-components': here('components/index.js'),
      },
      output: { entryFileNames: (chunk) => (chunk.name === 'posembed-components' ? '[name].js' : 'assets/[name]-[hash].js') },
    },
  },
});
