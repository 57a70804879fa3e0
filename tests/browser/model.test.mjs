// The "Your model" page and <posembed-model>: every preset drawn with the figures its layer calls for, a dropped and
// a pasted config.json, a bad one named and refused, the layer control at its ends, and the port checker on dropped
// caches (consistent, and a mismatch with its suspect), with no main-thread task over 100 ms on any of it.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { load, writeNpy, writeSafetensors } from '../../dist/index.js';
import { tempFolder } from '../temp_folders.mjs';
import { useSite } from './browser.mjs';

// Waits for the element to finish its newest render (or show an error).
async function drawn(page) {
  await page.waitForFunction(() => {
    const el = document.querySelector('#model');
    return el.dataset.rendered === String(el.generation) || !el.shadowRoot.querySelector('.error').hidden;
  }, null, { timeout: 20000 });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50))));
}

function shown(page) {
  return page.evaluate(() => {
    const root = document.querySelector('#model').shadowRoot;
    return {
      story: root.querySelector('.story').textContent,
      summary: root.querySelector('.summary').textContent,
      error: root.querySelector('.error').hidden ? '' : root.querySelector('.error').textContent,
      figures: [...root.querySelectorAll('figure')].filter((f) => !f.hidden).map((f) => f.querySelector('.pe-title').textContent),
    };
  });
}

