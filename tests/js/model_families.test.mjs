// Every family of the table against HF's own formulas: real configs (their sources in the fixture), each layer's kind,
// the score scale, and the cache at positions 0…8, 4095…4100, the trained length and four times it, exact and in
// float32. The fixture was made locally from HF's formulas re-typed in torch (Debian's python3-torch) and each
// family's v5 config reading; it holds the cases, not HF's code.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { load } from '../../dist/index.js';
import { FAMILIES, NOT_READ, WRAPPERS } from '../../dist/model_families.js';

const { cases } = JSON.parse(readFileSync(new URL('../fixtures/model_families/cases.json', import.meta.url), 'utf8'));

// The largest |cache − HF's float64 cos/sin(p·w)·attention| over a cache in the spec's layout.
function errorAgainst({ cos, sin }, positions, invFreq, attention, layout) {
  const width = cos.shape.at(-1);
  const half = width / 2;
  let worst = 0;
  positions.forEach((p, r) => {
    for (let c = 0; c < width; c++) {
      const pair = layout === 'half' ? c % half : Math.floor(c / 2);
      const angle = p * invFreq[pair];
      worst = Math.max(worst, Math.abs(cos.data[r * width + c] - Math.cos(angle) * attention), Math.abs(sin.data[r * width + c] - Math.sin(angle) * attention));
    }
  });
  return worst;
}

function runs(m) {
  const out = [];
  m.layerTypes.forEach((type, i) => {
    const kind = m.layer(i).kind;
    const last = out.at(-1);
    if (last && last[0] === kind && last[1] === type) last[2] += 1;
    else out.push([kind, type, 1]);
  });
  return out;
}

