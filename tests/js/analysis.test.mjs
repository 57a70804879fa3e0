import { it, before } from 'node:test';
import assert from 'node:assert/strict';
import { assertClose, describeEachModule, loadVectors } from './helpers.mjs';

describeEachModule('analysis', (instance) => {
  let pe;
  before(() => { pe = instance(); });

  for (const c of loadVectors('similarity').cases) {
    it(`matches golden vector ${c.name}`, () => {
      if (c.params.of === 'sinusoidal') {
        const table = pe.sinusoidal({ length: c.params.length, dModel: c.params.dModel });
        assertClose(pe.similarity(table, undefined, { metric: c.params.metric }), c.expected, c.tolerance.abs, c.name);
        return;
      }
      const { table, query, expectedIndices } = c.input;
      const emb = pe.tokenEmbedding({ vocabSize: table.shape[0], dModel: table.shape[1], weights: { data: Float32Array.from(table.data), shape: table.shape } });
      const { indices, scores } = emb.nearest(query, { k: c.params.k, metric: c.params.metric });
      emb.dispose();
      assert.deepEqual(Array.from(indices), expectedIndices);
      assertClose({ data: scores, shape: [scores.length] }, c.expected, c.tolerance.abs, c.name);
    });
  }

  it('similarity of two matrices, dot and cosine, against double precision', () => {
    const a = { data: Float32Array.from({ length: 5 * 9 }, (_, i) => Math.sin(i * 1.3)), shape: [5, 9] };
    const b = { data: Float32Array.from({ length: 7 * 9 }, (_, i) => Math.cos(i * 0.7)), shape: [7, 9] };
    for (const metric of ['dot', 'cosine']) {
      const { data, shape } = pe.similarity(a, b, { metric });
      assert.deepEqual(shape, [5, 7]);
      for (let i = 0; i < 5; i++) {
        for (let j = 0; j < 7; j++) {
          let dot = 0, na = 0, nb = 0;
          for (let k = 0; k < 9; k++) {
            dot += a.data[i * 9 + k] * b.data[j * 9 + k];
            na += a.data[i * 9 + k] ** 2;
            nb += b.data[j * 9 + k] ** 2;
          }
          const expected = metric === 'dot' ? dot : dot / Math.sqrt(na * nb);
          assert.ok(Math.abs(data[i * 7 + j] - expected) < 1e-5, `${metric} (${i}, ${j})`);
        }
      }
    }
  });

  it('cosine is exact for rows of any finite size (huge, tiny, subnormal), zero rows giving 0, as is nearest', () => {
    // Rows along (1, 2, -2) at 1e38, 1e-30 and 1; one along (1, 0, 0) at 1e-40; one zero.
    const rows = { data: Float32Array.from([1e38, 2e38, -2e38, 1e-30, 2e-30, -2e-30, 1e-40, 0, 0, 0, 0, 0, 1, 2, -2]), shape: [5, 3] };
    const { data } = pe.similarity(rows, rows, { metric: 'cosine' });
    for (let i = 0; i < 5; i++) {
      for (let j = 0; j < 5; j++) {
        const expected = i === 3 || j === 3 ? 0 : i === j ? 1 : i === 2 || j === 2 ? 1 / 3 : 1;
        assert.ok(Math.abs(data[i * 5 + j] - expected) <= 1e-6, `(${i}, ${j}): ${data[i * 5 + j]}`);
      }
    }
    const emb = pe.tokenEmbedding({ vocabSize: 5, dModel: 3, weights: rows });
    const { indices, scores } = emb.nearest([3e38, 0, 0], { k: 5 });
    assert.deepEqual(Array.from(indices), [2, 0, 1, 4, 3]);
    assert.ok(Math.abs(scores[0] - 1) <= 1e-6 && scores.slice(1, 4).every((s) => Math.abs(s - 1 / 3) <= 1e-6) && scores[4] === 0);
    emb.dispose();
  });

  it('a similarity matrix larger than a block is written a block of rows at a time, the heap never holding it whole', () => {
    const [n, m, d] = [4096, 4096, 4];  // 64 MiB of result, blocks of 16 MiB
    const a = { data: Float32Array.from({ length: n * d }, (_, i) => Math.sin(i * 0.37)), shape: [n, d] };
    const b = { data: Float32Array.from({ length: m * d }, (_, i) => Math.cos(i * 0.11)), shape: [m, d] };
    const heapBefore = pe.memory().heapBytes;
    for (const metric of ['dot', 'cosine']) {
      for (const right of [b, undefined]) {
        const fresh = pe.similarity(a, right, { metric }).data;
        const out = new Float32Array(n * m);
        pe.similarity(a, right, { metric, out });
        assert.deepEqual(out, fresh);
        // Rows spot-checked against double precision, in every block.
        const other = right ?? a;
        for (const i of [0, 1047, 2048, 4095]) {
          for (const j of [0, 999, 4095]) {
            let dot = 0, na = 0, nb = 0;
            for (let k = 0; k < d; k++) {
              dot += a.data[i * d + k] * other.data[j * d + k];
              na += a.data[i * d + k] ** 2;
              nb += other.data[j * d + k] ** 2;
            }
            assert.ok(Math.abs(fresh[i * m + j] - (metric === 'dot' ? dot : dot / Math.sqrt(na * nb))) < 1e-5, `${metric} (${i}, ${j})`);
          }
        }
      }
    }
    assert.ok(pe.memory().heapBytes - heapBefore < n * m * 4, `the heap grew by ${pe.memory().heapBytes - heapBefore} bytes`);
  });

  it('rejects bad inputs with their ranges', () => {
    const a = { data: new Float32Array(6), shape: [2, 3] };
    assert.throws(() => pe.similarity(a, { data: new Float32Array(8), shape: [2, 4] }), { name: 'RangeError', message: 'b.shape[1] must equal a.shape[1] = 3, got 4' });
    assert.throws(() => pe.similarity(a, a, { metric: 'l2' }), { name: 'RangeError', message: "metric must be one of 'dot', 'cosine', got 'l2'" });
    const emb = pe.tokenEmbedding({ vocabSize: 4, dModel: 2 });
    assert.throws(() => emb.nearest([1, 0], { k: 5 }), { name: 'RangeError', message: 'k must be an integer in [1, 4], got 5' });
    assert.throws(() => emb.nearest([1, 0, 0]), { name: 'RangeError', message: 'query must hold dModel = 2 numbers, got 3' });
    assert.throws(() => emb.nearest([1, NaN]), { name: 'RangeError', message: 'query[1] must be finite, got NaN' });
    assert.throws(() => emb.analogy(0, 1, 4), { name: 'RangeError', message: 'c must be an integer in [0, 3], got 4' });
    assert.throws(() => emb.analogy(0, 1, 2, { k: 2 }), { name: 'RangeError', message: 'k must be an integer in [1, 1], got 2' });
    assert.throws(() => emb.analogy(0, 1, 2, { n: 2 }), { name: 'TypeError', message: /^analogy options: unknown option 'n'/ });
    emb.dispose();
    const three = pe.tokenEmbedding({ vocabSize: 3, dModel: 2 });
    assert.throws(() => three.analogy(0, 1, 2), { name: 'RangeError', message: 'analogy needs a row besides a, b and c: the table has 3' });
    three.dispose();
  });

  it('analogy: the rows nearest a − b + c by cosine, a, b and c left out, as float64 ranks them', () => {
    const [rows, d] = [500, 24];
    const data = Float32Array.from({ length: rows * d }, (_, i) => Math.sin(i * 1.618) * (1 + (i % 3)));
    const [a, b, c, planted] = [11, 42, 97, 300];
    for (let j = 0; j < d; j++) data[planted * d + j] = data[a * d + j] - data[b * d + j] + data[c * d + j] + 0.01 * Math.cos(j);
    const emb = pe.tokenEmbedding({ vocabSize: rows, dModel: d, weights: { data, shape: [rows, d] } });
    const { indices, scores } = emb.analogy(a, b, c, { k: 6 });
    emb.dispose();
    const row = (r) => Array.from(data.subarray(r * d, (r + 1) * d));
    const query = row(a).map((v, j) => Math.fround(v - data[b * d + j] + data[c * d + j]));
    const norm = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    const ranked = Array.from({ length: rows }, (_, r) => ({ r, score: row(r).reduce((s, x, j) => s + x * query[j], 0) / (norm(row(r)) * norm(query)) }))
      .filter(({ r }) => ![a, b, c].includes(r)).sort((x, y) => y.score - x.score || x.r - y.r).slice(0, 6);
    assert.equal(indices[0], planted);
    assert.deepEqual(Array.from(indices), ranked.map(({ r }) => r));
    ranked.forEach(({ score }, i) => assert.ok(Math.abs(scores[i] - score) < 2e-6, `score ${i}: ${scores[i]} vs ${score}`));
  });

  it('a NaN or ±Infinity in a or b is named at its first index, on every route, from a JS array or the heap, before out is written', () => {
    const d = 7;  // rows of 7: bad values in SIMD lanes and in tails
    const table = (rows, seed) => Float32Array.from({ length: rows * d }, (_, i) => Math.sin(i * seed));
    // A few queries (each pair scored on its own), many (the GEMM), and a result larger than a block (written in blocks).
    for (const [n, m] of [[3, 1000], [40, 1000], [4096, 1100]]) {
      for (const [what, bad] of [['a', [n * d - 1, 5]], ['b', [m * d - 3, 4100]]]) {
        for (const value of [NaN, Infinity, -Infinity]) {
          const a = table(n, 1.3), b = table(m, 0.7);
          const target = what === 'a' ? a : b;
          for (const at of bad) target[at] = value;
          const first = Math.min(...bad);
          const message = `${what}.data[${first}] must be finite, got ${value}`;
          for (const onHeap of [false, true]) {
            const held = onHeap ? [pe.allocate(n * d), pe.allocate(m * d)] : [];
            if (onHeap) { held[0].data.set(a); held[1].data.set(b); }
            const [left, right] = onHeap ? held.map((h) => h.data) : [a, b];
            const out = new Float32Array(n * m).fill(7);
            for (const metric of ['dot', 'cosine']) {
              assert.throws(() => pe.similarity({ data: left, shape: [n, d] }, { data: right, shape: [m, d] }, { metric, out }), { name: 'RangeError', message },
                `${n} x ${m}, bad ${what} (${value}), ${onHeap ? 'on the heap' : 'JS arrays'}, ${metric}`);
            }
            assert.ok(out.every((v) => v === 7), 'out is left as it was');
            held.forEach((h) => h.dispose());
          }
        }
      }
    }
    // The module goes on: a finite call right after.
    assert.equal(pe.similarity({ data: Float32Array.of(1, 2), shape: [1, 2] }, { data: Float32Array.of(3, 4), shape: [1, 2] }).data[0], 11);
  });
});

