// Builds the static site into build/site. `posembed` resolves to the package as users get it (dist/).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: './',
  resolve: { alias: { posembed: here('../../dist/index.js') } },
  build: {
    outDir: here('../../build/site'),
    emptyOutDir: true,
    target: 'es2022',
    // The .wasm files stay files (never inlined as data: URLs, which a strict CSP refuses).
    assetsInlineLimit: 0,
  },
});
