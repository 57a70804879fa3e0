// The benchmark page: the shared benchmark cases, at sizes a page can run, timed in this browser.
import { load } from 'posembed';
import { Figure, nextTask } from 'posembed/components';
import { alibiCase, fusedCase, lookupCase, maxError, median, ropeCase, sampledIndices, similarityCase, sinusoidalCase } from '../bench/cases.js';

// Each size's cases, made when run; `only`: the implementations worth timing at that size.
const SIZES = {
  small: {
    cases: () => [sinusoidalCase({ length: 256, dModel: 128 }), lookupCase({ vocabSize: 4096, dModel: 64, count: 512 }), fusedCase({ vocabSize: 4096, dModel: 64, batch: 2, seq: 128 }),
      ropeCase({ heads: 4, seq: 128, headDim: 64 }), alibiCase({ heads: 4, length: 128 }), similarityCase({ n: 128, d: 64 })],
  },
  medium: {
    cases: () => [sinusoidalCase({ length: 2048, dModel: 512 }), lookupCase({ vocabSize: 32000, dModel: 256, count: 2048 }), fusedCase({ vocabSize: 32000, dModel: 256, batch: 4, seq: 512 }),
      ropeCase({ heads: 16, seq: 512, headDim: 64 }), alibiCase({ heads: 8, length: 512 }), similarityCase({ n: 512, d: 256 })],
  },
  gpu: {
    cases: () => [sinusoidalCase({ length: 8192, dModel: 4096 }), similarityCase({ n: 4096, d: 512 })],
    only: ['posembed wasm SIMD', 'posembed WebGPU'],
  },
};
const COLOURS = { 'posembed wasm SIMD': '#1f5fbf', 'posembed wasm threads': '#5e3c99', 'posembed wasm scalar': '#92c5de', 'posembed WebGPU': '#1b7837', 'plain JS': '#b2182b' };
const form = document.querySelector('#bench-controls');
const figure = new Figure(document.querySelector('#bench-figure'), { label: 'Median time of each implementation per case, log scale' });
const status = document.querySelector('#bench-status');
const engines = { 'posembed wasm SIMD': await load({ simd: true }), 'posembed wasm scalar': await load({ simd: false }) };
// This site is served cross-origin isolated: threads where the browser has more than one core.
const threaded = await load({ threads: 'auto' });
if (threaded.threads > 1) engines['posembed wasm threads'] = threaded;
const gpu = await load({ backend: 'auto' });
if (gpu.backend === 'webgpu') engines['posembed WebGPU'] = gpu;
document.documentElement.dataset.ready = 'true';

async function time(fn, runs) {
  const times = [];
  let output;
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    output = await fn();
    times.push(performance.now() - start);
    await nextTask();  // keeps the page responsive
  }
  return { median: median(times), output };
}

// posembed's result as plain data (a GpuTensor is read back and freed, inside the timing).
function posembedRunner(pe, c, context) {
  return async () => {
    const result = c.posembed(pe, undefined, context);
    if (result.data) return result.data;
    const { data } = await result.read();
    result.dispose();
    return data;
  };
}

// Median times as bars on a log scale, grouped by case, one colour per implementation.
function plot(results) {
  const names = Object.keys(COLOURS).filter((name) => results.some((r) => r.times[name] !== undefined));
  const bars = [];
  const firsts = [];
  for (const r of results) {
    firsts.push(bars.length);
    for (const name of names) {
      if (r.times[name] !== undefined) bars.push({ label: r.name.split(' [')[0], value: Math.max(r.times[name], 1e-3), group: name, implementation: name, full: r.name });
    }
  }
  figure.bars(bars, {
    groups: names.map((name) => ({ name, colour: COLOURS[name] })), x: { label: 'case', ticks: firsts }, y: { label: 'median time (ms, log scale)', log: true },
    describe: (i) => `${bars[i].full}, ${bars[i].implementation}: ${bars[i].value.toPrecision(3)} ms`,
  });
  figure.caption = 'Shorter is faster. Each group is one case; the bars are the implementations that ran it, timed in this browser.';
}

async function run(event) {
  event.preventDefault();
  const f = new FormData(form);
  const runs = Math.max(1, Math.min(50, Number(f.get('runs')) || 1));
  const size = SIZES[f.get('size')] ?? SIZES.small;
  const cases = size.cases();
  document.querySelector('#bench-run').disabled = true;
  const results = [];
  for (const c of cases) {
    const indices = sampledIndices(c.elements, 1024);
    const row = { name: c.name, times: {}, errors: {} };
    const contexts = Object.fromEntries(Object.entries(engines).map(([name, pe]) => [name, c.setup?.(pe)]));
    const runners = { ...Object.fromEntries(Object.entries(engines).map(([name, pe]) => [name, posembedRunner(pe, c, contexts[name])])), 'plain JS': c.plainJs };
    for (const [name, fn] of Object.entries(runners).filter(([name]) => !size.only || size.only.includes(name))) {
      status.textContent = `Running ${c.name}: ${name}…`;
      await nextTask();
      const timed = await time(fn, runs);
      row.times[name] = timed.median;
      row.errors[name] = maxError(timed.output, c.reference, indices);
    }
    for (const context of Object.values(contexts)) context?.dispose();
    results.push(row);
    plot(results);
  }
  const names = Object.keys(results[0].times);
  document.querySelector('#bench-table').innerHTML = `<thead><tr><th>case</th>${names.map((n) => `<th>${n} ms</th><th>max error</th>`).join('')}</tr></thead><tbody>${
    results.map((r) => `<tr><td>${r.name}</td>${names.map((n) => `<td data-impl="${n}">${r.times[n].toFixed(2)}</td><td data-error="${n}">${r.errors[n].toExponential(1)}</td>`).join('')}</tr>`).join('')}</tbody>`;
  status.textContent = `Done: medians of ${runs} runs${engines['posembed WebGPU'] ? '' : '; no WebGPU adapter in this browser'}.`;
  document.querySelector('#bench-run').disabled = false;
}

form.addEventListener('submit', (event) => { run(event).catch((error) => { status.textContent = `${error.name}: ${error.message}`; document.querySelector('#bench-run').disabled = false; }); });
