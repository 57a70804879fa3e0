// Token tables kept on the heap in the dtype their checkpoint stores them in (F32, F16, BF16, F8 E4M3 and E5M2): every
// op on them equals the same op on their float32 values, to the bit; a stream's peak memory stays within 1.5 × the
// table's stored bytes + 64 MiB; and a table past 2 GiB (Llama-3-70B's shape in BF16) opens, its last row exact.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachModule } from './helpers.mjs';
import { safetensorsFile } from './hub.mjs';
import { TABLE_NAME, writePatternTable } from './stored_table_pattern.mjs';

// Each dtype's fields, read independently of the package: a code's value from its sign, exponent and mantissa.
const FORMATS = {
  F16: { bytes: 2, exponent: 5, mantissa: 10, bias: 15 },
  BF16: { bytes: 2, exponent: 8, mantissa: 7, bias: 127 },
  F8_E4M3: { bytes: 1, exponent: 4, mantissa: 3, bias: 7, fn: true },
  F8_E5M2: { bytes: 1, exponent: 5, mantissa: 2, bias: 15 },
};
function decode(format, code) {
  const { exponent: e, mantissa: m, bias } = format;
  const sign = (code >> (e + m)) & 1 ? -1 : 1;
  const exponent = (code >> m) & ((1 << e) - 1);
  const mantissa = code & ((1 << m) - 1);
  if (format.fn && exponent === (1 << e) - 1 && mantissa === (1 << m) - 1) return NaN;
  if (!format.fn && exponent === (1 << e) - 1) return mantissa ? NaN : sign * Infinity;
  return exponent === 0 ? sign * mantissa * 2 ** (1 - bias - m) : sign * (1 + mantissa / 2 ** m) * 2 ** (exponent - bias);
}

