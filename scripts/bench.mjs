// npm run bench: every op of DESIGN §5 side by side in one process (posembed wasm SIMD on one thread and with
// the threads load() gives by default, each with a fresh output, with `out`, and with `out` on the wasm heap
// (pe.allocate: no copy; for RoPE also x on the heap), posembed wasm scalar, plain JS, TensorFlow.js wasm,
// ONNX Runtime Web wasm single-threaded) against the memory limit
// of the same bytes; medians of repeated runs and the max error vs float64. Prints a table per op and how it
// stands against issue 3's goals (and issue 24's at vocabulary scale), and writes JSON (build/bench.json, or
// --json PATH). --quick for fewer runs; --op NAME to run the ops whose name contains NAME; --gpu-sizes for the
// WebGPU sizes (sinusoidal 8192 x 4096, similarity 4096 x 4096) with posembed alone, wasm against WebGPU. Node's WebGPU uses SwiftShader unless
// VK_ICD_FILENAMES names another Vulkan driver (a real GPU's, e.g. /usr/share/vulkan/icd.d/nvidia_icd.json).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { Bench } from 'tinybench';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-wasm';
import * as ort from 'onnxruntime-web';
import { create } from 'webgpu';
import { load } from '../dist/index.js';
import { GPU_SIZE_OPS, OPS } from './bench/ops.mjs';
import { maxError, median, sampledIndices } from '../web/bench/cases.js';
import { benchPageLoad } from './bench/page-load.mjs';
import { benchResponsiveness } from './bench/responsiveness.mjs';
import { benchTraining } from './bench/training.mjs';
import { benchBf16Vocabulary, benchVocabulary } from './bench/vocabulary.mjs';

const { values: args } = parseArgs({ options: { quick: { type: 'boolean', default: false }, 'gpu-sizes': { type: 'boolean', default: false }, op: { type: 'string' }, json: { type: 'string', default: 'build/bench.json' } } });
const SAMPLES = 4096;
// Each implementation is timed in ROUNDS rounds of ROUND_MS, every implementation once per round, so that
// all of them share this machine's slower and faster minutes (its memory bandwidth moves by tens of
// percent); the median is over every run of every round.
const ROUNDS = args.quick ? 1 : 5;
const ROUND_MS = args.quick ? 0 : 200;

const format = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));

await tf.setBackend('wasm');
await tf.ready();
ort.env.wasm.numThreads = 1;
ort.env.logLevel = 'error';
// One thread (load()'s default, as the peers run), and threads: 'auto' (here: up to 4, as many as cores).
const SINGLE = 'posembed wasm SIMD';
const engines = { [SINGLE]: await load({ simd: true }), 'posembed wasm scalar': await load({ simd: false }) };
const threaded = await load({ simd: true, threads: 'auto' });
const THREADED = threaded.threads > 1 ? `posembed wasm SIMD, ${threaded.threads} threads` : null;
if (THREADED) engines[THREADED] = threaded;
process.env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';
const gpu = await load({ backend: 'auto', gpu: create([]) });
const gpuName = gpu.backend === 'webgpu' ? `posembed WebGPU (${gpu.adapterInfo?.description || 'adapter'})` : null;
if (gpuName) engines[gpuName] = gpu;

console.log('posembed benchmark: medians of repeated runs, one process, same inputs for every implementation');
console.log(`Node ${process.version}; TensorFlow.js ${tf.version_core} (wasm backend); ONNX Runtime Web ${ort.env.versions.web} (wasm, 1 thread)`);
console.log(THREADED
  ? `Threads: "${THREADED}" is load({ threads: 'auto' }) (Node; in browsers, cross-origin-isolated pages); "${SINGLE}" is load()'s one thread, as the peers run.`
  : 'Threads: one (this machine has one core); posembed runs on one thread.');
console.log(gpuName
  ? 'WebGPU: through Node\'s webgpu package; with SwiftShader (a CPU Vulkan) its column measures API overhead and a software rasteriser, not GPU speed. Times include reading the result back.\n'
  : `WebGPU: no adapter here (${gpu.fallbackReason}); no WebGPU column.\n`);

