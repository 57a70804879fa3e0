// <posembed-model config="Llama-3.1-8B" layer="0">: a real model's positional layer, from a preset's name, a
// config.json's URL, or a parsed config set as element.config. First the model in plain words (what kind of positions,
// where they enter, its trained and extended lengths and what its scaling does there, in numbers computed from the
// config), then the detail. For a RoPE layer: how far each pair turns over the trained and the extended context,
// before and after the scaling; the attention score against distance past the trained length, with and without it;
// for mRoPE, an image's grid of position ids and the pairs each of time, height and width drives; and a precision lab
// (the float32, float16 and bfloat16 caches' error against position, and where neighbouring positions' bfloat16 rows
// collide; precision="false" leaves it out). Where its layers differ, the layers' schemes as a strip. Attributes: config,
// layer, precision, caption, axes, legend.
import { mropeStream } from '../rope.js';
import { Figure, SERIES_COLOURS, formatValue } from './figure.js';
import { observedAttributes, problemsMessage } from '../element_schemas.js';
import { BASE_STYLE, LazyElement, adoptStyles, define, posembed } from './shared.js';
import { nextTask } from '../next_task.js';

const TAG = 'posembed-model';

const STYLE = `
  .story { margin: 0.3rem 0 0.5rem; max-width: 70ch; }
  .summary { font-size: 0.85rem; margin: 0.3rem 0; overflow-wrap: anywhere; color: var(--pe-theme-muted); }
  .views { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 440px), 1fr)); gap: 0 1.25rem; }
`;
const SCHEME_COLOURS = {
  full_attention: SERIES_COLOURS[0], sliding_attention: SERIES_COLOURS[2], rope: SERIES_COLOURS[0], nope: SERIES_COLOURS[5],
  alibi: SERIES_COLOURS[3], encoder: SERIES_COLOURS[4], decoder: SERIES_COLOURS[1], learned: SERIES_COLOURS[6], sinusoidal: SERIES_COLOURS[7],
};
const STREAMS = ['time', 'height', 'width'];
const COUNT = new Intl.NumberFormat('en', { notation: 'compact', maximumSignificantDigits: 3 });
// A context length as models are named by it: 8192 tokens is "8K", 131072 "128K".
const contextLength = (n) => (n >= 1024 && n % 1024 === 0 ? `${n / 1024}K` : COUNT.format(n));

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

// The package's advice to read a config as another family, in the element's words.
const AS_ATTRIBUTE = (as) => `the attribute as="${as}"`;

