// Builds dist/, the package as users install it: web/lib's modules as they are, the third-party code they use
// bundled into dist/vendor/ (so no file in dist/ imports a bare specifier), and the wasm modules from build/wasm.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';
import { minify } from 'rolldown/utils';
import { build } from 'vite';
import { customElementsManifest, elementTypes, frameworkTypes } from './element-types.mjs';

const repo = fileURLToPath(new URL('..', import.meta.url));
const lib = join(repo, 'web/lib');
const dist = join(repo, 'dist');
const wasm = join(repo, 'build/wasm');

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist);
cpSync(lib, dist, { recursive: true, filter: (path) => !path.startsWith(join(lib, 'vendor')) });

// Each vendor file is bundled whole: colors.js, plotting.js, gguf.js and tokenizers.js for browsers and Node alike,
// png.js (the command line's) for Node.
const vendor = { 'colors.js': 'neutral', 'plotting.js': 'neutral', 'png.js': 'node', 'gguf.js': 'neutral', 'tokenizers.js': 'neutral' };
for (const [file, platform] of Object.entries(vendor)) {
  await build({
    configFile: false,
    logLevel: 'warn',
    build: {
      ssr: platform === 'node',
      target: 'es2022',
      outDir: join(dist, 'vendor'),
      emptyOutDir: false,
      minify: true,
      lib: { entry: join(lib, 'vendor', file), formats: ['es'], fileName: () => file },
      // @huggingface/gguf re-exports @huggingface/tasks, whose modules it does not use: their side effects are none.
      rollupOptions: { external: (id) => id.startsWith('node:'), treeshake: file === 'gguf.js' ? { moduleSideEffects: false } : true },
    },
    ssr: { noExternal: true, target: 'node' },
  });
}

const modules = ['posembed-simd', 'posembed-scalar', 'posembed-encoders-simd'];
if (existsSync(join(wasm, 'posembed-threads.worker.js'))) modules.push('posembed-threads');
else console.warn('build: no threaded module with this Emscripten (see CMakeLists.txt): the package will not have one');
for (const name of modules) {
  for (const extension of ['.mjs', '.wasm']) cpSync(join(wasm, name + extension), join(dist, name + extension));
}
if (modules.includes('posembed-threads')) {
  cpSync(join(wasm, 'posembed-threads.worker.js'), join(dist, 'posembed-threads.worker.js'));
  // The pthread worker script is CommonJS: Node's worker_threads read a .js file in this "type": "module"
  // package as an ES module, so Node gets the same script as .cjs (browsers need a JavaScript MIME type: .js).
  cpSync(join(wasm, 'posembed-threads.worker.js'), join(dist, 'posembed-threads.worker.cjs'));
}
// The elements' workers, each one self-contained module beside the wasm files (dist/train-worker.js,
// dist/tokens-worker.js): everything they import, dynamic imports too, inlined. A site's bundler then bundles a
// worker as one file whatever format it writes workers in (Vite's default, iife, cannot split code), and the
// worker's `new URL('./posembed-….wasm', import.meta.url)` still names the files beside it.
// (rolldown itself: a bundler's library mode would inline the wasm files into the script.)
for (const worker of ['train-worker.js', 'tokens-worker.js']) {
  const bundle = await rolldown({ input: join(dist, 'components', worker), platform: 'browser', logLevel: 'warn', external: (id) => id.startsWith('node:') });
  await bundle.write({ file: join(dist, worker), format: 'es', codeSplitting: false, minify: true });
  await bundle.close();
  // The worker's own new URL('./posembed-….wasm', import.meta.url) are hidden from the site's bundler
  // (import.meta['url']), which would copy every file again for the worker: the page tells the worker its own
  // copies' URLs (wasm.js, acceptPackageFiles). Unbundled (a CDN, node_modules), they are the same files.
  const code = readFileSync(join(dist, worker), 'utf8');
  writeFileSync(join(dist, worker), code.replace(/new URL\((`[^`$\\]*`|"[^"\\]*"|'[^'\\]*'),import\.meta\.url\)/g, (_, path) => `new URL(${path},import.meta["url"])`));
  rmSync(join(dist, 'components', worker));
}
// Every module of the package minified where it stands (the module graph unchanged: a page still loads only what it
// uses), names of functions and classes kept (errors are named by them), each with a source map holding its
// source; the vendor bundles and the workers are minified already, the Emscripten glue is its compiler's.
// Bundlers read a template literal in new URL(…, import.meta.url) or import(…) as a pattern of files, where the
// minifier wrote one file's name: it is a string again. A computed import (wasm.js's Node built-ins) gets back the
// comments the minifier dropped, which tell bundlers to leave it alone.
const forBundlers = (code) => code
  .replace(/new URL\(`([^`$\\]*)`,import\.meta\.url\)/g, (_, path) => `new URL(${JSON.stringify(path)},import.meta.url)`)
  .replace(/\bimport\(`([^`$\\]*)`\)/g, (_, path) => `import(${JSON.stringify(path)})`)
  .replace(/\bimport\(`\$\{/g, 'import(/* @vite-ignore */ /* webpackIgnore: true */ `${');
for (const file of readdirSync(dist, { recursive: true })) {
  if (!file.endsWith('.js') || file.startsWith('vendor') || file.endsWith('-worker.js') || file.startsWith('posembed-')) continue;
  const path = join(dist, file);
  const source = readFileSync(path, 'utf8');
  const { code, map, errors } = await minify(file, source, { module: true, compress: { keepNames: { function: true, class: true } }, mangle: { keepNames: true }, sourcemap: true });
  if (errors.length) throw new Error(`build: minifying ${file}: ${errors.map((e) => e.message).join('; ')}`);
  const name = file.split('/').at(-1);
  writeFileSync(`${path}.map`, JSON.stringify({ ...map, file: name, sources: [`source/${name}`], sourcesContent: [source] }));
  writeFileSync(path, `${forBundlers(code)}\n//# sourceMappingURL=${name}.map\n`);
}
// The elements' manifest and types, made from their attribute schema.
writeFileSync(join(dist, 'custom-elements.json'), `${JSON.stringify(customElementsManifest(), null, 2)}\n`);
writeFileSync(join(dist, 'elements.d.ts'), elementTypes());
for (const [file, text] of frameworkTypes()) writeFileSync(join(dist, file), text);

console.log(`build: dist/ has ${readdirSync(dist, { recursive: true }).length} files`);
