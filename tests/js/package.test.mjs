// The package as users install it: `npm pack`, installed into a fresh project, imported by name.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packAndInstall, readmeExample } from '../pack.mjs';

describe('npm package', () => {
  let installed;
  before(() => { installed = packAndInstall(); });

  it('ships the JS, the types and both wasm modules, and nothing else', () => {
    for (const file of ['dist/index.js', 'dist/index.d.ts', 'dist/posembed-simd.wasm', 'dist/posembed-simd.mjs', 'dist/posembed-scalar.wasm', 'dist/posembed-scalar.mjs', 'package.json', 'README.md']) {
      assert.ok(installed.files.includes(file), `${file} missing from the tarball`);
    }
    assert.deepEqual(installed.files.filter((f) => !/^(dist\/[\w-]+\.(js|mjs|d\.ts|wasm)|package\.json|README\.md|LICENSE)$/.test(f)), []);
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

  it('the types resolve through exports', () => {
    const installedPackage = join(installed.project, 'node_modules/posembed');
    const pkg = JSON.parse(readFileSync(join(installedPackage, 'package.json'), 'utf8'));
    assert.equal(pkg.exports['.'].types, './dist/index.d.ts');
    assert.match(readFileSync(join(installedPackage, pkg.exports['.'].types), 'utf8'), /export function load\(options\?: LoadOptions\): Promise<Posembed>;/);
  });
});
