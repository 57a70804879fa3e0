// The benchmark's cases, shared by `npm run bench` (Node, with TensorFlow.js and ONNX Runtime Web beside) and
// the site's benchmark page (the reader's browser). Each case gives its name, size, the float64 reference of
// one output element, which memory limit applies (filling or copying the same bytes; hostOnly: no WebGPU kernel), posembed's call
// (pe, out, context from setup(pe)) returning a tensor (a GpuTensor on the webgpu backend), the plain-JS
// implementation, and its inputs for the peers.

export function seededUniform(length, seed, scale = 1) {
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

function sinusoidalReference(dModel) {
  return (index) => {
    const row = Math.floor(index / dModel);
    const column = index % dModel;
    const angle = row * 10000 ** (-(column - (column % 2)) / dModel);
    return column % 2 ? Math.cos(angle) : Math.sin(angle);
  };
}

function randomIds(count, vocabSize, seed) {
  return Int32Array.from(seededUniform(count, seed), (v) => Math.floor(((v + 1) / 2) * vocabSize));
}

export function sinusoidalCase({ length = 4096, dModel = 1024 } = {}) {
  const half = dModel / 2;
  const freqs = interleavedFrequencies(dModel);
  return {
    name: `sinusoidal [${length} x ${dModel}]`, elements: length * dModel, limit: 'fill', reference: sinusoidalReference(dModel),
    inputs: { length, dModel, freqs },
    posembed: (pe, out) => pe.sinusoidal({ length, dModel, out }),
    plainJs: () => {
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
  };
}

export function lookupCase({ vocabSize = 50257, dModel = 768, count = 8 * 1024 } = {}) {
  const table = seededUniform(vocabSize * dModel, 1, 0.1);
  const ids = randomIds(count, vocabSize, 2);
  return {
    name: `token lookup [${vocabSize} x ${dModel}], ${count} ids`, elements: count * dModel, limit: 'copy',
    reference: (index) => table[ids[Math.floor(index / dModel)] * dModel + (index % dModel)],
    inputs: { vocabSize, dModel, count, table, ids },
    setup: (pe) => pe.tokenEmbedding({ vocabSize, dModel, weights: { data: table, shape: [vocabSize, dModel] } }),
    posembed: (pe, out, emb) => emb.lookup(ids, { out }),
    plainJs: () => {
      const out = new Float32Array(count * dModel);
      for (let j = 0; j < count; j++) out.set(table.subarray(ids[j] * dModel, (ids[j] + 1) * dModel), j * dModel);
      return out;
    },
  };
}

export function fusedCase({ vocabSize = 50257, dModel = 768, batch = 8, seq = 1024 } = {}) {
  const table = seededUniform(vocabSize * dModel, 3, 0.1);
  const ids = randomIds(batch * seq, vocabSize, 4);
  const scale = Math.sqrt(dModel);
  const position = sinusoidalReference(dModel);
  const pe = Float32Array.from({ length: seq * dModel }, (_, i) => position(i));
  return {
    name: `fused token * sqrt(d) + position [${batch} x ${seq} x ${dModel}]`, elements: batch * seq * dModel, limit: 'copy',
    reference: (index) => {
      const j = Math.floor(index / dModel);
      const c = index % dModel;
      return table[ids[j] * dModel + c] * scale + position((j % seq) * dModel + c);
    },
    inputs: { vocabSize, dModel, batch, seq, table, ids, scale, pe },
    setup: (p) => p.transformerEmbedding({ vocabSize, dModel, maxLength: seq, positional: 'sinusoidal', scale: 'sqrt', weights: { data: table, shape: [vocabSize, dModel] } }),
    posembed: (p, out, layer) => layer.forward({ data: ids, shape: [batch, seq] }, { out }),
    plainJs: () => {
      const out = new Float32Array(batch * seq * dModel);
      for (let j = 0; j < batch * seq; j++) {
        const row = ids[j] * dModel;
        const at = (j % seq) * dModel;
        for (let c = 0; c < dModel; c++) out[j * dModel + c] = table[row + c] * scale + pe[at + c];
      }
      return out;
    },
  };
}

export function ropeCase({ heads = 32, seq = 2048, headDim = 128 } = {}) {
  const half = headDim / 2;
  const x = seededUniform(heads * seq * headDim, 5);
  const invFreq = Float32Array.from({ length: half }, (_, i) => 10000 ** (-2 * i / headDim));
  const shape = [heads, seq, headDim];
  return {
    name: `RoPE [${heads} x ${seq} x ${headDim}]`, elements: x.length, limit: 'copy',
    reference: (index) => {
      const c = index % headDim;
      const s = Math.floor(index / headDim) % seq;
      const base = index - c;
      const i = c % half;
      const angle = s * 10000 ** (-2 * i / headDim);
      return c < half ? x[base + i] * Math.cos(angle) - x[base + i + half] * Math.sin(angle) : x[base + i + half] * Math.cos(angle) + x[base + i] * Math.sin(angle);
    },
    inputs: { heads, seq, headDim, half, x, invFreq, shape },
    posembed: (pe, out) => pe.applyRope({ data: x, shape }, { out }),
    // x already on the wasm heap (pe.allocate), as where the previous op of a pipeline left it: read in place.
    heapInput: (pe) => {
      const onHeap = pe.allocate(x.length);
      onHeap.data.set(x);
      return onHeap;
    },
    posembedOnHeap: (pe, out, onHeap) => pe.applyRope({ data: onHeap.data, shape }, { out }),
    plainJs: () => {
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
  };
}

// A real model's RoPE cos/sin cache (Llama 3.1's llama3 frequencies, 131,072 positions, HF's half layout): posembed's
// exact cache beside HF's formulas written in plain JS (float64 angles, float32 storage). The output is cos, then sin.
export function ropeCacheCase({ positions: count = 131072 } = {}) {
  const rotaryDim = 128;
  const half = rotaryDim / 2;
  const positions = Int32Array.from({ length: count }, (_, i) => i);
  const cacheElements = count * rotaryDim;
  let invFreq = null;  // the model's frequencies in float64, from setup
  const angle = (index) => {
    const within = index % cacheElements;
    return Math.floor(within / rotaryDim) * invFreq[within % rotaryDim % half];
  };
  return {
    name: `RoPE cache, Llama 3.1 [${count} x ${rotaryDim}] cos and sin`, elements: 2 * cacheElements, limit: 'fill', hostOnly: true,
    reference: (index) => (index < cacheElements ? Math.cos(angle(index)) : Math.sin(angle(index))),
    inputs: { count, rotaryDim },
    setup: (pe) => {
      const spec = pe.modelPositions('Llama-3.1-8B').layer(0).rope;
      invFreq = spec.invFreq;
      return { spec, dispose() {} };
    },
    posembed: (pe, out, { spec }) => {
      if (!out) {
        const { cos, sin } = pe.ropeCache(spec, { positions });
        return { get data() { const both = new Float32Array(2 * cacheElements); both.set(cos.data); both.set(sin.data, cacheElements); return both; } };
      }
      pe.ropeCache(spec, { positions, out: { cos: out.subarray(0, cacheElements), sin: out.subarray(cacheElements) } });
      return { data: out };
    },
    plainJs: () => {
      const out = new Float32Array(2 * cacheElements);
      for (let p = 0; p < count; p++) {
        for (let i = 0; i < half; i++) {
          const a = p * invFreq[i];
          const [c, s] = [Math.cos(a), Math.sin(a)];
          out[p * rotaryDim + i] = out[p * rotaryDim + half + i] = c;
          out[cacheElements + p * rotaryDim + i] = out[cacheElements + p * rotaryDim + half + i] = s;
        }
      }
      return out;
    },
  };
}

export function alibiCase({ heads = 16, length = 1024 } = {}) {
  const slopes = Float32Array.from({ length: heads }, (_, h) => 2 ** (-8 * (h + 1) / heads));
  return {
    name: `ALiBi bias [${heads} x ${length} x ${length}]`, elements: heads * length * length, limit: 'fill',
    reference: (index) => -slopes[Math.floor(index / (length * length))] * Math.abs((Math.floor(index / length) % length) - (index % length)),
    inputs: { heads, length, slopes },
    posembed: (pe, out) => pe.alibiBias({ numHeads: heads, queryLength: length, keyLength: length, out }),
    plainJs: () => {
      const out = new Float32Array(heads * length * length);
      for (let h = 0; h < heads; h++) for (let i = 0; i < length; i++) for (let j = 0; j < length; j++) out[(h * length + i) * length + j] = -slopes[h] * Math.abs(i - j);
      return out;
    },
  };
}

export function similarityCase({ n = 2048, d = 512 } = {}) {
  const a = seededUniform(n * d, 6);
  const b = seededUniform(n * d, 7);
  return {
    name: `similarity (dot) [${n} x ${d}] . [${d} x ${n}]`, elements: n * n, limit: 'fill', slow: true,
    reference: (index) => {
      const i = Math.floor(index / n);
      const j = index % n;
      let sum = 0;
      for (let k = 0; k < d; k++) sum += a[i * d + k] * b[j * d + k];
      return sum;
    },
    inputs: { n, d, a, b },
    posembed: (pe, out) => pe.similarity({ data: a, shape: [n, d] }, { data: b, shape: [n, d] }, { out }),
    plainJs: () => {
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
  };
}

// The middle of the values (of an even count, the mean of the two middle ones).
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

// Sampled positions of an output for the error column: the first, the last and a seeded spread.
export function sampledIndices(elements, count = 4096) {
  const indices = new Set([0, elements - 1]);
  let state = 12345;
  while (indices.size < Math.min(count, elements)) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    indices.add(state % elements);
  }
  return [...indices];
}

export function maxError(output, reference, indices) {
  if (!output || output.length === undefined) return NaN;
  return indices.reduce((worst, i) => Math.max(worst, Math.abs(output[i] - reference(i))), 0);
}
