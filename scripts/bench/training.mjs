// The trainer's benchmark (npm run bench; --op training for it alone): one training step of the toy model
// (dModel 64, 1 layer, 4 heads, batch 32, sinusoidal positions) in posembed (wasm SIMD on one thread and with
// threads, wasm scalar), in plain JavaScript and in TensorFlow.js (wasm backend), from the same parameters on
// the same batch, losses compared; then what training learns (DESIGN's toy tasks, the word vectors) and how long
// 'mixed' takes to reach 99% in Chromium. The peers' models are written here from the model's definition in
// cpp/include/posembed/trainer.hpp, for this comparison only.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import { rank } from 'd3-array';
import { build } from 'vite';
import { launchChromium, startServer } from '../browser.mjs';

// tfjs-core's Node bundle has no gradients, and the module that registers them imports its siblings without
// file extensions, which Node's ESM loader refuses: bundled once by Vite, it registers them into the same
// global registry the bundle uses.
async function registerTfGradients() {
  const entry = createRequire(import.meta.url).resolve('@tensorflow/tfjs-core/dist/register_all_gradients.js');
  const outDir = 'build/bench';
  await build({ configFile: false, logLevel: 'warn', build: { outDir, emptyOutDir: false, minify: false, lib: { entry, formats: ['es'], fileName: () => 'tf-gradients.mjs' } } });
  await import(pathToFileURL(join(outDir, 'tf-gradients.mjs')).href);
}

const CONFIG = { task: 'mixed', positional: 'sinusoidal', dModel: 64, layers: 1, heads: 4, batchSize: 32, seed: 0 };
const EPSILON = 1e-5;
const GELU_SCALE = Math.sqrt(2 / Math.PI);

// A seeded stream of toy prompts (2–5 digits), drawn as the trainer draws them (its own generator aside).
function prompts(count, seed, { minItems = 2, maxItems = 5 } = {}) {
  let state = seed * 2654435761 + 1;  // xorshift32
  const next = (n) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
  return Array.from({ length: count }, () => {
    const items = Array.from({ length: minItems + next(maxItems - minItems + 1) }, () => next(10));
    return `${['Max', 'Min', 'First'][next(3)]}(${items.join(',')})`;
  });
}

// The rule's answer, and the batch the model reads: inputs (every token but the answer), padded with 0, and the
// row each answer is predicted at.
function batchOf(trainer, texts) {
  const sequences = texts.map((text) => {
    const ids = [...trainer.encode(text)];
    const items = ids.slice(2, -1).filter((_, i) => i % 2 === 0).map((id) => id - 2);
    const op = trainer.vocabulary[ids[0]];
    const answer = op === 'Max' ? Math.max(...items) : op === 'Min' ? Math.min(...items) : items[0];
    return { input: ids, target: answer + 2 };
  });
  const length = Math.max(...sequences.map((s) => s.input.length));
  const tokens = new Int32Array(sequences.length * length);
  sequences.forEach((s, b) => tokens.set(s.input, b * length));
  return { size: sequences.length, length, tokens, rows: sequences.map((s, b) => b * length + s.input.length - 1), targets: sequences.map((s) => s.target) };
}

// Multiply-adds of one forward pass, times 2 (FLOPs), times 3 for forward and backward: the matrix products,
// attention's computed over the full square as the kernels compute it.
export function stepFlops({ dModel: d, heads, batchSize }, length) {
  const rows = batchSize * length;
  const linear = 2 * rows * d * (3 * d + d + 4 * d + 4 * d);
  const attention = 2 * 2 * batchSize * heads * length * length * (d / heads);
  const logits = 2 * batchSize * d * 20;
  return 3 * (linear + attention + logits);
}

// ---------------------------------------------------------------------------------------------------------
// Plain JavaScript: the model's forward and backward passes in Float32Arrays, loops as written.

