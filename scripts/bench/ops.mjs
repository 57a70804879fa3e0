// The benchmarked ops. Each gives its size, the float64 reference of one output element, which memory limit
// applies (filling or copying the same output bytes), posembed's call (pe, out, context from setup(pe)) that
// returns a tensor (a GpuTensor on the webgpu backend),
// and the peers' implementations, each returning its output.
import * as tf from '@tensorflow/tfjs-core';
import * as ort from 'onnxruntime-web';
import { initializer, intAttribute, model, node } from './onnx-graph.mjs';

function seededUniform(length, seed, scale = 1) {
  let state = seed >>> 0;
  const out = new Float32Array(length);
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = ((state / 2 ** 32) * 2 - 1) * scale;
  }
  return out;
}

function interleavedFrequencies(dModel) {
  return Float32Array.from({ length: dModel / 2 }, (_, i) => 10000 ** (-2 * i / dModel));
}

async function ortSession(graph) {
  return ort.InferenceSession.create(model(graph), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
}

function sinusoidalReference(length, dModel) {
  return (index) => {
    const row = Math.floor(index / dModel);
    const column = index % dModel;
    const angle = row * 10000 ** (-(column - (column % 2)) / dModel);
    return column % 2 ? Math.cos(angle) : Math.sin(angle);
  };
}

export async function sinusoidalOp() {
  const length = 4096;
  const dModel = 1024;
  const half = dModel / 2;
  const freqs = interleavedFrequencies(dModel);
  const positions = Float32Array.from({ length }, (_, i) => i);
  const session = await ortSession({
    nodes: [node('Mul', ['pos', 'freq'], ['angle']), node('Sin', ['angle'], ['s']), node('Cos', ['angle'], ['c']),
      node('Unsqueeze', ['s', 'axis'], ['s3']), node('Unsqueeze', ['c', 'axis'], ['c3']),
      node('Concat', ['s3', 'c3'], ['sc'], [intAttribute('axis', 2)]), node('Reshape', ['sc', 'shape'], ['out'])],
    inputs: [['pos', 'float32', [length, 1]]], outputs: [['out', 'float32', [length, dModel]]],
    initializers: [initializer('freq', freqs, [1, half]), initializer('axis', new BigInt64Array([2n]), [1]), initializer('shape', new BigInt64Array([BigInt(length), BigInt(dModel)]), [2])],
  });
  const ortPositions = new ort.Tensor('float32', positions, [length, 1]);
  const tfFreqs = tf.tensor2d(freqs, [1, half]);
  return {
    name: `sinusoidal [${length} x ${dModel}]`, elements: length * dModel, limit: 'fill', reference: sinusoidalReference(length, dModel),
    posembed: (pe, out) => pe.sinusoidal({ length, dModel, out }),
    impls: {
      'plain JS': () => {
        const out = new Float32Array(length * dModel);
        for (let p = 0; p < length; p++) {
          for (let i = 0; i < half; i++) {
            const angle = p * freqs[i];
            out[p * dModel + 2 * i] = Math.sin(angle);
            out[p * dModel + 2 * i + 1] = Math.cos(angle);
          }
        }
        return out;
      },
      'TensorFlow.js wasm': () => {
        const result = tf.tidy(() => {
          const angle = tf.mul(tf.reshape(tf.range(0, length), [length, 1]), tfFreqs);
          return tf.reshape(tf.stack([tf.sin(angle), tf.cos(angle)], 2), [length, dModel]);
        });
        const data = result.dataSync();
        result.dispose();
        return data;
      },
      'ONNX Runtime Web wasm': async () => (await session.run({ pos: ortPositions })).out.data,
    },
  };
}

export async function lookupOp() {
  const vocabSize = 50257;
  const dModel = 768;
  const count = 8 * 1024;
  const table = seededUniform(vocabSize * dModel, 1, 0.1);
  const ids = Int32Array.from(seededUniform(count, 2), (v) => Math.floor(((v + 1) / 2) * vocabSize));
  const session = await ortSession({
    nodes: [node('Gather', ['table', 'ids'], ['out'])],
    inputs: [['ids', 'int32', [count]]], outputs: [['out', 'float32', [count, dModel]]], initializers: [initializer('table', table, [vocabSize, dModel])],
  });
  const tfTable = tf.tensor2d(table, [vocabSize, dModel]);
  return {
    name: `token lookup [${vocabSize} x ${dModel}], ${count} ids`, elements: count * dModel, limit: 'copy',
    reference: (index) => table[ids[Math.floor(index / dModel)] * dModel + (index % dModel)],
    setup: (pe) => pe.tokenEmbedding({ vocabSize, dModel, weights: { data: table, shape: [vocabSize, dModel] } }),
    posembed: (pe, out, emb) => emb.lookup(ids, { out }),
    impls: {
      'plain JS': () => {
        const out = new Float32Array(count * dModel);
        for (let j = 0; j < count; j++) out.set(table.subarray(ids[j] * dModel, (ids[j] + 1) * dModel), j * dModel);
        return out;
      },
      'TensorFlow.js wasm': () => {
        const result = tf.tidy(() => tf.gather(tfTable, tf.tensor1d(ids, 'int32')));
        const data = result.dataSync();
        result.dispose();
        return data;
      },
      'ONNX Runtime Web wasm': async () => (await session.run({ ids: new ort.Tensor('int32', ids, [count]) })).out.data,
    },
  };
}

export async function fusedOp() {
  const vocabSize = 50257;
  const dModel = 768;
  const batch = 8;
  const seq = 1024;
  const table = seededUniform(vocabSize * dModel, 3, 0.1);
  const ids = Int32Array.from(seededUniform(batch * seq, 4), (v) => Math.floor(((v + 1) / 2) * vocabSize));
  const scale = Math.sqrt(dModel);
  const pe = new Float32Array(seq * dModel);
  const sin = sinusoidalReference(seq, dModel);
  for (let i = 0; i < pe.length; i++) pe[i] = sin(i);
  const session = await ortSession({
    nodes: [node('Gather', ['table', 'ids'], ['rows']), node('Mul', ['rows', 'scale'], ['scaled']), node('Add', ['scaled', 'pe'], ['out'])],
    inputs: [['ids', 'int32', [batch, seq]]], outputs: [['out', 'float32', [batch, seq, dModel]]],
    initializers: [initializer('table', table, [vocabSize, dModel]), initializer('scale', new Float32Array([scale]), []), initializer('pe', pe, [seq, dModel])],
  });
  const tfTable = tf.tensor2d(table, [vocabSize, dModel]);
  const tfPe = tf.tensor2d(pe, [seq, dModel]);
  const reference = (index) => {
    const j = Math.floor(index / dModel);
    const c = index % dModel;
    return table[ids[j] * dModel + c] * scale + sin((j % seq) * dModel + c);
  };
  return {
    name: `fused token * sqrt(d) + position [${batch} x ${seq} x ${dModel}]`, elements: batch * seq * dModel, limit: 'copy', reference,
    setup: (p) => p.transformerEmbedding({ vocabSize, dModel, maxLength: seq, positional: 'sinusoidal', scale: 'sqrt', weights: { data: table, shape: [vocabSize, dModel] } }),
    posembed: (p, out, layer) => layer.forward({ data: ids, shape: [batch, seq] }, { out }),
    impls: {
      'plain JS': () => {
        const out = new Float32Array(batch * seq * dModel);
        for (let j = 0; j < batch * seq; j++) {
          const row = ids[j] * dModel;
          const position = (j % seq) * dModel;
          for (let c = 0; c < dModel; c++) out[j * dModel + c] = table[row + c] * scale + pe[position + c];
        }
        return out;
      },
      'TensorFlow.js wasm': () => {
        const result = tf.tidy(() => tf.add(tf.mul(tf.gather(tfTable, tf.tensor2d(ids, [batch, seq], 'int32')), scale), tfPe));
        const data = result.dataSync();
        result.dispose();
        return data;
      },
      'ONNX Runtime Web wasm': async () => (await session.run({ ids: new ort.Tensor('int32', ids, [batch, seq]) })).out.data,
    },
  };
}

export async function ropeOp() {
  const heads = 32;
  const seq = 2048;
  const headDim = 128;
  const half = headDim / 2;
  const x = seededUniform(heads * seq * headDim, 5);
  const invFreq = Float32Array.from({ length: half }, (_, i) => 10000 ** (-2 * i / headDim));
  const positions = Float32Array.from({ length: seq }, (_, i) => i);
  const session = await ortSession({
    nodes: [node('Mul', ['pos', 'freq'], ['angle']), node('Cos', ['angle'], ['c']), node('Sin', ['angle'], ['s']),
      node('Split', ['x', 'halves'], ['x1', 'x2'], [intAttribute('axis', 2)]),
      node('Mul', ['x1', 'c'], ['x1c']), node('Mul', ['x2', 's'], ['x2s']), node('Sub', ['x1c', 'x2s'], ['first']),
      node('Mul', ['x2', 'c'], ['x2c']), node('Mul', ['x1', 's'], ['x1s']), node('Add', ['x2c', 'x1s'], ['second']),
      node('Concat', ['first', 'second'], ['out'], [intAttribute('axis', 2)])],
    inputs: [['x', 'float32', [heads, seq, headDim]]], outputs: [['out', 'float32', [heads, seq, headDim]]],
    initializers: [initializer('pos', positions, [seq, 1]), initializer('freq', invFreq, [1, half]), initializer('halves', new BigInt64Array([BigInt(half), BigInt(half)]), [2])],
  });
  const tfPositions = tf.tensor2d(positions, [seq, 1]);
  const tfFreq = tf.tensor2d(invFreq, [1, half]);
  const shape = [heads, seq, headDim];
  const reference = (index) => {
    const c = index % headDim;
    const s = Math.floor(index / headDim) % seq;
    const base = index - c;
    const i = c % half;
    const angle = s * 10000 ** (-2 * i / headDim);
    return c < half ? x[base + i] * Math.cos(angle) - x[base + i + half] * Math.sin(angle) : x[base + i + half] * Math.cos(angle) + x[base + i] * Math.sin(angle);
  };
  return {
    name: `RoPE [${heads} x ${seq} x ${headDim}]`, elements: x.length, limit: 'copy', reference,
    posembed: (pe, out) => pe.applyRope({ data: x, shape }, { out }),
    impls: {
      'plain JS': () => {
        const out = new Float32Array(x.length);
        const cos = new Float64Array(seq * half);
        const sin = new Float64Array(seq * half);
        for (let s = 0; s < seq; s++) for (let i = 0; i < half; i++) { cos[s * half + i] = Math.cos(s * invFreq[i]); sin[s * half + i] = Math.sin(s * invFreq[i]); }
        for (let r = 0; r < heads * seq; r++) {
          const s = r % seq;
          for (let i = 0; i < half; i++) {
            const x1 = x[r * headDim + i];
            const x2 = x[r * headDim + half + i];
            out[r * headDim + i] = x1 * cos[s * half + i] - x2 * sin[s * half + i];
            out[r * headDim + half + i] = x2 * cos[s * half + i] + x1 * sin[s * half + i];
          }
        }
        return out;
      },
      'TensorFlow.js wasm': () => {
        const result = tf.tidy(() => {
          const angle = tf.mul(tfPositions, tfFreq);
          const c = tf.cos(angle);
          const s = tf.sin(angle);
          const [x1, x2] = tf.split(tf.tensor3d(x, shape), 2, 2);
          return tf.concat([tf.sub(tf.mul(x1, c), tf.mul(x2, s)), tf.add(tf.mul(x2, c), tf.mul(x1, s))], 2);
        });
        const data = result.dataSync();
        result.dispose();
        return data;
      },
      'ONNX Runtime Web wasm': async () => (await session.run({ x: new ort.Tensor('float32', x, shape) })).out.data,
    },
  };
}

export async function alibiOp() {
  const heads = 16;
  const length = 1024;
  const slopes = Float32Array.from({ length: heads }, (_, h) => 2 ** (-8 * (h + 1) / heads));
  const range = Float32Array.from({ length }, (_, i) => i);
  const session = await ortSession({
    nodes: [node('Sub', ['keys', 'queries'], ['relative']), node('Abs', ['relative'], ['distance']), node('Mul', ['distance', 'negativeSlopes'], ['out'])],
    inputs: [['negativeSlopes', 'float32', [heads, 1, 1]]], outputs: [['out', 'float32', [heads, length, length]]],
    initializers: [initializer('keys', range, [1, length]), initializer('queries', range, [length, 1])],
  });
  const negativeSlopes = Float32Array.from(slopes, (s) => -s);
  const tfKeys = tf.tensor2d(range, [1, length]);
  const tfQueries = tf.tensor2d(range, [length, 1]);
  return {
    name: `ALiBi bias [${heads} x ${length} x ${length}]`, elements: heads * length * length, limit: 'fill',
    reference: (index) => {
      const h = Math.floor(index / (length * length));
      const i = Math.floor(index / length) % length;
      return -slopes[h] * Math.abs(i - (index % length));
    },
    posembed: (pe, out) => pe.alibiBias({ numHeads: heads, queryLength: length, keyLength: length, out }),
    impls: {
      'plain JS': () => {
        const out = new Float32Array(heads * length * length);
        for (let h = 0; h < heads; h++) for (let i = 0; i < length; i++) for (let j = 0; j < length; j++) out[(h * length + i) * length + j] = -slopes[h] * Math.abs(i - j);
        return out;
      },
      'TensorFlow.js wasm': () => {
        const result = tf.tidy(() => tf.mul(tf.reshape(tf.abs(tf.sub(tfKeys, tfQueries)), [1, length, length]), tf.tensor3d(negativeSlopes, [heads, 1, 1])));
        const data = result.dataSync();
        result.dispose();
        return data;
      },
      'ONNX Runtime Web wasm': async () => (await session.run({ negativeSlopes: new ort.Tensor('float32', negativeSlopes, [heads, 1, 1]) })).out.data,
    },
  };
}

export async function similarityOp() {
  const n = 2048;
  const d = 512;
  const a = seededUniform(n * d, 6);
  const b = seededUniform(n * d, 7);
  const bTransposed = new Float32Array(d * n);
  for (let j = 0; j < n; j++) for (let k = 0; k < d; k++) bTransposed[k * n + j] = b[j * d + k];
  const session = await ortSession({
    nodes: [node('MatMul', ['a', 'bT'], ['out'])],
    inputs: [['a', 'float32', [n, d]]], outputs: [['out', 'float32', [n, n]]], initializers: [initializer('bT', bTransposed, [d, n])],
  });
  const tfB = tf.tensor2d(b, [n, d]);
  return {
    name: `similarity (dot) [${n} x ${d}] . [${d} x ${n}]`, elements: n * n, limit: 'fill', slow: true,
    reference: (index) => {
      const i = Math.floor(index / n);
      const j = index % n;
      let sum = 0;
      for (let k = 0; k < d; k++) sum += a[i * d + k] * b[j * d + k];
      return sum;
    },
    posembed: (pe, out) => pe.similarity({ data: a, shape: [n, d] }, { data: b, shape: [n, d] }, { out }),
    impls: {
      'plain JS': () => {
        const out = new Float32Array(n * n);
        for (let i = 0; i < n; i++) {
          for (let j = 0; j < n; j++) {
            let sum = 0;
            for (let k = 0; k < d; k++) sum += a[i * d + k] * b[j * d + k];
            out[i * n + j] = sum;
          }
        }
        return out;
      },
      'TensorFlow.js wasm': () => {
        const result = tf.tidy(() => tf.matMul(tf.tensor2d(a, [n, d]), tfB, false, true));
        const data = result.dataSync();
        result.dispose();
        return data;
      },
      'ONNX Runtime Web wasm': async () => (await session.run({ a: new ort.Tensor('float32', a, [n, d]) })).out.data,
    },
  };
}

export const OPS = [sinusoidalOp, lookupOp, fusedOp, ropeOp, alibiOp, similarityOp];
