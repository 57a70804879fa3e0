// The ops of `npm run bench` at DESIGN §5's sizes: the shared cases (web/bench/cases.js) with TensorFlow.js (wasm
// backend; results read with dataSync outside tf.tidy) and ONNX Runtime Web (wasm, small graphs built in
// code) beside them.
import * as tf from '@tensorflow/tfjs-core';
import * as ort from 'onnxruntime-web';
import { alibiCase, fusedCase, lookupCase, ropeCacheCase, ropeCase, similarityCase, sinusoidalCase } from '../../web/bench/cases.js';
import { initializer, intAttribute, model, node } from './onnx-graph.mjs';

async function ortSession(graph) {
  return ort.InferenceSession.create(model(graph), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
}

// Runs a TensorFlow.js computation and returns its data as a typed array.
function tfRun(compute) {
  const result = tf.tidy(compute);
  const data = result.dataSync();
  result.dispose();
  return data;
}

// goal: issue 3's speed goal for the op, { timesLimit } (posembed writing into a caller's buffer, at most
// that many times the memory limit) or { notSlowerThan } (a peer's name); every op's fresh result is also
// meant to be faster than every peer's.
function withPeers(c, peers, goal = null) {
  return { ...c, goal, impls: { 'plain JS': c.plainJs, ...peers } };
}

export async function sinusoidalOp() {
  const c = sinusoidalCase();
  const { length, dModel, freqs } = c.inputs;
  const session = await ortSession({
    nodes: [node('Mul', ['pos', 'freq'], ['angle']), node('Sin', ['angle'], ['s']), node('Cos', ['angle'], ['c']),
      node('Unsqueeze', ['s', 'axis'], ['s3']), node('Unsqueeze', ['c', 'axis'], ['c3']),
      node('Concat', ['s3', 'c3'], ['sc'], [intAttribute('axis', 2)]), node('Reshape', ['sc', 'shape'], ['out'])],
    inputs: [['pos', 'float32', [length, 1]]], outputs: [['out', 'float32', [length, dModel]]],
    initializers: [initializer('freq', freqs, [1, dModel / 2]), initializer('axis', new BigInt64Array([2n]), [1]), initializer('shape', new BigInt64Array([BigInt(length), BigInt(dModel)]), [2])],
  });
  const positions = new ort.Tensor('float32', Float32Array.from({ length }, (_, i) => i), [length, 1]);
  const tfFreqs = tf.tensor2d(freqs, [1, dModel / 2]);
  return withPeers(c, {
    'TensorFlow.js wasm': () => tfRun(() => {
      const angle = tf.mul(tf.reshape(tf.range(0, length), [length, 1]), tfFreqs);
      return tf.reshape(tf.stack([tf.sin(angle), tf.cos(angle)], 2), [length, dModel]);
    }),
    'ONNX Runtime Web wasm': async () => (await session.run({ pos: positions })).out.data,
  }, { timesLimit: 3 });
}

export async function lookupOp() {
  const c = lookupCase();
  const { vocabSize, dModel, count, table, ids } = c.inputs;
  const session = await ortSession({
    nodes: [node('Gather', ['table', 'ids'], ['out'])],
    inputs: [['ids', 'int32', [count]]], outputs: [['out', 'float32', [count, dModel]]], initializers: [initializer('table', table, [vocabSize, dModel])],
  });
  const tfTable = tf.tensor2d(table, [vocabSize, dModel]);
  return withPeers(c, {
    'TensorFlow.js wasm': () => tfRun(() => tf.gather(tfTable, tf.tensor1d(ids, 'int32'))),
    'ONNX Runtime Web wasm': async () => (await session.run({ ids: new ort.Tensor('int32', ids, [count]) })).out.data,
  }, { timesLimit: 1.5 });
}

export async function fusedOp() {
  const c = fusedCase();
  const { vocabSize, dModel, batch, seq, table, ids, scale, pe } = c.inputs;
  const session = await ortSession({
    nodes: [node('Gather', ['table', 'ids'], ['rows']), node('Mul', ['rows', 'scale'], ['scaled']), node('Add', ['scaled', 'pe'], ['out'])],
    inputs: [['ids', 'int32', [batch, seq]]], outputs: [['out', 'float32', [batch, seq, dModel]]],
    initializers: [initializer('table', table, [vocabSize, dModel]), initializer('scale', new Float32Array([scale]), []), initializer('pe', pe, [seq, dModel])],
  });
  const tfTable = tf.tensor2d(table, [vocabSize, dModel]);
  const tfPe = tf.tensor2d(pe, [seq, dModel]);
  return withPeers(c, {
    'TensorFlow.js wasm': () => tfRun(() => tf.add(tf.mul(tf.gather(tfTable, tf.tensor2d(ids, [batch, seq], 'int32')), scale), tfPe)),
    'ONNX Runtime Web wasm': async () => (await session.run({ ids: new ort.Tensor('int32', ids, [batch, seq]) })).out.data,
  }, { timesLimit: 2 });
}

export async function ropeOp() {
  const c = ropeCase();
  const { seq, half, x, invFreq, shape } = c.inputs;
  const positions = Float32Array.from({ length: seq }, (_, i) => i);
  const session = await ortSession({
    nodes: [node('Mul', ['pos', 'freq'], ['angle']), node('Cos', ['angle'], ['c']), node('Sin', ['angle'], ['s']),
      node('Split', ['x', 'halves'], ['x1', 'x2'], [intAttribute('axis', 2)]),
      node('Mul', ['x1', 'c'], ['x1c']), node('Mul', ['x2', 's'], ['x2s']), node('Sub', ['x1c', 'x2s'], ['first']),
      node('Mul', ['x2', 'c'], ['x2c']), node('Mul', ['x1', 's'], ['x1s']), node('Add', ['x2c', 'x1s'], ['second']),
      node('Concat', ['first', 'second'], ['out'], [intAttribute('axis', 2)])],
    inputs: [['x', 'float32', shape]], outputs: [['out', 'float32', shape]],
    initializers: [initializer('pos', positions, [seq, 1]), initializer('freq', invFreq, [1, half]), initializer('halves', new BigInt64Array([BigInt(half), BigInt(half)]), [2])],
  });
  const tfPositions = tf.tensor2d(positions, [seq, 1]);
  const tfFreq = tf.tensor2d(invFreq, [1, half]);
  return withPeers(c, {
    'TensorFlow.js wasm': () => tfRun(() => {
      const angle = tf.mul(tfPositions, tfFreq);
      const [cos, sin] = [tf.cos(angle), tf.sin(angle)];
      const [x1, x2] = tf.split(tf.tensor3d(x, shape), 2, 2);
      return tf.concat([tf.sub(tf.mul(x1, cos), tf.mul(x2, sin)), tf.add(tf.mul(x2, cos), tf.mul(x1, sin))], 2);
    }),
    'ONNX Runtime Web wasm': async () => (await session.run({ x: new ort.Tensor('float32', x, shape) })).out.data,
  }, { timesLimit: 2 });
}

export async function alibiOp(size) {
  const c = alibiCase({ length: size });
  const { heads, length, slopes } = c.inputs;
  const range = Float32Array.from({ length }, (_, i) => i);
  const session = await ortSession({
    nodes: [node('Sub', ['keys', 'queries'], ['relative']), node('Abs', ['relative'], ['distance']), node('Mul', ['distance', 'negativeSlopes'], ['out'])],
    inputs: [['negativeSlopes', 'float32', [heads, 1, 1]]], outputs: [['out', 'float32', [heads, length, length]]],
    initializers: [initializer('keys', range, [1, length]), initializer('queries', range, [length, 1])],
  });
  const negativeSlopes = Float32Array.from(slopes, (s) => -s);
  const tfKeys = tf.tensor2d(range, [1, length]);
  const tfQueries = tf.tensor2d(range, [length, 1]);
  return withPeers(c, {
    'TensorFlow.js wasm': () => tfRun(() => tf.mul(tf.reshape(tf.abs(tf.sub(tfKeys, tfQueries)), [1, length, length]), tf.tensor3d(negativeSlopes, [heads, 1, 1]))),
    'ONNX Runtime Web wasm': async () => (await session.run({ negativeSlopes: new ort.Tensor('float32', negativeSlopes, [heads, 1, 1]) })).out.data,
  }, size === 1024 ? { timesLimit: 2 } : null);
}

export async function similarityOp() {
  const c = similarityCase();
  const { n, d, a, b } = c.inputs;
  const bTransposed = new Float32Array(d * n);
  for (let j = 0; j < n; j++) for (let k = 0; k < d; k++) bTransposed[k * n + j] = b[j * d + k];
  const session = await ortSession({
    nodes: [node('MatMul', ['a', 'bT'], ['out'])],
    inputs: [['a', 'float32', [n, d]]], outputs: [['out', 'float32', [n, n]]], initializers: [initializer('bT', bTransposed, [d, n])],
  });
  const tfB = tf.tensor2d(b, [n, d]);
  return withPeers(c, {
    'TensorFlow.js wasm': () => tfRun(() => tf.matMul(tf.tensor2d(a, [n, d]), tfB, false, true)),
    'ONNX Runtime Web wasm': async () => (await session.run({ a: new ort.Tensor('float32', a, [n, d]) })).out.data,
  }, { notSlowerThan: 'ONNX Runtime Web wasm' });
}

// ALiBi at issue 3's size (16 x 1024 x 1024, its speed goal) and at DESIGN §5's (16 x 2048 x 2048, 256 MiB).
// A model's cos/sin cache: posembed beside HF's formulas in plain JS (no peer computes a model's scaled RoPE cache).
export async function ropeCacheOp() {
  return withPeers(ropeCacheCase(), {});
}

export const OPS = [sinusoidalOp, lookupOp, fusedOp, ropeOp, ropeCacheOp, () => alibiOp(1024), () => alibiOp(2048), similarityOp];

// The sizes the WebGPU path is judged at, posembed alone (wasm against WebGPU; the peers would take minutes).
export const GPU_SIZE_OPS = [
  async () => ({ ...sinusoidalCase({ length: 8192, dModel: 4096 }), impls: {} }),
  async () => ({ ...similarityCase({ n: 4096, d: 512 }), impls: {} }),
];