function matmul(a, b, rows, inner, columns, out = new Float32Array(rows * columns)) {
  for (let r = 0; r < rows; r++) {
    for (let k = 0; k < inner; k++) {
      const x = a[r * inner + k];
      for (let c = 0; c < columns; c++) out[r * columns + c] += x * b[k * columns + c];
    }
  }
  return out;
}
function transpose(a, rows, columns) {
  const out = new Float32Array(rows * columns);
  for (let r = 0; r < rows; r++) for (let c = 0; c < columns; c++) out[c * rows + r] = a[r * columns + c];
  return out;
}
function linear(x, w, bias, rows, inner, columns) {
  const out = new Float32Array(rows * columns);
  for (let r = 0; r < rows; r++) out.set(bias, r * columns);
  return matmul(x, w, rows, inner, columns, out);
}
function linearBackward(x, w, dy, rows, inner, columns, grads, name) {
  const dx = matmul(dy, transpose(w, inner, columns), rows, columns, inner);
  matmul(transpose(x, rows, inner), dy, inner, rows, columns, grads[`${name}.weight`]);
  const db = grads[`${name}.bias`];
  for (let r = 0; r < rows; r++) for (let c = 0; c < columns; c++) db[c] += dy[r * columns + c];
  return dx;
}
function layerNorm(x, weight, bias, rows, d) {
  const out = new Float32Array(rows * d);
  const mean = new Float32Array(rows);
  const inv = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    let m = 0;
    for (let c = 0; c < d; c++) m += x[r * d + c];
    m /= d;
    let v = 0;
    for (let c = 0; c < d; c++) v += (x[r * d + c] - m) ** 2;
    const s = 1 / Math.sqrt(v / d + EPSILON);
    mean[r] = m;
    inv[r] = s;
    for (let c = 0; c < d; c++) out[r * d + c] = (x[r * d + c] - m) * s * weight[c] + bias[c];
  }
  return { out, mean, inv };
}
function layerNormBackward(x, weight, { mean, inv }, dy, rows, d, grads, name) {
  const dx = new Float32Array(rows * d);
  const dw = grads[`${name}.weight`];
  const db = grads[`${name}.bias`];
  for (let r = 0; r < rows; r++) {
    let a = 0;
    let b = 0;
    for (let c = 0; c < d; c++) {
      const xhat = (x[r * d + c] - mean[r]) * inv[r];
      const g = dy[r * d + c] * weight[c];
      a += g;
      b += g * xhat;
      dw[c] += dy[r * d + c] * xhat;
      db[c] += dy[r * d + c];
    }
    a /= d;
    b /= d;
    for (let c = 0; c < d; c++) {
      const xhat = (x[r * d + c] - mean[r]) * inv[r];
      dx[r * d + c] = inv[r] * (dy[r * d + c] * weight[c] - a - xhat * b);
    }
  }
  return dx;
}