if (args['gpu-sizes'] && gpuName?.includes('SwiftShader')) {
  console.log('--gpu-sizes on SwiftShader: the WebGPU similarity of 4096 x 4096 takes minutes on the CPU.\n');
}
// How an op stands against issue 3's goals: one check per goal, { goal, value, met }. The limit goals
// (op.goal.timesLimit: writing into a caller's JS array, or one on the heap from pe.allocate) are judged on
// posembed as its user would run it here, on one thread or with threads: 'auto', whichever was faster in
// this run (both figures shown); op.goal.notSlowerThan (a single-threaded peer) and a fresh result faster
// than every peer are judged on one thread, as the peers run.
function goalChecks(op, rows) {
  const row = (name) => rows.find((r) => r.name === name);
  const fresh = row(SINGLE);
  const checks = [];
  if (op.goal?.timesLimit) {
    for (const kind of ['out', 'heap out']) {
      const [one, threads] = [row(`${SINGLE}, ${kind}`), THREADED && row(`${THREADED}, ${kind}`)];
      const best = Math.min(one.timesLimit, threads?.timesLimit ?? Infinity);
      const value = threads ? `${best.toFixed(2)}x (one thread ${one.timesLimit.toFixed(2)}x, ${threaded.threads} threads ${threads.timesLimit.toFixed(2)}x)` : `${best.toFixed(2)}x`;
      checks.push({ goal: `${kind} <= ${op.goal.timesLimit}x the limit`, value, met: best <= op.goal.timesLimit });
    }
  }
  if (op.goal?.notSlowerThan) {
    const peer = row(op.goal.notSlowerThan);
    checks.push({ goal: `one thread no slower than ${peer.name}`, value: `${format(fresh.medianMs)} vs ${format(peer.medianMs)} ms`, met: fresh.medianMs <= peer.medianMs });
  }
  for (const peer of Object.keys(op.impls).map(row)) {
    checks.push({ goal: `fresh, one thread, faster than ${peer.name}`, value: `${format(fresh.medianMs)} vs ${format(peer.medianMs)} ms`, met: fresh.medianMs < peer.medianMs });
  }
  return checks;
}

const results = [];
for (const makeOp of args['gpu-sizes'] ? GPU_SIZE_OPS : OPS) {
  const op = await makeOp();
  if (args.op && !op.name.includes(args.op)) continue;
  const indices = sampledIndices(op.elements, SAMPLES);
  const out = new Float32Array(op.elements);
  const source = new Float32Array(op.elements).fill(0.25);
  const contexts = Object.fromEntries(Object.entries(engines).map(([name, pe]) => [name, op.setup?.(pe)]));
  // Each SIMD engine: a fresh result, into a JS array, into a heap array (and RoPE's x on the heap too).
  const heaps = [];
  const simdTasks = (name) => {
    const pe = engines[name];
    const heapOut = pe.allocate(op.elements);
    const heapInput = op.heapInput?.(pe);
    heaps.push(heapOut, ...(heapInput ? [heapInput] : []));
    return {
      [name]: () => op.posembed(pe, undefined, contexts[name]),
      [`${name}, out`]: () => op.posembed(pe, out, contexts[name]),
      [`${name}, heap out`]: () => op.posembed(pe, heapOut.data, contexts[name]),
      ...(heapInput ? { [`${name}, heap in and out`]: () => op.posembedOnHeap(pe, heapOut.data, heapInput) } : {}),
    };
  };
  const tasks = {
    [`memory limit (${op.limit} ${(op.elements * 4 / 2 ** 20).toFixed(0)} MiB)`]: op.limit === 'fill' ? () => out.fill(0.5) : () => out.set(source),
    ...simdTasks(SINGLE),
    ...(THREADED ? simdTasks(THREADED) : {}),
    ...(args['gpu-sizes'] ? {} : { 'posembed wasm scalar': () => op.posembed(engines['posembed wasm scalar'], undefined, contexts['posembed wasm scalar']) }),
    ...(gpuName && !op.hostOnly ? { [gpuName]: async () => {
      const tensor = op.posembed(gpu, undefined, contexts[gpuName]);
      const { data } = await tensor.read();
      tensor.dispose();
      return data;
    } } : {}),
    ...op.impls,
  };
  // Every implementation runs (and is checked) before any is timed: the first timed would otherwise pay for
  // warming the process (the allocator's thresholds, the JIT) on behalf of the rest.
  const heavy = (name) => op.slow && (name === 'plain JS' || name === gpuName);
  const errors = {};
  for (const [name, fn] of Object.entries(tasks)) {
    const result = await fn();
    errors[name] = name.startsWith('memory limit') ? null : maxError(result?.data ?? result, op.reference, indices);
    for (let warm = 0; warm < (heavy(name) ? 0 : 3); warm++) await fn();
  }
  const timed = Object.entries(tasks).map(([name, fn]) => ({ name, fn, samples: [] }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const task of timed) {
      if (heavy(task.name) && round > 0) continue;
      const bench = new Bench({ time: heavy(task.name) ? 0 : ROUND_MS, iterations: heavy(task.name) ? 2 : 3, warmup: false, retainSamples: true });
      // (node --expose-gc) Every run starts from a collected heap, untimed: a fresh result's allocation then
      // meets the same allocator state for every implementation, not whatever the last collection left
      // (freed memory reused, or new pages faulted in: 3 or 8 ms for the same 24 MiB here).
      bench.add(task.name, task.fn, { beforeEach: () => globalThis.gc?.() });
      await bench.run();
      task.samples.push(...bench.tasks[0].result.latency.samples);
    }
  }
  const rows = timed.map(({ name, samples }) => ({ name, medianMs: median(samples), samples: samples.length, maxError: errors[name] }));
  for (const context of Object.values(contexts)) context?.dispose();
  for (const heap of heaps) heap.dispose();
  const limit = rows[0].medianMs;
  const posembed = rows.find((r) => r.name === SINGLE).medianMs;
  for (const row of rows) {
    row.timesLimit = row.medianMs / limit;
    row.timesPosembed = row.medianMs / posembed;
  }
  const goals = args['gpu-sizes'] ? [] : goalChecks(op, rows);
  results.push({ op: op.name, limitKind: op.limit, elements: op.elements, sampledForError: indices.length, rows, goals });
  console.log(op.name);
  console.table(rows.map((r) => ({
    implementation: r.name, 'median ms': format(r.medianMs), '× limit': r.timesLimit.toFixed(2),
    '× posembed SIMD': r.timesPosembed.toFixed(2), 'max |error| vs float64': r.maxError === null ? '' : r.maxError.toExponential(1),
  })));
  if (goals.length) console.log(`goals: ${goals.map((g) => `${g.goal}: ${g.value}, ${g.met ? 'met' : 'NOT met'}`).join('; ')}\n`);
}

