// Weight files by URL, read by HTTP Range from servers that behave as the Hub does: resolve/main/ answers with a 302
// to another origin, which serves byte ranges (206, Content-Range) with CORS headers; and one without Range, a 404, a
// refused connection and an abort.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { load, writeNpy, writeSafetensors } from '../../dist/index.js';

const rows = (count, width, seed) => ({ data: Float32Array.from({ length: count * width }, (_, i) => Math.sin(seed + i * 0.37)), shape: [count, width] });
const CORS = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'content-range, content-length, accept-ranges' };

// A file server: Range requests answered 206 (or whole with ranges off), bytes sent counted per file.
function fileServer(files, { ranges = true } = {}) {
  const sent = {};
  const server = createServer((request, response) => {
    const name = decodeURIComponent(request.url.split('/').pop());
    const body = files[name];
    if (!body || request.url.includes('/other/')) { response.writeHead(404, { ...CORS, 'content-type': 'text/plain' }).end('Entry not found'); return; }
    const range = request.headers.range?.match(/^bytes=(\d+)-(\d+)$/);
    if (!ranges || !range) {
      sent[name] = (sent[name] ?? 0) + body.length;
      response.writeHead(200, { ...CORS, 'content-length': body.length }).end(body);
      return;
    }
    const start = Number(range[1]);
    const end = Math.min(Number(range[2]), body.length - 1);
    const part = body.subarray(start, end + 1);
    sent[name] = (sent[name] ?? 0) + part.length;
    response.writeHead(206, { ...CORS, 'content-range': `bytes ${start}-${end}/${body.length}`, 'content-length': part.length, 'accept-ranges': 'bytes' }).end(part);
  });
  return { server, sent };
}

const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)));

describe('weight files by URL: HTTP Range from a Hub-like server', () => {
  let pe;
  const tables = { 'model.embed_tokens.weight': rows(4000, 64, 1), 'lm_head.weight': rows(4000, 64, 2), 'model.norm.weight': rows(1, 64, 3) };
  const files = {};
  let cdn;
  let hub;
  let plain;
  let hubUrl;
  let plainUrl;
  before(async () => {
    pe = await load();
    files['model-00001-of-00002.safetensors'] = Buffer.from(writeSafetensors({ 'model.embed_tokens.weight': tables['model.embed_tokens.weight'], 'model.norm.weight': tables['model.norm.weight'] }));
    files['model-00002-of-00002.safetensors'] = Buffer.from(writeSafetensors({ 'lm_head.weight': tables['lm_head.weight'] }));
    files['model.safetensors.index.json'] = Buffer.from(JSON.stringify({ metadata: { total_size: 0 }, weight_map: { 'model.embed_tokens.weight': 'model-00001-of-00002.safetensors', 'model.norm.weight': 'model-00001-of-00002.safetensors', 'lm_head.weight': 'model-00002-of-00002.safetensors' } }));
    files['positions.npy'] = Buffer.from(writeNpy(rows(16, 8, 4)));
    cdn = fileServer(files);
    const cdnUrl = await listen(cdn.server);
    hub = createServer((request, response) => response.writeHead(302, { location: `${cdnUrl}/repos/${request.url.split('/').pop()}`, ...CORS }).end());
    hubUrl = `${await listen(hub)}/ORG/NAME/resolve/main/`;
    plain = fileServer(files, { ranges: false });
    plainUrl = await listen(plain.server);
  });
  after(() => { cdn.server.close(); hub.close(); plain.server.close(); });

  it('a folder URL opens the sharded checkpoint: the headers, then only the bytes of the tensor asked for', async () => {
    const checkpoint = await pe.openCheckpoint(hubUrl);
    assert.deepEqual(checkpoint.names.sort(), Object.keys(tables).sort());
    const before = { ...cdn.sent };
    const table = await checkpoint.tensor('lm_head.weight');
    assert.deepEqual(table.shape, [4000, 64]);
    assert.deepEqual(table.data, tables['lm_head.weight'].data);
    const fetched = cdn.sent['model-00002-of-00002.safetensors'] - (before['model-00002-of-00002.safetensors'] ?? 0);
    // Past the first 64 KiB (already read with the header), one range of the rest of the tensor's 1,024,000 bytes.
    assert.ok(fetched <= 4000 * 64 * 4, `${fetched} bytes for a ${4000 * 64 * 4}-byte tensor`);
    assert.ok(cdn.sent['model-00001-of-00002.safetensors'] < files['model-00001-of-00002.safetensors'].length / 4, 'the other shard: its header only');
    const progress = [];
    const embed = await checkpoint.tensor('model.embed_tokens.weight', { onProgress: (f) => progress.push(f) });
    assert.deepEqual(embed.data, tables['model.embed_tokens.weight'].data);
    assert.equal(progress.at(-1), 1);
  });

  it('a file URL opens a .safetensors or .npy file, and an index URL its shards', async () => {
    const shard = await pe.openSafetensors(`${hubUrl}model-00001-of-00002.safetensors`);
    assert.deepEqual((await shard.tensor('model.norm.weight')).data, tables['model.norm.weight'].data);
    const npy = await pe.openNpy(`${hubUrl}positions.npy`);
    assert.deepEqual(npy.names, ['positions']);
    assert.deepEqual((await npy.tensor('positions')).data, rows(16, 8, 4).data);
    assert.equal((await pe.openCheckpoint(`${hubUrl}model.safetensors.index.json`)).names.length, 3);
  });

  it('a server without Range support is read whole where the file is small', async () => {
    const checkpoint = await pe.openCheckpoint(`${plainUrl}/`);
    assert.deepEqual((await checkpoint.tensor('lm_head.weight')).data, tables['lm_head.weight'].data);
  });

  it('a 404, a refused connection, an abort and a wrong option each say so, naming the URL', async () => {
    await assert.rejects(pe.openSafetensors(`${hubUrl}missing.safetensors`), (error) => error.name === 'WeightFetchError' && error.status === 404
      && error.message === `${hubUrl}missing.safetensors answered 404 Not Found` && error.url === `${hubUrl}missing.safetensors` || assert.fail(error.message));
    await assert.rejects(pe.openCheckpoint('http://127.0.0.1:9/ORG/NAME/resolve/main/'), { name: 'WeightFetchError', message: /^could not fetch http:\/\/127\.0\.0\.1:9\/ORG\/NAME\/resolve\/main\/model\.safetensors\.index\.json: .* \(offline, or the server does not allow this page to read it: CORS\)$/ });
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(pe.openCheckpoint(hubUrl, { signal: controller.signal }), { name: 'AbortError' });
    await assert.rejects(pe.openSafetensors(`${hubUrl}x.safetensors`, { cache: 'no-store' }), { name: 'TypeError', message: "openSafetensors: unknown option 'cache' (options: fetch, headers, signal, onProgress)" });
    // A folder without an index falls back to model.safetensors, and names that one when it is missing too.
    await assert.rejects(pe.openCheckpoint(`${plainUrl}/other/`), { name: 'WeightFetchError', message: /\/other\/model\.safetensors answered 404/ });
  });

  it('your fetch and headers are used for every request (an Authorization for a gated model)', async () => {
    const seen = [];
    const fetchWithLog = (url, init) => { seen.push(init.headers.authorization); return fetch(url, init); };
    await pe.openSafetensors(`${hubUrl}model-00002-of-00002.safetensors`, { fetch: fetchWithLog, headers: { authorization: 'Bearer hf_test' } });
    assert.ok(seen.length >= 1 && seen.every((header) => header === 'Bearer hf_test'));
  });
});