export function plainLossAndGradients(p, batch, positions, { dModel: d, heads, scale }) {
  const { size: B, length: L, tokens, rows: targetRows, targets } = batch;
  const N = B * L;
  const H = heads;
  const dh = d / H;
  const F = 4 * d;
  const grads = Object.fromEntries(Object.entries(p).map(([name, t]) => [name, new Float32Array(t.data.length)]));
  const P = Object.fromEntries(Object.entries(p).map(([name, t]) => [name, t.data]));
  const x0 = new Float32Array(N * d);
  for (let n = 0; n < N; n++) for (let k = 0; k < d; k++) x0[n * d + k] = P['wte.weight'][tokens[n] * d + k] * scale + positions[(n % L) * d + k];
  const ln1 = layerNorm(x0, P['h.0.ln_1.weight'], P['h.0.ln_1.bias'], N, d);
  const qkv = linear(ln1.out, P['h.0.attn.c_attn.weight'], P['h.0.attn.c_attn.bias'], N, d, 3 * d);
  const probs = new Float32Array(B * H * L * L);
  const attended = new Float32Array(N * d);
  const at = (b, i, part, h, k) => (b * L + i) * 3 * d + part * d + h * dh + k;
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      for (let i = 0; i < L; i++) {
        const row = ((b * H + h) * L + i) * L;
        let largest = -Infinity;
        for (let j = 0; j <= i; j++) {
          let s = 0;
          for (let k = 0; k < dh; k++) s += qkv[at(b, i, 0, h, k)] * qkv[at(b, j, 1, h, k)];
          probs[row + j] = s / Math.sqrt(dh);
          largest = Math.max(largest, probs[row + j]);
        }
        let sum = 0;
        for (let j = 0; j <= i; j++) sum += probs[row + j] = Math.exp(probs[row + j] - largest);
        for (let j = 0; j <= i; j++) {
          probs[row + j] /= sum;
          for (let k = 0; k < dh; k++) attended[(b * L + i) * d + h * dh + k] += probs[row + j] * qkv[at(b, j, 2, h, k)];
        }
      }
    }
  }
  const middle = linear(attended, P['h.0.attn.c_proj.weight'], P['h.0.attn.c_proj.bias'], N, d, d);
  for (let i = 0; i < N * d; i++) middle[i] += x0[i];
  const ln2 = layerNorm(middle, P['h.0.ln_2.weight'], P['h.0.ln_2.bias'], N, d);
  const fc = linear(ln2.out, P['h.0.mlp.c_fc.weight'], P['h.0.mlp.c_fc.bias'], N, d, F);
  const activated = fc.map((u) => 0.5 * u * (1 + Math.tanh(GELU_SCALE * (u + 0.044715 * u ** 3))));
  const x = linear(activated, P['h.0.mlp.c_proj.weight'], P['h.0.mlp.c_proj.bias'], N, F, d);
  for (let i = 0; i < N * d; i++) x[i] += middle[i];
  const M = targetRows.length;
  const last = new Float32Array(M * d);
  targetRows.forEach((r, m) => last.set(x.subarray(r * d, (r + 1) * d), m * d));
  const lnf = layerNorm(last, P['ln_f.weight'], P['ln_f.bias'], M, d);
  const logits = matmul(lnf.out, transpose(P['wte.weight'], 20, d), M, d, 20);
  let loss = 0;
  for (let m = 0; m < M; m++) {
    const row = logits.subarray(m * 20, (m + 1) * 20);
    const largest = Math.max(...row);
    let sum = 0;
    for (let v = 0; v < 20; v++) sum += row[v] = Math.exp(row[v] - largest);
    for (let v = 0; v < 20; v++) row[v] /= sum;
    loss -= Math.log(row[targets[m]]);
    for (let v = 0; v < 20; v++) row[v] = (row[v] - (v === targets[m] ? 1 : 0)) / M;
  }
  loss /= M;
  // Backward.
  const dFinal = matmul(logits, P['wte.weight'], M, 20, d);
  matmul(transpose(logits, M, 20), lnf.out, 20, M, d, grads['wte.weight']);
  const dLast = layerNormBackward(last, P['ln_f.weight'], lnf, dFinal, M, d, grads, 'ln_f');
  const dx = new Float32Array(N * d);
  targetRows.forEach((r, m) => dx.set(dLast.subarray(m * d, (m + 1) * d), r * d));
  const dActivated = linearBackward(activated, P['h.0.mlp.c_proj.weight'], dx, N, F, d, grads, 'h.0.mlp.c_proj');
  for (let i = 0; i < N * F; i++) {
    const u = fc[i];
    const t = Math.tanh(GELU_SCALE * (u + 0.044715 * u ** 3));
    dActivated[i] *= 0.5 * (1 + t) + 0.5 * u * (1 - t * t) * GELU_SCALE * (1 + 3 * 0.044715 * u * u);
  }
  const dLn2 = linearBackward(ln2.out, P['h.0.mlp.c_fc.weight'], dActivated, N, d, F, grads, 'h.0.mlp.c_fc');
  const dMiddleNorm = layerNormBackward(middle, P['h.0.ln_2.weight'], ln2, dLn2, N, d, grads, 'h.0.ln_2');
  for (let i = 0; i < N * d; i++) dx[i] += dMiddleNorm[i];
  const dAttended = linearBackward(attended, P['h.0.attn.c_proj.weight'], dx, N, d, d, grads, 'h.0.attn.c_proj');
  const dqkv = new Float32Array(N * 3 * d);
  const dScores = new Float32Array(L);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      for (let i = 0; i < L; i++) {
        const row = ((b * H + h) * L + i) * L;
        let dot = 0;
        for (let j = 0; j <= i; j++) {
          let dp = 0;
          for (let k = 0; k < dh; k++) {
            const g = dAttended[(b * L + i) * d + h * dh + k];
            dp += g * qkv[at(b, j, 2, h, k)];
            dqkv[at(b, j, 2, h, k)] += probs[row + j] * g;
          }
          dScores[j] = dp;
          dot += dp * probs[row + j];
        }
        for (let j = 0; j <= i; j++) {
          const ds = probs[row + j] * (dScores[j] - dot) / Math.sqrt(dh);
          for (let k = 0; k < dh; k++) {
            dqkv[at(b, i, 0, h, k)] += ds * qkv[at(b, j, 1, h, k)];
            dqkv[at(b, j, 1, h, k)] += ds * qkv[at(b, i, 0, h, k)];
          }
        }
      }
    }
  }
  const dLn1 = linearBackward(ln1.out, P['h.0.attn.c_attn.weight'], dqkv, N, d, 3 * d, grads, 'h.0.attn.c_attn');
  const dInputNorm = layerNormBackward(x0, P['h.0.ln_1.weight'], ln1, dLn1, N, d, grads, 'h.0.ln_1');
  for (let i = 0; i < N * d; i++) dx[i] += dInputNorm[i];
  for (let n = 0; n < N; n++) {
    if (tokens[n] === 0) continue;
    for (let k = 0; k < d; k++) grads['wte.weight'][tokens[n] * d + k] += dx[n * d + k] * scale;
  }
  return { loss, gradients: grads };
}

