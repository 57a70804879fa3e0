import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { load, writeNpy } from '../../dist/index.js';
import { MODULES } from './helpers.mjs';

const SMALL = { dModel: 16, heads: 2, batchSize: 8 };

describe('pe.trainer', () => {
  let pe;
  before(async () => { pe = await load(); });
  after(() => assert.equal(pe.memory().liveAllocations, 0, 'heap allocations left behind'));

  it('has the 20-token toy vocabulary, and encodes and decodes toy text', () => {
    const t = pe.trainer(SMALL);
    assert.equal(t.vocabulary.length, 20);
    assert.deepEqual([...t.vocabulary.slice(0, 3), t.vocabulary[15], ...t.vocabulary.slice(17)], ['<pad>', '<end>', '0', 'Max', '(', ')', ',']);
    assert.deepEqual([...t.encode('Max(1,6,2)')], [15, 17, 3, 19, 8, 19, 4, 18]);
    assert.equal(t.decode(t.encode('First( 3, 1 )')), 'First(3,1)');
    assert.throws(() => t.encode('Max(1;2)'), { name: 'RangeError', message: /^text: ';' is not in the toy vocabulary/ });
    assert.throws(() => t.decode([20]), { name: 'RangeError', message: 'ids[0] must be an integer in [0, 19], got 20' });
    t.dispose();
  });

  it('steps lower the loss; evaluation is held out, repeatable and answers every option', () => {
    const t = pe.trainer({ ...SMALL, task: 'max', seed: 3 });
    const before = t.evaluate({ count: 256 });
    assert.deepEqual(t.evaluate({ count: 256 }), before);
    const first = t.step();
    assert.equal(first.step, 1);
    assert.ok(Number.isFinite(first.loss));
    const later = t.step(300);
    assert.equal(later.step, 301);
    assert.equal(t.steps, 301);
    const after = t.evaluate({ count: 256 });
    assert.ok(after.loss < 0.6 * before.loss, `loss ${before.loss} → ${after.loss}`);
    assert.ok(after.accuracy > before.accuracy + 0.2, `accuracy ${before.accuracy} → ${after.accuracy}`);
    const { answer, probabilities } = t.predict('Max(1,6,2)');
    assert.match(answer, /^\d$/);
    assert.ok(probabilities instanceof Float32Array && probabilities.length === 20);
    assert.ok(Math.abs(probabilities.reduce((a, b) => a + b, 0) - 1) < 1e-5);
    assert.equal(t.vocabulary[probabilities.indexOf(Math.max(...probabilities))], answer);
    t.dispose();
  });

  it('copy answers with one token per item', () => {
    const t = pe.trainer({ ...SMALL, task: 'copy' });
    assert.equal(t.predict('(4,0,7)').answer.length, 3);
    assert.throws(() => t.predict('Max(4,0)'), { name: 'RangeError', message: "'Max(4,0)' is not '(' digits separated by ',' ')'" });
    t.dispose();
  });

  it('learned positions cannot evaluate past their table; every other option can', () => {
    for (const positional of ['none', 'sinusoidal', 'learned', 'rope', 'alibi']) {
      const t = pe.trainer({ ...SMALL, positional });
      if (positional === 'learned') {
        assert.throws(() => t.evaluate({ count: 32, minItems: 6, maxItems: 10 }), { name: 'RangeError', message: /^learned positions cover 16 positions \(maxLength\); these examples need 22/ });
        assert.ok(Number.isFinite(t.evaluate({ count: 32 }).loss), 'still usable after the error');
      } else {
        assert.ok(Number.isFinite(t.evaluate({ count: 32, minItems: 6, maxItems: 10 }).loss));
      }
      t.dispose();
    }
  });

  it('the same seed gives the same losses bit for bit on the SIMD, scalar and threaded modules', async () => {
    const losses = [];
    for (const variant of MODULES.filter((m) => !m.options.encodersOnly)) {
      const instance = await load(variant.options);
      const t = instance.trainer({ ...SMALL, positional: 'rope', seed: 9 });
      losses.push(Array.from({ length: 5 }, () => t.step().loss));
      t.dispose();
      instance.dispose();
    }
    assert.deepEqual(losses[1], losses[0]);
    assert.deepEqual(losses[2], losses[0]);
  });

  it('parameters() are copies in GPT-2 names; setParameters() replaces them and keeps the padding row at zero', () => {
    const t = pe.trainer({ ...SMALL, positional: 'learned', layers: 2 });
    const p = t.parameters();
    assert.deepEqual(Object.keys(p).slice(0, 4), ['wte.weight', 'wpe.weight', 'h.0.ln_1.weight', 'h.0.ln_1.bias']);
    assert.deepEqual(p['wte.weight'].shape, [20, 16]);
    assert.deepEqual(p['wpe.weight'].shape, [16, 16]);
    assert.deepEqual(p['h.1.attn.c_attn.weight'].shape, [16, 48]);
    assert.deepEqual(p['h.1.mlp.c_proj.weight'].shape, [64, 16]);
    assert.ok(p['wte.weight'].data.slice(0, 16).every((v) => v === 0), 'padding row');
    p['wte.weight'].data.fill(0.5);  // a copy: the model is unchanged
    assert.notDeepEqual(t.parameters()['wte.weight'].data, p['wte.weight'].data);
    const before = t.evaluate({ count: 64 }).loss;
    t.setParameters({ 'wte.weight': p['wte.weight'] });
    const now = t.parameters()['wte.weight'].data;
    assert.ok(now.slice(0, 16).every((v) => v === 0) && now.slice(16).every((v) => v === 0.5));
    assert.notEqual(t.evaluate({ count: 64 }).loss, before);
    assert.throws(() => t.setParameters({ 'wte.weight': { data: new Float32Array(20 * 16), shape: [16, 20] } }), { name: 'RangeError', message: 'wte.weight.shape must be [20, 16], got an array of length 2 [16, 20]' });
    assert.throws(() => t.setParameters({ 'h.9.ln_1.bias': p['h.0.ln_1.bias'] }), { name: 'RangeError', message: /^'h\.9\.ln_1\.bias' is not a parameter of this model/ });
    assert.throws(() => t.setParameters({ 'ln_f.bias': { data: new Float32Array(16).fill(NaN), shape: [16] } }), { name: 'RangeError', message: 'ln_f.bias.data[0] must be finite, got NaN' });
    t.dispose();
  });

  it('ties its output layer to the token table: the only [vocabulary, d_model] parameter is wte.weight', () => {
    const t = pe.trainer({ ...SMALL, positional: 'learned' });
    const tables = Object.entries(t.parameters()).filter(([, { shape }]) => shape.join() === `20,${SMALL.dModel}`).map(([name]) => name);
    assert.deepEqual(tables, ['wte.weight']);
    t.dispose();
  });

  it('lossAndGradients gives the loss of the prompts given and a gradient for every parameter, matching a finite difference', () => {
    const t = pe.trainer({ ...SMALL, positional: 'sinusoidal', seed: 4 });
    const prompts = ['Max(1,6,2)', 'Min(3,0)', 'First(9,4,4,1)'];
    const { loss, gradients } = t.lossAndGradients(prompts);
    assert.deepEqual(Object.keys(gradients), Object.keys(t.parameters()));
    for (const [name, g] of Object.entries(gradients)) assert.ok(g.data.every(Number.isFinite), name);
    // A central difference on the parameter with the largest gradient (float32: a coarse step).
    const name = 'h.0.mlp.c_fc.weight';
    const g = gradients[name].data;
    const at = g.reduce((best, v, i) => (Math.abs(v) > Math.abs(g[best]) ? i : best), 0);
    const lossWith = (delta) => {
      const moved = t.parameters()[name];
      moved.data[at] += delta;
      t.setParameters({ [name]: moved });
      const value = t.lossAndGradients(prompts).loss;
      moved.data[at] -= delta;
      t.setParameters({ [name]: moved });
      return value;
    };
    const h = 1e-2;
    const numeric = (lossWith(h) - lossWith(-h)) / (2 * h);
    assert.ok(Math.abs(numeric - g[at]) < 0.03 * Math.abs(g[at]), `finite difference ${numeric} against ${g[at]}`);
    // The padding row is a constant zero (setParameters keeps it so; the model reads it as zero): no loss depends
    // on it, through the tied output layer either, so its gradient is 0 under every positional option.
    for (const positional of ['none', 'sinusoidal', 'learned', 'rope', 'alibi']) {
      const other = pe.trainer({ ...SMALL, positional, seed: 4 });
      const padding = other.lossAndGradients(prompts).gradients['wte.weight'];
      other.dispose();
      const width = padding.shape[1];
      assert.deepEqual([...padding.data.subarray(0, width)], new Array(width).fill(0), positional);
      assert.ok(padding.data.subarray(width).some((v) => v !== 0), positional);
    }
    assert.throws(() => t.lossAndGradients(['Max(1,2)', 'Sum(1,2)']), { name: 'RangeError', message: "examples[1]: 'Sum(1,2)': this task's prompts start with Max, Min or First" });
    assert.throws(() => t.lossAndGradients([]), { name: 'TypeError' });
    t.dispose();
  });

  it('save() writes .safetensors that pe.readSafetensors reads back, with the configuration as metadata', () => {
    const t = pe.trainer({ ...SMALL, positional: 'learned' });
    t.step(2);
    const file = t.save();
    const read = pe.readSafetensors(file);
    const parameters = t.parameters();
    assert.deepEqual(Object.keys(read).sort(), Object.keys(parameters).sort());
    for (const [name, tensor] of Object.entries(parameters)) assert.deepEqual(read[name], tensor, name);
    const headerLength = Number(new DataView(file.buffer).getBigUint64(0, true));
    assert.equal(headerLength % 8, 0);
    const header = JSON.parse(new TextDecoder().decode(file.subarray(8, 8 + headerLength)));
    assert.equal(JSON.parse(header.__metadata__.config).positional, 'learned');
    assert.equal(header.__metadata__.step, '2');
    assert.deepEqual(pe.readNpy(writeNpy(parameters['wpe.weight'])), parameters['wpe.weight']);
    t.dispose();
  });

  it('refuses options outside their ranges, naming them', () => {
    const refuse = (opts, name, message) => assert.throws(() => pe.trainer(opts), { name, message });
    refuse({ task: 'sort' }, 'RangeError', "task must be one of 'max', 'min', 'first', 'mixed', 'copy', got 'sort'");
    refuse({ positional: 'alibi2' }, 'RangeError', "positional must be one of 'none', 'sinusoidal', 'learned', 'rope', 'alibi', got 'alibi2'");
    refuse({ dModel: 30 }, 'RangeError', 'dModel must be a multiple of 2 * heads = 8 (an even head size), got 30');
    refuse({ dModel: '64' }, 'TypeError', "dModel must be a number, got '64'");
    refuse({ layers: 9 }, 'RangeError', 'layers must be an integer in [1, 8], got 9');
    refuse({ maxItems: 8 }, 'RangeError', 'maxItems must be at most what maxLength = 16 holds (examples of 8 items take 18 positions), got 8');
    refuse({ learningRate: 0 }, 'RangeError', 'learningRate must be a number in (0, 1], got 0');
    refuse({ learningRate: NaN }, 'RangeError', 'learningRate must be a number in (0, 1], got NaN');
    refuse({ weightDecay: -1 }, 'RangeError', 'weightDecay must be a number in [0, 1], got -1');
    refuse({ scale: 2 }, 'TypeError', 'scale must be a string, got 2');
    refuse({ lr: 0.1 }, 'TypeError', /^trainer options: unknown option 'lr'/);
    const t = pe.trainer(SMALL);
    assert.throws(() => t.step(0), { name: 'RangeError', message: 'n must be an integer in [1, 100000], got 0' });
    assert.throws(() => t.evaluate({ count: 0 }), { name: 'RangeError', message: 'count must be an integer in [1, 65536], got 0' });
    assert.throws(() => t.evaluate({ minItems: 3, maxItems: 2 }), { name: 'RangeError', message: 'maxItems must be an integer in [3, 20], got 2' });
    t.dispose();
    assert.throws(() => t.step(), { message: 'this trainer has been disposed' });
    t.dispose();  // twice is harmless
  });
});

