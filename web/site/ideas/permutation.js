// Permutation invariance: one attention layer (queries, keys and values all the input rows, as in the
// tutorials' sketch) over First(1,6,2) and First(6,2,1). Without positions the outputs are the same rows in
// another order, so "which number came first" cannot be read off; with positions added they differ.
import { TOY_VOCABULARY, onHost, proseNumber, toyIds, toyTokens } from 'posembed/components';
import { figures, integerField, mountIdea, rows, seededVector } from './idea.js';

const D_MODEL = 16;

// softmax(X Xᵀ / √d) X, the scores from the package; causal: each row attends to itself and the rows before it only.
export async function selfAttention(pe, x, { causal = false } = {}) {
  const [n, d] = x.shape;
  const scores = await onHost(pe.similarity(x, x, { metric: 'dot' }));
  const out = new Float32Array(n * d);
  for (let r = 0; r < n; r++) {
    const row = rows(scores, r).map((s, k) => (causal && k > r ? -Infinity : s / Math.sqrt(d)));
    let largest = -Infinity;
    for (const s of row) largest = Math.max(largest, s);
    let total = 0;
    const weights = row.map((s) => { const w = Math.exp(s - largest); total += w; return w; });
    for (let k = 0; k < n; k++) for (let c = 0; c < d; c++) out[r * d + c] += (weights[k] / total) * x.data[k * d + c];
  }
  return { data: out, shape: [n, d] };
}

// Row r of b minus the row of a holding the same token: all 0 when b's outputs are a's outputs reordered.
function permutedDifference(a, tokensA, b, tokensB) {
  const data = new Float32Array(b.data.length);
  tokensB.forEach((token, r) => {
    const ra = rows(a, tokensA.indexOf(token));
    const rb = rows(b, r);
    for (let c = 0; c < ra.length; c++) data[r * ra.length + c] = rb[c] - ra[c];
  });
  let largest = 0;
  for (const v of data) largest = Math.max(largest, Math.abs(v));
  return { tensor: { data, shape: [...b.shape] }, largest };
}

// The mean of each column of a [rows, columns] tensor.
function columnMeans({ data, shape: [count, columns] }) {
  const means = new Float64Array(columns);
  for (let i = 0; i < data.length; i++) means[i % columns] += data[i] / count;
  return means;
}

// A plain recurrent network's state after each token, h_t = tanh(W h_(t−1) + U x_t), with seeded weights: it reads
// the rows one after another, so its state carries their order with no positions added.
function recurrentStates(x, seed) {
  const [n, d] = x.shape;
  // Uniform in [-1, 1], scaled by 1/√d for a stable recurrence.
  const weights = Float64Array.from(seededVector(seed, 2 * d * d), (v) => v / Math.sqrt(d));
  const [w, u] = [weights.subarray(0, d * d), weights.subarray(d * d)];
  const states = [];
  let h = new Float64Array(d);
  for (let t = 0; t < n; t++) {
    const next = new Float64Array(d);
    for (let i = 0; i < d; i++) {
      let sum = 0;
      for (let j = 0; j < d; j++) sum += w[i * d + j] * h[j] + u[i * d + j] * x.data[t * d + j];
      next[i] = Math.tanh(sum);
    }
    states.push(next);
    h = next;
  }
  return states;
}

