// Builds dist/, the package as users install it: web/lib's modules as they are, the third-party code they use
// bundled into dist/vendor/ (so no file in dist/ imports a bare specifier), and the wasm modules from build/wasm.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rolldown } from 'rolldown';
import { parseSync } from 'rolldown/utils';
import { build } from 'vite';
import { customElementsManifest, elementTypes, frameworkTypes } from './element-types.mjs';
import { opDeclarations, withOpDeclarations } from './op-types.mjs';

const repo = fileURLToPath(new URL('..', import.meta.url));
const lib = join(repo, 'web/lib');
const dist = join(repo, 'dist');
const wasm = join(repo, 'build/wasm');

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist);
// The WGSL kernels of the core's ops are read into core_tables.js (below), not copied.
const gpuKernels = join(lib, 'webgpu', 'kernels');
cpSync(lib, dist, { recursive: true, filter: (path) => !path.startsWith(join(lib, 'vendor')) && !path.startsWith(gpuKernels) });

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
// The C++ core's tables, read from the module just built, as the module dist/core_tables.js: its limits
// (limits::kLimits), which the option registry (op_schemas.js) names its bounds from, and its RoPE scaling rules'
// parameters (rope_parameters, rope_rules), which rope.js checks a scaling object by and model_positions.js reads a
// config's rope_scaling by. Each bound, parameter and spelling is stated once, in the core.
const scalarModule = await (await import(pathToFileURL(join(dist, 'posembed-scalar.mjs')).href)).default({
  instantiateWasm(imports, receive) {
    WebAssembly.instantiate(readFileSync(join(dist, 'posembed-scalar.wasm')), imports).then(({ instance, module }) => receive(instance, module));
    return {};
  },
});
const { sinusoidalBlockRows, ...coreLimits } = scalarModule.limits();
const ropeRules = scalarModule.ropeRules();
// The ops stated whole in the core (core_ops.hpp's table), and the WGSL kernel of each that has one, by op name.
const coreOps = scalarModule.coreOps();
const kernels = Object.fromEntries((existsSync(gpuKernels) ? readdirSync(gpuKernels) : []).filter((file) => file.endsWith('.wgsl'))
  .map((file) => [file.slice(0, -'.wgsl'.length), readFileSync(join(gpuKernels, file), 'utf8')]));
for (const op of Object.keys(kernels)) {
  if (!coreOps[op]) throw new Error(`build: web/lib/webgpu/kernels/${op}.wgsl names no op of the core's table (${Object.keys(coreOps).join(', ')})`);
}
writeFileSync(join(dist, 'core_tables.js'), [
  '// Written by scripts/build-dist.mjs from the C++ core\'s tables (limits.hpp\'s kLimits; rope.hpp\'s rope_parameters and',
  '// rope_rules; core_ops.hpp\'s table of ops) and the ops\' WGSL kernels (web/lib/webgpu/kernels/).',
  `export const CORE_LIMITS = Object.freeze(${JSON.stringify(coreLimits, null, 2)});`,
  `export const CORE_ROPE_RULES = Object.freeze(${JSON.stringify(ropeRules, null, 2)});`,
  `export const CORE_OPS = Object.freeze(${JSON.stringify(coreOps, null, 2)});`,
  `export const GPU_KERNELS = Object.freeze(${JSON.stringify(kernels, null, 2)});`, '',
].join('\n'));
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
// dist/page/: the public modules bundled for a page without a bundler (a script tag, from node_modules or a CDN),
// which would otherwise fetch each of the package's modules on its own (about 40 requests for one heatmap). One
// build of every browser entry, so a page importing both posembed and posembed/components shares one instance: the
// code any element needs (the figure layer, the op modules, the wasm loader) in one chunk, each element's own code
// in its chunk, loaded when the page first holds one. The wasm glue, the .wasm files and the workers stay the
// package's files beside it (one copy each), their URLs rebased from dist/page/. Minified: it is what a page fetches,
// and a page's weight is a goal (a bundler's site minifies the package's readable modules itself).
const pageDir = join(dist, 'page');
const PAGE_ENTRIES = { index: 'index.js', components: 'components.js', colormap: 'colormap.js', 'vocabulary-map': 'vocabulary_map.js' };
const FIRST_ELEMENT = join(dist, 'components', 'posembed-heatmap.js');
const rebased = (importer, path) => {
  const target = relative(pageDir, resolve(dirname(importer), path)).replaceAll('\\', '/');
  return target.startsWith('.') ? target : `./${target}`;
};
const PACKAGE_FILE_URL = /new URL\((["'])([^"'\\]+)\1, import\.meta\.url\)|import\.meta\.resolve\((["'])([^"'\\]+)\3\)/g;
let sharedByElements = new Set();
const packageFilesPlugin = {
  name: 'posembed-package-files',
  resolveId(source, importer) {
    return importer && /^\.\.?\/(.*\/)?posembed-[\w-]+\.mjs$/.test(source) ? { id: rebased(importer, source), external: true } : null;
  },
  transform(code, id) {
    return code.replace(PACKAGE_FILE_URL, (_, quote, path, quote2, resolved) => (path
      ? `new URL(${JSON.stringify(rebased(id, path))}, import.meta.url)`
      : `import.meta.resolve(${JSON.stringify(rebased(id, resolved))})`));
  },
  // What components.js and an element load in any case: the modules both import statically.
  buildEnd() {
    const seen = new Set();
    const visit = (id) => {
      if (seen.has(id)) return;
      seen.add(id);
      for (const next of this.getModuleInfo(id)?.importedIds ?? []) visit(next);
    };
    visit(join(dist, 'components.js'));
    visit(FIRST_ELEMENT);
    for (const entry of [join(dist, 'components.js'), FIRST_ELEMENT]) seen.delete(entry);
    sharedByElements = seen;
  },
};
const pageBundle = await rolldown({
  input: Object.fromEntries(Object.entries(PAGE_ENTRIES).map(([name, file]) => [name, join(dist, file)])),
  platform: 'browser', logLevel: 'warn', plugins: [packageFilesPlugin], external: (id) => id.startsWith('node:'),
});
await pageBundle.write({
  dir: pageDir, format: 'es', chunkFileNames: '[name]-[hash].js', minify: true,
  codeSplitting: { groups: [{ name: 'posembed', test: (id) => sharedByElements.has(id) }] },
});
await pageBundle.close();

// The ops' declarations in index.d.ts, made from the option registry (as built: its bounds are the core's).
const { resolvedSchemas } = await import(pathToFileURL(join(dist, 'op_schemas.js')).href);
writeFileSync(join(dist, 'index.d.ts'), withOpDeclarations(opDeclarations(resolvedSchemas(), coreLimits, ropeRules), readFileSync(join(dist, 'index.d.ts'), 'utf8')));

// The elements' manifest and types, made from their attribute schema (as built: its bounds are the core's).
const { ELEMENT_SCHEMAS } = await import(pathToFileURL(join(dist, 'element_schemas.js')).href);
writeFileSync(join(dist, 'custom-elements.json'), `${JSON.stringify(customElementsManifest(ELEMENT_SCHEMAS), null, 2)}\n`);
writeFileSync(join(dist, 'elements.d.ts'), elementTypes(ELEMENT_SCHEMAS));
for (const [file, text] of frameworkTypes(ELEMENT_SCHEMAS)) writeFileSync(join(dist, file), text);

console.log(`build: dist/ has ${readdirSync(dist, { recursive: true }).length} files`);
