import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/index.js';
import { describeEachModule } from './helpers.mjs';

// HF's formulas for the frequencies, written out here in float64 from their definitions (the reference the
// package's C++ rules are checked against).
function plain(base, dim) {
  return Array.from({ length: dim / 2 }, (_, i) => 1 / base ** ((2 * i) / dim));
}
function llama3(base, dim, { factor, lowFreqFactor, highFreqFactor, originalMaxPositions }) {
  return plain(base, dim).map((f) => {
    const wavelength = (2 * Math.PI) / f;
    if (wavelength > originalMaxPositions / lowFreqFactor) return f / factor;
    if (wavelength < originalMaxPositions / highFreqFactor) return f;
    const smooth = (originalMaxPositions / wavelength - lowFreqFactor) / (highFreqFactor - lowFreqFactor);
    return ((1 - smooth) * f) / factor + smooth * f;
  });
}
function yarn(base, dim, { factor, originalMaxPositions, betaFast = 32, betaSlow = 1, truncate = true }) {
  const correction = (rotations) => (dim * Math.log(originalMaxPositions / (rotations * 2 * Math.PI))) / (2 * Math.log(base));
  let low = correction(betaFast);
  let high = correction(betaSlow);
  if (truncate) [low, high] = [Math.floor(low), Math.ceil(high)];
  low = Math.max(low, 0);
  high = Math.min(high, dim - 1);
  if (low === high) high += 0.001;
  return plain(base, dim).map((f, i) => {
    const ramp = Math.min(Math.max((i - low) / (high - low), 0), 1);
    return (f / factor) * ramp + f * (1 - ramp);
  });
}

function assertFrequencies(got, expected, label) {
  assert.equal(got.length, expected.length, `${label}: pairs`);
  got.forEach((w, i) => assert.ok(Math.abs(w - expected[i]) <= 1e-12 * expected[i], `${label} pair ${i}: ${w} vs ${expected[i]}`));
}

// The largest |cache - cos/sin(p·w)·attention| over a cache in HF's layout.
function cacheError({ cos, sin }, positions, invFreq, layout, attention, streamOf = () => 0) {
  const width = cos.shape.at(-1);
  const half = width / 2;
  const count = cos.data.length / width;
  let worst = 0;
  for (let r = 0; r < count; r++) {
    for (let c = 0; c < width; c++) {
      const pair = layout === 'half' ? c % half : Math.floor(c / 2);
      const angle = positions[streamOf(pair)][r] * invFreq[pair];
      worst = Math.max(worst, Math.abs(cos.data[r * width + c] - Math.cos(angle) * attention), Math.abs(sin.data[r * width + c] - Math.sin(angle) * attention));
    }
  }
  return worst;
}