// ---------------------------------------------------------------------------------------------------------
// TensorFlow.js: the same model in its ops, gradients by its autodiff.

export function tfModel(p, batch, positions, { dModel: d, heads, scale }) {
  const { size: B, length: L, tokens, rows, targets } = batch;
  const H = heads;
  const dh = d / H;
  const variables = Object.fromEntries(Object.entries(p).map(([name, t]) => [name, tf.variable(tf.tensor(t.data, t.shape))]));
  // Row lookups as products with one-hot matrices: the wasm backend has no gradient kernel for gather
  // (UnsortedSegmentSum).
  const tokenRows = tf.cast(tf.oneHot(tf.tensor1d(tokens, 'int32'), 20), 'float32');
  const positionRows = tf.tensor2d(positions.subarray(0, L * d), [L, d]);
  const targetRows = tf.cast(tf.oneHot(tf.tensor1d(rows, 'int32'), B * L), 'float32');
  const oneHot = tf.oneHot(tf.tensor1d(targets, 'int32'), 20);
  const mask = tf.reshape(tf.linalg.bandPart(tf.ones([L, L]), -1, 0), [1, 1, L, L]);
  const norm = (x, name) => {
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, EPSILON))), variables[`${name}.weight`]), variables[`${name}.bias`]);
  };
  const dense = (x, name) => tf.add(tf.matMul(x, variables[`${name}.weight`]), variables[`${name}.bias`]);
  const heads4 = (x) => tf.transpose(tf.reshape(x, [B, L, H, dh]), [0, 2, 1, 3]);
  const loss = () => {
    const x0 = tf.add(tf.reshape(tf.mul(tf.matMul(tokenRows, variables['wte.weight']), scale), [B, L, d]), positionRows);
    const ln1 = tf.reshape(norm(x0, 'h.0.ln_1'), [B * L, d]);
    const [q, k, v] = tf.split(dense(ln1, 'h.0.attn.c_attn'), 3, 1).map(heads4);
    const scores = tf.add(tf.div(tf.matMul(q, k, false, true), Math.sqrt(dh)), tf.mul(tf.sub(1, mask), -1e9));
    const attended = tf.reshape(tf.transpose(tf.matMul(tf.softmax(scores), v), [0, 2, 1, 3]), [B * L, d]);
    const middle = tf.add(tf.reshape(x0, [B * L, d]), dense(attended, 'h.0.attn.c_proj'));
    const u = dense(norm(middle, 'h.0.ln_2'), 'h.0.mlp.c_fc');
    const gelu = tf.mul(tf.mul(0.5, u), tf.add(1, tf.tanh(tf.mul(GELU_SCALE, tf.add(u, tf.mul(0.044715, tf.pow(u, 3)))))));
    const x = tf.add(middle, dense(gelu, 'h.0.mlp.c_proj'));
    const logits = tf.matMul(norm(tf.matMul(targetRows, x), 'ln_f'), variables['wte.weight'], false, true);
    return tf.mean(tf.neg(tf.sum(tf.mul(oneHot, tf.logSoftmax(logits)), -1)));
  };
  return {
    lossAndGradients() {
      return tf.tidy(() => {
        const { value, grads } = tf.variableGrads(loss, Object.values(variables));
        return { loss: value.dataSync()[0], gradients: Object.fromEntries(Object.keys(variables).map((name) => [name, grads[variables[name].name].dataSync()])) };
      });
    },
    dispose() {
      for (const v of Object.values(variables)) v.dispose();
      tf.dispose([tokenRows, positionRows, targetRows, oneHot, mask]);
    },
  };
}

