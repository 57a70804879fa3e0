// <posembed-model config="Llama-3.1-8B" layer="0">: a real model's positional layer, from a preset's name, a
// config.json's URL, or a parsed config set as element.config. For a RoPE layer: each pair's wavelength in tokens
// before and after the model's scaling against its trained and extended context; the attention score against
// distance past the trained length, with and without the scaling; for mRoPE, an image's grid of position ids and
// the pairs each of time, height and width drives; and a precision lab (the float32, float16 and bfloat16 caches'
// error against position, and where neighbouring positions' bfloat16 rows collide). For every model, the layers'
// schemes as a strip. Attributes: config, layer, caption, axes, legend.
import { mropeStream } from '../rope.js';
import { Figure, SERIES_COLOURS, formatValue } from './figure.js';
import { observedAttributes, problemsMessage } from './attributes.js';
import { BASE_STYLE, LazyElement, adoptStyles, define, posembed } from './shared.js';

const TAG = 'posembed-model';

const STYLE = `
  .summary { font-size: 0.9rem; margin: 0.3rem 0; overflow-wrap: anywhere; }
  .views { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 440px), 1fr)); gap: 0 1.25rem; }
`;
const SCHEME_COLOURS = {
  full_attention: SERIES_COLOURS[0], sliding_attention: SERIES_COLOURS[2], rope: SERIES_COLOURS[0], nope: SERIES_COLOURS[5],
  alibi: SERIES_COLOURS[3], encoder: SERIES_COLOURS[4], decoder: SERIES_COLOURS[1], learned: SERIES_COLOURS[6], sinusoidal: SERIES_COLOURS[7],
};
const STREAMS = ['time', 'height', 'width'];
const COUNT = new Intl.NumberFormat('en', { notation: 'compact', maximumSignificantDigits: 3 });

// n positions from 1 to `to`, spaced evenly on a log scale (whole numbers, no repeats); with zero, 0 first.
function logPositions(to, n, { zero = true } = {}) {
  const out = new Set(zero ? [0] : []);
  for (let k = 0; k < n; k++) out.add(Math.round(Math.exp((Math.log(Math.max(2, to)) * k) / (n - 1))));
  return [...out].filter((p) => p <= to).sort((a, b) => a - b);
}

// The mean of cos(d·ω_i) over the pairs (times the attention factor squared): the score of a query and a key d
// apart whose pairs all point the same way, RoPE's long-range decay curve.
function scoreCurve(invFreq, distances, attention = 1) {
  return distances.map((d) => {
    let sum = 0;
    for (const w of invFreq) sum += Math.cos(d * w);
    return (sum / invFreq.length) * attention * attention;
  });
}