describe('Your model page and <posembed-model>', () => {
  const site = useSite();
  let page;
  let problems;
  let pe;
  let dir;

  before(async () => {
    pe = await load();
    dir = tempFolder('model-page');
    ({ page, problems } = await site.open('model.html'));
    await page.locator('#model').scrollIntoViewIfNeeded();
    await drawn(page);
  });

  it('fetches the wasm once: the page\'s own load() and the element share the compiled module', async () => {
    const tab = await site.browser.newPage();
    const wasm = [];
    tab.on('request', (request) => { if (request.url().endsWith('.wasm')) wasm.push(request.url()); });
    await tab.goto(`${site.server.url}model.html`);
    await tab.waitForSelector('html[data-ready="true"]');
    await tab.locator('#model').scrollIntoViewIfNeeded();
    await tab.waitForFunction(() => document.querySelector('#model').dataset.rendered);
    assert.equal(wasm.length, 1, wasm.join(', '));
    await tab.close();
  });

  it('draws every preset, its story first: RoPE\'s views for RoPE layers, mRoPE\'s for Qwen2.5-VL, the layer strip only where layers differ', async () => {
    const presets = await page.locator('#preset option').allTextContents();
    assert.deepEqual(presets, Object.keys(pe.modelPresets));
    for (const name of presets) {
      await page.selectOption('#preset', name);
      await drawn(page);
      const { story, summary, error, figures } = await shown(page);
      assert.equal(error, '', name);
      const model = pe.modelPositions(name);
      const kind = model.layer(0).kind;
      assert.match(story, new RegExp(`^${model.modelType} `), name);
      assert.match(summary, new RegExp(`^${model.modelType}, `), name);
      const differ = new Set(Array.from({ length: model.numLayers }, (_, i) => `${model.layerTypes[i]} ${model.layer(i).kind} ${model.layer(i).rope?.base}`)).size > 1;
      assert.equal(figures.some((t) => t.startsWith('Layers:')), differ, `${name}: ${figures}`);
      if (kind === 'rope') {
        assert.equal(figures[0], 'How far each pair turns', `${name}: ${figures}`);
        for (const title of ['Score against distance', 'Precision lab', 'bfloat16: neighbouring positions that collide']) {
          assert.ok(figures.includes(title), `${name} lacks ${title}: ${figures}`);
        }
      } else {
        assert.equal(figures.length, differ ? 1 : 0, `${name} (${kind}): ${figures}`);
      }
      assert.equal(figures.some((t) => t.startsWith('mRoPE')), name === 'Qwen2.5-VL-7B-Instruct', name);
    }
    const bloom = await (async () => { await page.selectOption('#preset', 'bloom-560m'); await drawn(page); return shown(page); })();
    assert.match(bloom.summary, /ALiBi \(bloom's slopes: 0\.7071, 0\.5000, 0\.3536, 0\.2500…\)/);
    assert.deepEqual(problems, []);
  });

  it('tells each model in plain words, with numbers computed from its config: Llama 3.1, BERT, Llama 4, Mistral', async () => {
    const storyOf = async (name) => {
      await page.selectOption('#preset', name);
      await drawn(page);
      return shown(page);
    };
    // Llama 3.1: trained on 8,192 tokens, reads 131,072 (16×); llama3 slows its slow pairs by up to 8: at most 2× the
    // angle they reached in training.
    const llama = await storyOf('Llama-3.1-8B');
    assert.match(llama.story, /^llama turns each query and key by its position \(RoPE\) in each of its 32 layers: 64 pairs of dimensions rotate at rates from one turn every 6\.28 tokens to one every 2\.56M/);
    assert.match(llama.story, /pretrained on texts of up to 8,192 tokens and reads up to 131,072\. (\d+) slow pairs never make a full turn in 8,192 tokens; unscaled, over 131,072 they would turn 16× as far, to angles never seen\. The llama3 rule slows them so they turn at most 2× as far/);
    const never = Number(/\. (\d+) slow pairs never/.exec(llama.story)[1]);
    const invFreq = pe.ropeInvFreq({ headDim: 128, base: 500000 }).invFreq.data;
    assert.equal(never, Array.from(invFreq).filter((w) => (8192 * w) / (2 * Math.PI) < 1).length);
    assert.match(llama.story, /Llama 3\.1 was then trained further on long texts/);
    // BERT: positions once, at the input; no strip of twelve "learned" layers.
    const bert = await storyOf('bert-base-uncased');
    assert.match(bert.story, /^bert adds a learned position vector \(one row of a 512-row table, so it reads at most 512 tokens\) to each token once, at the input\. Its 12 layers have no positions of their own/);
    assert.deepEqual(bert.figures, []);
    // Llama 4: NoPE layers named as such, and the strip shows them.
    const scout = await storyOf('Llama-4-Scout-17B-16E-Instruct');
    assert.match(scout.story, /in 36 of its 48 layers \(the other 12 use no positions at all\)/);
    assert.ok(scout.figures.some((t) => t.startsWith('Layers:')), String(scout.figures));
    // No scaling rule, and no room past the trained length.
    assert.match((await storyOf('Mistral-7B-v0.1')).story, /It reads up to 32,768 tokens, as it was trained; no rule stretches it further\.$/);
    assert.deepEqual(problems, []);
  });

  it('Gemma 3: the layer control walks local (sliding, base 10000) and global (linear ×8, base 1e6) layers, to its ends', async () => {
    await page.selectOption('#preset', 'gemma-3-4b-it');
    await drawn(page);
    assert.equal(await page.locator('#layer').getAttribute('max'), '33');
    await page.fill('#layer-number', '5');
    await drawn(page);
    assert.match((await shown(page)).summary, /Layer 5: RoPE \(linear\), base 1000000, 256 of 256 dimensions turn/);
    await page.fill('#layer-number', '33');
    await drawn(page);
    assert.match((await shown(page)).summary, /Layer 33: RoPE \(default\), base 10000/);
    await page.locator('#layer').fill('0');
    await drawn(page);
    assert.match((await shown(page)).summary, /Layer 0: RoPE \(default\), base 10000/);
    await page.fill('#layer-number', '34');
    assert.equal(await page.locator('#config-error').textContent(), 'layer must be an integer in [0, 33], got 34');
    await page.fill('#layer-number', '0');
    assert.deepEqual(problems, []);
  });

  it('a dropped config.json (Phi-3.5, LongRoPE) and a pasted one are drawn; a bad one is named and the last good one stays', async () => {
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify(pe.modelPresets['Phi-3.5-mini-instruct']));
    await page.setInputFiles('#config-file', file);
    await drawn(page);
    assert.match((await shown(page)).summary, /^phi3, 32 layers, 131K positions\. Layer 0: RoPE \(longrope\), base 10000, 96 of 96 dimensions turn, half layout, attention factor 1\.1902/);
    assert.equal(await page.locator('#config-source').textContent(), 'your config.json.');
    await page.locator('#paste summary').click();
    await page.fill('#config-text', JSON.stringify({ model_type: 'qwen3_vl', text_config: { head_dim: 128, hidden_size: 4096, num_attention_heads: 32, num_hidden_layers: 4, max_position_embeddings: 262144, rope_theta: 5000000, rope_scaling: { rope_type: 'default', mrope_section: [24, 20, 20], mrope_interleaved: true } } }));
    await page.click('#use-text');
    await drawn(page);
    const qwen3 = await shown(page);
    assert.match(qwen3.summary, /^qwen3_vl_text, 4 layers, 262K positions\. Layer 0: RoPE \(default, mRoPE\), base 5000000/);
    assert.ok(qwen3.figures.includes('Pairs by stream (interleaved: 24, 20, 20)'), String(qwen3.figures));
    assert.equal(await page.locator('#config-warnings').isHidden(), true);
    await page.fill('#config-text', JSON.stringify({ model_type: 'llama', hidden_size: 64, num_attention_heads: 1, num_hidden_layers: 1, max_position_embeddings: 8, rope_scaling: { rope_type: 'linear', factor: 2, scale: 3 } }));
    await page.click('#use-text');
    assert.match(await page.locator('#config-error').textContent(), /^the pasted config\.json: config: rope_scaling\.scale is not a key posembed knows/);
    assert.match((await shown(page)).summary, /^qwen3_vl_text/, 'the last good config stays drawn');
    // A key the family does not read: drawn as HF reads it, the key named.
    await page.fill('#config-text', JSON.stringify({ model_type: 'llama', hidden_size: 64, num_attention_heads: 1, num_hidden_layers: 1, max_position_embeddings: 8, partial_rotary_factor: 0.5 }));
    await page.click('#use-text');
    await drawn(page);
    assert.match(await page.locator('#config-warnings li').first().textContent(), /^partial_rotary_factor \(0\.5\) is in the config, but HF's llama does not read it/);
    assert.match((await shown(page)).summary, /64 of 64 dimensions turn/);
    await page.fill('#config-text', '{ not json');
    await page.click('#use-text');
    assert.match(await page.locator('#config-error').textContent(), /^the pasted text is not JSON/);
    assert.deepEqual(problems, []);
  });

  it('as: a remote-code model (Kimi K2) is read as the HF family its code follows; without it, the error says to set as', async () => {
    const kimi = { ...pe.modelPresets['DeepSeek-V3'], model_type: 'kimi_k2' };
    await page.evaluate((config) => { document.querySelector('#model').config = config; }, kimi);
    await drawn(page);
    assert.match((await shown(page)).error, /^config: model_type 'kimi_k2' is not an HF family posembed reads\. .*read it as the family its code follows with the attribute as="deepseek_v3"/);
    await page.evaluate(() => document.querySelector('#model').setAttribute('as', 'deepseek_v3'));
    await drawn(page);
    const read = await shown(page);
    assert.equal(read.error, '');
    assert.match(read.summary, /^deepseek_v3, 61 layers/);
    await page.evaluate(() => document.querySelector('#model').setAttribute('as', 'no_such_family'));
    await drawn(page);
    assert.match((await shown(page)).error, /no_such_family/);
    await page.evaluate(() => document.querySelector('#model').removeAttribute('as'));
    assert.deepEqual(problems, []);
  });

  it('the port checker: posembed\'s float32 and bfloat16 caches are consistent; a half-for-interleaved one is a mismatch with suspect layout', async () => {
    await page.selectOption('#preset', 'Llama-3.1-8B');
    await drawn(page);
    const spec = pe.modelPositions('Llama-3.1-8B').layer(0).rope;
    const positions = Int32Array.from({ length: 8192 }, (_, i) => 1000 + i);
    const cases = [
      ['float32.safetensors', writeSafetensors(pe.ropeCache(spec, { positions, precision: 'float32' })), /^Consistent: float32 \(8192 positions × 128 columns\)/],
      ['bf16.npy', (() => {
        const { cos, sin } = pe.ropeCache(spec, { positions, precision: 'bfloat16' });
        const both = new Float32Array(cos.data.length * 2);
        both.set(cos.data);
        both.set(sin.data, cos.data.length);
        return writeNpy({ data: both, shape: [2, ...cos.shape] });
      })(), /^Consistent: bfloat16/],
      ['interleaved.safetensors', writeSafetensors(pe.ropeCache({ ...spec, layout: 'interleaved' }, { positions, precision: 'float32' })), /^Mismatch .*\nSuspect: layout\. the cache pairs dimensions the interleaved/s],
      ['not-a-cache.safetensors', writeSafetensors({ weight: { data: new Float32Array(4), shape: [2, 2] } }), /^not-a-cache\.safetensors: no tensors named cos and sin \(it holds weight\)/],
    ];
    await page.fill('#check-from', '1000');
    for (const [name, bytes, expected] of cases) {
      const file = join(dir, name);
      writeFileSync(file, bytes);
      await page.setInputFiles('#check-file', file);
      await page.waitForFunction(() => !document.querySelector('#check-result').textContent.startsWith('Checking'), null, { timeout: 30000 });
      assert.match(await page.locator('#check-result').textContent(), expected, name);
    }
    assert.deepEqual(problems, []);
  });
});