// PCA is in the full modules only (the light one the elements draw with leaves it out).
describeEachModule('pca', (instance) => {
  let pe;
  before(() => { pe = instance(); });

  it('pca is free of the data\'s scale: x * s projects to s times x\'s projections, from 1e-30 to 1e37', () => {
    const base = Array.from({ length: 30 * 4 }, (_, i) => Math.sin(i * 1.7) * (1 + (i % 4)));
    const project = (scale) => pe.pca({ data: Float32Array.from(base, (v) => v * scale), shape: [30, 4] }, { components: 2 }).data;
    const unit = project(1);
    for (const scale of [1e-30, 1e30, 1e37]) {
      const scaled = project(scale);
      unit.forEach((v, i) => assert.ok(Math.abs(scaled[i] / scale - v) <= 1e-5 * (1 + Math.abs(v)), `scale ${scale}, [${i}]: ${scaled[i] / scale} vs ${v}`));
    }
  });

  it('pca projects onto axes ordered by variance', () => {
    // Points on a tilted line plus a little spread across it.
    const rows = 50;
    const x = { data: new Float32Array(rows * 3), shape: [rows, 3] };
    for (let r = 0; r < rows; r++) x.data.set([r, 2 * r + 0.1 * Math.sin(r), 5], r * 3);
    const { data, shape } = pe.pca(x, { components: 2 });
    assert.deepEqual(shape, [rows, 2]);
    const variance = [0, 1].map((c) => data.filter((_, i) => i % 2 === c).reduce((s, v) => s + v * v, 0));
    assert.ok(variance[0] > 100 * variance[1]);
  });

  it('rejects bad inputs with their ranges', () => {
    const a = { data: new Float32Array(6), shape: [2, 3] };
    assert.throws(() => pe.pca(a, { components: 3 }), { name: 'RangeError', message: 'components must be an integer in [1, 2], got 3' });
    assert.throws(() => pe.pca({ data: new Float32Array(3), shape: [1, 3] }), { name: 'RangeError', message: 'x.shape[0] must be at least 2 (PCA needs two rows), got 1' });
    const x = Float32Array.from({ length: 5000 * 3 }, (_, i) => Math.cos(i));
    x[14001] = -Infinity;
    x[4097] = NaN;
    const out = new Float32Array(5000 * 2);
    assert.throws(() => pe.pca({ data: x, shape: [5000, 3] }, { out }), { name: 'RangeError', message: 'x.data[4097] must be finite, got NaN' });
    assert.ok(out.every((v) => v === 0), 'out is left as it was');
  });

  it('a token embedding\'s pca() is pe.pca() of its table, bit for bit, read where the table lies', () => {
    const weights = { data: Float32Array.from({ length: 300 * 16 }, (_, i) => Math.sin(i * 0.37) * (1 + (i % 16) / 4)), shape: [300, 16] };
    const embedding = pe.tokenEmbedding({ vocabSize: 300, dModel: 16, weights, scale: 'sqrt' });
    for (const components of [1, 2, 5]) {
      const expected = pe.pca(weights, { components });
      const got = embedding.pca({ components });
      assert.deepEqual(got.shape, [300, components]);
      assert.deepEqual(Array.from(got.data), Array.from(expected.data), `${components} components`);
    }
    // Into an out of the caller's, a JS array or one on the heap.
    const out = new Float32Array(600);
    assert.equal(embedding.pca({ out }).data, out);
    assert.deepEqual(Array.from(out), Array.from(pe.pca(weights).data));
    const onHeap = pe.allocate(600);
    embedding.pca({ out: onHeap.data });
    assert.deepEqual(Array.from(onHeap.data), Array.from(out));
    onHeap.dispose();
    assert.throws(() => embedding.pca({ components: 17 }), { name: 'RangeError', message: 'components must be an integer in [1, 16], got 17' });
    assert.throws(() => embedding.pca({ axes: 2 }), { name: 'TypeError', message: "pca options: unknown option 'axes'; known options are components, out" });
    const single = pe.tokenEmbedding({ vocabSize: 1, dModel: 4 });
    assert.throws(() => single.pca(), { name: 'RangeError', message: 'vocabSize must be at least 2 (PCA needs two rows), got 1' });
    single.dispose();
    embedding.dispose();
    assert.throws(() => embedding.pca(), { message: 'this tokenEmbedding has been disposed' });
  });
}, { fullModule: true });

