// Rules the site's and the package's sources keep, checked on the sources themselves.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { REPO } from '../pack.mjs';

it('no array is spread into Math.min or Math.max anywhere in web/ (past ~125k values the call overflows the stack)', () => {
  const web = join(REPO, 'web');
  const found = readdirSync(web, { recursive: true })
    .filter((file) => file.endsWith('.js'))
    .flatMap((file) => readFileSync(join(web, file), 'utf8').split('\n').map((line, i) => [file, i + 1, line]))
    .filter(([, , line]) => /Math\.(min|max)\([^)]*\.\.\./.test(line))
    .map(([file, line]) => `web/${file}:${line}`);
  assert.deepEqual(found, []);
});

// Every relative import of the .js/.mjs files under `folder` (not node_modules), as [file, the path it resolves to].
function relativeImports(folder) {
  return readdirSync(join(REPO, folder), { recursive: true })
    .filter((file) => /\.m?js$/.test(file) && !file.split(/[\\/]/).includes('node_modules'))
    .flatMap((file) => [...readFileSync(join(REPO, folder, file), 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)]
      .map(([, target]) => [`${folder}/${file}`, relative(REPO, resolve(REPO, folder, dirname(file), target))]));
}

it('imports run one way: the package, the site and the shared bench cases import nothing from scripts/ or tests/, and scripts/ nothing from tests/', () => {
  const wrong = [
    ...relativeImports('web').filter(([, target]) => /^(scripts|tests)\//.test(target)),
    ...relativeImports('scripts').filter(([, target]) => target.startsWith('tests/')),
  ].map(([file, target]) => `${file} imports ${target}`);
  assert.deepEqual(wrong, []);
});
