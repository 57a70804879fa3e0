// Shared by the package tests: the golden vectors of ../shared/vectors and comparisons against them.
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { load } from '../../dist/index.js';
import { loadPart } from '../../dist/parts.js';

export const VECTORS_DIR = process.env.POSEMBED_VECTORS ?? new URL('../../../shared/vectors/', import.meta.url).pathname;

export function loadVectors(op) {
  const vectors = JSON.parse(readFileSync(`${VECTORS_DIR}/${op}.json`, 'utf8'));
  assert.ok(vectors.cases.length > 0, `${op}.json has no cases`);
  return vectors;
}

// null in the files stands for -Infinity.
export function expectedData(values) {
  return values.map((v) => (v === null ? -Infinity : v));
}

// Largest absolute difference, with matching infinities counted as equal and NaN as infinitely wrong.
export function maxAbsError(got, expected) {
  assert.equal(got.length, expected.length, 'element count');
  let worst = 0;
  for (let i = 0; i < got.length; i++) {
    if (got[i] === expected[i]) continue;
    const error = Math.abs(got[i] - expected[i]);
    worst = Number.isNaN(error) ? Infinity : Math.max(worst, error);
  }
  return worst;
}

export function assertClose(tensor, expected, tolerance, label = '') {
  assert.deepEqual(tensor.shape, expected.shape, `${label} shape`);
  const error = maxAbsError(tensor.data, expectedData(expected.data));
  assert.ok(error <= tolerance, `${label} max abs error ${error} > ${tolerance}`);
}

// The options of the object a golden token_embedding case describes: a transformerEmbedding (one sequence of
// all its ids, from position 0) when the case adds positions, else a tokenEmbedding.
export function goldenEmbeddingOptions(c) {
  const [vocabSize, dModel] = c.input.table.shape;
  const weights = { data: Float32Array.from(c.input.table.data), shape: c.input.table.shape };
  const options = { vocabSize, dModel, scale: c.params.scale, paddingIdx: c.params.paddingIdx, weights };
  return c.params.positional === 'sinusoidal' ? { ...options, positional: 'sinusoidal', maxLength: c.input.ids.length } : options;
}

// What call(out) writes into an out on the wasm heap, which is written whole by one kernel call: the
// reference for results streamed through the heap a block at a time (fresh ones and a JS out).
export function writtenOnHeap(pe, elements, call) {
  const heap = pe.allocate(elements);
  try {
    call(heap.data);
    return heap.data.slice();
  } finally {
    heap.dispose();
  }
}

// The four modules: SIMD, scalar, SIMD with threads (two: the kernels split their rows in two), and the light
// encoders-only one the elements draw with (with the model configs' code, as <posembed-model> loads it).
export const MODULES = [
  { name: 'wasm simd', options: { simd: true, threads: 1 } },
  { name: 'wasm scalar', options: { simd: false } },
  { name: 'wasm threads', options: { threads: 2 } },
  { name: 'wasm encoders-only', options: { encodersOnly: true }, parts: ['models'] },
];

// Runs a suite against every module alike (those with the full module's ops: { fullModule: true }, all but the
// encoders-only one). body receives a getter of the instance; after the suite, every heap allocation it made must
// have been freed.
export function describeEachModule(title, body, { fullModule = false } = {}) {
  for (const variant of MODULES.filter((m) => !fullModule || !m.options.encodersOnly)) {
    describe(`${title} (${variant.name})`, () => {
      let pe;
      before(async () => {
        [pe] = await Promise.all([load(variant.options), ...(variant.parts ?? []).map(loadPart)]);
      });
      after(() => assert.equal(pe.memory().liveAllocations, 0, 'heap allocations left behind'));
      body(() => pe);
    });
  }
}