it('alignProjection turns a PCA frame within its plane onto the one before: flipped, swapped or turned axes come back, nothing else moves', async () => {
  const { alignProjection } = await import('../../dist/analysis.js');
  const before = { data: Float32Array.from({ length: 40 }, (_, i) => Math.sin(i * 1.7) * (i % 2 ? 1 : 3)), shape: [20, 2] };
  const turned = (m) => ({ data: before.data.map((_, i) => (i % 2 === 0 ? before.data[i] * m[0] + before.data[i + 1] * m[2] : before.data[i - 1] * m[1] + before.data[i] * m[3])), shape: [20, 2] });
  const [c, s] = [Math.cos(0.4), Math.sin(0.4)];
  for (const [what, m] of [['x flipped', [-1, 0, 0, 1]], ['both flipped', [-1, 0, 0, -1]], ['swapped', [0, 1, 1, 0]], ['turned', [c, -s, s, c]], ['turned and mirrored', [c, s, s, -c]]]) {
    const aligned = alignProjection(turned(m), before);
    aligned.data.forEach((v, i) => assert.ok(Math.abs(v - before.data[i]) < 1e-5, `${what}: element ${i}: ${v} against ${before.data[i]}`));
    assert.deepEqual(aligned.shape, [20, 2]);
  }
  // Rows that moved a little stay where they were, give or take that move: distances between rows are kept.
  const moved = { data: before.data.map((v, i) => -(v + 0.01 * Math.cos(i))), shape: [20, 2] };
  const aligned = alignProjection(moved, before);
  const distance = (d, a, b) => Math.hypot(d[2 * a] - d[2 * b], d[2 * a + 1] - d[2 * b + 1]);
  assert.ok(Math.abs(distance(aligned.data, 3, 11) - distance(moved.data, 3, 11)) < 1e-5);
  aligned.data.forEach((v, i) => assert.ok(Math.abs(v - before.data[i]) < 0.03, `element ${i}`));
});
