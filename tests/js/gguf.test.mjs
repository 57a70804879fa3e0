// A GGUF file's rope fields against a config: files written here in GGUF v3's layout (header, key/values, tensor
// infos, aligned data), one that agrees and then one field wrong at a time, through the API (bytes, Blob, FileHandle)
// and the CLI.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from '../../dist/index.js';
import { tempFolder } from '../temp_folders.mjs';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const TYPES = { u32: 4, i32: 5, f32: 6, string: 8, array: 9, u64: 10 };

// GGUF v3: magic, version, tensor count, key/value count; each key/value (string key, type, value); each tensor's
// name, dims, ggml type (0: F32) and offset; the data aligned to 32 bytes.
function writeGguf(metadata, tensors = {}) {
  const parts = [];
  const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); parts.push(b); };
  const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); parts.push(b); };
  const str = (s) => { const b = Buffer.from(s, 'utf8'); u64(b.length); parts.push(b); };
  const scalar = (type, v) => {
    if (type === 'u32') u32(v);
    else if (type === 'i32') { const b = Buffer.alloc(4); b.writeInt32LE(v); parts.push(b); }
    else if (type === 'f32') { const b = Buffer.alloc(4); b.writeFloatLE(v); parts.push(b); }
    else if (type === 'u64') u64(v);
    else str(v);
  };
  parts.push(Buffer.from('GGUF'));
  u32(3);
  u64(Object.keys(tensors).length);
  u64(Object.keys(metadata).length);
  for (const [key, [type, value, itemType]] of Object.entries(metadata)) {
    str(key);
    u32(TYPES[type]);
    if (type === 'array') {
      u32(TYPES[itemType]);
      u64(value.length);
      for (const item of value) scalar(itemType, item);
    } else {
      scalar(type, value);
    }
  }
  let offset = 0;
  const data = [];
  for (const [name, values] of Object.entries(tensors)) {
    str(name);
    u32(1);
    u64(values.length);
    u32(0);
    u64(offset);
    const bytes = Buffer.from(Float32Array.from(values).buffer);
    const padded = Buffer.alloc(Math.ceil(bytes.length / 32) * 32);
    bytes.copy(padded);
    data.push(padded);
    offset += padded.length;
  }
  const header = Buffer.concat(parts);
  return Buffer.concat([header, Buffer.alloc((32 - (header.length % 32)) % 32), ...data]);
}

// What llama.cpp's converter writes for a llama3-scaled Llama: the base, the rotated dims, and each pair's divisor.
function llamaGguf(spec, change = {}) {
  const divisors = Array.from(spec.invFreq, (w, i) => spec.base ** ((-2 * i) / spec.rotaryDim) / w);
  const metadata = {
    'general.architecture': ['string', 'llama'],
    'llama.context_length': ['u32', 131072],
    'llama.rope.freq_base': ['f32', spec.base],
    'llama.rope.dimension_count': ['u32', spec.rotaryDim],
    ...change.metadata,
  };
  for (const key of change.drop ?? []) delete metadata[key];
  const tensors = change.tensors ?? { 'rope_freqs.weight': divisors };
  return writeGguf(metadata, tensors);
}

