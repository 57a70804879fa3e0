// Builds dist/, the package as users install it: web/lib's modules as they are, the third-party code they use
// bundled into dist/vendor/ (so no file in dist/ imports a bare specifier), and the wasm modules from build/wasm.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';
import { parseSync } from 'rolldown/utils';
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
// The package's comments explain its code to people reading the repository; a page would download them. Every
// module of dist/ keeps its code as written, each line where it was (so an error's line number is the source's),
// its comments blanked: the command line's #! and those bundlers read (@vite-ignore, webpackIgnore, __PURE__) kept.
const BUNDLER_COMMENT = /^#!|@vite-ignore|webpackIgnore|[#@]__PURE__|sourceMappingURL/;
function withoutComments(file, code) {
  const { comments, errors } = parseSync(file, code);
  if (errors.length) throw new Error(`build: ${file}: ${errors.map((e) => e.message).join('; ')}`);
  let kept = '';
  let at = 0;
  for (const { start, end } of comments) {
    const text = code.slice(start, end);
    if (BUNDLER_COMMENT.test(text)) continue;
    kept += code.slice(at, start) + (text.includes('\n') ? '\n'.repeat(text.split('\n').length - 1) : ' ');
    at = end;
  }
  return (kept + code.slice(at)).replace(/[ \t]+$/gm, '');
}

// The elements' workers, each one self-contained module beside the wasm files (dist/train-worker.js,
// dist/tokens-worker.js): everything they import, dynamic imports too, inlined. A site's bundler then bundles a
// worker as one file whatever format it writes workers in (Vite's default, iife, cannot split code).
// (rolldown itself: a bundler's library mode would inline the wasm files into the script.)
for (const worker of ['train-worker.js', 'tokens-worker.js']) {
  const bundle = await rolldown({ input: join(dist, 'components', worker), platform: 'browser', logLevel: 'warn', external: (id) => id.startsWith('node:') });
  await bundle.write({ file: join(dist, worker), format: 'es', codeSplitting: false });
  await bundle.close();
  // The worker's own new URL('./posembed-….wasm', import.meta.url) are hidden from the site's bundler
  // (import.meta['url']), which would copy every file again for the worker: the page tells the worker its own
  // copies' URLs (wasm.js, acceptPackageFiles). Unbundled (a CDN, node_modules), they are the same files.
  const code = readFileSync(join(dist, worker), 'utf8');
  writeFileSync(join(dist, worker), code.replace(/new URL\(("[^"\\]*"|'[^'\\]*'), import\.meta\.url\)/g, (_, path) => `new URL(${path}, import.meta["url"])`));
  rmSync(join(dist, 'components', worker));
}
for (const file of readdirSync(dist, { recursive: true })) {
  if (!file.endsWith('.js') || file.startsWith('vendor') || file.startsWith('posembed-')) continue;
  writeFileSync(join(dist, file), withoutComments(file, readFileSync(join(dist, file), 'utf8')));
}
// The elements' manifest and types, made from their attribute schema.
writeFileSync(join(dist, 'custom-elements.json'), `${JSON.stringify(customElementsManifest(), null, 2)}\n`);
writeFileSync(join(dist, 'elements.d.ts'), elementTypes());
for (const [file, text] of frameworkTypes()) writeFileSync(join(dist, file), text);

console.log(`build: dist/ has ${readdirSync(dist, { recursive: true }).length} files`);
