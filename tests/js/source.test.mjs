// Rules the site's and the package's sources keep, checked on the sources themselves.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