describe('modelPositions: every preset as HF reads its config', () => {
  let pe;
  before(async () => { pe = await load(); });

  it('reads every preset, with the facts of each model', () => {
    assert.ok(Object.keys(pe.modelPresets).length >= 19);
    for (const name of Object.keys(pe.modelPresets)) {
      const m = pe.modelPositions(name);
      assert.ok(m.numLayers > 0, name);
      for (let i = 0; i < m.numLayers; i++) assert.ok(m.layer(i).scoreScale > 0, `${name} layer ${i}`);
    }
    const llama = pe.modelPositions('Llama-3.1-8B').layer(0);
    assert.deepEqual([llama.kind, llama.rope.type, llama.rope.headDim, llama.rope.rotaryDim, llama.rope.layout, llama.rope.base], ['rope', 'llama3', 128, 128, 'half', 500000]);
    assertFrequencies(llama.rope.invFreq, llama3(500000, 128, { factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositions: 8192 }), 'Llama-3.1');
    assert.equal(llama.scoreScale, 128 ** -0.5);

    const phi = pe.modelPositions('Phi-3.5-mini-instruct').layer(0).rope;
    assert.equal(phi.type, 'longrope');
    assert.equal(phi.scaling.factor, 32);  // max / original max: the file has no factor
    assert.ok(Math.abs(phi.attentionFactor - Math.sqrt(1 + Math.log(32) / Math.log(4096))) < 1e-15);
    const short = pe.modelPresets['Phi-3.5-mini-instruct'].rope_scaling.short_factor;
    assertFrequencies(phi.invFreq, plain(10000, 96).map((f, i) => f / short[i]), 'Phi-3.5 at its trained length (short factors)');

    const deepseek = pe.modelPositions('DeepSeek-V3').layer(0);
    assert.deepEqual([deepseek.rope.headDim, deepseek.rope.rotaryDim, deepseek.rope.layout], [64, 64, 'interleaved']);
    assert.equal(deepseek.rope.attentionFactor, 1);  // mscale / mscale_all_dim = 1
    const mscale = 0.1 * Math.log(40) + 1;
    assert.ok(Math.abs(deepseek.scoreScale - 192 ** -0.5 * mscale * mscale) < 1e-15, 'softmax scale × mscale²');
    assertFrequencies(deepseek.rope.invFreq, yarn(10000, 64, { factor: 40, originalMaxPositions: 4096 }), 'DeepSeek-V3');

    const gemma = pe.modelPositions('gemma-3-4b-it');
    assert.deepEqual(gemma.layerTypes.slice(0, 6), ['sliding_attention', 'sliding_attention', 'sliding_attention', 'sliding_attention', 'sliding_attention', 'full_attention']);
    assert.deepEqual([gemma.layer(0).rope.base, gemma.layer(0).rope.type], [10000, 'default']);
    assert.deepEqual([gemma.layer(5).rope.base, gemma.layer(5).rope.type, gemma.layer(5).rope.scaling.factor], [1e6, 'linear', 8]);
    assert.equal(gemma.layer(0).scoreScale, 256 ** -0.5);  // query_pre_attn_scalar

    assert.deepEqual([pe.modelPositions('gpt-neox-20b').layer(0).rope.rotaryDim, pe.modelPositions('gpt-neox-20b').layer(0).rope.headDim], [24, 96]);
    const gptj = pe.modelPositions('gpt-j-6b').layer(0).rope;
    assert.deepEqual([gptj.headDim, gptj.rotaryDim, gptj.layout], [256, 64, 'interleaved']);

    const qwenVl = pe.modelPositions('Qwen2.5-VL-7B-Instruct').layer(0).rope;
    assert.deepEqual([qwenVl.type, qwenVl.mropeSection, qwenVl.mropeInterleaved], ['default', [16, 24, 24], false]);

    const scout = pe.modelPositions('Llama-4-Scout-17B-16E-Instruct');
    assert.deepEqual(scout.layerTypes.slice(0, 8), ['rope', 'rope', 'rope', 'nope', 'rope', 'rope', 'rope', 'nope']);
    assert.equal(scout.layer(3).kind, 'none');
    assert.deepEqual(scout.layer(3).queryScale, { beta: 0.1, floor: 8192, shift: 1 });
    assert.equal(scout.layer(0).rope.layout, 'interleaved');

    const ministral = pe.modelPositions('Ministral-3-3B-Reasoning-2512_transformers-v5').layer(0).rope;
    assert.deepEqual([ministral.type, ministral.base, ministral.scaling.factor], ['yarn', 1e6, 16]);
    assert.deepEqual(ministral.queryScale, { beta: 0.1, floor: 16384, shift: 0 });

    const bloom = pe.modelPositions('bloom-560m').layer(0);
    assert.equal(bloom.kind, 'alibi');
    Array.from(bloom.alibi.slopes).forEach((s, i) => assert.ok(Math.abs(s - 2 ** (-0.5 * (i + 1))) < 1e-15, `BLOOM slope ${i}`));
    const t5 = pe.modelPositions('t5-small');
    assert.deepEqual([t5.layer(0).t5, t5.layer(6).t5.bidirectional, t5.layer(0).scoreScale], [{ numBuckets: 32, maxDistance: 128, bidirectional: true }, false, 1]);
    assert.deepEqual(pe.modelPositions('opt-125m').layer(0).learned, { maxPositions: 2048, offset: 2 });
    assert.deepEqual(pe.modelPositions('gpt2').layer(0).learned, { maxPositions: 1024, offset: 0 });
  });

  it('ALiBi: MPT builds its slopes for 12 heads unlike BLOOM (the paper), each as that model does', () => {
    const mpt = pe.modelPositions({ model_type: 'mpt', d_model: 768, n_heads: 12, n_layers: 2, max_seq_len: 2048, attn_config: { alibi: true, alibi_bias_max: 8 } }).layer(0);
    const bloom = pe.modelPositions({ model_type: 'bloom', hidden_size: 768, n_head: 12, n_layer: 2 }).layer(0);
    // MPT: 2^-(m/2) for m = 1..16, odd entries (m even) first, then even (m odd), the first 12.
    const padded = Array.from({ length: 16 }, (_, i) => 2 ** (-(i + 1) / 2));
    const mptExpected = [...padded.filter((_, i) => i % 2 === 1), ...padded.filter((_, i) => i % 2 === 0)].slice(0, 12);
    Array.from(mpt.alibi.slopes).forEach((s, i) => assert.ok(Math.abs(s - mptExpected[i]) < 1e-15, `MPT slope ${i}`));
    // BLOOM: 2^-(i+1) for 8 heads, then odd powers of 2^-0.5 for the other 4.
    const bloomExpected = [...Array.from({ length: 8 }, (_, i) => 2 ** -(i + 1)), ...[1, 3, 5, 7].map((k) => 2 ** (-0.5 * k))];
    Array.from(bloom.alibi.slopes).forEach((s, i) => assert.ok(Math.abs(s - bloomExpected[i]) < 1e-15, `BLOOM slope ${i}`));
    assert.notDeepEqual(Array.from(mpt.alibi.slopes), Array.from(bloom.alibi.slopes));
  });

  it('v5 rope_parameters per layer type, text_config, partial rotary and truncate: false', () => {
    const config = {
      model_type: 'gemma3', text_config: {
        model_type: 'gemma3_text', head_dim: 128, hidden_size: 1024, num_attention_heads: 8, num_hidden_layers: 3, max_position_embeddings: 32768,
        layer_types: ['sliding_attention', 'full_attention', 'sliding_attention'],
        rope_parameters: { sliding_attention: { rope_type: 'default', rope_theta: 10000 }, full_attention: { rope_type: 'yarn', rope_theta: 1e6, factor: 8, original_max_position_embeddings: 4096, truncate: false } },
      },
    };
    const m = pe.modelPositions(config);
    assert.deepEqual(m.layerTypes, config.text_config.layer_types);
    assert.deepEqual([m.layer(0).rope.base, m.layer(1).rope.base, m.layer(1).rope.type], [10000, 1e6, 'yarn']);
    assertFrequencies(m.layer(1).rope.invFreq, yarn(1e6, 128, { factor: 8, originalMaxPositions: 4096, truncate: false }), 'yarn, truncate false');
    const phi = pe.modelPositions({ model_type: 'phi', hidden_size: 2560, num_attention_heads: 32, num_hidden_layers: 1, max_position_embeddings: 2048, partial_rotary_factor: 0.4 });
    assert.deepEqual([phi.layer(0).rope.headDim, phi.layer(0).rope.rotaryDim], [80, 32]);
  });

  it('refuses unknown and contradictory keys, naming them', () => {
    const llama = (extra) => ({ model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, num_hidden_layers: 2, max_position_embeddings: 8192, ...extra });
    const cases = [
      [llama({ rope_scaling: { rope_type: 'linear', factor: 2, scale: 3 } }), /rope_scaling\.scale is not a key posembed knows/],
      [llama({ rope_scaling: { type: 'linear', rope_type: 'dynamic', factor: 2 } }), /rope_scaling\.type \('linear'\) and rope_scaling\.rope_type \('dynamic'\) disagree/],
      [llama({ rope_scaling: { rope_type: 'ntk-by-parts', factor: 4 } }), /rope_scaling\.rope_type must be one of/],
      [llama({ rope_scaling: { factor: 2, rope_type: 'linear' }, rope_parameters: { rope_type: 'default' } }), /rope_scaling \(v4\) and rope_parameters \(v5\) are both given/],
      [llama({ rope_theta: 10000, rope_parameters: { rope_type: 'default', rope_theta: 500000 } }), /rope_theta \(10000\) and rope_parameters\.rope_theta \(500000\) disagree/],
      [llama({ rope_scaling: { rope_type: 'default', mrope_interleaved: true } }), /rope_scaling\.mrope_interleaved: HF's llama has no mRoPE \(families with it: qwen2_vl_text/],
      [llama({ rope_scaling: { rope_type: 'default', mrope_section: [16, 24, 24] } }), /rope_scaling\.mrope_section: HF's llama has no mRoPE/],
      [llama({ model_type: 'mamba' }), /model_type 'mamba' has no attention and no positions/],
      [llama({ model_type: 'lama' }), /model_type 'lama' is not an HF family posembed reads\. read it as the family its code follows with modelPositions\(config, \{ as: 'llama' \}\) \(--as on the command line\) \(closest: llama/],
      [llama({ model_type: 'phimoe' }), /model_type 'phimoe' is an HF family posembed does not read yet: its LongRoPE multiplies cos and sin by short_mscale/],
      [{ hidden_size: 64 }, /model_type is missing/],
      [llama({ rope_scaling: { rope_type: 'linear', factor: 0.5 } }), /^RangeError: config: rope_scaling\.factor must be a number in \[1, 1000000\], got 0\.5$/],
      [llama({ rope_scaling: { rope_type: 'yarn', factor: 4, beta_fast: -1 } }), /^RangeError: config: rope_scaling\.beta_fast must be a number in \(0, 1000000\], got -1$/],
      [llama({ num_hidden_layers: 0 }), /num_hidden_layers must be a positive integer, got 0/],
    ];
    for (const [config, message] of cases) assert.throws(() => pe.modelPositions(config), message);
    assert.throws(() => pe.modelPositions('Llama-9'), /no preset named 'Llama-9'; presets: DeepSeek-V3/);
    assert.throws(() => pe.modelPositions('gpt2').layer(12), /layer must be an integer in \[0, 11\], got 12/);
  });
});

describeEachModule('ropeCache', (instance) => {
  let pe;
  before(() => { pe = instance(); });

  it('exact: within 2e-6 of the float64 maths at positions up to 2^24, every RoPE layer of every preset', () => {
    let compared = 0;
    const positions = Int32Array.from([0, 1, 2, 4095, 4096, 4097, 131071, 2 ** 24 - 1, 2 ** 24]);
    for (const name of Object.keys(pe.modelPresets)) {
      const model = pe.modelPositions(name);
      // Every distinct RoPE layer of the model (Gemma 3's local and global ones).
      const layers = [...new Set(model.layerTypes)].map((type) => model.layerTypes.indexOf(type)).filter((i) => model.layer(i).kind === 'rope');
      for (const layer of layers) {
        const spec = model.layer(layer).rope;
        const cache = pe.ropeCache(spec, { positions });
        assert.deepEqual(cache.cos.shape, [positions.length, spec.rotaryDim]);
        // LongRoPE past the original length: the long factors, chosen by max(positions) + 1.
        const invFreq = spec.type === 'longrope'
          ? plain(spec.base, spec.rotaryDim).map((f, i) => f / spec.scaling.longFactor[i]) : spec.invFreq;
        const error = cacheError(cache, [positions], invFreq, spec.layout, spec.attentionFactor);
        assert.ok(error <= 2e-6, `${name} layer ${layer}: ${error}`);
        compared++;
      }
    }
    assert.ok(compared >= 15, `${compared} RoPE layers compared`);
  });

  it('[batch, seq] positions and mRoPE [3, batch, seq]: shapes, and each pair from its stream', () => {
    const llama = pe.modelPositions('Llama-3.1-8B').layer(0).rope;
    const batch = pe.ropeCache(llama, { positions: { data: Int32Array.from([0, 1, 2, 10, 11, 12]), shape: [2, 3] } });
    assert.deepEqual(batch.cos.shape, [2, 3, 128]);
    const spec = pe.modelPositions('Qwen2.5-VL-7B-Instruct').layer(0).rope;
    const streams = [[0, 1, 2, 3], [0, 5, 5, 6], [0, 7, 8, 8]];
    const cache = pe.ropeCache(spec, { positions: { data: Int32Array.from(streams.flat()), shape: [3, 1, 4] } });
    assert.deepEqual(cache.cos.shape, [1, 4, 128]);
    const stream = (pair) => (pair < 16 ? 0 : pair < 40 ? 1 : 2);
    assert.ok(cacheError(cache, streams, spec.invFreq, 'half', 1, stream) <= 2e-6);
    // Text positions alone serve all three streams (HF expands them).
    const text = pe.ropeCache(spec, { positions: [0, 1, 2, 3] });
    assert.ok(cacheError(text, [[0, 1, 2, 3]], spec.invFreq, 'half', 1) <= 2e-6);
    const interleaved = { ...spec, mropeSection: [24, 20, 20], mropeInterleaved: true };
    const qwen3 = pe.ropeCache(interleaved, { positions: { data: Int32Array.from(streams.flat()), shape: [3, 1, 4] } });
    const stream3 = (i) => (i % 3 === 1 && i < 60 ? 1 : i % 3 === 2 && i < 60 ? 2 : 0);
    assert.ok(cacheError(qwen3, streams, spec.invFreq, 'half', 1, stream3) <= 2e-6);
    // A 2-D tensor is [batch, seq] for every family, mRoPE's too: text positions for all three streams, as HF reads it.
    const textBatch = pe.ropeCache(spec, { positions: { data: Int32Array.from([0, 1, 2, 3, 5, 6, 7, 8]), shape: [2, 4] } });
    assert.deepEqual(textBatch.cos.shape, [2, 4, 128]);
    assert.ok(cacheError(textBatch, [[0, 1, 2, 3, 5, 6, 7, 8]], spec.invFreq, 'half', 1) <= 2e-6);
    assert.throws(() => pe.ropeCache(spec, { positions: { data: new Int32Array(8), shape: [2, 1, 4] } }), /the first dimension must be 3, got \[2,1,4\]/);
    assert.throws(() => pe.ropeCache(llama, { positions: [0, -1] }), /positions\[1\] must be an integer in \[0, 2147483647\], got -1/);
    assert.throws(() => pe.ropeCache(llama, { positions: [0], precision: 'fp8' }), /precision must be one of 'exact', 'float32', 'bfloat16', 'float16', got 'fp8'/);
  });

  it('float32 follows HF\'s float32 order; bfloat16 and float16 are that cache rounded to the dtype', () => {
    const spec = pe.modelPositions('Llama-3.1-8B').layer(0).rope;
    const positions = Int32Array.from([0, 1, 1000, 131071, 2 ** 24 + 1]);
    const f32 = pe.ropeCache(spec, { positions, precision: 'float32' });
    // HF's float32: the angle float(w)·float(p) rounded to float, its cos; float(2^24 + 1) is 2^24.
    const w32 = Float32Array.from(llama3(500000, 128, { factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositions: 8192 }));
    for (let r = 0; r < positions.length; r++) {
      for (let i = 0; i < 64; i++) {
        const angle = Math.fround(w32[i] * Math.fround(positions[r]));
        assert.ok(Math.abs(f32.cos.data[r * 128 + i] - Math.cos(angle)) <= 2 ** -23 + 2e-7 * w32[i] * positions[r], `row ${r} pair ${i}`);
      }
    }
    // The float32 cache is far from the exact maths at long positions (what a port sees), the exact one is not.
    const exact = pe.ropeCache(spec, { positions });
    let gap = 0;
    for (let j = 0; j < exact.cos.data.length; j++) gap = Math.max(gap, Math.abs(exact.cos.data[j] - f32.cos.data[j]));
    assert.ok(gap > 1e-3, `float32 at 2^24 should be visibly off: ${gap}`);
    const bf16 = pe.ropeCache(spec, { positions, precision: 'bfloat16' });
    const bits = new Uint32Array(bf16.cos.data.buffer);
    assert.ok(bits.every((b) => (b & 0xffff) === 0), 'bfloat16 values keep 8 significant bits');
    bf16.cos.data.forEach((v, j) => assert.ok(Math.abs(v - f32.cos.data[j]) <= Math.abs(f32.cos.data[j]) * 2 ** -8));
    const f16 = pe.ropeCache(spec, { positions, precision: 'float16' });
    f16.cos.data.forEach((v, j) => assert.ok(Math.abs(v - f32.cos.data[j]) <= Math.abs(f32.cos.data[j]) * 2 ** -11 + 2 ** -25));
  });
});

describeEachModule('a model\'s layer applied: applyRope with a spec and [batch, seq] positions, ALiBi slopes, T5\'s decoder step', (instance) => {
  let pe;
  before(() => { pe = instance(); });

  // HF's apply_rotary_pos_emb on one vector: x·cos + rotate(x)·sin over the rotary part, the rest passed through.
  function hfRotate(x, cos, sin, layout, rotaryDim) {
    const out = Array.from(x);
    const half = rotaryDim / 2;
    for (let c = 0; c < rotaryDim; c++) {
      const partner = layout === 'half' ? (c < half ? -x[c + half] : x[c - half]) : (c % 2 === 0 ? -x[c + 1] : x[c - 1]);
      out[c] = x[c] * cos[c] + partner * sin[c];
    }
    return out;
  }

  it('turns x [batch, heads, seq, headDim] by each batch row\'s positions, every layout and partial rotary', () => {
    for (const [name, layer] of [['Llama-3.1-8B', 0], ['DeepSeek-V3', 0], ['gpt-neox-20b', 0], ['Phi-3.5-mini-instruct', 0]]) {
      const spec = pe.modelPositions(name).layer(layer).rope;
      const [batch, heads, seq, d] = [2, 3, 4, spec.headDim];
      const x = Float32Array.from({ length: batch * heads * seq * d }, (_, i) => Math.sin(i * 0.37) * 2);
      const positions = { data: Int32Array.from([0, 1, 2, 3, 9000, 9001, 9002, 131071]), shape: [batch, seq] };
      const rotated = pe.applyRope({ data: x, shape: [batch, heads, seq, d] }, { spec, positions });
      assert.deepEqual(rotated.shape, [batch, heads, seq, d]);
      const cache = pe.ropeCache(spec, { positions });
      let worst = 0;
      for (let b = 0; b < batch; b++) {
        for (let h = 0; h < heads; h++) {
          for (let t = 0; t < seq; t++) {
            const at = ((b * heads + h) * seq + t) * d;
            const row = (b * seq + t) * spec.rotaryDim;
            const expected = hfRotate(x.subarray(at, at + d), cache.cos.data.subarray(row, row + spec.rotaryDim), cache.sin.data.subarray(row, row + spec.rotaryDim), spec.layout, spec.rotaryDim);
            expected.forEach((v, c) => { worst = Math.max(worst, Math.abs(rotated.data[at + c] - v)); });
          }
        }
      }
      assert.ok(worst <= 2e-6, `${name}: ${worst}`);
    }
    const spec = pe.modelPositions('Llama-3.1-8B').layer(0).rope;
    assert.throws(() => pe.applyRope({ data: new Float32Array(128), shape: [1, 128] }, { spec, positions: [0], base: 10 }), /base comes from the spec/);
    assert.throws(() => pe.applyRope({ data: new Float32Array(64), shape: [1, 64] }, { spec, positions: [0] }), /x\.shape\[-1\] must be the spec's headDim 128, got 64/);
    assert.throws(() => pe.applyRope({ data: new Float32Array(256), shape: [1, 2, 128] }, { spec, positions: { data: new Int32Array(4), shape: [2, 2] } }),
      /positions \[batch, seq\] = \[2,2\] go with x \[batch, heads, seq, headDim\] of the same batch/);
  });

  it('alibiBias takes a model\'s own slopes (MPT\'s), and T5\'s bias a decoder step\'s query offset', () => {
    const mpt = pe.modelPositions({ model_type: 'mpt', d_model: 768, n_heads: 12, n_layers: 1, max_seq_len: 2048, attn_config: { alibi: true } }).layer(0).alibi.slopes;
    const bias = pe.alibiBias({ numHeads: 12, queryLength: 2, keyLength: 5, slopes: mpt });
    for (let h = 0; h < 12; h++) {
      for (let i = 0; i < 2; i++) {
        for (let j = 0; j < 5; j++) assert.equal(bias.data[(h * 2 + i) * 5 + j], Math.fround(-Math.fround(mpt[h]) * Math.abs(3 + i - j)));
      }
    }
    assert.throws(() => pe.alibiBias({ numHeads: 12, keyLength: 5, slopes: mpt.slice(1) }), /slopes must hold numHeads = 12 values, got 11/);
    // A decoder's 51st step (query 50 of 51 keys) is the last row of the whole 51 × 51 bias, not row 0.
    const table = { data: Float32Array.from({ length: 32 * 8 }, (_, i) => Math.cos(i)), shape: [32, 8] };
    const whole = pe.t5Bias(table, { queryLength: 51, keyLength: 51, bidirectional: false });
    const step = pe.t5Bias(table, { queryLength: 1, keyLength: 51, queryOffset: 50, bidirectional: false });
    assert.deepEqual(step.shape, [8, 1, 51]);
    for (let h = 0; h < 8; h++) assert.deepEqual(step.data.subarray(h * 51, (h + 1) * 51), whole.data.subarray((h * 51 + 50) * 51, (h * 51 + 51) * 51));
    const unshifted = pe.t5Bias(table, { queryLength: 1, keyLength: 51, bidirectional: false });
    assert.notDeepEqual(Array.from(unshifted.data), Array.from(step.data));
    assert.throws(() => pe.t5Bias(table, { queryLength: 1, keyLength: 51, queryOffset: -1 }), /queryOffset must be an integer in \[0, /);
  });
});

describe('checkRopeCache: verdicts by error bounds, and the mistake that explains a mismatch', () => {
  let pe;
  before(async () => { pe = await load(); });
  const positions = Int32Array.from({ length: 64 }, (_, i) => i * 2053);  // up to 129339: long positions, where ports diverge

  // Another float32 implementation than posembed's: frequencies and angles with Math.fround, cos in double.
  function otherFloat32(spec, rows, { cast } = {}) {
    const w = Float32Array.from(spec.invFreq);
    const half = spec.rotaryDim / 2;
    const cos = new Float32Array(rows.length * spec.rotaryDim);
    const sin = new Float32Array(rows.length * spec.rotaryDim);
    const a = Math.fround(spec.attentionFactor);
    rows.forEach((p, r) => {
      for (let c = 0; c < spec.rotaryDim; c++) {
        const pair = spec.layout === 'half' ? c % half : Math.floor(c / 2);
        const angle = Math.fround(w[pair] * Math.fround(p));
        cos[r * spec.rotaryDim + c] = Math.fround(Math.cos(angle) * a);
        sin[r * spec.rotaryDim + c] = Math.fround(Math.sin(angle) * a);
      }
    });
    if (cast === 'float16') {
      // Round to 11 significant bits (values below 2^-14 to multiples of 2^-24), ties to even as the dtype cast does.
      const round = (v) => {
        if (v === 0) return v;
        const step = 2 ** (Math.max(Math.floor(Math.log2(Math.abs(v))), -14) - 10);
        const q = v / step;
        const n = Math.round(q);
        return (Math.abs(q - Math.trunc(q)) === 0.5 && n % 2 !== 0 ? n - 1 : n) * step;
      };
      cos.forEach((v, j) => { cos[j] = round(v); });
      sin.forEach((v, j) => { sin[j] = round(v); });
    }
    const shape = [rows.length, spec.rotaryDim];
    return { cos: { data: cos, shape }, sin: { data: sin, shape: [...shape] } };
  }

  it('exact, float32 (another implementation), float16 and bfloat16 caches are told apart', () => {
    const spec = pe.modelPositions('Llama-3.1-8B').layer(0).rope;
    assert.equal(pe.checkRopeCache(spec, { ...pe.ropeCache(spec, { positions }), positions }).verdict, 'exact');
    const other = pe.checkRopeCache(spec, { ...otherFloat32(spec, positions), positions });
    assert.equal(other.verdict, 'float32', other.explanation);
    assert.ok(other.maxAbs > 1e-3, 'a float32 cache at 129k is 1e-3 off, and still consistent');
    assert.equal(pe.checkRopeCache(spec, { ...otherFloat32(spec, positions, { cast: 'float16' }), positions }).verdict, 'float16');
    assert.equal(pe.checkRopeCache(spec, { ...pe.ropeCache(spec, { positions, precision: 'bfloat16' }), positions }).verdict, 'bfloat16');
  });

  // A cache made with each mistake, and the suspect the checker must name.
  const mistakes = [
    ['layout', 'Llama-3.1-8B', (spec) => ({ spec: { ...spec, layout: 'interleaved' } })],
    ['base', 'Llama-3.1-8B', (spec) => ({ spec: { ...spec, base: 10000 } })],
    ['scaling-ignored', 'Llama-3.1-8B', (spec) => ({ spec: { ...spec, scaling: { type: 'default' } } })],
    ['scaling-factor', 'gemma-3-4b-it', (spec) => ({ spec: { ...spec, scaling: { ...spec.scaling, factor: 4 } } }), 5],
    ['attention-factor', 'Phi-3.5-mini-instruct', (spec) => ({ spec: { ...spec, scaling: { ...spec.scaling, attentionFactor: 1 } } })],
    ['position-offset', 'Qwen3-8B', (spec) => ({ positions: Int32Array.from(positions, (p) => p + 1) })],
    ['rotary-dim', 'gpt-neox-20b', (spec) => ({ spec: { ...spec, base: spec.base ** (spec.rotaryDim / spec.headDim) } })],
    ['longrope-factors', 'Phi-3.5-mini-instruct', (spec) => ({ spec: { ...spec, scaling: { ...spec.scaling, shortFactor: spec.scaling.longFactor, longFactor: spec.scaling.shortFactor } } })],
  ];
  for (const [suspect, model, mistake, layer = 0] of mistakes) {
    it(`names '${suspect}' for a ${model} cache made with that mistake`, () => {
      const spec = pe.modelPositions(model).layer(layer).rope;
      const made = mistake(spec);
      const wrong = pe.ropeCache(made.spec ?? spec, { positions: made.positions ?? positions, precision: 'float32' });
      const result = pe.checkRopeCache(spec, { ...wrong, positions });
      assert.equal(result.verdict, 'mismatch');
      assert.equal(result.suspect, suspect, result.explanation);
      assert.ok(result.explanation.length > 20);
    });
  }

  it('names \'mrope-section\' for a Qwen2.5-VL cache that ignores the sections, and \'rotary-dim\' for a whole-head cache', () => {
    const spec = pe.modelPositions('Qwen2.5-VL-7B-Instruct').layer(0).rope;
    const streams = { data: Int32Array.from([...positions.slice(0, 16), ...positions.slice(16, 32), ...positions.slice(32, 48)]), shape: [3, 1, 16] };
    const flat = pe.ropeCache({ ...spec, mropeSection: undefined }, { positions: positions.slice(0, 16) });
    const result = pe.checkRopeCache(spec, { ...flat, positions: streams });
    assert.deepEqual([result.verdict, result.suspect], ['mismatch', 'mrope-section'], result.explanation);
    const neox = pe.modelPositions('gpt-neox-20b').layer(0).rope;
    const whole = pe.ropeCache({ ...neox, rotaryDim: neox.headDim }, { positions });
    const partial = pe.checkRopeCache(neox, { ...whole, positions });
    assert.deepEqual([partial.verdict, partial.suspect], ['mismatch', 'rotary-dim']);
    assert.match(partial.explanation, /rotates only the first 24 of 96 dimensions/);
  });

  // Caches computed in each runtime's float32 order, written here from each runtime's published kernel (the checker
  // knows only their error bounds). ff: the scaling's divisor of each pair's plain frequency (llama.cpp's rope_freqs).
  const plainFrequency = (spec, i) => spec.base ** ((-2 * i) / spec.rotaryDim);
  const RUNTIMES = {
    ggml(spec, p, out) {  // theta = p, theta *= theta_scale per pair, theta / freq_factor
      const thetaScale = Math.fround(spec.base ** Math.fround(-2 / spec.rotaryDim));
      let theta = Math.fround(p);
      for (let i = 0; i < out.length; i++) {
        out[i] = Math.fround(theta / Math.fround(plainFrequency(spec, i) / spec.invFreq[i]));
        theta = Math.fround(theta * thetaScale);
      }
    },
    'tensorrt-llm'(spec, p, out) {  // numpy: 1 / theta ** (arange / dim) in float64, astype(float32); the product in float32
      for (let i = 0; i < out.length; i++) out[i] = Math.fround(Math.fround(p) * Math.fround(spec.invFreq[i]));
    },
    mlx(spec, p, out) {  // exp2(-d · log2(base)) in float32
      const log2Base = Math.fround(Math.log2(spec.base));
      for (let i = 0; i < out.length; i++) {
        const inverse = Math.fround(2 ** Math.fround(-Math.fround((2 * i) / spec.rotaryDim) * log2Base));
        out[i] = Math.fround(Math.fround(p) * Math.fround(inverse * Math.fround(spec.invFreq[i] / plainFrequency(spec, i))));
      }
    },
  };
  function runtimeCache(spec, runtime, rows, { halfWidth = false, angleInFloat16 = false } = {}) {
    const half = spec.rotaryDim / 2;
    const width = halfWidth ? half : spec.rotaryDim;
    const [cos, sin] = [new Float32Array(rows.length * width), new Float32Array(rows.length * width)];
    const angles = new Float64Array(half);
    rows.forEach((p, r) => {
      RUNTIMES[runtime](spec, p, angles);
      for (let c = 0; c < width; c++) {
        const pair = halfWidth ? c : spec.layout === 'half' ? c % half : Math.floor(c / 2);
        const angle = angleInFloat16 && angles[pair] > 65504 ? Infinity : angles[pair];
        cos[r * width + c] = Math.fround(Math.cos(angle) * spec.attentionFactor);
        sin[r * width + c] = Math.fround(Math.sin(angle) * spec.attentionFactor);
      }
    });
    return { cos: { data: cos, shape: [rows.length, width] }, sin: { data: sin, shape: [rows.length, width] } };
  }

  it('a cache in each runtime\'s float32 order is consistent and names that order, at long positions and inside the trained length', () => {
    const long = Int32Array.from({ length: 64 }, (_, i) => 126976 + i * 64);  // where llama.cpp's order was called a mismatch
    for (const [model, rows] of [['Llama-3.1-8B', long], ['Qwen3-8B', Int32Array.from({ length: 64 }, (_, i) => i * 640)], ['Llama-2-7b-hf', positions]]) {
      const spec = pe.modelPositions(model).layer(0).rope;
      for (const runtime of Object.keys(RUNTIMES)) {
        const result = pe.checkRopeCache(spec, { ...runtimeCache(spec, runtime, rows), positions: rows });
        assert.equal(result.verdict, 'float32', `${model} in ${runtime}'s order: ${result.explanation}`);
        assert.equal(result.order, runtime, `${model}: ${result.explanation}`);
      }
      const hf = pe.checkRopeCache(spec, { ...pe.ropeCache(spec, { positions: rows, precision: 'float32' }), positions: rows });
      assert.deepEqual([hf.verdict, hf.order], ['float32', 'hf'], hf.explanation);
      assert.match(hf.explanation, /HF transformers' order/);
    }
  });

  it('reads half-width caches (one column per pair), and takes the positions from the cache\'s rows when none are given', () => {
    const spec = pe.modelPositions('Llama-3.1-8B').layer(0).rope;
    const rows = Int32Array.from({ length: 300 }, (_, i) => i);
    const narrow = runtimeCache(spec, 'tensorrt-llm', rows, { halfWidth: true });
    const result = pe.checkRopeCache(spec, narrow);
    assert.deepEqual([result.verdict, result.order], ['float32', 'tensorrt-llm'], result.explanation);
    assert.match(result.explanation, /half-width cache/);
    // vLLM keeps HF's float32 cache one column per pair: named by its width.
    const full = pe.ropeCache(spec, { positions: Int32Array.from({ length: 4096 }, (_, i) => i * 32), precision: 'float32' });
    const pairs = (data) => Float32Array.from({ length: 4096 * 64 }, (_, j) => data[Math.floor(j / 64) * 128 + (j % 64)]);
    const vllm = pe.checkRopeCache(spec, { cos: { data: pairs(full.cos.data), shape: [4096, 64] }, sin: { data: pairs(full.sin.data), shape: [4096, 64] }, positions: Int32Array.from({ length: 4096 }, (_, i) => i * 32) });
    assert.deepEqual([vllm.verdict, vllm.order], ['float32', 'vllm'], vllm.explanation);
    assert.match(vllm.explanation, /vLLM's order/);
    const shifted = pe.checkRopeCache(spec, runtimeCache(spec, 'tensorrt-llm', Int32Array.from(rows, (p) => p + 1), { halfWidth: true }));
    assert.deepEqual([shifted.verdict, shifted.suspect], ['mismatch', 'position-offset'], shifted.explanation);
  });

  it('names an angle that overflows float16, two mistakes at once, and a whole head\'s cache cut to the rotary part', () => {
    const spec = pe.modelPositions('Llama-2-7b-hf').layer(0).rope;
    const rows = Int32Array.from({ length: 16 }, (_, i) => 60000 + i * 1000);
    const overflow = pe.checkRopeCache(spec, { ...runtimeCache(spec, 'tensorrt-llm', rows, { angleInFloat16: true }), positions: rows });
    assert.deepEqual([overflow.verdict, overflow.suspect, overflow.maxAbs], ['mismatch', 'half-precision-angle', Infinity]);
    assert.match(overflow.explanation, /holds NaN at position 66000, column 0, where the angle position × frequency is 66000\.0, past float16's largest value 65504/);

    const llama = pe.modelPositions('Llama-3.1-8B').layer(0).rope;
    const twice = pe.ropeCache({ ...llama, layout: 'interleaved' }, { positions: Int32Array.from(positions, (p) => p + 1), precision: 'float32' });
    const both = pe.checkRopeCache(llama, { ...twice, positions });
    assert.equal(both.verdict, 'mismatch');
    assert.deepEqual(both.suspects, ['layout', 'position-offset'], both.explanation);
    assert.match(both.explanation, /interleaved .*; and the cache's positions are off by \+1/);

    const neox = pe.modelPositions('gpt-neox-20b').layer(0).rope;
    const whole = pe.ropeCache({ ...neox, rotaryDim: neox.headDim }, { positions });
    const cut = (data) => Float32Array.from({ length: positions.length * neox.rotaryDim }, (_, j) => data[Math.floor(j / neox.rotaryDim) * neox.headDim + (j % neox.rotaryDim)]);
    const shape = [positions.length, neox.rotaryDim];
    const truncated = pe.checkRopeCache(neox, { cos: { data: cut(whole.cos.data), shape }, sin: { data: cut(whole.sin.data), shape }, positions });
    assert.deepEqual([truncated.verdict, truncated.suspect], ['mismatch', 'rotary-dim'], truncated.explanation);
    assert.match(truncated.explanation, /a whole head's \(96 columns, exponents 2i\/96\) cut to its first 24 columns/);
  });

  it('refuses what it cannot judge, naming it', () => {
    const spec = pe.modelPositions('Llama-3.1-8B').layer(0).rope;
    assert.throws(() => pe.checkRopeCache(spec, { cos: { data: new Float32Array(3), shape: [3] }, sin: { data: new Float32Array(3), shape: [3] }, positions: [0] }), /cos must have 128 columns \(the rotary dimensions, HF's layout\) or 64 \(one per pair, a half-width cache\), got shape \[3\]/);
    assert.throws(() => pe.checkRopeCache(spec, { cos: { data: new Float32Array(3 * 128), shape: [3, 128] }, sin: { data: new Float32Array(3 * 128), shape: [3, 128] }, positions: [0] }), /cos must hold 128 values \(positions \[1\] × 128 columns\), got 384/);
    assert.throws(() => pe.checkRopeCache(spec, { cos: [1], sin: [1], positions: [0] }), /cos must be a tensor/);
    assert.throws(() => pe.checkRopeCache({ headDim: 7 }, { positions: [0] }), /spec\.rotaryDim must be an even integer/);
    assert.throws(() => pe.checkRopeCache(spec, { positions: [0], tolerance: 1 }), /unknown option 'tolerance'/);
  });
});
