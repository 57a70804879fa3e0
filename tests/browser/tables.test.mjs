// A token table past 2 GiB of the wasm heap in Chromium: Llama-3-70B's shape (128,256 × 8,192) in BF16, 2.1 GB,
// opened by URL from a server that answers byte ranges, kept as BF16; its last rows exact and nearest finds them.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../pack.mjs';
import { patternValue, writePatternTable } from '../js/stored_table_pattern.mjs';
import { useSite } from './browser.mjs';

const [ROWS, COLUMNS] = [128256, 8192];

describe('a 2.1 GB BF16 token table in Chromium', () => {
  const site = useSite({ siteRoot: join(REPO, 'dist') });
  let folder;
  let server;
  let url;

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'posembed-chromium-table-'));
    const path = join(folder, 'model.safetensors');
    writePatternTable(path, ROWS, COLUMNS);
    const size = statSync(path).size;
    // Ranges from the file on disk, with the CORS headers a page on another origin needs.
    server = createServer((request, response) => {
      const cors = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'content-range', 'access-control-allow-headers': 'range' };
      if (request.method === 'OPTIONS') { response.writeHead(204, cors).end(); return; }
      const range = request.headers.range?.match(/^bytes=(\d+)-(\d+)$/);
      if (!range) { response.writeHead(200, { ...cors, 'content-length': size }); createReadStream(path).pipe(response); return; }
      const [start, end] = [Number(range[1]), Math.min(Number(range[2]), size - 1)];
      response.writeHead(206, { ...cors, 'content-range': `bytes ${start}-${end}/${size}`, 'content-length': end - start + 1 });
      createReadStream(path, { start, end }).pipe(response);
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${server.address().port}/model.safetensors`;
  });
  after(() => {
    server?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('streams by HTTP Range onto a heap past 2 GiB, kept as BF16: the last rows exact, nearest finds the last', async () => {
    const { page, problems } = await site.open('index.js', { ready: false });
    const last = [ROWS - 2, ROWS - 1];
    const expected = last.map((row) => Array.from({ length: COLUMNS }, (_, c) => patternValue(row, c)));
    const result = await page.evaluate(async ({ url, last, expected, columns }) => {
      const { load } = await import('/index.js');
      const pe = await load({ simd: true, threads: 1 });
      const held = pe.tokenEmbedding({ vocabSize: 128 * 1024, dModel: 256, init: { std: 0 } });  // 128 MiB below the table
      const table = await (await pe.openSafetensors(url)).tokenEmbedding();
      const got = table.lookup(last).data;
      let wrong = 0;
      expected.forEach((row, i) => row.forEach((v, c) => { if (got[i * columns + c] !== v) wrong++; }));
      const nearest = table.nearest(Float32Array.from(expected[1]), { k: 1 });
      const nearestRow = table.lookup([nearest.indices[0]]).data;
      const { pointer } = table.stored();
      const summary = { dtype: table.dtype, wrong, nearestEqual: expected[1].every((v, c) => nearestRow[c] === v), tableEnd: pointer + table.vocabSize * columns * 2, heapBytes: pe.memory().heapBytes };
      table.dispose();
      held.dispose();
      return summary;
    }, { url, last, expected, columns: COLUMNS });
    assert.equal(result.dtype, 'BF16');
    assert.equal(result.wrong, 0);
    assert.equal(result.nearestEqual, true);
    assert.ok(result.tableEnd > 2 ** 31 && result.heapBytes > 2 ** 31, `table ends at ${result.tableEnd}, heap ${result.heapBytes} bytes`);
    assert.deepEqual(problems, []);
  });
});