export class PosembedModel extends LazyElement {
  static observedAttributes = observedAttributes(TAG);
  static properties = ['config'];  // set before the element was defined: see LazyElement
  #config = null;
  #figures = {};

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, BASE_STYLE, STYLE);
    root.innerHTML = '<p class="title" part="title" hidden></p><p class="summary" part="summary"></p><div class="views"></div><p class="error" role="alert" part="error" hidden></p><p class="warnings" part="warnings" hidden></p><p class="caption" part="caption"></p>';
  }

  // A parsed config.json (an object), in place of the config attribute; a string is the attribute (a preset's name
  // or a URL), as a framework that sets properties gives it.
  get config() { return this.#config ?? this.getAttribute('config'); }
  set config(value) {
    if (typeof value === 'string') {
      this.#config = null;
      this.setAttribute('config', value);
      return;
    }
    this.#config = value;
    this.attributeChangedCallback();
  }

  async #loadConfig(given) {
    if (this.#config) return this.#config;
    const pe = await posembed('models');
    if (given in pe.modelPresets) return given;
    const presets = `the presets: ${Object.keys(pe.modelPresets).join(', ')}`;
    // A bare name (no slash, no extension) is a preset the author misspelled, not a file to fetch.
    if (!/[/.:]/.test(given)) throw new Error(`config: '${given}' is not a preset (${presets}); or give a config.json URL`);
    const response = await fetch(new URL(given, document.baseURI));
    if (!response.ok) throw new Error(`config: '${given}' is neither a preset nor a readable URL (HTTP ${response.status}); ${presets}`);
    return response.json();
  }

  #frame = { axes: true, legend: true };  // the axes and legend attributes of the current render

  #figure(key, label) {
    this.#figures[key] ??= new Figure(this.shadowRoot.querySelector('.views'), { label, maxHeight: 260 });
    const figure = this.#figures[key];
    figure.axes = this.#frame.axes;
    figure.legend = this.#frame.legend;
    figure.element.hidden = false;
    return figure;
  }

  async render() {
    const generation = ++this.generation;
    const root = this.shadowRoot;
    const errorBox = root.querySelector('.error');
    try {
      const { values, problems } = this.readAttributes();
      if (problems.length) throw new RangeError(problemsMessage(TAG, problems));
      this.#frame = { axes: values.axes, legend: values.legend };
      const pe = await posembed('models');
      const config = await this.#loadConfig(values.config);
      if (generation !== this.generation) return;
      const model = pe.modelPositions(config);
      const index = values.layer;
      if (index >= model.numLayers) throw new RangeError(`<${TAG}>: layer must be below the model's ${model.numLayers} layers, got "${index}"`);
      const layer = model.layer(index);
      for (const figure of Object.values(this.#figures)) figure.element.hidden = true;
      root.querySelector('.summary').textContent = summary(model, index, layer);
      // Keys of the config its family does not read: HF goes on without them, and the figure says so.
      const warnings = root.querySelector('.warnings');
      warnings.textContent = model.warnings.length ? `Read as HF reads it: ${model.warnings.join('; ')}.` : '';
      warnings.hidden = model.warnings.length === 0;
      this.#strip(model, index);
      if (layer.kind === 'rope') {
        this.#wavelengths(pe, model, layer.rope);
        this.#scores(pe, model, layer.rope);
        if (layer.rope.mropeSection) this.#mrope(pe, layer.rope);
        this.#precision(pe, model, layer.rope);
      }
      root.querySelector('.caption').textContent = values.caption ?? '';
      Object.assign(root.querySelector('.title'), { textContent: values.title ?? '', hidden: !values.title });
      errorBox.hidden = true;
      this.dataset.rendered = String(generation);
      this.announce('render', { modelType: model.modelType, layer: index, kind: layer.kind });
    } catch (error) {
      if (generation !== this.generation) return;
      errorBox.textContent = error.message;
      errorBox.hidden = false;
      for (const figure of Object.values(this.#figures)) figure.element.hidden = true;
      root.querySelector('.summary').textContent = '';
    }
  }

  #strip(model, index) {
    const figure = this.#figure('layers', 'each layer\'s positional scheme');
    const kinds = [...new Set(model.layerTypes)];
    const bars = model.layerTypes.map((scheme, i) => {
      const layer = model.layer(i);
      const base = layer.rope ? layer.rope.base : null;
      return { label: String(i), value: base ? Math.log10(base) : 1, group: scheme, base };
    });
    figure.title = `Layers: ${kinds.join(', ')}`;
    figure.bars(bars, {
      groups: kinds.map((name) => ({ name, colour: SCHEME_COLOURS[name] ?? SERIES_COLOURS[8] })),
      x: { label: 'layer' }, y: { label: model.layer(0).rope ? 'log10 RoPE base' : 'scheme' },
      describe: (i) => `layer ${i}: ${bars[i].group}${bars[i].base ? `, base ${formatValue(bars[i].base)}` : ''}`,
    });
    figure.moveCursorTo(index);
    figure.caption = kinds.length > 1
      ? 'Layers do not all treat positions alike: each bar is a layer, coloured by its scheme (its height: the RoPE base where there is one).'
      : `Every layer uses the same scheme (${kinds[0]}).`;
  }

  #wavelengths(pe, model, rope) {
    const figure = this.#figure('wavelengths', 'wavelength of each pair, before and after the scaling');
    const plain = unscaled(pe, rope);
    const pairs = Array.from({ length: rope.invFreq.length }, (_, i) => i);
    const wavelength = (w) => (w > 0 ? Math.log10((2 * Math.PI) / w) : NaN);
    const trained = trainedLength(model, rope);
    const series = [{ label: `base ${formatValue(rope.base)}, unscaled`, x: pairs, y: Array.from(plain, wavelength), dashed: rope.type !== 'default' }];
    if (rope.type !== 'default') series.push({ label: `${rope.type} scaling`, x: pairs, y: Array.from(rope.invFreq, wavelength) });
    if (trained) series.push({ label: `trained context (${COUNT.format(trained)})`, x: [0, pairs.length - 1], y: [Math.log10(trained), Math.log10(trained)], colour: '#5b6672', dashed: true, width: 1 });
    if (model.maxPositions && model.maxPositions !== trained) {
      series.push({ label: `extended context (${COUNT.format(model.maxPositions)})`, x: [0, pairs.length - 1], y: [Math.log10(model.maxPositions), Math.log10(model.maxPositions)], colour: '#e08a00', dashed: true, width: 1 });
    }
    figure.title = 'Wavelength of each pair';
    figure.lines(series, {
      x: { label: 'pair i (fast → slow)' }, y: { label: 'log10 wavelength (tokens)' },
      describe: (i) => `pair ${i}: wavelength ${formatValue((2 * Math.PI) / plain[i])} tokens${rope.type === 'default' ? '' : ` unscaled, ${formatValue((2 * Math.PI) / rope.invFreq[i])} with ${rope.type}`}`,
    });
    const attention = rope.attentionFactor !== 1 ? ` cos and sin are also multiplied by ${rope.attentionFactor.toFixed(4)} (the attention factor).` : '';
    figure.caption = {
      default: `Pair i turns once every 2π·base^(2i/d) tokens: the fast pairs (left) in a few tokens, the slowest in ${COUNT.format((2 * Math.PI) / plain.at(-1))}. Pairs whose wavelength passes the trained context never made a full turn in training.`,
      linear: `Linear scaling divides every rate by the factor (${rope.scaling.factor}): every wavelength grows ${rope.scaling.factor}×, so over the extended context the slow pairs turn no further than over the trained one, and the fast pairs slow down too.`,
    }[rope.type] ?? `The ${rope.type} rule lengthens the slow pairs' wavelengths (right, past the trained context) so they turn no further over the extended context than they did in training, and leaves the fast pairs (left) as they were.${attention}`;
  }

  #scores(pe, model, rope) {
    const figure = this.#figure('scores', 'attention score against distance, with and without the scaling');
    const end = Math.max(model.maxPositions ?? 0, rope.originalMaxPositions ?? 0, 4096) * 2;
    const distances = logPositions(end, 240, { zero: false });
    const plain = unscaled(pe, rope);
    const trained = trainedLength(model, rope);
    figure.title = 'Score against distance';
    const curves = [{ label: rope.type === 'default' ? 'this model (no scaling)' : 'unscaled', x: distances, y: scoreCurve(plain, distances), dashed: rope.type !== 'default' }];
    if (rope.type !== 'default') curves.unshift({ label: `${rope.type} scaling`, x: distances, y: scoreCurve(rope.invFreq, distances, rope.attentionFactor) });
    figure.lines(curves, {
      x: { label: 'distance between query and key (tokens, log scale)', log: true, domain: [1, end] },
      y: { label: 'mean cos(distance · ω)' },
      rules: [...(trained ? [{ x: trained, label: 'trained' }] : []), ...(model.maxPositions && model.maxPositions !== trained ? [{ x: model.maxPositions, label: 'extended' }] : [])],
      describe: (i) => `distance ${distances[i]}`,
    });
    figure.caption = rope.type === 'default'
      ? 'For a query and a key whose pairs all point the same way, the score falls as they move apart. Past the trained length (dashed) the slow pairs reach angles the model never saw in training: this model has no scaling rule for longer texts.'
      : 'For a query and a key whose pairs all point the same way, the score falls as they move apart. Past the trained length the unscaled curve reaches distances whose angles the model never saw; the scaling stretches the curve so the extended context looks like the trained one.';
  }

  #mrope(pe, rope) {
    // Text tokens, then a 3 × 4 image, then text: the image's tokens share a time position; height and width count rows and columns.
    const [text, rows, columns] = [3, 3, 4];
    const streams = [[], [], []];
    for (let t = 0; t < text; t++) for (const s of streams) s.push(t);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < columns; c++) {
        streams[0].push(text);
        streams[1].push(text + r);
        streams[2].push(text + c);
      }
    }
    const next = text + Math.max(rows, columns);
    for (let t = 0; t < 2; t++) for (const s of streams) s.push(next + t);
    const grid = this.#figure('mrope-grid', 'position ids of text and an image, per stream');
    grid.title = 'mRoPE position ids: text, a 3 × 4 image, text';
    grid.heatmap({ data: Float32Array.from(streams.flat()), shape: [3, streams[0].length] }, {
      colormap: 'viridis', x: { label: 'token' }, y: { label: 'stream', names: STREAMS }, colour: { label: 'position id' },
    });
    grid.caption = 'Text tokens count up in all three streams alike. An image\'s tokens share one time id, while height and width number its rows and columns, so nearby patches are near in the attention score.';
    const pairs = this.#figure('mrope-pairs', 'the stream that drives each pair');
    const stream = (i) => mropeStream(rope, i);
    pairs.title = `Pairs by stream (${rope.mropeInterleaved ? 'interleaved' : 'in blocks'}: ${rope.mropeSection.join(', ')})`;
    pairs.bars(Array.from(rope.invFreq, (w, i) => ({ label: String(i), value: Math.log10((2 * Math.PI) / w), group: STREAMS[stream(i)] })), {
      groups: STREAMS.map((name, s) => ({ name, colour: SERIES_COLOURS[s] })), x: { label: 'pair i' }, y: { label: 'log10 wavelength (tokens)' },
      describe: (i) => `pair ${i}: ${STREAMS[stream(i)]}, wavelength ${formatValue((2 * Math.PI) / rope.invFreq[i])} tokens`,
    });
    pairs.caption = rope.mropeInterleaved
      ? 'Interleaved (Qwen3-VL): time, height and width take turns, so each stream has fast and slow pairs.'
      : 'In blocks (Qwen2-VL): time takes the fast pairs, height and width the slower ones.';
  }

  #precision(pe, model, rope) {
    const end = Math.max(model.maxPositions ?? 4096, 4096);
    const positions = Int32Array.from(logPositions(end, 120));
    const exact = pe.ropeCache(rope, { positions });
    const width = rope.rotaryDim;
    const errorOf = (cache) => Array.from(positions, (_, r) => {
      let worst = 0;
      for (let c = 0; c < width; c++) {
        const j = r * width + c;
        worst = Math.max(worst, Math.abs(cache.cos.data[j] - exact.cos.data[j]), Math.abs(cache.sin.data[j] - exact.sin.data[j]));
      }
      return worst > 0 ? Math.log10(worst) : NaN;
    });
    const lab = this.#figure('precision', 'error of the float32, float16 and bfloat16 caches against position');
    lab.title = 'Precision lab';
    const xs = Array.from(positions, (p) => Math.max(p, 1));
    lab.lines(['float32', 'float16', 'bfloat16'].map((precision) => ({ label: precision, x: xs, y: errorOf(pe.ropeCache(rope, { positions, precision })) })), {
      x: { label: 'position (log scale)', log: true, domain: [1, end] }, y: { label: 'log10 largest error in the row' },
      describe: (i) => `position ${positions[i]}`,
    });
    lab.caption = 'HF computes the angle position × ω in float32, which loses about position · ω · 2⁻²⁴: the float32 cache drifts from the exact maths as the position grows (1e-2 near 131k). A bfloat16 model casts that cache again, to 8 significant bits.';
    // Neighbouring positions whose bfloat16 rows are the same in a pair: the slow pairs cannot tell them apart.
    const near = Int32Array.from(logPositions(end - 1, 60));
    const pairsOf = rope.layout === 'half' ? (c) => c < width / 2 : (c) => c % 2 === 0;
    const both = Int32Array.from([...near].flatMap((p) => [p, p + 1]));
    const bf16 = pe.ropeCache(rope, { positions: both, precision: 'bfloat16' });
    const collide = Array.from(near, (_, k) => {
      let same = 0;
      for (let c = 0; c < width; c++) {
        if (!pairsOf(c)) continue;
        const a = 2 * k * width + c;
        if (bf16.cos.data[a] === bf16.cos.data[a + width] && bf16.sin.data[a] === bf16.sin.data[a + width]) same++;
      }
      return (100 * same) / (width / 2);
    });
    const collisions = this.#figure('collisions', 'share of pairs where positions p and p + 1 have the same bfloat16 cos and sin');
    collisions.title = 'bfloat16: neighbouring positions that collide';
    collisions.lines([{ label: 'pairs whose bf16 cos and sin do not change from p to p + 1', x: Array.from(near, (p) => Math.max(p, 1)), y: collide }], {
      x: { label: 'position p (log scale)', log: true, domain: [1, end] }, y: { label: '% of pairs', domain: [0, 100] },
      describe: (i) => `p = ${near[i]}: ${collide[i].toFixed(1)}% of pairs identical at p + 1`,
    });
    collisions.caption = 'A slow pair turns so little from one position to the next that bfloat16\'s 8 bits round both to the same cos and sin: for those pairs the two positions are one. Only the fast pairs still tell neighbours apart.';
  }
}

