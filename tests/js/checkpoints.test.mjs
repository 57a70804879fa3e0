// Checkpoints read lazily: every dtype of the formats against numpy's and torch's casts (tests/fixtures/weights,
// written by scripts/make-weight-fixtures.py), a multi-GB file read a tensor at a time, sharded checkpoints, and
// every structural fault named with its byte.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openAsBlob, openSync, readFileSync, rmSync, writeFileSync, writeSync, ftruncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, WeightFileError, writeSafetensors } from '../../dist/index.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/weights/', import.meta.url));
const expected = JSON.parse(readFileSync(join(FIXTURES, 'expected.json'), 'utf8'));
const bitsOf = (array) => new Uint32Array(array.buffer, array.byteOffset, array.length);
const fixtureFloats = (file) => new Float32Array(new Uint8Array(readFileSync(join(FIXTURES, file))).buffer);

// F8 E4M3 ("fn": no infinities, S.1111.111 NaN, bias 7) from the OCP 8-bit floating point definition, as float32
// bits; a NaN keeps its sign, as F16's and E5M2's do.
function e4m3Bits(code) {
  const sign = code & 0x80 ? -1 : 1;
  const exponent = (code >> 3) & 0xf;
  const mantissa = code & 0x7;
  if (exponent === 0xf && mantissa === 0x7) return ((code & 0x80) << 24 | 0x7fc00000) >>> 0;
  const value = sign * (exponent === 0 ? (mantissa / 8) * 2 ** -6 : (1 + mantissa / 8) * 2 ** (exponent - 7));
  return bitsOf(new Float32Array([value]))[0];
}

// A .safetensors file from a header object and the data's length (zeros).
function safetensorsBytes(header, dataLength) {
  const text = new TextEncoder().encode(JSON.stringify(header));
  const padded = new Uint8Array(Math.ceil(text.length / 8) * 8).fill(0x20);
  padded.set(text);
  const file = new Uint8Array(8 + padded.length + dataLength);
  new DataView(file.buffer).setBigUint64(0, BigInt(padded.length), true);
  file.set(padded, 8);
  return file;
}