// A [rows, columns] table of random finite codes of dtype (values within a few octaves of 1): its file bytes and
// its values as float32.
function randomTable(dtype, rows, columns, seed) {
  let state = seed;
  const random = () => ((state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const values = new Float32Array(rows * columns);
  if (dtype === 'F32' || dtype === 'F64') {
    for (let i = 0; i < values.length; i++) values[i] = Math.fround((random() - 0.5) * 4);
    return { bytes: Buffer.from(dtype === 'F32' ? values.buffer : Float64Array.from(values).buffer), values };
  }
  const format = FORMATS[dtype];
  const bytes = Buffer.alloc(values.length * format.bytes);
  for (let i = 0; i < values.length; i++) {
    // Exponents from bias − 3 to bias + 1: every format holds them as normal numbers.
    const exponent = format.bias - 3 + Math.floor(random() * 5);
    const code = ((random() < 0.5 ? 1 : 0) << (format.exponent + format.mantissa)) | (exponent << format.mantissa) | Math.floor(random() * 2 ** format.mantissa);
    values[i] = decode(format, code);
    if (format.bytes === 2) bytes.writeUInt16LE(code, 2 * i);
    else bytes[i] = code;
  }
  return { bytes, values };
}

const NAME = TABLE_NAME;
const [ROWS, COLUMNS] = [300, 40];

describeEachModule('token tables kept in their own dtype', (instance) => {
  let pe;
  before(() => { pe = instance(); });

  for (const dtype of ['F16', 'BF16', 'F8_E4M3', 'F8_E5M2', 'F32', 'F64']) {
    it(`${dtype}: kept as ${dtype === 'F64' ? 'F32' : dtype}; lookup, nearest, analogy, PCA and weights equal those of its float32 values`, async () => {
      const { bytes, values } = randomTable(dtype, ROWS, COLUMNS, 7);
      const file = await pe.openSafetensors(new Blob([safetensorsFile({ [NAME]: { dtype, shape: [ROWS, COLUMNS], bytes } })]));
      const kept = await file.tokenEmbedding();
      const reference = pe.tokenEmbedding({ vocabSize: ROWS, dModel: COLUMNS, weights: { data: values, shape: [ROWS, COLUMNS] } });
      try {
        assert.equal(kept.dtype, dtype === 'F64' ? 'F32' : dtype);
        assert.equal(kept.storedDtype, dtype);
        assert.equal(reference.dtype, 'F32');
        const ids = { data: Int32Array.of(0, 5, 299, 17, 17, 3), shape: [2, 3] };
        assert.deepEqual(kept.lookup(ids), reference.lookup(ids));
        const query = values.slice(42 * COLUMNS, 43 * COLUMNS);
        for (const metric of ['cosine', 'dot']) assert.deepEqual(kept.nearest(query, { k: 6, metric }), reference.nearest(query, { k: 6, metric }));
        assert.equal(kept.nearest(query, { k: 1 }).indices[0], 42);
        assert.deepEqual(kept.analogy(1, 2, 3, { k: 4 }), reference.analogy(1, 2, 3, { k: 4 }));
        assert.deepEqual(kept.pca({ components: 3 }), reference.pca({ components: 3 }));
        assert.deepEqual(kept.weights, { data: values, shape: [ROWS, COLUMNS] });
      } finally {
        kept.dispose();
        reference.dispose();
      }
    });
  }

  it('a NaN or an infinity in the stored table is refused, naming its row and column, and nothing is left on the heap', async () => {
    for (const [dtype, code] of [['BF16', 0x7fc0], ['F16', 0xfc00], ['F8_E4M3', 0x7f], ['F8_E5M2', 0x7c]]) {
      const { bytes } = randomTable(dtype, ROWS, COLUMNS, 3);
      const at = 5 * COLUMNS + 3;
      if (FORMATS[dtype].bytes === 2) bytes.writeUInt16LE(code, 2 * at);
      else bytes[at] = code;
      const file = await pe.openSafetensors(new Blob([safetensorsFile({ [NAME]: { dtype, shape: [ROWS, COLUMNS], bytes } })]));
      const live = pe.memory().liveAllocations;
      await assert.rejects(file.tokenEmbedding(), { name: 'RangeError', message: new RegExp(`'${NAME}' holds a non-finite value at row 5, column 3`) });
      assert.equal(pe.memory().liveAllocations, live);
    }
  });
}, { fullModule: true });

describe('token tables at vocabulary scale, streamed in a process of their own', () => {
  let folder;
  before(() => { folder = mkdtempSync(join(tmpdir(), 'posembed-tables-')); });
  after(() => rmSync(folder, { recursive: true, force: true }));

  const stream = (path, rows, columns, below = 0) => JSON.parse(execFileSync(process.execPath, [new URL('./stored_table_stream.mjs', import.meta.url).pathname, path, String(rows), String(columns), String(below)], { encoding: 'utf8', maxBuffer: 1 << 20 }));

  it('a 128,256 × 1,024 BF16 table (263 MB) streams within 1.5 × its stored bytes + 64 MiB of peak memory, kept as BF16', () => {
    const [rows, columns] = [128256, 1024];
    const path = join(folder, 'bf16.safetensors');
    const stored = writePatternTable(path, rows, columns);
    const result = stream(path, rows, columns);
    rmSync(path);
    assert.equal(result.dtype, 'BF16');
    assert.equal(result.wrong, 0);
    assert.equal(result.nearestEqual, true);
    const limit = 1.5 * stored + 64 * 2 ** 20;
    assert.ok(result.peakRss - result.baselineRss <= limit, `peak ${(result.peakRss - result.baselineRss) / 2 ** 20} MiB over the baseline, limit ${limit / 2 ** 20} MiB`);
  });

  it('a 128,256 × 8,192 BF16 table (2.1 GB, Llama-3-70B\'s) opens above 128 MiB of other data, its rows past 2 GiB of the heap exact, nearest finds them', () => {
    const [rows, columns] = [128256, 8192];
    const path = join(folder, 'bf16-large.safetensors');
    const stored = writePatternTable(path, rows, columns);
    const result = stream(path, rows, columns, 128);
    rmSync(path);
    assert.equal(result.dtype, 'BF16');
    assert.ok(stored > 2.1e9 && result.tableEnd > 2 ** 31 && result.heapBytes > 2 ** 31, `table ends at ${result.tableEnd}, heap ${result.heapBytes} bytes`);
    assert.equal(result.wrong, 0);
    assert.equal(result.nearestEqual, true);
  });
});