// The context the model was trained on: the scaling's original length, or for linear scaling max ÷ factor.
function trainedLength(model, rope) {
  if (rope.originalMaxPositions) return rope.originalMaxPositions;
  if (rope.type === 'linear' && model.maxPositions) return Math.round(model.maxPositions / rope.scaling.factor);
  return model.maxPositions;
}

// The same rotary shape and base with no scaling: the frequencies to compare with.
function unscaled(pe, rope) {
  return pe.ropeInvFreq({ headDim: rope.rotaryDim, base: rope.base }).invFreq.data;
}

function summary(model, index, layer) {
  const head = `${model.modelType}, ${model.numLayers} layers${model.maxPositions ? `, ${COUNT.format(model.maxPositions)} positions` : ''}. Layer ${index}: `;
  const scale = `scores × ${formatValue(layer.scoreScale)}`;
  if (layer.kind === 'rope') {
    const r = layer.rope;
    return `${head}RoPE (${r.type}${r.mropeSection ? ', mRoPE' : ''}), base ${formatValue(r.base)}, ${r.rotaryDim} of ${r.headDim} dimensions turn, ${r.layout} layout, attention factor ${formatValue(r.attentionFactor)}, ${scale}.`;
  }
  if (layer.kind === 'alibi') return `${head}ALiBi (${layer.alibi.rule}'s slopes: ${Array.from(layer.alibi.slopes.slice(0, 4), formatValue).join(', ')}…), ${scale}.`;
  if (layer.kind === 't5') return `${head}T5 buckets (${layer.t5.numBuckets}, max distance ${layer.t5.maxDistance}, ${layer.t5.bidirectional ? 'bidirectional' : 'one-directional'}), ${scale}.`;
  if (layer.kind === 'learned') return `${head}a learned table of ${layer.learned.maxPositions} positions${layer.learned.offset ? `, rows offset by ${layer.learned.offset}` : ''}, ${scale}.`;
  if (layer.kind === 'sinusoidal') return `${head}sinusoidal (${layer.sinusoidal.timescale}, ${layer.sinusoidal.layout}), positions from ${layer.sinusoidal.offset}, ${scale}.`;
  return `${head}no positional encoding (NoPE)${layer.queryScale ? ', queries scaled by position' : ''}, ${scale}.`;
}

define(TAG, PosembedModel);
