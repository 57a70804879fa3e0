// Checkpoints of several files: a sharded checkpoint's index and shards, as Files, bytes or a folder's URL. Loaded by
// weight_files.js with the first openCheckpoint(), so a page that opens none does not fetch this.
import { WeightFetchError, WeightFileError, byteSource, openSafetensors } from './weight_files.js';
import { describe } from './validate.js';

// A checkpoint by URL: a .safetensors file's, an index's, or a folder's (its model.safetensors.index.json, else its
// model.safetensors), each shard read by range from beside the index.
export async function openCheckpointUrl(core, url, options) {
  const address = new URL(url);
  if (address.pathname.endsWith('.safetensors')) return openSafetensors(core, address.href, options);
  const folder = address.pathname.endsWith('.json') ? new URL('.', address) : new URL(address.href.endsWith('/') ? address.href : `${address.href}/`);
  const indexUrl = address.pathname.endsWith('.json') ? address.href : new URL('model.safetensors.index.json', folder).href;
  let index;
  try {
    const source = await byteSource(indexUrl, options);
    index = await source.read(0, source.size);
  } catch (error) {
    if (!(error instanceof WeightFetchError && error.status === 404) || address.pathname.endsWith('.json')) throw error;
    return openSafetensors(core, new URL('model.safetensors', folder).href, options);
  }
  const named = { [indexUrl.split('/').pop()]: index };
  let map;
  try {
    map = JSON.parse(new TextDecoder().decode(index))?.weight_map;
  } catch {
    map = null;  // openCheckpoint names the fault
  }
  for (const shard of new Set(Object.values(map ?? {}))) if (typeof shard === 'string') named[shard] = new URL(shard, folder).href;
  return openCheckpointFiles(core, named, options);
}

// The index and its shards, named: { [file name]: File | Blob | bytes | URL } or a list of Files.
export async function openCheckpointFiles(core, files, options) {
  const named = Array.isArray(files)
    ? files.map((file, i) => {
      if (typeof file?.name !== 'string') throw new TypeError(`files[${i}] must be a File (named), got ${describe(file)}; pass { [name]: Blob | bytes } for unnamed ones`);
      return [file.name.split(/[\\/]/).pop(), file];
    })
    : files !== null && typeof files === 'object' ? Object.entries(files) : null;
  if (!named || named.length === 0) throw new TypeError(`files must be a non-empty array of Files or an object { [file name]: Blob | bytes }, got ${describe(files)}`);
  const byName = new Map(named);
  const indexes = named.filter(([name]) => name.endsWith('.index.json'));
  if (indexes.length === 0) {
    const single = named.filter(([name]) => name.endsWith('.safetensors'));
    if (single.length === 1 && named.length === 1) return openSafetensors(core, single[0][1], options);
    throw new RangeError(`files must include the checkpoint's index (model.safetensors.index.json) or be one .safetensors file, got ${named.map(([n]) => n).join(', ')}`);
  }
  if (indexes.length > 1) throw new RangeError(`files must include one index, got ${indexes.map(([n]) => n).join(', ')}`);
  const [indexName, indexSource] = indexes[0];
  const indexBytes = await byteSource(indexSource, options);
  let index;
  try {
    index = JSON.parse(new TextDecoder().decode(await indexBytes.read(0, indexBytes.size)));
  } catch (error) {
    throw new WeightFileError(`${indexName} is not valid JSON: ${error.message} (at byte 0)`);
  }
  const map = index?.weight_map;
  if (map === null || typeof map !== 'object' || Array.isArray(map) || Object.values(map).some((shard) => typeof shard !== 'string')) {
    throw new WeightFileError(`${indexName} needs "weight_map": { tensor name: shard file name } (at byte 0)`);
  }
  const shardNames = [...new Set(Object.values(map))];
  const missing = shardNames.filter((shard) => !byName.has(shard));
  if (missing.length) throw new RangeError(`files must include every shard ${indexName} names; missing ${missing.join(', ')}`);
  const shards = new Map(await Promise.all(shardNames.map(async (shard) => {
    try {
      return [shard, await openSafetensors(core, byName.get(shard), options)];
    } catch (error) {
      if (error instanceof WeightFileError) throw new WeightFileError(`${shard}: ${error.message}`);
      throw error;
    }
  })));
  for (const [name, shard] of Object.entries(map)) {
    if (!shards.get(shard).names.includes(name)) throw new WeightFileError(`${indexName} puts tensor '${name}' in ${shard}, which has no such tensor (at byte 0)`);
  }
  const shardOf = (name) => {
    if (!(name in map)) throw new RangeError(`name must be one of the checkpoint's ${Object.keys(map).length} tensors, got ${describe(name)}`);
    return shards.get(map[name]);
  };
  return {
    names: Object.keys(map),
    metadata: index.metadata ?? {},
    info: (name) => shardOf(name).info(name),
    tensor: (name, options) => shardOf(name).tensor(name, options),
    tokenEmbedding: async (options = {}) => {
      const { tokenTableName } = await import('./token_table.js');
      const name = options.name ?? tokenTableName(Object.keys(map));
      return shardOf(name).tokenEmbedding({ ...options, name });
    },
  };
}
