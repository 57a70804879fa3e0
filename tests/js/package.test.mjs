// The package as users install it: `npm pack`, installed into a fresh project, imported by name.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, packAndInstall, readmeExample } from '../pack.mjs';

describe('npm package', () => {
  let installed;
  before(() => { installed = packAndInstall(); });

  it('ships the JS, the types, the elements\' manifest and the four wasm modules (with the threaded one\'s worker script), and nothing else', () => {
    const modules = ['simd', 'scalar', 'threads', 'encoders-simd'].flatMap((m) => [`dist/posembed-${m}.wasm`, `dist/posembed-${m}.mjs`]);
    for (const file of ['dist/index.js', 'dist/index.d.ts', ...modules, 'dist/posembed-threads.worker.js', 'dist/posembed-threads.worker.cjs', 'package.json', 'README.md']) {
      assert.ok(installed.files.includes(file), `${file} missing from the tarball`);
    }
    for (const file of ['dist/components.js', 'dist/page/components.js', 'dist/page/index.js', 'dist/components.d.ts', 'dist/elements.d.ts', 'dist/custom-elements.json', 'dist/vendor/colors.js']) assert.ok(installed.files.includes(file), `${file} missing from the tarball`);
    assert.deepEqual(installed.files.filter((f) => !/^(dist\/((webgpu|components|vendor|page)\/)?[\w.-]+\.(js|cjs|mjs|d\.ts|wasm)|dist\/custom-elements\.json|package\.json|README\.md|LICENSE)$/.test(f)), []);
    // Without the comments a page would download, each line where the source has it (an error's line is the source's).
    const source = readFileSync(join(REPO, 'web/lib/components/figure.js'), 'utf8').split('\n');
    const shipped = readFileSync(join(installed.project, 'node_modules/posembed/dist/components/figure.js'), 'utf8').split('\n');
    assert.equal(shipped.length, source.length);
    const at = source.findIndex((line) => line.includes('export class Figure {'));
    assert.equal(shipped[at], source[at]);
    assert.ok(!shipped.some((line) => line.trimStart().startsWith('//')), 'no comment lines');
  });

  it('imports nothing by a bare specifier anywhere in dist/ (browsers cannot resolve one), but the command line its one dependency, the PNG renderer', () => {
    const pkg = JSON.parse(readFileSync(join(installed.project, 'node_modules/posembed/package.json'), 'utf8'));
    assert.deepEqual(Object.keys(pkg.dependencies), ['@resvg/resvg-js']);
    const bare = [];
    for (const file of installed.files.filter((f) => /\.(js|mjs|cjs)$/.test(f))) {
      const source = readFileSync(join(installed.project, 'node_modules/posembed', file), 'utf8');
      const specifiers = [...source.matchAll(/(?:^|[\s;}])(?:import|export)\s*(?:[\w*{}\s,$]+from\s*)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)]
        .map((match) => match[1] ?? match[2]);
      bare.push(...specifiers.filter((s) => !/^(\.\.?\/|node:)/.test(s)).map((s) => `${file}: '${s}'`));
    }
    // (dist/cli.js runs in Node only, where the dependency resolves.)
    assert.deepEqual(bare, ["dist/cli.js: '@resvg/resvg-js'"]);
  });

  it("exports 'posembed/components', which Node resolves to dist/components.js with its types", () => {
    const pkg = JSON.parse(readFileSync(join(installed.project, 'node_modules/posembed/package.json'), 'utf8'));
    assert.deepEqual(pkg.exports['./components'], { types: './dist/components.d.ts', default: './dist/components.js' });
    const resolved = execFileSync(process.execPath, ['--input-type=module', '-e', "console.log(import.meta.resolve('posembed/components'))"], { cwd: installed.project, encoding: 'utf8' });
    assert.equal(resolved.trim(), `file://${join(installed.project, 'node_modules/posembed/dist/components.js')}`);
  });

  it("imports by name in a Node ESM project and runs the README's example", () => {
    const script = join(installed.project, 'example.mjs');
    writeFileSync(script, `
      import { load } from 'posembed';
      const pe = await load();
      const pos = pe.sinusoidal({ length: 4, dModel: 8 });
      const emb = pe.tokenEmbedding({ vocabSize: 20, dModel: 8, paddingIdx: 0, scale: 'sqrt', init: { seed: 1 } });
      const rows = emb.lookup([15, 17, 3, 0]);
      emb.dispose();
      console.log(JSON.stringify({ shape: pos.shape, first: Array.from(pos.data.slice(0, 2)), rows: rows.shape, pad: Array.from(rows.data.slice(24)) }));
    `);
    const result = JSON.parse(execFileSync(process.execPath, [script], { cwd: installed.project, encoding: 'utf8' }));
    assert.deepEqual(result, { shape: [4, 8], first: [0, 1], rows: [4, 8], pad: [0, 0, 0, 0, 0, 0, 0, 0] });
  });

  it("runs the README's Node example as written", () => {
    const script = join(installed.project, 'readme.mjs');
    writeFileSync(script, readmeExample('js'));
    const output = execFileSync(process.execPath, [script], { cwd: installed.project, encoding: 'utf8' });
    assert.match(output, /^\[ 6, 8 \] \[ 6, 8 \] Float32Array\(4\) \[/);
  });

  it('the types check a TypeScript program that uses every op (tsc --strict)', () => {
    const program = join(installed.project, 'usage.ts');
    writeFileSync(program, `
      import { load, WeightFileError, writeNpy, type Tensor } from 'posembed';
      const pe = await load({ simd: 'auto' });
      const pos: Tensor = pe.sinusoidal({ length: 4, dModel: 8, layout: 'split', timescale: 't2t' });
      const emb = pe.tokenEmbedding({ vocabSize: 20, dModel: 8, scale: 'sqrt', init: { seed: 1 } });
      const near: Int32Array = emb.nearest(emb.lookup([1]).data, { k: 3 }).indices;
      const layer = pe.transformerEmbedding({ vocabSize: 20, dModel: 8, maxLength: 16, dropout: 0.1 });
      layer.forward({ data: new Int32Array(4), shape: [2, 2] }, { training: true });
      const rotated = pe.applyRope(pos, { offset: 3, scaling: { type: 'yarn', factor: 4, originalMaxPositions: 64 } });
      const buckets: Int32Array = pe.t5Buckets({ queryLength: 3, keyLength: 4 }).data;
      const heap = pe.allocate(32);
      pe.sinusoidal({ length: 4, dModel: 8, out: heap.data });
      const error: WeightFileError | null = null;
      console.log(pos.shape, near, rotated.shape, buckets, pe.pca(pos).shape, pe.alibiBias({ numHeads: 2, keyLength: 3 }).shape, error);
      heap.dispose(); emb.dispose(); layer.dispose();
      const trainer = pe.trainer({ task: 'first', positional: 'rope', dModel: 16, heads: 2 });
      const { loss } = trainer.step(2);
      const probabilities: Float32Array = trainer.predict('First(3,1,2)').probabilities;
      const file: Uint8Array = trainer.save();
      const npy: Uint8Array = writeNpy(trainer.parameters()['wte.weight']);
      const words = pe.wordEmbeddings({ corpus: ['a b c', 'b c d'], dim: 4 });
      const nearest: string = words.nearest('b', { k: 2 })[0].word;
      console.log(loss, probabilities, file.length, npy.length, trainer.evaluate({ count: 8 }).accuracy, nearest, words.vectors.shape);
      trainer.dispose(); words.dispose();
      const model = pe.modelPositions(pe.modelPresets['Llama-3.1-8B']);
      const spec = model.layer(0).rope;
      if (spec) {
        const cache = pe.ropeCache(spec, { positions: { data: new Int32Array(6), shape: [2, 3] }, precision: 'bfloat16' });
        const check = pe.checkRopeCache(spec, { ...cache, positions: { data: new Int32Array(6), shape: [2, 3] } });
        const verdict: 'exact' | 'float32' | 'bfloat16' | 'float16' | 'mismatch' = check.verdict;
        const invFreq: Float64Array | undefined = spec.invFreq;
        console.log(model.modelType, model.layerTypes, verdict, invFreq, model.layer(0).scoreScale, cache.precision, check.order, model.warnings, model.family.source);
      }
      const kimi = pe.modelPositions({ model_type: 'kimi_k2' }, { as: 'deepseek_v3' });
      const gguf = await pe.checkGguf(new Uint8Array(0), 'Llama-3.1-8B', { layer: 0 }).catch(() => null);
      const ggufVerdict: 'consistent' | 'mismatch' | undefined = gguf?.verdict;
      console.log(kimi.defaults, ggufVerdict, gguf?.mismatches.map((f) => f.key));
      const tokenizer = await pe.openTokenizer({ model: { type: 'WordLevel', vocab: { a: 0, '[UNK]': 1 }, unk_token: '[UNK]' } });
      const tokenIds: Int32Array = tokenizer.encode('a', { addSpecialTokens: false });
      console.log(tokenizer.vocabSize, tokenizer.decode(tokenIds), tokenizer.piece(0));
      const opened = await pe.openModel('https://huggingface.co/ORG/NAME/resolve/main/', { headers: { authorization: 'Bearer x' } }).catch(() => null);
      if (opened) {
        const table = await opened.tokenEmbedding({ onProgress: (f: number) => console.log(f) });
        console.log(opened.positions.modelType, opened.tokenizer.vocabSize, table.storedDtype, table.lookup([0]).shape);
        table.dispose();
      }
      const gpu = await load({ backend: 'auto' });
      if (gpu.backend === 'webgpu' && 'gpuBuffers' in gpu) {
        const onGpu = gpu.sinusoidal({ length: 4, dModel: 8 });
        const rotated = gpu.applyRope(onGpu, { offset: 2 });
        const values: Float32Array = (await rotated.read()).data;
        if (typeof OffscreenCanvas !== 'undefined') await gpu.renderHeatmap(onGpu, new OffscreenCanvas(8, 4), { range: { min: -1, max: 1 }, colormap: 'RdBu' });
        console.log(values, gpu.gpuBuffers);
        onGpu.dispose(); rotated.dispose();
      }
      await gpu.dispose(); pe.dispose();
    `);
    writeFileSync(join(installed.project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', skipLibCheck: false }, files: ['usage.ts'] }));
    const typed = spawnSync(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', installed.project], { encoding: 'utf8' });
    assert.equal(typed.status, 0, typed.stdout + typed.stderr);
  });

  it('the elements\' types check a .tsx page (tsc --strict): tag names map to their element types, JSX takes each attribute, a wrong value is refused', () => {
    const tsc = (file, source) => {
      const dir = join(installed.project, `tsx-${file}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'page.tsx'), source);
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, jsx: 'preserve', module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], skipLibCheck: false }, files: ['page.tsx'] }));
      return spawnSync(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
    };
    const good = tsc('good', `
      import 'posembed/components';
      export const page = [
        <posembed-heatmap encoding="alibi" length={32} heads="8" causal colormap="viridis" axes="false" />,
        <posembed-rope head-dim={16} layout="interleaved" pairs={4} scaling="yarn" factor={8} />,
        <posembed-model config="Llama-3.1-8B" layer={0} id="model" />,
        <posembed-train task="mixed" positional="rope" steps={500} />,
        <posembed-bias kind="t5" heads={4} length={16} scale="per-head" />,
        <posembed-lookup text="Max(1,6,2)" d-model={64} scale="none" />,
      ];
      const model = document.querySelector('posembed-model');
      if (model) model.config = { model_type: 'llama' };
      const heatmap = document.querySelector('posembed-heatmap');
      if (heatmap) heatmap.data = { data: [1, 2, 3, 4], shape: [2, 2], caption: 'mine' };
      const rope = document.querySelector('posembed-rope');
      export const picture: Promise<Blob> | undefined = rope?.toBlob({ type: 'image/png', scale: 3 });
    `);
    assert.equal(good.status, 0, good.stdout + good.stderr);
    const wrong = tsc('wrong', `
      import 'posembed/components';
      export const page = <posembed-heatmap encoding="bogus" />;
    `);
    assert.notEqual(wrong.status, 0, 'encoding="bogus" must not type-check');
    assert.match(wrong.stdout, /"bogus"/);
  });

  it('React\'s and Preact\'s JSX, Vue\'s components and Svelte\'s elements take the elements with their attributes, events and HTML attributes (posembed/jsx-react, jsx-preact, vue, svelte; tsc --strict)', () => {
    const local = (file) => join(REPO, 'node_modules', file);
    // Each framework's own types, from this repository's devDependencies, as a project that uses it would have them.
    const FRAMEWORKS = {
      react: { paths: { react: [local('@types/react/index.d.ts')], 'react/jsx-runtime': [local('@types/react/jsx-runtime.d.ts')] }, jsx: 'react-jsx' },
      preact: { paths: { preact: [local('preact/src/index.d.ts')], 'preact/jsx-runtime': [local('preact/jsx-runtime/src/index.d.ts')] }, jsx: 'react-jsx' },
      vue: { paths: { vue: [local('vue/dist/vue.d.ts')] } },
      svelte: { paths: { 'svelte/elements': [local('svelte/elements.d.ts')] } },
    };
    const check = (framework, source) => {
      const dir = join(installed.project, `types-${framework}`);
      mkdirSync(dir, { recursive: true });
      const { paths, jsx } = FRAMEWORKS[framework];
      const file = jsx ? 'page.tsx' : 'page.ts';
      writeFileSync(join(dir, file), source);
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, ...(jsx ? { jsx, jsxImportSource: framework } : {}), module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], paths, skipLibCheck: true }, files: [file] }));
      return spawnSync(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
    };
    for (const framework of ['react', 'preact']) {
      const good = check(framework, `
        import type {} from 'posembed/jsx-${framework}';
        const matrix = { data: [1, 2, 3, 4], shape: [2, 2] as [number, number] };
        export const page = <section>
          <posembed-heatmap encoding="alibi" heads={8} causal class="figure" axes={false} legend={true} title="ALiBi" tabIndex={0} data={matrix}
            onrender={(event: CustomEvent) => event.detail} aria-describedby="note" data-figure="1" />
          <posembed-model config="Llama-3.1-8B" layer="0" theme="dark" onrender={(event) => event.detail} />
          <posembed-train task="first" positional="learned" steps={300} lang="en" strings={{ start: 'Los' }} oncursor={(event: CustomEvent) => event.detail} />
        </section>;
      `);
      assert.equal(good.status, 0, `${framework}: ${good.stdout}${good.stderr}`);
      for (const [wrong, what] of [['<posembed-rope layout="diagonal" />', '"diagonal"'], ['<posembed-heatmap axes="no" />', '"no"'], ['<posembed-bias theme="sepia" />', '"sepia"']]) {
        const refused = check(framework, `import type {} from 'posembed/jsx-${framework}';\nexport const page = ${wrong};\n`);
        assert.notEqual(refused.status, 0, `${framework}: ${wrong} must not type-check`);
        assert.ok(refused.stdout.includes(what), `${framework}: ${refused.stdout}`);
      }
    }
    const vue = check('vue', `
      import type { GlobalComponents } from 'vue';
      import type {} from 'posembed/vue';
      type Props<T extends keyof GlobalComponents> = InstanceType<GlobalComponents[T]>['$props'];
      export const heatmap: Props<'posembed-heatmap'> = { encoding: 'alibi', axes: false, length: 32, onrender: (event: CustomEvent) => event.detail };
      export const model: Props<'posembed-model'> = { config: { model_type: 'llama' }, layer: 3 };
      // @ts-expect-error: not one of the encodings
      export const wrong: Props<'posembed-heatmap'> = { encoding: 'bogus' };
    `);
    assert.equal(vue.status, 0, `vue: ${vue.stdout}${vue.stderr}`);
    const svelte = check('svelte', `
      import type { SvelteHTMLElements } from 'svelte/elements';
      import type {} from 'posembed/svelte';
      export const heatmap: SvelteHTMLElements['posembed-heatmap'] = { encoding: 'alibi', axes: false, title: 'ALiBi', class: 'figure', onrender: (event: CustomEvent) => event.detail };
      export const rope: SvelteHTMLElements['posembed-rope'] = { 'head-dim': 16, layout: 'interleaved', onchange: (event: CustomEvent) => event.detail };
      // @ts-expect-error: not one of the layouts
      export const wrong: SvelteHTMLElements['posembed-rope'] = { layout: 'diagonal' };
    `);
    assert.equal(svelte.status, 0, `svelte: ${svelte.stdout}${svelte.stderr}`);
  });

  it('custom-elements.json lists every element and attribute of the schema, and package.json names it', async () => {
    const installedPackage = join(installed.project, 'node_modules/posembed');
    const pkg = JSON.parse(readFileSync(join(installedPackage, 'package.json'), 'utf8'));
    const manifest = JSON.parse(readFileSync(join(installedPackage, pkg.customElements), 'utf8'));
    const { ELEMENT_SCHEMAS } = await import(join(installedPackage, 'dist/element_schemas.js'));
    const declared = Object.fromEntries(manifest.modules[0].declarations.map((d) => [d.tagName, d.attributes.map((a) => a.name)]));
    assert.deepEqual(Object.keys(declared), Object.keys(ELEMENT_SCHEMAS));
    for (const [tag, schema] of Object.entries(ELEMENT_SCHEMAS)) assert.deepEqual(declared[tag], Object.keys(schema.attributes), tag);
    const dModel = manifest.modules[0].declarations.find((d) => d.tagName === 'posembed-lookup').attributes.find((a) => a.name === 'd-model');
    assert.deepEqual([dModel.type.text, dModel.default, dModel.description], ['number', '64', 'Numbers per token. Even integer in [2, 512].']);
  });

  it('the types resolve through exports', () => {
    const installedPackage = join(installed.project, 'node_modules/posembed');
    const pkg = JSON.parse(readFileSync(join(installedPackage, 'package.json'), 'utf8'));
    assert.equal(pkg.exports['.'].types, './dist/index.d.ts');
    assert.match(readFileSync(join(installedPackage, pkg.exports['.'].types), 'utf8'), /export function load\(options\?: LoadOptions & \{ backend\?: 'wasm' \}\): Promise<Posembed>;/);
  });
});