describe('the table of families against HF\'s formulas, on real configs', () => {
  let pe;
  before(async () => { pe = await load(); });

  it(`holds ${cases.length} real configs of ${new Set(cases.map((c) => c.modelType)).size} families`, () => {
    assert.ok(cases.length >= 60);
    assert.ok(new Set(cases.map((c) => c.modelType)).size >= 50);
    for (const c of cases) assert.ok(c.source.length > 0, `${c.name}: its source`);
    // The README's counts are these (it says them twice).
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    const families = new Set(cases.map((c) => c.modelType)).size;
    assert.deepEqual([...readme.matchAll(/(\d+) real configs(?: of (\d+) of these families)?/g)].map((m) => [Number(m[1]), m[2] && Number(m[2])]),
      [[cases.length, families], [cases.length, undefined]]);
  });

  // Families without RoPE: each layer's kind, the score scale, and what HF's modeling code does with positions (the
  // learned table's first row and usable rows, the sinusoid's rows at positions 0…8 and 4095…4100 within 2e-6 (64
  // columns across each), T5's
  // buckets for relative positions −300…300 both ways, ALiBi's slopes).
  for (const c of cases.filter((k) => k.kind)) {
    it(`${c.name} (${c.modelType}): ${c.kind} positions as HF reads them`, () => {
      // A file without model_type (HF reads it through its class) is read with as.
      const m = pe.modelPositions(c.config, c.as ? { as: c.as } : {});
      assert.equal(m.modelType, c.modelType);
      assert.deepEqual(runs(m), c.layers, 'each layer\'s kind and type');
      if (c.kind === 'none') return;
      const layer = m.layer(0);
      assert.ok(Math.abs(layer.scoreScale - c.scoreScale) <= 1e-12 * c.scoreScale, `score scale ${layer.scoreScale} against HF's ${c.scoreScale}`);
      if (c.kind === 'learned') assert.deepEqual(layer.learned, c.learned);
      if (c.kind === 'alibi') c.slopes.forEach((slope, h) => assert.ok(Math.abs(layer.alibi.slopes[h] - slope) <= 1e-7 * slope, `head ${h}: slope ${layer.alibi.slopes[h]} against ${slope}`));
      if (c.kind === 't5') {
        // Each stack the model has (a decoder alone for Pix2Struct's text model): the encoder's buckets both ways.
        for (const type of new Set(c.layers.map(([, layerType]) => layerType))) {
          const bidirectional = type === 'encoder';
          const spec = m.layer(m.layerTypes.indexOf(type)).t5;
          assert.deepEqual([spec.numBuckets, spec.maxDistance, spec.bidirectional], [c.t5.numBuckets, c.t5.maxDistance, bidirectional]);
          assert.deepEqual(Array.from(pe.t5Bucket(c.t5.relative, { numBuckets: spec.numBuckets, maxDistance: spec.maxDistance, bidirectional }).data), c.t5[type]);
        }
      }
      if (c.kind === 'sinusoidal') {
        const { offset, timescale, layout } = layer.sinusoidal;
        assert.deepEqual([offset, timescale], [c.sinusoidal.offset, c.sinusoidal.timescale]);
        c.sinusoidal.positions.forEach((p, i) => {
          const row = pe.sinusoidal({ length: 1, dModel: c.sinusoidal.dModel, offset: p + offset, timescale, layout }).data;
          c.sinusoidal.columns.forEach((k, j) => assert.ok(Math.abs(row[k] - c.sinusoidal.rows[i][j]) <= 2e-6, `position ${p}, column ${k}: ${row[k]} against HF's ${c.sinusoidal.rows[i][j]}`));
        });
      }
    });
  }

  for (const c of cases.filter((k) => !k.kind)) {
    it(`${c.name} (${c.modelType}): layers, score scale, and the cache within 2e-6 of HF's float64 maths, float32 within ×0.5–2 of HF's float32`, () => {
      const m = pe.modelPositions(c.config, c.as ? { as: c.as } : {});
      assert.equal(m.modelType, c.modelType);
      assert.deepEqual(runs(m), c.layers, 'each layer\'s kind and type');
      for (let i = 0; i < m.numLayers; i++) {
        assert.ok(Math.abs(m.layer(i).scoreScale - c.scoreScale) <= 1e-12 * c.scoreScale, `layer ${i} score scale ${m.layer(i).scoreScale} against HF's ${c.scoreScale}`);
      }
      assert.equal(m.family.cache, c.cache, 'what the model does with its cache');
      for (const [type, r] of Object.entries(c.rope)) {
        const spec = m.layer(r.layer).rope;
        assert.deepEqual([spec.rotaryDim, spec.headDim, spec.layout], [r.rotaryDim, r.headDim, r.layout], `${type}: rotary and head size, layout`);
        if (r.mropeSection) assert.deepEqual(spec.mropeSection, r.mropeSection, `${type}: mRoPE sections`);
        for (const label of ['trained', 'beyond']) {
          const { positions, invFreq, attentionFactor, float32Error } = r[label];
          const exact = pe.ropeCache(spec, { positions });
          const error = errorAgainst(exact, positions, invFreq, attentionFactor, r.layout);
          assert.ok(error <= 2e-6, `${type}, ${label}: exact cache ${error} off HF's float64 maths`);
          const float32 = pe.ropeCache(spec, { positions, precision: 'float32' });
          const ours = errorAgainst(float32, positions, invFreq, attentionFactor, r.layout);
          const bothSmall = ours <= 4e-6 && float32Error <= 4e-6;
          assert.ok(bothSmall || (ours >= 0.5 * float32Error && ours <= 2 * float32Error),
            `${type}, ${label}: float32 mode ${ours} off float64, HF's float32 ${float32Error}`);
        }
      }
    });
  }
});

// A key equal to its class default, left out: HF fills it in, so the reading is the same.
function sameReading(a, b, label) {
  assert.deepEqual(a.layerTypes, b.layerTypes, label);
  for (let i = 0; i < a.numLayers; i++) {
    const [x, y] = [a.layer(i), b.layer(i)];
    assert.equal(x.kind, y.kind, `${label} layer ${i}`);
    assert.equal(x.scoreScale, y.scoreScale, `${label} layer ${i} score scale`);
    if (x.rope) {
      assert.deepEqual([x.rope.rotaryDim, x.rope.base, x.rope.attentionFactor, x.rope.layout], [y.rope.rotaryDim, y.rope.base, y.rope.attentionFactor, y.rope.layout], `${label} layer ${i}`);
      assert.deepEqual(Array.from(x.rope.invFreq), Array.from(y.rope.invFreq), `${label} layer ${i} frequencies`);
    }
  }
}