// ---------------------------------------------------------------------------------------------------------

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
function timeIt(fn, { minMs = 1500, minRuns = 5 } = {}) {
  fn();
  const samples = [];
  const started = performance.now();
  while (samples.length < minRuns || performance.now() - started < minMs) {
    const t = performance.now();
    fn();
    samples.push(performance.now() - t);
  }
  return median(samples);
}

const relative = (a, b) => {
  let diff = 0;
  let norm = 0;
  for (let i = 0; i < a.length; i++) {
    diff += (a[i] - b[i]) ** 2;
    norm += b[i] ** 2;
  }
  return Math.sqrt(diff / Math.max(norm, 1e-30));
};

// The digits' rows of a token table, as a [10, dModel] tensor.
function digitRows(table, ids) {
  const d = table.shape[1];
  const data = new Float32Array(ids.length * d);
  ids.forEach((id, i) => data.set(table.data.subarray(id * d, (id + 1) * d), i * d));
  return { data, shape: [ids.length, d] };
}

// The cosine of a token's row with the direction along which the digits' rows grow with their value (least
// squares of the centred rows on the value).
function digitOrder(table, digits) {
  const d = table.shape[1];
  const mean = new Float64Array(d);
  const direction = new Float64Array(d);
  for (let i = 0; i < 10; i++) for (let c = 0; c < d; c++) mean[c] += digits.data[i * d + c] / 10;
  for (let i = 0; i < 10; i++) for (let c = 0; c < d; c++) direction[c] += (i - 4.5) * (digits.data[i * d + c] - mean[c]);
  return (id) => {
    let dot = 0;
    let rowNorm = 0;
    let directionNorm = 0;
    for (let c = 0; c < d; c++) {
      dot += table.data[id * d + c] * direction[c];
      rowNorm += table.data[id * d + c] ** 2;
      directionNorm += direction[c] ** 2;
    }
    return dot / Math.sqrt(rowNorm * directionNorm);
  };
}

// Spearman's rank correlation (values without ties).
function spearman(a, b) {
  const [ra, rb] = [rank(a), rank(b)];
  const n = a.length;
  return 1 - (6 * ra.reduce((sum, r, i) => sum + (r - rb[i]) ** 2, 0)) / (n * (n * n - 1));
}