// The trainer: its step beside plain JS and TensorFlow.js, what it learns, and its time to 99% in Chromium.
let training = null;
if (!args['gpu-sizes'] && (!args.op || 'training'.includes(args.op))) {
  training = await benchTraining({
    engines: { single: engines[SINGLE], scalar: engines['posembed wasm scalar'] }, threaded: THREADED ? threaded : null, quick: args.quick,
    siteRoot: existsSync('build/site/train.html') ? 'build/site' : null,
  });
}

// Analysis at vocabulary scale: PCA beside numpy, nearest and similarity of one query; then a BF16 table of Llama 3
// 8B's shape.
let vocabulary = null;
if (!args['gpu-sizes'] && (!args.op || 'vocabulary'.includes(args.op))) {
  const analysts = { [SINGLE]: engines[SINGLE], ...(THREADED ? { [THREADED]: threaded } : {}) };
  vocabulary = await benchVocabulary({ engines: analysts, quick: args.quick });
  const bf16 = await benchBf16Vocabulary({ engines: analysts });
  vocabulary = { rows: [...vocabulary.rows, ...bf16.rows], goals: [...vocabulary.goals, ...bf16.goals] };
}

// The site's pages opening: the longest task on the page's thread.
let pageLoad = null;
if (!args['gpu-sizes'] && (!args.op || 'page-load'.includes(args.op)) && existsSync('build/site/index.html')) {
  pageLoad = await benchPageLoad({ siteRoot: 'build/site', quick: args.quick });
}

// The page's thread while elements draw their largest, controls change and the trainer trains.
let responsiveness = null;
if (!args['gpu-sizes'] && (!args.op || 'responsiveness'.includes(args.op)) && existsSync('build/site/index.html')) {
  responsiveness = await benchResponsiveness({ siteRoot: 'build/site' });
}

const unmet = [...results.map((r) => [r.op, r.goals]), ...(vocabulary ? [['vocabulary', vocabulary.goals]] : []), ...(pageLoad ? [['page load', pageLoad.goals]] : []),
  ...(responsiveness ? [['responsiveness', responsiveness.goals]] : [])]
  .flatMap(([op, goals]) => goals.filter((g) => !g.met).map((g) => `${op}: ${g.goal} (${g.value})`));
if (!args['gpu-sizes']) console.log(unmet.length ? `goals not met in this run:\n  ${unmet.join('\n  ')}` : 'every goal met in this run');

mkdirSync(dirname(args.json), { recursive: true });
writeFileSync(args.json, JSON.stringify({ date: new Date().toISOString(), node: process.version, results, training, vocabulary, pageLoad, responsiveness }, null, 2));
console.log(`results written to ${args.json} (errors: max over ${SAMPLES} sampled elements per output)`);
