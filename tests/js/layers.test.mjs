// The repository's layers import downward: the package's and the site's sources (web/lib, web/site) are read by
// scripts and tests as built (dist/, build/site), never as sources, so what is tested is what ships; no script
// imports a test; and nothing under web/ imports the repository's tooling (scripts/, tests/), which a page would
// then download.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const SOURCE = /\.(m?js|cjs)$/;
// Static imports and re-exports (`… from '…'`, `import '…'`) and dynamic ones with a literal path.
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])(\.{1,2}\/[^'"]+)\1/g;

function importsUnder(folder) {
  const found = [];
  for (const file of readdirSync(join(REPO, folder), { recursive: true })) {
    if (!SOURCE.test(String(file)) || String(file).includes('node_modules') || String(file).startsWith('vendor')) continue;
    const path = join(REPO, folder, String(file));
    for (const [, , specifier] of readFileSync(path, 'utf8').matchAll(IMPORT)) {
      found.push({ file: relative(REPO, path), target: relative(REPO, resolve(dirname(path), specifier)) });
    }
  }
  return found;
}

test('scripts and tests import the package and the site as built, and no script imports a test', () => {
  const imports = [...importsUnder('scripts'), ...importsUnder('tests')];
  assert.ok(imports.some(({ target }) => target.startsWith('dist/')), 'the scan finds imports of dist/');
  const wrong = imports.filter(({ file, target }) => /^web\/(lib|site)\//.test(target) || (file.startsWith('scripts/') && target.startsWith('tests/')));
  assert.deepEqual(wrong.map(({ file, target }) => `${file} imports ${target}`), []);
});

test('nothing under web/ imports the repository\'s tooling', () => {
  const imports = importsUnder('web');
  assert.ok(imports.length > 100, 'the scan finds the package\'s imports');
  assert.deepEqual(imports.filter(({ target }) => /^(scripts|tests)\//.test(target)).map(({ file, target }) => `${file} imports ${target}`), []);
});