describe('pe.wordEmbeddings', () => {
  let pe;
  before(async () => { pe = await load(); });

  it('learns from the generated corpus: king near queen, apple near orange', () => {
    const w = pe.wordEmbeddings({ corpus: 'generated', dim: 16, window: 2, negatives: 5, seed: 0 });
    assert.ok(w.vocabulary.includes('king') && w.vocabulary.includes('orange'));
    assert.equal(w.sentences.length, 4000);
    const first = w.step(10);
    const last = w.step(1500);
    assert.equal(last.step, 1510);
    assert.ok(last.loss < first.loss);
    const { data, shape } = w.vectors;
    assert.deepEqual(shape, [w.vocabulary.length, 16]);
    assert.equal(data.length, shape[0] * 16);
    const king = w.nearest('king', { k: 5 });
    assert.equal(king.length, 5);
    assert.ok(king.map((n) => n.word).includes('queen'), JSON.stringify(king));
    assert.ok(w.nearest('apple', { k: 5 }).map((n) => n.word).includes('orange'));
    assert.ok(king[0].score >= king[4].score);
    w.dispose();
  });

  it('finds king − man + woman ≈ queen in the generated corpus\'s vectors, and says which word it does not know', () => {
    for (const seed of [0, 1]) {
      const w = pe.wordEmbeddings({ seed });
      w.step(3000);
      const found = w.analogy('king', 'man', 'woman', { k: 3 });
      assert.equal(found[0].word, 'queen', `seed ${seed}: ${JSON.stringify(found)}`);
      assert.ok(found.every(({ word }) => !['king', 'man', 'woman'].includes(word)));
      assert.equal(w.analogy('Prince', 'boy', 'girl')[0].word, 'princess');
      // The score is the cosine of queen's vector with king − man + woman, computed here from the vectors.
      const { data, shape: [, d] } = w.vectors;
      const row = (word) => data.subarray(w.vocabulary.indexOf(word) * d, (w.vocabulary.indexOf(word) + 1) * d);
      const target = row('king').map((v, j) => v - row('man')[j] + row('woman')[j]);
      const queen = row('queen');
      const cosine = target.reduce((s, v, j) => s + v * queen[j], 0) / Math.hypot(...target) / Math.hypot(...queen);
      assert.ok(Math.abs(found[0].score - cosine) < 1e-5, `${found[0].score} vs ${cosine}`);
      assert.throws(() => w.analogy('king', 'man', 'duchess'), { name: 'RangeError', message: "c: 'duchess' is not in the corpus's vocabulary" });
      w.dispose();
    }
  });

  it('takes the caller\'s sentences and refuses what it cannot use', () => {
    const w = pe.wordEmbeddings({ corpus: ['The cat sat.', 'the dog sat'], dim: 4 });
    assert.deepEqual(w.vocabulary, ['the', 'cat', 'sat', 'dog']);
    assert.deepEqual(w.counts, [2, 1, 2, 1]);
    assert.throws(() => w.nearest('horse', { k: 1 }), { name: 'RangeError', message: "word 'horse' is not in the corpus's vocabulary" });
    assert.throws(() => w.nearest('cat', { k: 4 }), { name: 'RangeError', message: 'k must be an integer in [1, 3], got 4' });
    w.dispose();
    assert.throws(() => pe.wordEmbeddings({ corpus: 'wiki' }), { name: 'TypeError', message: "corpus must be 'generated' or an array of sentences (strings), got 'wiki'" });
    assert.throws(() => pe.wordEmbeddings({ corpus: ['a b', 3] }), { name: 'TypeError', message: 'corpus[1] must be a string (a sentence), got 3' });
    assert.throws(() => pe.wordEmbeddings({ corpus: ['one'] }), { name: 'RangeError', message: /^corpus must hold at least two distinct words/ });
    assert.throws(() => pe.wordEmbeddings({ window: 11 }), { name: 'RangeError', message: 'window must be an integer in [1, 10], got 11' });
    assert.throws(() => pe.wordEmbeddings({ learningRate: -0.1 }), { name: 'RangeError', message: 'learningRate must be a number in (0, 1], got -0.1' });
  });
});