export class PosembedModel extends LazyElement {
  static observedAttributes = observedAttributes(TAG);
  static properties = ['config'];  // set before the element was defined: see LazyElement
  #config = null;
  #figures = {};

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, BASE_STYLE, STYLE);
    root.innerHTML = '<p class="title" part="title" hidden></p><p class="story" part="story"></p><p class="summary" part="summary"></p><div class="views"></div><p class="error" role="alert" part="error" hidden></p><p class="warnings" part="warnings" hidden></p><p class="caption" part="caption"></p>';
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
      const model = pe.modelPositions(config, values.as === undefined ? undefined : { as: values.as });
      const index = values.layer;
      if (index >= model.numLayers) throw new RangeError(`<${TAG}>: layer must be below the model's ${model.numLayers} layers, got "${index}"`);
      const layer = model.layer(index);
      for (const figure of Object.values(this.#figures)) figure.element.hidden = true;
      root.querySelector('.story').textContent = story(pe, model, index, layer);
      root.querySelector('.summary').textContent = summary(model, index, layer);
      // Keys of the config its family does not read: HF goes on without them, and the figure says so.
      const warnings = root.querySelector('.warnings');
      warnings.textContent = model.warnings.length ? `Read as HF reads it: ${model.warnings.join('; ')}.` : '';
      warnings.hidden = model.warnings.length === 0;
      const views = [
        ...(layer.kind === 'rope' ? [() => this.#turns(pe, model, layer.rope)] : []),
        ...(layersDiffer(model) ? [() => this.#strip(model, index)] : []),
        ...(layer.kind === 'rope' ? [() => this.#scores(pe, model, layer.rope)] : []),
        ...(layer.rope?.mropeSection ? [() => this.#mrope(pe, layer.rope)] : []),
        ...(layer.kind === 'rope' && values.precision ? [() => this.#precision(pe, model, layer.rope)] : []),
      ];
      // One view per task: the page stays free while a model's several views are drawn.
      for (const [i, draw] of views.entries()) {
        if (i > 0) {
          await nextTask();
          if (generation !== this.generation) return;
        }
        draw();
      }
      root.querySelector('.caption').textContent = values.caption ?? '';
      Object.assign(root.querySelector('.title'), { textContent: values.title ?? '', hidden: !values.title });
      errorBox.hidden = true;
      this.dataset.rendered = String(generation);
      this.announce('render', { modelType: model.modelType, layer: index, kind: layer.kind });
    } catch (error) {
      if (generation !== this.generation) return;
      errorBox.textContent = error.inWordsOf?.(AS_ATTRIBUTE) ?? error.message;
      errorBox.hidden = false;
      for (const figure of Object.values(this.#figures)) figure.element.hidden = true;
      root.querySelector('.summary').textContent = '';
      root.querySelector('.story').textContent = '';
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

  // The capstone: how far each pair turns over the trained context, and over the extended one before and after the
  // scaling. A pair that never made a full turn in training has seen only the angles up to its turn there.
  #turns(pe, model, rope) {
    const figure = this.#figure('turns', 'how far each pair turns over the trained and the extended context');
    const plain = unscaled(pe, rope);
    const pairs = Array.from({ length: rope.invFreq.length }, (_, i) => i);
    const { trained, extended } = lengths(model, rope);
    const turns = (length, rates) => Array.from(rates, (w) => (w > 0 ? Math.log10((length * w) / (2 * Math.PI)) : NaN));
    const scaled = rope.type !== 'default';
    const series = [{ label: `over the trained ${contextLength(trained)}`, x: pairs, y: turns(trained, plain), colour: SERIES_COLOURS[5] }];
    if (extended > trained) {
      series.push({ label: `over ${contextLength(extended)}, ${scaled ? 'unscaled' : 'past its training'}`, x: pairs, y: turns(extended, plain), colour: SERIES_COLOURS[1], dashed: true });
      if (scaled) series.push({ label: `over ${contextLength(extended)}, with ${rope.type}`, x: pairs, y: turns(extended, rope.invFreq), colour: SERIES_COLOURS[0] });
    }
    series.push({ label: 'one full turn', x: [0, pairs.length - 1], y: [0, 0], colour: '#aab2bb', width: 1 });
    figure.title = 'How far each pair turns';
    figure.lines(series, {
      x: { label: 'pair i (fast → slow)' }, y: { label: 'turns (log10)' },
      describe: (i) => `pair ${i}: ${series.slice(0, -1).map((s) => `${s.label}: ${formatTurns(10 ** s.y[i])}`).join('; ')}`,
    });
    figure.caption = turnsCaption(model, rope, plain);
  }

  #scores(pe, model, rope) {
    const figure = this.#figure('scores', 'attention score against distance, with and without the scaling');
    const end = Math.max(model.maxPositions ?? 0, rope.originalMaxPositions ?? 0, 4096) * 2;
    const distances = logPositions(end, 240, { zero: false });
    const plain = unscaled(pe, rope);
    const { trained } = lengths(model, rope);
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

// The context the model was trained on (the scaling's original length, or for linear scaling max ÷ factor) and the
// one it reads (its max_position_embeddings, else the trained one).
function lengths(model, rope) {
  let trained = rope.originalMaxPositions ?? model.maxPositions;
  if (!rope.originalMaxPositions && rope.type === 'linear' && model.maxPositions) trained = Math.round(model.maxPositions / rope.scaling.factor);
  trained ??= 4096;
  return { trained, extended: Math.max(model.maxPositions ?? trained, trained) };
}

// Whether the layers differ in their scheme or its numbers (a strip of identical bars says nothing).
function layersDiffer(model) {
  const key = (i) => {
    const layer = model.layer(i);
    return `${model.layerTypes[i]} ${layer.kind} ${layer.rope ? `${layer.rope.type} ${layer.rope.base}` : ''}`;
  };
  for (let i = 1; i < model.numLayers; i++) if (key(i) !== key(0)) return true;
  return false;
}

const turnsWord = (n) => (n >= 1 ? `${COUNT.format(n)} turn${n >= 1.5 ? 's' : ''}` : `1/${COUNT.format(Math.round(1 / n))} of a turn`);
const formatTurns = (n) => (Number.isFinite(n) && n > 0 ? turnsWord(n) : 'none');

// Among the pairs that never made a full turn in training, how much further than in training they turn over the
// extended context: { never (how many), unscaled, scaled } (ratios of angles; the largest over those pairs).
function pastTraining(model, rope, plain) {
  const { trained, extended } = lengths(model, rope);
  const slow = [...plain.keys()].filter((i) => (trained * plain[i]) / (2 * Math.PI) < 1);
  const ratio = (rates) => slow.reduce((most, i) => Math.max(most, (extended * rates[i]) / (trained * plain[i])), 0);
  return { never: slow.length, unscaled: ratio(plain), scaled: ratio(rope.invFreq) };
}

const times = (ratio) => `${ratio >= 10 ? Math.round(ratio) : Math.round(ratio * 10) / 10}×`;

function turnsCaption(model, rope, plain) {
  const { trained, extended } = lengths(model, rope);
  const { never, unscaled, scaled } = pastTraining(model, rope, plain);
  const first = `Each line is how many turns a pair makes over a stretch of text (log10: 0 is one turn, −2 a hundredth). Above the grey line a pair turns full circles and has seen every angle; below it, only the angles up to where it stops. ${never} of ${plain.length} pairs never make a full turn in the trained ${contextLength(trained)} tokens.`;
  if (extended <= trained || !never) return first;
  if (rope.type === 'default') return `${first} Over ${contextLength(extended)} tokens they would turn ${times(unscaled)} as far as in training, to angles the model never saw: this config has no scaling rule.`;
  return `${first} Over ${contextLength(extended)} tokens they would turn up to ${times(unscaled)} as far unscaled; the ${rope.type} rule slows them so they turn at most ${times(scaled)} as far as in training, and leaves the fast pairs, which have seen every angle, as they were.`;
}

// The same rotary shape and base with no scaling: the frequencies to compare with.
function unscaled(pe, rope) {
  return pe.ropeInvFreq({ headDim: rope.rotaryDim, base: rope.base }).invFreq.data;
}

// The model in plain words, for a reader who knows what a transformer is but not how positions enter it.
function story(pe, model, index, layer) {
  const name = model.modelType;
  const layers = `${model.numLayers} layer${model.numLayers === 1 ? '' : 's'}`;
  const count = (n) => n.toLocaleString('en');
  if (layer.kind === 'learned' || layer.kind === 'sinusoidal') {
    const table = layer.kind === 'learned' ? `a learned position vector (one row of a ${count(layer.learned.maxPositions)}-row table, so it reads at most ${count(layer.learned.maxPositions)} tokens)` : 'a fixed sinusoidal position vector';
    return `${name} adds ${table} to each token once, at the input. Its ${layers} have no positions of their own: attention sees the order only through what the input carried in.`;
  }
  if (layer.kind === 'alibi') return `${name} adds no position vectors. In each of its ${layers}, every head lowers the attention score by its own slope times the distance between query and key (ALiBi), so nearer tokens weigh more, strongly in some heads and faintly in others. No table limits its length.`;
  if (layer.kind === 't5') return `${name} adds no position vectors. Each attention score gets a learned bias for how far apart query and key are, by bucket: exact for near distances, shared by ever wider ranges farther out, all the same beyond ${count(layer.t5.maxDistance)} tokens. ${layer.t5.bidirectional ? 'The encoder\'s buckets tell before from after' : 'The decoder\'s see only the past'}.`;
  if (layer.kind !== 'rope') return `Layer ${index} of ${name} uses no positions at all (NoPE): it attends by content alone, and the order reaches it only through the layers before it.`;
  const rope = layer.rope;
  const nope = model.layerTypes.filter((type, i) => model.layer(i).kind !== 'rope').length;
  const where = nope ? `${model.numLayers - nope} of its ${layers} (the other ${nope} use no positions at all)` : `each of its ${layers}`;
  const plain = unscaled(pe, rope);
  const wavelength = (w) => COUNT.format((2 * Math.PI) / w);
  const opening = `${name} turns each query and key by its position (RoPE) in ${where}: ${rope.invFreq.length} pairs of dimensions rotate at rates from one turn every ${wavelength(plain[0])} tokens to one every ${wavelength(plain.at(-1))}, so a score depends on how far apart two tokens are, not where they stand.`;
  const { trained, extended } = lengths(model, rope);
  const { never, unscaled: far, scaled } = pastTraining(model, rope, plain);
  if (extended <= trained) return `${opening} It reads up to ${count(trained)} tokens, as it was trained; no rule stretches it further.`;
  if (rope.type === 'default') return `${opening} Its config allows ${count(extended)} tokens but sets no scaling rule: its ${never} slowest pairs would turn up to ${times(far)} as far as over the ${count(trained)} tokens it was trained on.`;
  const longTraining = rope.type === 'llama3' ? ' Llama 3.1 was then trained further on long texts, in stages from 8K to 128K tokens: the rule makes that training start from familiar angles.' : '';
  return `${opening} It was pretrained on texts of up to ${count(trained)} tokens and reads up to ${count(extended)}. ${never} slow pairs never make a full turn in ${count(trained)} tokens; unscaled, over ${count(extended)} they would turn ${times(far)} as far, to angles never seen. The ${rope.type} rule slows them so they turn at most ${times(scaled)} as far, and leaves the fast pairs as they were.${longTraining}`;
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