describe('class defaults: a config without a key reads as HF\'s class fills it', () => {
  let pe;
  before(async () => { pe = await load(); });

  it('every key of each real config that equals its class default can be left out', () => {
    let tried = 0;
    for (const c of cases) {
      const family = FAMILIES[c.modelType];
      const wrapped = c.config.text_config !== undefined;
      const text = wrapped ? c.config.text_config : c.config;
      const defaults = { ...family.defaults, ...(family.theta !== undefined && !family.base ? { rope_theta: family.theta } : {}) };
      for (const [key, value] of Object.entries(defaults)) {
        if (text[key] === undefined || JSON.stringify(text[key]) !== JSON.stringify(value)) continue;
        const { [key]: left, ...rest } = text;
        const config = wrapped ? { ...c.config, text_config: rest } : rest;
        const options = c.as ? { as: c.as } : {};
        const without = pe.modelPositions(config, options);
        sameReading(without, pe.modelPositions(c.config, options), `${c.name} without ${key}`);
        // (A base is filled only where a layer turns: Granite 4's NoPE layers read none.)
        const turns = without.layerTypes.some((_, i) => without.layer(i).kind === 'rope');
        if (key !== 'rope_theta' || turns) assert.ok(without.defaults.includes(key), `${c.name}: ${key} named as filled from the class`);
        tried += 1;
      }
    }
    assert.ok(tried >= 20, `${tried} keys left out`);
  });

  it('Phi-3 without original_max_position_embeddings takes Phi3Config\'s 4096: attention factor 1.19, not 1', () => {
    const full = pe.modelPositions('Phi-3.5-mini-instruct');
    const { original_max_position_embeddings: left, ...rest } = pe.modelPresets['Phi-3.5-mini-instruct'];
    const without = pe.modelPositions(rest);
    assert.ok(Math.abs(without.layer(0).rope.attentionFactor - Math.sqrt(1 + Math.log(32) / Math.log(4096))) < 1e-15);
    sameReading(without, full, 'Phi-3.5 without original_max_position_embeddings');
    assert.deepEqual(without.defaults.filter((key) => key === 'original_max_position_embeddings'), ['original_max_position_embeddings']);
  });

  it('a Ministral 3 config without rope_parameters gets the class\'s YaRN; a Llama config without sizes gets LlamaConfig\'s', () => {
    const m = pe.modelPositions({ model_type: 'ministral3', hidden_size: 3072, num_attention_heads: 32, num_hidden_layers: 2 });
    assert.deepEqual([m.layer(0).rope.type, m.layer(0).rope.base, m.layer(0).rope.scaling.factor, m.layer(0).rope.headDim], ['yarn', 1e6, 16, 128]);
    const llama = pe.modelPositions({ model_type: 'llama' });
    assert.deepEqual([llama.numLayers, llama.layer(0).rope.headDim, llama.maxPositions, llama.layer(0).rope.base], [32, 128, 2048, 10000]);
    assert.deepEqual(llama.defaults.sort(), ['hidden_size', 'max_position_embeddings', 'num_attention_heads', 'num_hidden_layers', 'rope_theta']);
  });
});

