// A real model's tokenizer from its tokenizer.json (and tokenizer_config.json where there is one): from a URL (of the
// file, or of the model's folder: the Hub's resolve/main/ URLs), a Blob/File, the JSON text or the parsed object.
// Every tokenizer model the format has (byte-level BPE, SentencePiece-style BPE with byte fallback, Unigram,
// WordPiece), with its normalizers, pre-tokenizers, added tokens and decoders, runs in @huggingface/tokenizers
// (bundled in vendor/); this module reads the sources, checks what comes in and speaks posembed's shapes.
import { Tokenizer } from './vendor/tokenizers.js';
import { describe } from './validate.js';

const MODELS = ['BPE', 'WordPiece', 'Unigram', 'WordLevel'];

class TokenizerError extends Error {
  constructor(message) {
    super(message);
    this.name = 'TokenizerError';
  }
}

// The text of a URL, or null for a 404 where the file may be absent; every other failure names the URL.
async function fetchText(url, { fetch: fetchFn = globalThis.fetch, headers, signal }, optional = false) {
  let response;
  try {
    response = await fetchFn(url, { headers, signal, redirect: 'follow' });
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    throw new TokenizerError(`openTokenizer: could not fetch ${url}: ${error?.message ?? error} (offline, or the server does not allow this page to read it: CORS)`);
  }
  if (optional && response.status === 404) return null;
  if (!response.ok) throw new TokenizerError(`openTokenizer: ${url} answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
  return response.text();
}

function parsed(text, where) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new TokenizerError(`openTokenizer: ${where} is not JSON: ${error.message}`);
  }
}

// The tokenizer.json object and its tokenizer_config.json (or {}) from any source.
async function readSource(source, options) {
  if (typeof source === 'string') {
    const text = source.trimStart();
    if (text.startsWith('{')) return { tokenizer: parsed(text, 'the text given'), config: options.config ?? {} };
    // A URL: of tokenizer.json itself, or of the folder that holds it.
    const base = globalThis.location?.href;
    let url;
    try {
      url = new URL(source, base);
    } catch {
      throw new TypeError(`source must be a URL (of tokenizer.json or of its folder), a Blob or File, the JSON text or the parsed object, got ${describe(source)}`);
    }
    const file = url.pathname.endsWith('.json') ? url : new URL('tokenizer.json', url.href.endsWith('/') ? url : `${url.href}/`);
    const folder = new URL('.', file);
    const [tokenizerText, configText] = await Promise.all([
      fetchText(file.href, options),
      options.config === undefined ? fetchText(new URL('tokenizer_config.json', folder).href, options, true) : null,
    ]);
    return { tokenizer: parsed(tokenizerText, file.href), config: options.config ?? (configText === null ? {} : parsed(configText, new URL('tokenizer_config.json', folder).href)) };
  }
  if (typeof Blob === 'function' && source instanceof Blob) return { tokenizer: parsed(await source.text(), source.name ?? 'the file'), config: options.config ?? {} };
  if (source !== null && typeof source === 'object' && !Array.isArray(source)) return { tokenizer: source, config: options.config ?? {} };
  throw new TypeError(`source must be a URL (of tokenizer.json or of its folder), a Blob or File, the JSON text or the parsed object, got ${describe(source)}`);
}

function checkedTokenizerJson(json) {
  if (json === null || typeof json !== 'object' || json.model === null || typeof json.model !== 'object') {
    throw new TokenizerError('openTokenizer: this is not a tokenizer.json: it has no "model" object (the file HF tokenizers writes has one)');
  }
  const type = json.model.type ?? (json.model.merges ? 'BPE' : json.model.vocab && Array.isArray(json.model.vocab) ? 'Unigram' : undefined);
  if (!MODELS.includes(type)) throw new TokenizerError(`openTokenizer: model.type must be one of ${MODELS.join(', ')}, got ${describe(json.model.type)}`);
  return json;
}

const OPTIONS = ['fetch', 'headers', 'signal', 'config'];

export async function openTokenizer(source, options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError(`options must be an object { fetch, headers, signal, config }, got ${describe(options)}`);
  for (const key of Object.keys(options)) if (!OPTIONS.includes(key)) throw new TypeError(`openTokenizer: unknown option '${key}' (options: ${OPTIONS.join(', ')})`);
  const { tokenizer: json, config } = await readSource(source, options);
  let tokenizer;
  try {
    tokenizer = new Tokenizer(checkedTokenizerJson(json), config);
  } catch (error) {
    if (error instanceof TokenizerError) throw error;
    throw new TokenizerError(`openTokenizer: the tokenizer.json could not be read: ${error.message}`);
  }
  const vocabulary = tokenizer.get_vocab(true);
  let vocabSize = 0;
  for (const id of vocabulary.values()) vocabSize = Math.max(vocabSize, id + 1);
  const checkedIds = (ids, what) => {
    const list = ids?.data ?? ids;
    if (!Array.isArray(list) && !(list instanceof Int32Array)) throw new TypeError(`${what} must be an array of ids or an Int32Array, got ${describe(ids)}`);
    return Array.from(list, (id, i) => {
      if (!Number.isInteger(id) || id < 0 || id >= vocabSize) throw new RangeError(`${what}[${i}] must be an integer in [0, ${vocabSize - 1}], got ${describe(id)}`);
      return id;
    });
  };
  return {
    vocabSize,
    modelType: json.model.type,
    // ids of the text; with addSpecialTokens, the model's post-processor adds its special tokens (BOS, CLS/SEP).
    encode(text, { addSpecialTokens = false } = {}) {
      if (typeof text !== 'string') throw new TypeError(`text must be a string, got ${describe(text)}`);
      if (typeof addSpecialTokens !== 'boolean') throw new TypeError(`addSpecialTokens must be true or false, got ${describe(addSpecialTokens)}`);
      return Int32Array.from(tokenizer.encode(text, { add_special_tokens: addSpecialTokens }).ids);
    },
    decode(ids, { skipSpecialTokens = false } = {}) {
      if (typeof skipSpecialTokens !== 'boolean') throw new TypeError(`skipSpecialTokens must be true or false, got ${describe(skipSpecialTokens)}`);
      const checked = checkedIds(ids, 'ids');
      // As HF tokenizers decodes: no clean-up of spaces before punctuation (transformers' Python layer adds that).
      return checked.length === 0 ? '' : tokenizer.decode(checked, { skip_special_tokens: skipSpecialTokens, clean_up_tokenization_spaces: false });
    },
    // The vocabulary's string for id, as the model stores it (byte-level pieces as their printable characters).
    piece(id) {
      if (!Number.isInteger(id) || id < 0 || id >= vocabSize) throw new RangeError(`id must be an integer in [0, ${vocabSize - 1}], got ${describe(id)}`);
      return tokenizer.id_to_token(id) ?? '';
    },
  };
}