describe('checkpoints read lazily', () => {
  let pe;
  let dir;
  before(async () => {
    pe = await load();
    dir = mkdtempSync(join(tmpdir(), 'posembed-checkpoints-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const [from, open] of [['a Blob (fs.openAsBlob)', (path) => openAsBlob(path)], ['bytes (a Node Buffer)', (path) => readFileSync(path)]]) {
    it(`every dtype of a .safetensors file, from ${from}, bit for bit as numpy and torch cast it`, async () => {
      const file = await pe.openSafetensors(await open(join(FIXTURES, 'dtypes.safetensors')));
      assert.deepEqual(file.metadata, { format: 'pt', written_by: 'make-weight-fixtures.py' });
      assert.deepEqual([...file.names].sort(), Object.keys(expected.safetensors).sort());
      for (const [name, want] of Object.entries(expected.safetensors)) {
        assert.deepEqual({ dtype: file.info(name).dtype, shape: file.info(name).shape }, { dtype: want.dtype, shape: want.shape }, name);
        if (want.error) {
          await assert.rejects(file.tensor(name), (error) => error instanceof WeightFileError && error.message.includes(want.error) && Number.isInteger(error.offset), name);
          continue;
        }
        const tensor = await file.tensor(name);
        assert.deepEqual(tensor.shape, want.shape, name);
        if (want.float32) {
          assert.ok(tensor.data instanceof Float32Array, name);
          assert.deepEqual(bitsOf(tensor.data), bitsOf(fixtureFloats(want.float32)), name);
        } else if (want.definition) {
          assert.deepEqual(bitsOf(tensor.data), Uint32Array.from({ length: 256 }, (_, code) => e4m3Bits(code)), name);
        } else {
          assert.deepEqual(Array.from(tensor.data, String), want.integers, name);
        }
      }
      // The integer types keep their own arrays; I64 and U64 come as safe integers in a Float64Array.
      assert.ok((await file.tensor('i16')).data instanceof Int16Array);
      assert.ok((await file.tensor('u32')).data instanceof Uint32Array);
      assert.ok((await file.tensor('embeddings.position_ids')).data instanceof Float64Array);
    });
  }

  it('readSafetensors reads every tensor it can convert; a BERT-style position_ids (I64) beside floats is no reason to refuse', () => {
    const bytes = writeSafetensors({ 'wte.weight': { data: new Float32Array([1, 2, 3, 4]), shape: [2, 2] } });
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + Number(new DataView(bytes.buffer).getBigUint64(0, true)))));
    const ids = new BigInt64Array([0n, 1n]);
    const mixed = safetensorsBytes({ ...header, 'embeddings.position_ids': { dtype: 'I64', shape: [1, 2], data_offsets: [16, 32] } }, 32);
    mixed.set(bytes.subarray(bytes.length - 16), mixed.length - 32);
    mixed.set(new Uint8Array(ids.buffer), mixed.length - 16);
    const tensors = pe.readSafetensors(mixed);
    assert.deepEqual(Array.from(tensors['wte.weight'].data), [1, 2, 3, 4]);
    assert.deepEqual(Array.from(tensors['embeddings.position_ids'].data), [0, 1]);
  });

  it('every .npy dtype numpy writes, C and Fortran order, row-major as numpy.ascontiguousarray gives it', async () => {
    for (const [name, want] of Object.entries(expected.npy)) {
      const blob = await openAsBlob(join(FIXTURES, `${name}.npy`));
      const file = await pe.openNpy(new File([blob], `${name}.npy`));
      assert.deepEqual(file.names, [name]);
      const tensor = await file.tensor(name);
      assert.deepEqual(tensor.shape, want.shape, name);
      if (want.float32) assert.deepEqual(bitsOf(tensor.data), bitsOf(fixtureFloats(want.float32)), name);
      else assert.deepEqual(Array.from(tensor.data, String), want.integers, name);
      assert.deepEqual(pe.readNpy(readFileSync(join(FIXTURES, `${name}.npy`))), tensor, name);
    }
  });

  it('reads only the bytes of the tensor asked for', async () => {
    const source = new Blob([readFileSync(join(FIXTURES, 'dtypes.safetensors'))]);
    const ranges = [];
    const counting = new Proxy(source, {
      get(target, key) {
        if (key === 'slice') return (start, end) => { ranges.push([start, end]); return target.slice(start, end); };
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
      getPrototypeOf: () => Blob.prototype,
    });
    const file = await pe.openSafetensors(counting);
    const headerRead = ranges.length;
    assert.ok(ranges.every(([start, end]) => start === 0 && end < 4096), JSON.stringify(ranges));
    await file.tensor('i8');
    const { bytes } = file.info('i8');
    assert.equal(ranges.length, headerRead + 1);
    assert.equal(ranges.at(-1)[1] - ranges.at(-1)[0], bytes);
  });

  it('a 6 GB file (sparse, through a FileHandle) is opened and one small tensor read with little memory; a GPT-2-sized table costs at most itself and one copy', () => {
    // In a child process, so its peak memory is this reading's alone.
    const path = join(dir, 'big.safetensors');
    const table = 50257 * 768 * 4;
    const big = 6e9 - table - 16;
    const header = { '__metadata__': { format: 'pt' }, 'h.0.attn': { dtype: 'F32', shape: [big / 4], data_offsets: [0, big] },
      'wte.weight': { dtype: 'F32', shape: [50257, 768], data_offsets: [big, big + table] }, 'ln_f.bias': { dtype: 'F32', shape: [4], data_offsets: [big + table, big + table + 16] } };
    const head = safetensorsBytes(header, 0);
    const fd = openSync(path, 'w');
    writeSync(fd, head, 0, head.length, 0);
    const bias = new Float32Array([0.5, -1, 2, 3.25]);
    writeSync(fd, new Uint8Array(bias.buffer), 0, 16, head.length + big + table);
    ftruncateSync(fd, head.length + big + table + 16);
    closeSync(fd);
    const script = `
      import { open } from 'node:fs/promises';
      import { load } from ${JSON.stringify(new URL('../../dist/index.js', import.meta.url).href)};
      const pe = await load();
      const file = await pe.openSafetensors(await open(${JSON.stringify(path)}));
      globalThis.gc(); const before = process.memoryUsage().rss;
      const bias = await file.tensor('ln_f.bias');
      const afterSmall = process.memoryUsage().rss;
      const wte = await file.tensor('wte.weight');
      const peak = process.resourceUsage().maxRSS * 1024;
      console.log(JSON.stringify({ bias: Array.from(bias.data), small: afterSmall - before, peak: peak - before, rows: wte.shape[0], names: file.names }));`;
    const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.deepEqual(result.bias, [0.5, -1, 2, 3.25]);
    assert.deepEqual(result.names, ['h.0.attn', 'wte.weight', 'ln_f.bias']);
    assert.equal(result.rows, 50257);
    assert.ok(result.small < 16 * 2 ** 20, `reading 16 bytes grew memory by ${result.small} bytes`);
    assert.ok(result.peak <= 2 * table, `reading a ${table}-byte table peaked ${result.peak} bytes above the start`);
  });

  it('a sharded checkpoint: its index and shards, as Files or by name; a missing shard or a tensor its shard lacks is named', async () => {
    const shard = (tensors) => writeSafetensors(Object.fromEntries(tensors.map(([name, values]) => [name, { data: new Float32Array(values), shape: [values.length] }])));
    const files = {
      'model-00001-of-00002.safetensors': shard([['wte.weight', [1, 2]], ['wpe.weight', [3]]]),
      'model-00002-of-00002.safetensors': shard([['ln_f.weight', [4, 5, 6]]]),
    };
    const index = { metadata: { total_size: 24 }, weight_map: { 'wte.weight': 'model-00001-of-00002.safetensors', 'wpe.weight': 'model-00001-of-00002.safetensors', 'ln_f.weight': 'model-00002-of-00002.safetensors' } };
    const indexFile = new File([JSON.stringify(index)], 'model.safetensors.index.json');
    const asFiles = [indexFile, ...Object.entries(files).map(([name, bytes]) => new File([bytes], name))];
    for (const given of [asFiles, { 'model.safetensors.index.json': indexFile, ...files }]) {
      const checkpoint = await pe.openCheckpoint(given);
      assert.deepEqual(checkpoint.names, ['wte.weight', 'wpe.weight', 'ln_f.weight']);
      assert.deepEqual(checkpoint.metadata, { total_size: 24 });
      assert.deepEqual(checkpoint.info('ln_f.weight'), { dtype: 'F32', shape: [3], bytes: 12 });
      assert.deepEqual(Array.from((await checkpoint.tensor('ln_f.weight')).data), [4, 5, 6]);
      assert.deepEqual(Array.from((await checkpoint.tensor('wte.weight')).data), [1, 2]);
      assert.throws(() => checkpoint.info('lm_head.weight'), { name: 'RangeError', message: /^name must be one of the checkpoint's 3 tensors, got 'lm_head.weight'$/ });
    }
    await assert.rejects(pe.openCheckpoint(asFiles.slice(0, 2)), { name: 'RangeError', message: /missing model-00002-of-00002\.safetensors$/ });
    const wrong = new File([JSON.stringify({ weight_map: { 'lm_head.weight': 'model-00002-of-00002.safetensors' } })], 'model.safetensors.index.json');
    await assert.rejects(pe.openCheckpoint([wrong, asFiles[2]]), (error) => error instanceof WeightFileError && /puts tensor 'lm_head\.weight' in model-00002-of-00002\.safetensors, which has no such tensor/.test(error.message));
    // One .safetensors file alone is a checkpoint too.
    assert.deepEqual((await pe.openCheckpoint([asFiles[1]])).names, ['wte.weight', 'wpe.weight']);
    await assert.rejects(pe.openCheckpoint([]), TypeError);
  });

  it('structural faults are refused with the byte where each is: overlaps, holes, reversed or outside offsets, duplicates, a header over its limit', async () => {
    const f32 = (begin, end) => ({ dtype: 'F32', shape: [(end - begin) / 4], data_offsets: [begin, end] });
    const cases = [
      [{ a: f32(0, 8), b: f32(4, 12) }, 12, /tensor 'b' overlaps tensor 'a'/],
      [{ a: f32(0, 8), b: f32(12, 16) }, 16, /bytes 8 to 12 of the data belong to no tensor/],
      [{ a: { dtype: 'F32', shape: [0], data_offsets: [8, 0] } }, 8, /out of order/],
      [{ a: f32(0, 16) }, 8, /outside the 8 bytes of data/],
      [{ a: f32(0, 8) }, 12, /the last 4 bytes of the data belong to no tensor/],
    ];
    for (const [header, dataLength, message] of cases) {
      await assert.rejects(pe.openSafetensors(safetensorsBytes(header, dataLength)), (error) => error instanceof WeightFileError && message.test(error.message) && Number.isInteger(error.offset), String(message));
    }
    // A duplicate name: JSON.stringify cannot write one, so the header is written by hand; the offset is the second's.
    const text = '{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}';
    const duplicate = safetensorsBytes({}, 4);
    const bytes = new Uint8Array(8 + text.length + 4);
    new DataView(bytes.buffer).setBigUint64(0, BigInt(text.length), true);
    bytes.set(new TextEncoder().encode(text), 8);
    assert.ok(duplicate.length > 0);
    await assert.rejects(pe.openSafetensors(bytes), { name: 'WeightFileError', offset: 8 + text.indexOf('"a"', 2), message: /the name 'a' appears twice in the header/ });
    // A header length over 100 MB: refused from the first 8 bytes, whatever follows.
    const over = new Uint8Array(8);
    new DataView(over.buffer).setBigUint64(0, 100000001n, true);
    await assert.rejects(pe.openSafetensors(new Blob([over, new Uint8Array(16)])), { name: 'WeightFileError', offset: 0, message: /over the format's limit of 100000000 bytes/ });
    await assert.rejects(pe.openSafetensors('model.safetensors'), { name: 'TypeError', message: /^source 'model\.safetensors' is not a URL \(http:, https:, or relative to the page\); a file on disk is read through its FileHandle/ });
    await assert.rejects(pe.openSafetensors(42), { name: 'TypeError', message: /^source must be a URL, a Blob or File, a Node FileHandle, or the file's bytes/ });
  });

  it('a Node Buffer is read without the Buffer() deprecation warning', async () => {
    const warnings = [];
    const listen = (warning) => warnings.push(warning.code);
    process.on('warning', listen);
    pe.readSafetensors(Buffer.from(writeSafetensors({ a: { data: new Float32Array([1]), shape: [1] } })));
    await (await pe.openSafetensors(Buffer.from(readFileSync(join(FIXTURES, 'dtypes.safetensors'))))).tensor('f16_all');
    await new Promise((resolve) => setTimeout(resolve, 10));
    process.off('warning', listen);
    assert.deepEqual(warnings, []);
  });
});