describe('nothing silent: what a family does not read is named, and families read as HF does', () => {
  let pe;
  before(async () => { pe = await load(); });
  const llamaSized = (extra) => ({ hidden_size: 256, num_attention_heads: 4, num_hidden_layers: 2, ...extra });
  const llama = (extra) => ({ model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, num_hidden_layers: 8, max_position_embeddings: 8192, ...extra });

  it('a flat multimodal file (no text_config: HF builds the text config from the top-level keys) is read from those keys', () => {
    const flat = { hidden_size: 1024, num_attention_heads: 16, num_hidden_layers: 2, max_position_embeddings: 8192, rope_parameters: { rope_type: 'default', rope_theta: 20000, mrope_section: [8, 12, 12] } };
    for (const [modelType, text] of [['paddleocr_vl', 'paddleocr_vl_text'], ['glm4v', 'glm4v_text'], ['glm4v_moe', 'glm4v_moe_text'], ['glm_ocr', 'glm_ocr_text'], ['qwen2_vl', 'qwen2_vl_text']]) {
      const m = pe.modelPositions({ model_type: modelType, ...flat });
      assert.deepEqual([m.modelType, m.numLayers, m.layer(0).rope.base, m.layer(0).rope.mropeSection], [text, 2, 20000, [8, 12, 12]], modelType);
      // A text_config, where there is one, is what HF reads.
      const nested = pe.modelPositions({ model_type: modelType, num_hidden_layers: 7, text_config: { ...flat, num_hidden_layers: 3 } });
      assert.equal(nested.numLayers, 3, modelType);
    }
  });

  it('a file without model_type (HF reads it through its model class) is refused naming as, and read with it, said in a warning', () => {
    const file = { d_model: 512, d_kv: 64, num_layers: 6, num_heads: 8, relative_attention_num_buckets: 32, relative_attention_max_distance: 128 };
    assert.throws(() => pe.modelPositions(file), /model_type is missing: .*modelPositions\(config, \{ as: '<model_type>' \}\)/);
    const m = pe.modelPositions(file, { as: 'pop2piano' });
    assert.deepEqual([m.modelType, m.numLayers, m.layer(0).kind], ['pop2piano', 12, 't5']);
    assert.deepEqual(m.warnings, ['read as HF\'s pop2piano, as asked (the config has no model_type)']);
    // A composite named by as reads its text_config as that wrapper does, the text model's own model_type included.
    const siglip = pe.modelPositions({ text_config: { hidden_size: 768, num_attention_heads: 12, num_hidden_layers: 2 } }, { as: 'siglip' });
    assert.deepEqual([siglip.modelType, siglip.numLayers, siglip.layer(0).kind], ['siglip_text_model', 2, 'learned']);
    const flanBlip = pe.modelPositions({ text_config: { model_type: 't5', d_model: 512, num_heads: 8, num_layers: 2 } }, { as: 'blip-2' });
    assert.deepEqual([flanBlip.modelType, flanBlip.layer(0).kind], ['t5', 't5']);
    const decoder = pe.modelPositions({ decoder: { model_type: 'gpt2', n_embd: 64, n_head: 4, n_layer: 2 } }, { as: 'vision-encoder-decoder' });
    assert.deepEqual([decoder.modelType, decoder.numLayers], ['gpt2', 2]);
    assert.throws(() => pe.modelPositions({ decoder: { n_embd: 64 } }, { as: 'vision-encoder-decoder' }), /decoder\.model_type is missing: HF's vision-encoder-decoder takes any model there/);
    // A family's own class reads its top-level keys, whatever else the file holds.
    const llama = pe.modelPositions({ hidden_size: 256, num_attention_heads: 4, num_hidden_layers: 3, text_config: { num_hidden_layers: 9 } }, { as: 'llama' });
    assert.equal(llama.numLayers, 3);
    // Families without positions, or not read yet, say why, as for a model_type.
    assert.throws(() => pe.modelPositions({ hidden_size: 64 }, { as: 'mamba' }), /model_type 'mamba' has no attention and no positions/);
    assert.throws(() => pe.modelPositions({ hidden_size: 64 }, { as: 'phimoe' }), /model_type 'phimoe' is an HF family posembed does not read yet/);
    assert.throws(() => pe.modelPositions(llamaSized({ model_type: 'llama' }), { as: 'phimoe' }), /model_type 'phimoe' is an HF family posembed does not read yet/);
  });

  it('names that are JavaScript objects\' own properties name no family', () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      assert.throws(() => pe.modelPositions(llamaSized({ model_type: name })), new RegExp(`model_type '${name}' is not an HF family posembed reads`), name);
      assert.throws(() => pe.modelPositions(llamaSized({ model_type: 'llama' }), { as: name }), /^RangeError: as must name an HF family posembed reads/, name);
      assert.throws(() => pe.modelPositions(llamaSized({}), { as: name }), /^RangeError: as must name an HF family posembed reads/, name);
    }
  });

  it('a llama config with partial_rotary_factor or no_rope_layers: warned, read as HF\'s llama reads it', () => {
    const partial = pe.modelPositions(llama({ partial_rotary_factor: 0.5 }));
    assert.equal(partial.layer(0).rope.rotaryDim, 128);
    assert.equal(partial.warnings.length, 1);
    assert.match(partial.warnings[0], /^partial_rotary_factor \(0\.5\) is in the config, but HF's llama does not read it \(.*phi.*read it\): every layer turns its whole head$/);
    const nope = pe.modelPositions(llama({ no_rope_layers: [1, 1, 1, 0, 1, 1, 1, 0] }));
    assert.ok(nope.layerTypes.every((_, i) => nope.layer(i).kind === 'rope'));
    assert.match(nope.warnings[0], /^no_rope_layers \(.*\) is in the config, but HF's llama does not read it \(smollm3, llama4_text read it\): every layer has RoPE$/);
    assert.deepEqual(pe.modelPositions('Llama-3.1-8B').warnings, []);
  });

  it('cohere2: no positions on the full-attention layers; granite: scores by attention_multiplier', () => {
    const cohere2 = pe.modelPositions({ model_type: 'cohere2', hidden_size: 4096, num_attention_heads: 32, num_hidden_layers: 8, sliding_window_pattern: 4, rope_theta: 50000 });
    assert.deepEqual(cohere2.layerTypes.map((_, i) => cohere2.layer(i).kind), ['rope', 'rope', 'rope', 'none', 'rope', 'rope', 'rope', 'none']);
    assert.equal(cohere2.layer(0).rope.layout, 'interleaved');
    const granite = pe.modelPositions({ model_type: 'granite', hidden_size: 2048, num_attention_heads: 32, num_hidden_layers: 2, attention_multiplier: 0.015625 });
    assert.equal(granite.layer(0).scoreScale, 0.015625);
  });

  it('as: a remote-code model read as the HF family its code follows; an unknown model_type names the closest families and as', () => {
    const kimi = { model_type: 'kimi_k2', hidden_size: 7168, num_attention_heads: 64, num_hidden_layers: 2, max_position_embeddings: 131072, qk_rope_head_dim: 64, qk_nope_head_dim: 128, rope_theta: 50000,
      rope_scaling: { type: 'yarn', factor: 32, original_max_position_embeddings: 4096, beta_fast: 1, beta_slow: 1, mscale: 1, mscale_all_dim: 1 } };
    assert.throws(() => pe.modelPositions(kimi), /model_type 'kimi_k2' is not an HF family posembed reads\. Its code comes with the model \(trust_remote_code\) and follows HF's deepseek_v3: read it .* modelPositions\(config, \{ as: 'deepseek_v3' \}\)/);
    const m = pe.modelPositions(kimi, { as: 'deepseek_v3' });
    assert.deepEqual([m.modelType, m.layer(0).rope.type, m.layer(0).rope.layout, m.layer(0).rope.scaling.betaFast, m.layer(0).rope.scaling.betaSlow], ['deepseek_v3', 'yarn', 'interleaved', 1, 1]);
    assert.match(m.warnings[0], /read as HF's deepseek_v3, as asked \(the config says model_type 'kimi_k2'\)/);
    assert.throws(() => pe.modelPositions(kimi, { as: 'deepseek_v9' }), /^RangeError: as must name an HF family posembed reads \(\d+ of them, e\.g\. deepseek_v2, deepseek_v3/);
    assert.throws(() => pe.modelPositions(kimi, { like: 'x' }), /modelPositions: unknown option 'like' \(options: as\)/);
    assert.throws(() => pe.modelPositions(llama({ model_type: 'qwen4' })), /closest: qwen2, qwen3/);
  });

  it('mRoPE positions [batch, seq] are text for all three streams; a model that keeps its cache in float32 is not cast', () => {
    const vl = pe.modelPositions('Qwen2.5-VL-7B-Instruct').layer(0).rope;
    const text = pe.ropeCache(vl, { positions: { data: Int32Array.from([0, 1, 2, 7, 8, 9]), shape: [2, 3] } });
    assert.deepEqual(text.cos.shape, [2, 3, 128]);
    const scout = pe.modelPositions('Llama-4-Scout-17B-16E-Instruct').layer(0).rope;
    assert.equal(scout.cache, 'complex64');
    const positions = [0, 1000, 100000];
    const bf16 = pe.ropeCache(scout, { positions, precision: 'bfloat16' });
    const f32 = pe.ropeCache(scout, { positions, precision: 'float32' });
    assert.equal(bf16.precision, 'float32');
    assert.deepEqual(bf16.cos.data, f32.cos.data);
    const llama = pe.modelPositions('Llama-3.1-8B').layer(0).rope;
    assert.equal(pe.ropeCache(llama, { positions, precision: 'bfloat16' }).precision, 'bfloat16');
  });

  it('nanochat turns the other way: applyRope with its spec rotates by −angle', () => {
    const spec = pe.modelPositions({ model_type: 'nanochat', hidden_size: 64, num_attention_heads: 4, num_hidden_layers: 1 }).layer(0).rope;
    assert.equal(spec.rotation, 'reversed');
    const x = { data: Float32Array.from({ length: 3 * 16 }, (_, i) => Math.sin(i + 1)), shape: [3, 16] };
    const turned = pe.applyRope(x, { spec, positions: [0, 1, 2] });
    const forward = pe.applyRope(x, { spec: { ...spec, rotation: 'forward' }, positions: [0, 1, 2] });
    const back = pe.applyRope({ data: forward.data, shape: [3, 16] }, { spec, positions: [0, 1, 2] });
    back.data.forEach((v, i) => assert.ok(Math.abs(v - x.data[i]) < 1e-5, `forward then reversed is the identity at ${i}`));
    assert.notDeepEqual(Array.from(turned.data), Array.from(forward.data));
  });

  it('families HF ships but posembed does not read yet are refused with the reason, never read as a look-alike', () => {
    for (const [type, reason] of Object.entries(NOT_READ)) {
      assert.throws(() => pe.modelPositions({ model_type: type, hidden_size: 64, num_attention_heads: 4, num_hidden_layers: 1 }), (error) => error.message.includes(reason), type);
    }
    for (const [type, wrapper] of Object.entries(WRAPPERS)) assert.ok(wrapper.text === null || FAMILIES[wrapper.text], `${type}'s text model ${wrapper.text} is a family`);
  });
});

describe('the second round: text towers, composites, and families read as another is', () => {
  let pe;
  before(async () => { pe = await load(); });
  const kinds = (m) => m.layerTypes.map((_, i) => m.layer(i).kind);

  it('text towers inside their composites: SigLIP\'s 64 learned positions, AltCLIP\'s from pad_token_id + 1, Kosmos-2\'s fairseq sinusoids under their own key names', () => {
    const siglip = pe.modelPositions({ model_type: 'siglip', text_config: { hidden_size: 768, num_attention_heads: 12, num_hidden_layers: 2 } });
    assert.deepEqual([siglip.modelType, siglip.maxPositions, siglip.layer(0).kind, siglip.layer(0).learned.offset], ['siglip_text_model', 64, 'learned', 0]);
    assert.deepEqual(siglip.defaults, ['max_position_embeddings']);
    const altclip = pe.modelPositions({ model_type: 'altclip', text_config: { num_hidden_layers: 1 } });
    assert.deepEqual([altclip.layer(0).learned.offset, altclip.layer(0).learned.maxPositions], [2, 512]);
    const kosmos = pe.modelPositions({ model_type: 'kosmos-2', text_config: { embed_dim: 2048, attention_heads: 32, layers: 24 } });
    assert.deepEqual([kosmos.modelType, kosmos.numLayers, kosmos.layer(0).kind, kosmos.layer(0).sinusoidal.offset], ['kosmos_2_text_model', 24, 'sinusoidal', 2]);
    assert.equal(kosmos.layer(0).scoreScale, 64 ** -0.5);
    const xlm = pe.modelPositions({ model_type: 'xlm', emb_dim: 1024, n_heads: 8, n_layers: 6 });
    assert.deepEqual([xlm.numLayers, xlm.layer(0).scoreScale], [6, 128 ** -0.5]);
  });

  it('composites whose text model may be any: the decoder\'s model_type decides, and a missing one is named', () => {
    const m = pe.modelPositions({ model_type: 'vision-encoder-decoder', decoder: { model_type: 'gpt2', n_embd: 768, n_head: 12, n_layer: 2 } });
    assert.deepEqual([m.modelType, m.layer(0).kind], ['gpt2', 'learned']);
    assert.throws(() => pe.modelPositions({ model_type: 'encoder-decoder', decoder: { hidden_size: 8 } }), /decoder\.model_type is missing: HF's encoder-decoder takes any model there/);
    const speech = pe.modelPositions({ model_type: 'speech-encoder-decoder', decoder: { num_hidden_layers: 1 } });
    assert.equal(speech.modelType, 'bert');
  });

  it('SAM 3 without a text_config builds its own (32 positions, 1024 wide, 16 heads); Voxtral Realtime fills its text config\'s missing keys with its own', () => {
    const sam3 = pe.modelPositions({ model_type: 'sam3' });
    assert.deepEqual([sam3.maxPositions, sam3.layer(0).scoreScale], [32, 64 ** -0.5]);
    const voxtral = pe.modelPositions({ model_type: 'voxtral_realtime', text_config: { hidden_size: 3072, num_attention_heads: 32, num_hidden_layers: 2 } });
    assert.deepEqual([voxtral.layer(0).rope.base, voxtral.layer(0).rope.headDim], [1e6, 128]);
    const given = pe.modelPositions({ model_type: 'voxtral_realtime', text_config: { hidden_size: 3072, num_attention_heads: 32, num_hidden_layers: 2, rope_theta: 5e5, head_dim: 96 } });
    assert.deepEqual([given.layer(0).rope.base, given.layer(0).rope.headDim], [5e5, 96]);
  });

  it('families read as another with their own defaults and rules: Dia\'s unscaled scores, BLT\'s interleaved pairs, MiniCPM3\'s MLA in halves, HyperCLOVA X\'s multiplier', () => {
    const dia = pe.modelPositions({ model_type: 'dia_decoder' });
    assert.deepEqual([dia.layer(0).scoreScale, dia.layer(0).rope.headDim, dia.numLayers], [1, 128, 18]);
    const blt = pe.modelPositions({ model_type: 'blt_global_transformer' });
    assert.deepEqual([blt.layer(0).rope.layout, blt.layer(0).rope.base, blt.layer(0).rope.headDim], ['interleaved', 5e5, 128]);
    assert.equal(pe.modelPositions({ model_type: 'blt_patcher' }).layer(0).rope.base, 10000);
    const minicpm3 = pe.modelPositions({ model_type: 'minicpm3' });
    assert.deepEqual([minicpm3.layer(0).rope.layout, minicpm3.layer(0).rope.rotaryDim, minicpm3.layer(0).scoreScale], ['half', 32, 96 ** -0.5]);
    const clova = { model_type: 'hyperclovax', hidden_size: 2048, num_attention_heads: 16, num_hidden_layers: 2 };
    assert.equal(pe.modelPositions(clova).layer(0).scoreScale, 128 ** -0.5);
    assert.equal(pe.modelPositions({ ...clova, attention_multiplier: 0.0078125 }).layer(0).scoreScale, 0.0078125);
    const qwen35 = pe.modelPositions({ model_type: 'qwen3_5', text_config: { hidden_size: 2048, num_attention_heads: 16, num_hidden_layers: 4 } });
    assert.deepEqual(kinds(qwen35), ['none', 'none', 'none', 'rope']);
    assert.deepEqual([qwen35.layer(3).rope.rotaryDim, qwen35.layer(3).rope.mropeSection], [64, [11, 11, 10]]);
    const idefics = pe.modelPositions({ model_type: 'idefics', hidden_size: 4096, num_attention_heads: 32, num_hidden_layers: 1, rope_theta: 5e5 });
    assert.equal(idefics.layer(0).rope.base, 10000);
    assert.equal(pe.modelPositions({ model_type: 'jina_embeddings_v3' }).layer(0).rope.base, 20000);
    assert.deepEqual(kinds(pe.modelPositions({ model_type: 'kimi_linear', hidden_size: 2304, num_attention_heads: 32, num_hidden_layers: 3 })), ['none', 'none', 'none']);
  });

  it('a composite whose text model is refused is refused with that model\'s reason', () => {
    assert.throws(() => pe.modelPositions({ model_type: 'gemma4', text_config: {} }), (error) => error.message.includes('its text model (text_config) is gemma4_text: ') && error.message.includes(NOT_READ.gemma4_text));
    assert.throws(() => pe.modelPositions({ model_type: 'musicgen' }), /its text model \(decoder\) is musicgen_decoder: a sinusoidal table with the cosines first/);
  });
});

describe('the README\'s family table is the table\'s', () => {
  it('the README\'s section is what scripts/family-table.mjs makes of the table: every family, wrapper and family not read', async () => {
    const { familyTable } = await import('../../scripts/family-table.mjs');
    const { readmeSection } = await import('../../scripts/readme-sections.mjs');
    assert.equal(readmeSection('families'), familyTable(), 'run node scripts/family-table.mjs --write');
    for (const type of [...Object.keys(FAMILIES), ...Object.keys(WRAPPERS), ...Object.keys(NOT_READ)]) assert.ok(familyTable().includes(`\`${type}\``), type);
  });
});