export async function benchTraining({ engines, threaded, quick, siteRoot }) {
  await registerTfGradients();
  const pe = engines.single;
  const report = { config: CONFIG, step: [], learning: {}, extrapolation: [], words: {}, chromium: null };
  const trainer = pe.trainer(CONFIG);
  const texts = prompts(CONFIG.batchSize, 1, { minItems: 5, maxItems: 5 });
  const batch = batchOf(trainer, texts);
  const positions = pe.sinusoidal({ length: batch.length, dModel: CONFIG.dModel }).data;
  const parameters = trainer.parameters();
  const flops = stepFlops(CONFIG, batch.length);
  const reference = trainer.lossAndGradients(texts);
  const options = { ...CONFIG, scale: Math.sqrt(CONFIG.dModel) };
  const plain = plainLossAndGradients(parameters, batch, positions, options);
  const model = tfModel(parameters, batch, positions, options);
  const viaTf = model.lossAndGradients();
  const gradientError = (gradients) => Math.max(...Object.entries(reference.gradients).map(([name, g]) => relative(gradients[name].data ?? gradients[name], g.data)));
  const rows = [];
  const add = (name, ms, loss, error) => rows.push({ implementation: name, 'ms / step': ms.toFixed(1), 'GFLOP/s': (flops / ms / 1e6).toFixed(1), loss: Number.isFinite(loss) ? loss.toFixed(6) : '', 'gradient rel. error': error });
  for (const [name, engine] of [['posembed wasm SIMD', pe], ...(threaded ? [[`posembed wasm SIMD, ${threaded.threads} threads`, threaded]] : []), ['posembed wasm scalar', engines.scalar]]) {
    const t = engine.trainer(CONFIG);
    const { loss } = t.lossAndGradients(texts);
    add(`${name}: lossAndGradients`, timeIt(() => t.lossAndGradients(texts), { minMs: quick ? 300 : 1500 }), loss, '(reference)');
    // step(): the same work on batches it draws itself, plus AdamW, without crossing into JS per call.
    add(`${name}: step()`, timeIt(() => t.step(), { minMs: quick ? 300 : 1500 }), NaN, '');
    t.dispose();
  }
  add('plain JS', timeIt(() => plainLossAndGradients(parameters, batch, positions, options), { minMs: quick ? 300 : 1500, minRuns: 3 }), plain.loss, gradientError(plain.gradients).toExponential(1));
  add('TensorFlow.js wasm', timeIt(() => model.lossAndGradients(), { minMs: quick ? 300 : 1500, minRuns: 3 }), viaTf.loss, gradientError(viaTf.gradients).toExponential(1));
  model.dispose();
  trainer.dispose();
  console.log(`training step: dModel 64, 1 layer, 4 heads, batch 32 of length ${batch.length} (${(flops / 1e6).toFixed(0)} MFLOP forward and backward); same parameters, same batch`);
  console.table(rows);
  report.step = rows;
  report.stepMflop = flops / 1e6;

  // What it learns (Node, wasm SIMD, one thread).
  const learn = (options, steps, target = 0.99) => {
    const t = pe.trainer({ ...CONFIG, ...options });
    const started = performance.now();
    let reached = null;
    let accuracy = 0;
    while (t.steps < steps) {
      t.step(50);
      accuracy = t.evaluate({ count: 512 }).accuracy;
      if (reached === null && accuracy >= target) reached = { steps: t.steps, seconds: (performance.now() - started) / 1000 };
      if (reached) break;
    }
    return { t, reached, accuracy };
  };
  const learning = [];
  for (const positional of ['sinusoidal', 'learned', 'rope']) {
    const { t, reached, accuracy } = learn({ positional }, quick ? 600 : 3000);
    learning.push({ task: 'mixed', positional, 'held-out accuracy': accuracy.toFixed(3), '99% at step': reached?.steps ?? 'not reached', seconds: reached?.seconds.toFixed(1) ?? '' });
    t.dispose();
  }
  {
    const { t, accuracy } = learn({ task: 'first', positional: 'none' }, quick ? 600 : 3000, 1.01);
    // Order-blind, the best guess is the list's most frequent digit: right max-count / n of the time.
    const order = prompts(20000, 5).map((text) => text.replace(/^\w+/, ''));
    const blind = order.reduce((sum, list) => {
      const items = list.slice(1, -1).split(',');
      const counts = items.reduce((c, v) => c.set(v, (c.get(v) ?? 0) + 1), new Map());
      return sum + Math.max(...counts.values()) / items.length;
    }, 0) / order.length;
    learning.push({ task: 'first', positional: 'none', 'held-out accuracy': accuracy.toFixed(3), '99% at step': `best order-blind guess: ${blind.toFixed(3)}`, seconds: '' });
    t.dispose();
  }
  console.log('what training learns (Node, wasm SIMD, one thread; held-out: 512 examples)');
  console.table(learning);
  report.learning.runs = learning;

  // The tutorials' claim that Max ends up nearer Min than '(', over seeds: 1500 steps of 'mixed' each. Beside it,
  // what the rows do show: the digits' first principal axis orders them by value (Spearman's rho), and Max and Min
  // point to opposite ends of the digits' line (the cosine of each row with the least-squares direction of value).
  const cosines = [];
  for (const positional of ['sinusoidal', 'learned', 'rope']) {
    for (let seed = 0; seed < (quick ? 1 : 5); seed++) {
      const t = pe.trainer({ ...CONFIG, positional, seed });
      t.step(quick ? 300 : 1500);
      const wte = t.parameters()['wte.weight'];
      const cosine = pe.similarity(wte, null, { metric: 'cosine' }).data;
      const id = (token) => t.vocabulary.indexOf(token);
      const at = (a, b) => cosine[id(a) * 20 + id(b)].toFixed(2);
      const digits = digitRows(wte, Array.from({ length: 10 }, (_, d) => id(String(d))));
      const firstAxis = pe.pca(digits, { components: 1 }).data;
      const order = digitOrder(wte, digits);
      cosines.push({ positional, seed, 'held-out accuracy': t.evaluate({ count: 512 }).accuracy.toFixed(3), 'Max·Min': at('Max', 'Min'),
        'Max·(': at('Max', '('), 'Max·First': at('Max', 'First'), '1·2': at('1', '2'), '(·)': at('(', ')'),
        'digits in order (|rho|)': Math.abs(spearman(Array.from(firstAxis), firstAxis.map((_, d) => d))).toFixed(2),
        'Max·value': order(id('Max')).toFixed(2), 'Min·value': order(id('Min')).toFixed(2) });
      t.dispose();
    }
  }
  const nearer = cosines.filter((row) => Number(row['Max·Min']) > Number(row['Max·('])).length;
  const opposite = cosines.filter((row) => Number(row['Max·value']) < Number(row['Min·value'])).length;
  console.log(`token rows after 'mixed' training: Max·Min above Max·( in ${nearer} of ${cosines.length} runs; Max towards the small digits and Min towards the large ones (Max·value < Min·value) in ${opposite}`);
  console.table(cosines);
  report.learning.cosine = cosines;

  // Extrapolation: trained on 2–5 items, tested on 6–10.
  for (const positional of ['none', 'sinusoidal', 'learned', 'rope', 'alibi']) {
    const t = pe.trainer({ ...CONFIG, positional });
    t.step(quick ? 300 : 1500);
    const near = t.evaluate({ count: 512 }).accuracy;
    let far;
    try {
      far = t.evaluate({ count: 512, minItems: 6, maxItems: 10 }).accuracy.toFixed(3);
    } catch (error) {
      far = `cannot run (${error.message.split(':')[0]})`;
    }
    report.extrapolation.push({ positional, steps: t.steps, '2–5 items': near.toFixed(3), '6–10 items': far });
    t.dispose();
  }
  console.log('extrapolation: trained on 2–5 items, tested on 6–10');
  console.table(report.extrapolation);

  const words = pe.wordEmbeddings({ corpus: 'generated', dim: 16, window: 2, negatives: 5, seed: 0 });
  const started = performance.now();
  words.step(3000);
  report.words = {
    steps: 3000, seconds: (performance.now() - started) / 1000,
    king: words.nearest('king', { k: 5 }).map((n) => n.word), apple: words.nearest('apple', { k: 5 }).map((n) => n.word),
  };
  console.log(`word vectors, 3000 steps in ${report.words.seconds.toFixed(1)} s: king → ${report.words.king.join(', ')}; apple → ${report.words.apple.join(', ')}`);
  words.dispose();

  // Chromium: <posembed-train> (mixed, RoPE) on the Train page, from Start to 99% held-out accuracy.
  if (siteRoot) {
    const server = await startServer(siteRoot);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${server.url}train.html`);
      await page.waitForFunction(() => document.querySelector('#main-trainer').dataset.drawn === '0', null, { timeout: 60000 });
      const clicked = Date.now();
      await page.locator('#main-trainer').evaluate((el) => el.shadowRoot.querySelector('[data-action="start"]').click());
      await page.waitForFunction(() => Number(document.querySelector('#main-trainer').dataset.accuracy) >= 0.99, null, { timeout: 120000, polling: 100 });
      const step = await page.locator('#main-trainer').getAttribute('data-step');
      report.chromium = { seconds: (Date.now() - clicked) / 1000, step: Number(step) };
      console.log(`Chromium, <posembed-train task="mixed" positional="rope">: 99% held-out accuracy ${report.chromium.seconds.toFixed(1)} s after Start (step ${step})`);
    } finally {
      await browser.close();
      server.close();
    }
  }
  return report;
}