export function mountPermutation(pe, section) {
  const [left, right, change, recurrent] = figures(section, [
    { label: 'Attention output for the first expression', in: '.left' },
    { label: 'Attention output for the second expression', in: '.right' },
    { label: 'Each output row of the second expression minus the first\'s row for the same token', title: 'second − first, token by token' },
    { label: 'How far apart a recurrent network\'s states are after each token of the two expressions', title: 'an RNN, for contrast: no positions added' },
  ]);
  const verdict = section.querySelector('.verdict');
  let embedding = null;
  let seedOf = -1;
  return mountIdea(section, [left, right, change, recurrent], async (form) => {
    const seed = integerField(form, 'seed', 0, 4294967295, 'seed');
    const texts = [form.first, form.second];
    const tokens = texts.map((text) => toyTokens(text));
    if (tokens.some((t) => t.length === 0)) throw new RangeError('type an expression in both boxes, such as First(1,6,2)');
    if (tokens.some((t) => t.length > 32)) throw new RangeError('at most 32 tokens in each expression');
    const sorted = tokens.map((t) => [...t].sort().join(' '));
    if (sorted[0] !== sorted[1]) throw new RangeError('the two expressions must hold the same tokens in another order');
    if (seed !== seedOf) {
      embedding?.dispose();
      embedding = pe.tokenEmbedding({ vocabSize: TOY_VOCABULARY.length, dModel: D_MODEL, paddingIdx: 0, scale: 'sqrt', init: { std: 1 / Math.sqrt(D_MODEL), seed } });
      seedOf = seed;
    }
    const outputs = [];
    const states = [];
    for (const t of tokens) {
      const x = await onHost(embedding.lookup(toyIds(t)));
      states.push(recurrentStates(x, seed));
      if (form.positions) {
        const positions = await onHost(pe.sinusoidal({ length: t.length, dModel: D_MODEL }));
        x.data.forEach((v, i) => { x.data[i] = v + positions.data[i]; });
      }
      outputs.push(await selfAttention(pe, x));
    }
    const range = { min: -3, max: 3 };
    [left, right].forEach((figure, i) => {
      figure.heatmap(outputs[i], { range, x: { label: 'dimension' }, y: { label: 'position · token', names: tokens[i].map((t, p) => `${p} ${t}`) }, colour: { label: 'output' } });
      figure.caption = `Output of one attention layer for ${texts[i]}${form.positions ? ', positions added' : ', no positions'}.`;
    });
    const { tensor: differences, largest: difference } = permutedDifference(outputs[0], tokens[0], outputs[1], tokens[1]);
    // Its own colour range, stated: a difference far too small to see on the ±3 of the outputs shows here.
    const limit = Math.max(difference, 1e-6);
    change.heatmap(differences, { range: { min: -limit, max: limit }, x: { label: 'dimension' },
      y: { label: 'position · token', names: tokens[1].map((t, p) => `${p} ${t}`) }, colour: { label: 'difference' } });
    const scale = `Colours from −${proseNumber(limit, 2)} to ${proseNumber(limit, 2)}, ${proseNumber(Math.round(3 / limit))} times finer than the outputs above`;
    change.caption = !form.positions
      ? `${scale}: what is left is float32 rounding (the same numbers summed in another order); the rows are the same, reordered.`
      : `${scale}, where the difference is too small to see: positions change every row a little, differently at each position.`;
    // What is computed from all rows alike, their mean, does not move at all when the rows are reordered.
    const [meanA, meanB] = outputs.map(columnMeans);
    const meanGap = meanA.reduce((most, v, c) => Math.max(most, Math.abs(v - meanB[c])), 0);
    section.dataset.meanDifference = String(meanGap);
    const last = tokens[0].length - 1;
    let lastDifference = 0;
    rows(outputs[0], last).forEach((v, c) => { lastDifference = Math.max(lastDifference, Math.abs(v - outputs[1].data[last * D_MODEL + c])); });
    section.dataset.permutedDifference = String(difference);
    const apart = states[0].map((h, t) => Math.sqrt(h.reduce((sum, v, i) => sum + (v - states[1][t][i]) ** 2, 0)));
    section.dataset.recurrentApart = String(apart.at(-1));
    recurrent.lines([{ label: 'distance between the two states', x: apart.map((_, t) => t), y: apart }],
      { x: { label: 'tokens read' }, y: { label: 'distance', domain: [0, apart.reduce((a, b) => Math.max(a, b), 1)] } });
    recurrent.caption = `A recurrent network (untrained, random weights, the same rows, no positions) reads the tokens one after another: its state after `
      + `the last token is ${apart.at(-1).toFixed(3)} apart for the two expressions, since the order went into it step by step. That is why an RNN needs `
      + 'no positional encoding; the price is reading one token at a time, where attention reads them all at once.';
    verdict.textContent = form.positions
      ? `With positions: the rows are no longer a reordering (largest difference ${proseNumber(difference)} between a token's rows), and the last rows differ by ${proseNumber(lastDifference)}: the model can tell which number came first.`
      : `Without positions: each row of the second output is the row of the same token in the first (largest difference ${proseNumber(difference)}), and the last rows are identical (difference ${proseNumber(lastDifference)}). Attention cannot see order, so First is unanswerable. `
        + `In words: attention is permutation-equivariant (reorder the tokens and its outputs reorder with them), and a summary of all its outputs, such as their mean, is permutation-invariant (here it moves by ${proseNumber(meanGap)}).`;
  });
}