describe('checkGguf: a GGUF file\'s rope fields against the config', () => {
  let pe;
  let dir;
  before(async () => { pe = await load(); dir = tempFolder('gguf'); });

  it('a Llama 3.1 file llama.cpp would write is consistent, from bytes, a Blob and a FileHandle', async () => {
    const spec = pe.modelPositions('Llama-3.1-8B').layer(0).rope;
    const bytes = llamaGguf(spec);
    const fromBytes = await pe.checkGguf(new Uint8Array(bytes), 'Llama-3.1-8B');
    assert.equal(fromBytes.verdict, 'consistent', JSON.stringify(fromBytes.mismatches));
    assert.deepEqual(fromBytes.fields.map((f) => f.key), ['general.architecture (rope type)', 'llama.rope.freq_base', 'llama.rope.dimension_count', 'llama.rope.scaling.type', 'rope_freqs.weight']);
    assert.equal((await pe.checkGguf(new Blob([bytes]), 'Llama-3.1-8B')).verdict, 'consistent');
    const file = join(dir, 'llama.gguf');
    writeFileSync(file, bytes);
    const handle = await open(file, 'r');
    try {
      assert.equal((await pe.checkGguf(handle, 'Llama-3.1-8B')).verdict, 'consistent');
    } finally {
      await handle.close();
    }
  });

  it('names each field that disagrees, one wrong at a time', async () => {
    const spec = pe.modelPositions('Llama-3.1-8B').layer(0).rope;
    const other = pe.modelPositions({ ...pe.modelPresets['Llama-3.1-8B'], rope_scaling: { ...pe.modelPresets['Llama-3.1-8B'].rope_scaling, factor: 16 } }).layer(0).rope;
    const cases = [
      ['llama.rope.freq_base', { metadata: { 'llama.rope.freq_base': ['f32', 10000] } }, /the file's base 10000 is not the config's rope_theta 500000/],
      ['llama.rope.dimension_count', { metadata: { 'llama.rope.dimension_count': ['u32', 64] } }, /the file turns 64 dimensions of each head, the config 128 of 128/],
      ['llama.rope.scaling.type', { metadata: { 'llama.rope.scaling.type': ['string', 'linear'] } }, /the file's scaling is 'linear', the config's 'llama3'/],
      ['rope_freqs.weight', { tensors: { 'rope_freqs.weight': Array.from(other.invFreq, (w, i) => other.base ** ((-2 * i) / other.rotaryDim) / w) } }, /rope_freqs\[\d+\] is .*, where the config's llama3 scaling gives/],
      ['rope_freqs.weight', { tensors: {} }, /needs the rope_freqs tensor \(its 64 divisors\); the file has none/],
      ['llama.rope.freq_base', { drop: ['llama.rope.freq_base'] }, /the file has no rope.freq_base \(llama.cpp then uses 10000\)/],
    ];
    for (const [key, change, words] of cases) {
      const result = await pe.checkGguf(new Uint8Array(llamaGguf(spec, change)), 'Llama-3.1-8B');
      assert.equal(result.verdict, 'mismatch', key);
      assert.deepEqual(result.mismatches.map((f) => f.key), [key]);
      assert.match(result.mismatches[0].explanation, words);
    }
  });

  it('the architecture\'s pairing against the layout; YaRN\'s factor and original context; mRoPE sections', async () => {
    // Cohere pairs adjacent dimensions: a file that calls it qwen2 (halves) turns it wrong; command-r (adjacent) is right.
    const cohere = { model_type: 'cohere', hidden_size: 4096, num_attention_heads: 32, num_hidden_layers: 2, max_position_embeddings: 8192, rope_theta: 8e6 };
    const cohereFile = (arch) => writeGguf({ 'general.architecture': ['string', arch], [`${arch}.rope.freq_base`]: ['f32', 8e6], [`${arch}.rope.dimension_count`]: ['u32', 128] });
    assert.equal((await pe.checkGguf(new Uint8Array(cohereFile('command-r')), cohere)).verdict, 'consistent');
    const wrong = await pe.checkGguf(new Uint8Array(cohereFile('qwen2')), cohere);
    assert.deepEqual(wrong.mismatches.map((f) => f.key), ['general.architecture (rope type)']);
    assert.match(wrong.mismatches[0].explanation, /llama\.cpp turns qwen2 as halves \(i, i \+ d\/2\), but this cohere model pairs adjacent dimensions/);

    const qwen = { model_type: 'qwen2', hidden_size: 3584, num_attention_heads: 28, num_hidden_layers: 2, max_position_embeddings: 131072, rope_theta: 1e6,
      rope_scaling: { type: 'yarn', factor: 4, original_max_position_embeddings: 32768 } };
    const yarnFile = (factor, original) => writeGguf({ 'general.architecture': ['string', 'qwen2'], 'qwen2.rope.freq_base': ['f32', 1e6], 'qwen2.rope.dimension_count': ['u32', 128],
      'qwen2.rope.scaling.type': ['string', 'yarn'], 'qwen2.rope.scaling.factor': ['f32', factor], 'qwen2.rope.scaling.original_context_length': ['u32', original] });
    assert.equal((await pe.checkGguf(new Uint8Array(yarnFile(4, 32768)), qwen)).verdict, 'consistent');
    assert.deepEqual((await pe.checkGguf(new Uint8Array(yarnFile(8, 32768)), qwen)).mismatches.map((f) => f.key), ['qwen2.rope.scaling.factor']);
    assert.deepEqual((await pe.checkGguf(new Uint8Array(yarnFile(4, 4096)), qwen)).mismatches.map((f) => f.key), ['qwen2.rope.scaling.original_context_length']);

    const vlFile = (sections) => writeGguf({ 'general.architecture': ['string', 'qwen2vl'], 'qwen2vl.rope.freq_base': ['f32', 1e6], 'qwen2vl.rope.dimension_count': ['u32', 128],
      'qwen2vl.rope.dimension_sections': ['array', sections, 'i32'] });
    assert.equal((await pe.checkGguf(new Uint8Array(vlFile([16, 24, 24, 0])), 'Qwen2.5-VL-7B-Instruct')).verdict, 'consistent');
    assert.deepEqual((await pe.checkGguf(new Uint8Array(vlFile([24, 20, 20, 0])), 'Qwen2.5-VL-7B-Instruct')).mismatches.map((f) => f.key), ['qwen2vl.rope.dimension_sections']);
  });

  it('refuses what it cannot read, naming it', async () => {
    await assert.rejects(pe.checkGguf(new Uint8Array(64), 'Llama-3.1-8B'), /^GgufError: gguf: the file is not a GGUF file posembed can read: not a valid gguf file: not starting with GGUF magic number/);
    await assert.rejects(pe.checkGguf(new Uint8Array(writeGguf({})), 'Llama-3.1-8B'), /general\.architecture is missing/);
    await assert.rejects(pe.checkGguf(new Uint8Array(8), 'gpt2'), /this gpt2 model has no RoPE layer to compare/);
    await assert.rejects(pe.checkGguf(new Uint8Array(8), 'Llama-3.1-8B', { depth: 1 }), /checkGguf: unknown option 'depth' \(options: layer, as\)/);
  });

  it('the CLI: exit 0 with every field listed, exit 1 naming the field that disagrees', () => {
    const spec = pe.modelPositions('Llama-3.1-8B').layer(0).rope;
    const good = join(dir, 'good.gguf');
    const bad = join(dir, 'bad.gguf');
    writeFileSync(good, llamaGguf(spec));
    writeFileSync(bad, llamaGguf(spec, { metadata: { 'llama.rope.freq_base': ['f32', 10000] } }));
    const ok = spawnSync(process.execPath, [CLI, 'check', '--config', 'Llama-3.1-8B', '--gguf', good], { encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /llama\.cpp architecture 'llama' \(norm rope\)/);
    assert.match(ok.stdout, /ok {3}rope_freqs\.weight/);
    assert.match(ok.stdout, /\nconsistent\n$/);
    const no = spawnSync(process.execPath, [CLI, 'check', '--config', 'Llama-3.1-8B', '--gguf', bad], { encoding: 'utf8' });
    assert.equal(no.status, 1);
    assert.match(no.stdout, /DIFF llama\.rope\.freq_base: 10000 — the file's base 10000 is not the config's rope_theta 500000/);
    assert.match(no.stdout, /mismatch: llama\.rope\.freq_base\n$/);
  });
});
