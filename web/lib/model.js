// A real model's whole input layer in one call: its config.json (and the positions modelPositions reads from it), its
// tokenizer, its checkpoint (read lazily) and its token table, from a folder URL (the Hub's resolve/main/) or a list of
// Files (config.json, tokenizer.json and tokenizer_config.json, the safetensors shards and their index).
import { describe } from './validate.js';
import { WeightFetchError } from './weight_errors.js';

const FETCH_KEYS = ['fetch', 'headers', 'signal'];

async function fetchJson(url, { fetch: fetchFn = globalThis.fetch, headers, signal }) {
  let response;
  try {
    response = await fetchFn(url, { headers, signal, redirect: 'follow' });
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    throw new WeightFetchError(`could not fetch ${url}: ${error?.message ?? error} (offline, or the server does not allow this page to read it: CORS)`, url);
  }
  if (!response.ok) throw new WeightFetchError(`${url} answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`, url, response.status);
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SyntaxError(`openModel: ${url} is not JSON: ${error.message}`);
  }
}

// Its parts from a folder URL: config.json first (it says which model this is), then the tokenizer and the
// checkpoint's headers together.
async function fromUrl(pe, url, options) {
  const folder = new URL(url.endsWith('/') ? url : `${url}/`, globalThis.location?.href).href;
  const config = await fetchJson(new URL('config.json', folder).href, options);
  const [tokenizer, checkpoint] = await Promise.all([pe.openTokenizer(folder, options), pe.openCheckpoint(folder, options)]);
  return { config, tokenizer, checkpoint };
}

function fromFiles(pe, files) {
  const named = new Map(files.map((file, i) => {
    if (typeof file?.name !== 'string' || typeof file.text !== 'function') throw new TypeError(`files[${i}] must be a File (named), got ${describe(file)}`);
    return [file.name.split(/[\\/]/).pop(), file];
  }));
  for (const needed of ['config.json', 'tokenizer.json']) {
    if (!named.has(needed)) throw new RangeError(`files must include ${needed}, got ${[...named.keys()].join(', ')}`);
  }
  const weights = [...named].filter(([name]) => name.endsWith('.safetensors') || name.endsWith('.index.json')).map(([, file]) => file);
  if (weights.length === 0) throw new RangeError(`files must include the checkpoint (model.safetensors, or its shards and model.safetensors.index.json), got ${[...named.keys()].join(', ')}`);
  return (async () => {
    let config;
    try {
      config = JSON.parse(await named.get('config.json').text());
    } catch (error) {
      throw new SyntaxError(`openModel: config.json is not JSON: ${error.message}`);
    }
    const tokenizerConfig = named.has('tokenizer_config.json') ? JSON.parse(await named.get('tokenizer_config.json').text()) : undefined;
    const [tokenizer, checkpoint] = await Promise.all([
      pe.openTokenizer(named.get('tokenizer.json'), tokenizerConfig === undefined ? {} : { config: tokenizerConfig }),
      pe.openCheckpoint(weights),
    ]);
    return { config, tokenizer, checkpoint };
  })();
}

export async function openModel(pe, source, options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError(`options must be an object { fetch, headers, signal }, got ${describe(options)}`);
  for (const key of Object.keys(options)) if (!FETCH_KEYS.includes(key)) throw new TypeError(`openModel: unknown option '${key}' (options: ${FETCH_KEYS.join(', ')})`);
  let parts;
  if (typeof source === 'string' || (typeof URL === 'function' && source instanceof URL)) parts = await fromUrl(pe, String(source), options);
  else if (Array.isArray(source) && source.length > 0) parts = await fromFiles(pe, source);
  else throw new TypeError(`source must be a model folder's URL (https://huggingface.co/ORG/NAME/resolve/main/) or a list of its Files, got ${describe(source)}`);
  const { config, tokenizer, checkpoint } = parts;
  const positions = pe.modelPositions(config);
  return {
    config, positions, tokenizer, checkpoint,
    // The token table on the heap (see checkpoint.tokenEmbedding); refused where the tokenizer's ids would pass its rows.
    async tokenEmbedding(tableOptions = {}) {
      const table = await checkpoint.tokenEmbedding(tableOptions);
      if (tokenizer.vocabSize > table.vocabSize) {
        const rows = table.vocabSize;
        table.dispose();
        throw new RangeError(`openModel: the tokenizer gives ids up to ${tokenizer.vocabSize - 1}, past the token table's ${rows} rows: this tokenizer is not this table's`);
      }
      return table;
    },
  };
}
