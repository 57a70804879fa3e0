// <posembed-rope head-dim="64" base="10000" layout="half" pairs="4">: how RoPE turns each 2-D pair of a query as
// the position moves. A strip shows which dimensions pair up in the layout; each dial is one pair, its hand where
// the package's applyRope puts that pair's unit vector (1, 0) at the current position. With scaling (linear,
// dynamic, llama3, yarn; factor, original-max-positions) the hands turn as the scaled model's do, and a grey hand
// shows the unscaled angle. Animated while on screen, unless the reader asks for reduced motion; Space pauses,
// arrow keys step.
// Attributes: head-dim, base, layout (half | interleaved), pairs, position, speed (positions a second), scaling,
// and every parameter of the rules it draws, as the core's table of rules names them (factor,
// original-max-positions, sequence-length, low-freq-factor, beta-fast, …: element_schemas.js).
import { BORDER, INK, MUTED, SURFACE } from '../scene.js';
import { SERIES_COLOURS, drawPicture, formatValue } from './figure.js';
import { inAttributeWords, observedAttributes, problemsMessage, readAttributes } from '../element_schemas.js';
import { figureScaling } from '../encoding_figures.js';
import { kebabCase } from '../op_schemas.js';
import { schemeFor } from './scheme.js';
import { BASE_STYLE, LazyElement, adoptStyles, define, onHost, posembed } from './shared.js';

const TAG = 'posembed-rope';

const STYLE = `
  .controls { display: flex; flex-wrap: wrap; gap: 0.5rem 0.75rem; align-items: center; font-size: 0.85rem; margin: 0.3rem 0; }
  .dials { display: flex; flex-wrap: wrap; gap: 0.5rem; }
  .dials:focus-visible { outline: 3px solid var(--pe-theme-accent); outline-offset: 3px; }
  .dims { display: block; max-width: 100%; height: auto; margin: 0.3rem 0; }
`;
const DIAL = 150;
const RADIUS = 52;
// The dimension strip: a cell's side and the room for its label, "dimension →", before the cells (px).
const DIMENSION_CELL = 18;
const DIMENSION_LABEL = 90;
const TEXT_SIZE = 11;
const WAVELENGTH = new Intl.NumberFormat('en', { notation: 'compact', maximumSignificantDigits: 3 });
const reducedMotion = () => globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;

// The dimension strip as a picture: one cell per dimension of the head, perRow to a row, numbered by the pair it belongs
// to; the shown pairs (colourOf: pair → colour) in their dial's colour, with the number in the ink that reads on it.
function dimensionStrip(headDim, layout, colourOf, perRow) {
  const cell = DIMENSION_CELL;
  const marks = [{ kind: 'text', x: 0, y: 13, text: 'dimension →', size: TEXT_SIZE, fill: INK }];
  for (let d = 0; d < headDim; d++) {
    const pair = layout === 'half' ? d % (headDim / 2) : Math.floor(d / 2);
    const x = DIMENSION_LABEL - 4 + (d % perRow) * cell;
    const y = 2 + Math.floor(d / perRow) * cell;
    const colour = colourOf.get(pair);
    marks.push({ kind: 'rect', x, y, width: cell - 2, height: cell - 2, fill: colour ?? SURFACE, stroke: colour ?? BORDER });
    if (headDim <= 64 || colour) {
      marks.push({ kind: 'text', x: x + (cell - 2) / 2, y: y + 12, anchor: 'middle', text: String(pair), size: TEXT_SIZE, fill: colour ? inkOn(colour) : MUTED });
    }
  }
  return {
    width: perRow * cell + DIMENSION_LABEL, height: Math.ceil(headDim / perRow) * cell + 4, marks,
    label: `The ${headDim} dimensions of a head, each numbered by its pair: ${layout === 'half' ? `dimension i pairs with i + ${headDim / 2}` : 'neighbours pair'}.`,
  };
}

const inkOn = (colour) => (schemeFor(colour) === 'dark' ? '#ffffff' : '#111111');

// One pair's dial as a picture: the pair's hand at its angle (and, with scaling, the unscaled angle's grey dashed
// hand), and under it the pair's dimensions, its rate and its wavelength.
function pairDial({ pair, dimensions: [a, b], angle, plainAngle, rate, colour }) {
  const cx = DIAL / 2;
  const cy = RADIUS + 8;
  const hand = (theta, paint) => ({ kind: 'line', x1: cx, y1: cy, x2: cx + RADIUS * Math.cos(theta), y2: cy - RADIUS * Math.sin(theta), cap: 'round', ...paint });
  const lines = [`pair ${pair}: dims ${a} & ${b}`, `${formatValue(rate)} rad per position`, `wavelength ${WAVELENGTH.format((2 * Math.PI) / rate)}`];
  return {
    width: DIAL, height: DIAL + 20,
    marks: [
      { kind: 'circle', cx, cy, r: RADIUS, fill: 'none', stroke: BORDER },
      { kind: 'line', x1: cx - RADIUS, x2: cx + RADIUS, y1: cy, y2: cy, stroke: BORDER, opacity: 0.6 },
      { kind: 'line', x1: cx, x2: cx, y1: cy - RADIUS, y2: cy + RADIUS, stroke: BORDER, opacity: 0.6 },
      ...(plainAngle === undefined ? [] : [hand(plainAngle, { stroke: MUTED, strokeWidth: 3, dash: '5 3' })]),
      hand(angle, { stroke: colour, strokeWidth: 4 }),
      ...lines.map((text, k) => ({ kind: 'text', x: cx, y: 2 * RADIUS + 28 + 14 * k, anchor: 'middle', text, size: TEXT_SIZE, fill: INK })),
    ],
  };
}

// One clock for every playing dial of the page: a dial advances on the page's ticks (`speed` a second, counted from
// when this module loaded), so dials started at the same position and speed show the same position, however long
// each took to draw (the page's halves and pairs side by side).
// Ticks fall on whole multiples of 1/speed s; the nearest is read, since a timer set for one fires a little early or late.
const EPOCH = performance.now();
const pageTick = (speed) => Math.round(((performance.now() - EPOCH) * speed) / 1000);

export class PosembedRope extends LazyElement {
  static words = { ...LazyElement.words, play: 'Play', pause: 'Pause', back: '−1 position', forward: '+1 position' };
  static observedAttributes = observedAttributes(TAG);
  #timer = 0;
  #position = 0;
  #speed = 4;  // positions a second, from the attributes of the last render
  #playing = !reducedMotion();
  #onScreen = true;
  #screenWatch = null;
  // While playing: the position shown at one page tick ({ position, tick }); a dial's first start is at tick 0 (the
  // page's), a start after a pause, a step or a new position or speed at the tick it happens.
  #anchor = null;
  #started = false;
  // The dimension strip as last drawn ({ headDim, layout, colourOf, perRow }): drawn again when the element's width
  // changes how many cells a row holds.
  #strip = null;
  #sizeWatch = null;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, BASE_STYLE, STYLE);
    root.innerHTML = `<p class="caption" part="caption"></p>
      <div class="dials" tabindex="0" role="img"></div>
      <div class="controls" part="controls"><button part="button" type="button" class="play"></button>
        <button part="button" type="button" class="back" data-string="back"></button>
        <button part="button" type="button" class="forward" data-string="forward"></button></div>
      <p class="readout" aria-live="off"></p>
      <p class="error" role="alert" part="error" hidden></p>`;
    // The dimension strip, empty until the first drawing (a picture: the exports draw it from its marks).
    root.querySelector('.caption').after(drawPicture({ width: 0, height: 0, marks: [] }, { class: 'dims', 'aria-hidden': 'true' }));
    this.button = root.querySelector('.play');
    this.dials = root.querySelector('.dials');
    this.button.addEventListener('click', () => this.#toggle());
    root.querySelector('.back').addEventListener('click', () => this.#step(-1));
    root.querySelector('.forward').addEventListener('click', () => this.#step(1));
    this.dials.addEventListener('keydown', (event) => {
      if (event.key === ' ') this.#toggle();
      else if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') this.#step(event.key === 'ArrowRight' ? 1 : -1, true);
      else return;
      event.preventDefault();
    });
    this.#label();
  }

  attributeChangedCallback(name, previous, value) {
    if (name === 'position') {
      this.#position = readAttributes(this).values.position ?? this.#position;
      this.#anchor = null;
    }
    super.attributeChangedCallback(name, previous, value);
  }

  connectedCallback() {
    super.connectedCallback();
    // Off screen the dials are not drawn (nobody watches them); back on screen they show the page clock's position.
    if (typeof IntersectionObserver !== 'function') return;
    this.#screenWatch = new IntersectionObserver((entries) => {
      this.#onScreen = entries.some((entry) => entry.isIntersecting);
      if (this.#onScreen && this.#playing) this.#tick();
    });
    this.#screenWatch.observe(this);
    this.#sizeWatch = new ResizeObserver(() => {
      if (this.#strip && this.#cellsPerRow(this.#strip.headDim) !== this.#strip.perRow) this.#drawDimensions(this.#strip.headDim, this.#strip.layout, this.#strip.colourOf);
    });
    this.#sizeWatch.observe(this);
  }

  released() {
    clearTimeout(this.#timer);
    this.#timer = 0;
    this.#screenWatch?.disconnect();
    this.#sizeWatch?.disconnect();
  }

  get playing() {
    return this.#playing;
  }

  wordsChanged() {
    this.#label();
  }

  #label() {
    this.button.textContent = this.word(this.#playing ? 'pause' : 'play');
    this.button.setAttribute('aria-pressed', String(!this.#playing));
  }

  #toggle() {
    this.#playing = !this.#playing;
    this.#label();
    this.#anchor = null;
    this.#tick();
    this.announce('change', { playing: this.#playing, position: this.#position });
  }

  #step(delta, spoken = false) {
    this.#position = Math.max(0, this.#position + delta);
    this.#anchor = null;
    this.render(spoken);
    this.announce('change', { playing: this.#playing, position: this.#position });
  }

  // Draws again at the page's next tick, while playing and on screen.
  #tick() {
    clearTimeout(this.#timer);
    this.#timer = 0;
    if (!this.#playing) this.#anchor = null;
    if (!this.#playing || !this.#onScreen || !this.isConnected) return;
    const next = pageTick(this.#speed) + 1;
    this.#timer = setTimeout(() => this.render().then(() => this.#tick()), Math.max(0, EPOCH + (next * 1000) / this.#speed - performance.now()));
  }

  // The pair indices shown: spread over the frequencies, fastest first.
  #pairs(half, count) {
    return Array.from({ length: count }, (_, k) => Math.round((k * (half - 1)) / Math.max(count - 1, 1)));
  }

  // The scaling object of the attributes: the rule's parameters, as the core's table of rules names them.
  #scaling(v) {
    return figureScaling(v.scaling, (name) => v[kebabCase(name)]);
  }

  // The angle of every pair at the current position, with and without the scaling, from applyRope.
  async #angles(pe, headDim, base, layout, scaling) {
    const half = headDim / 2;
    const x = new Float32Array(headDim);
    for (let i = 0; i < half; i++) x[layout === 'half' ? i : 2 * i] = 1;
    const at = async (withScaling) => {
      const rotated = await onHost(pe.applyRope({ data: x, shape: [1, headDim] }, { positions: [this.#position], base, layout, scaling: withScaling }));
      return Array.from({ length: half }, (_, i) => {
        const [a, b] = layout === 'half' ? [i, i + half] : [2 * i, 2 * i + 1];
        return Math.atan2(rotated.data[b], rotated.data[a]);
      });
    };
    return { scaled: await at(scaling), plain: scaling ? await at(undefined) : null };
  }

  async render(spoken = false) {
    const generation = ++this.generation;
    const root = this.shadowRoot;
    const errorBox = root.querySelector('.error');
    const { values, problems } = this.readAttributes();
    if (problems.length) {
      errorBox.textContent = problemsMessage(TAG, problems);
      errorBox.hidden = false;
      return;
    }
    try {
      const pe = await posembed();
      const { base, layout } = values;
      const headDim = values['head-dim'];
      if (values.speed !== this.#speed) this.#anchor = null;
      this.#speed = values.speed;
      // Playing: the position is the page clock's (a slow draw catches up, and dials started together stay together).
      if (this.#playing) {
        this.#anchor ??= { position: this.#position, tick: this.#started ? pageTick(this.#speed) : 0 };
        this.#started = true;
        this.#position = this.#anchor.position + pageTick(this.#speed) - this.#anchor.tick;
      }
      const scaling = this.#scaling(values);
      const { invFreq } = pe.ropeInvFreq({ headDim, base, scaling });
      const half = headDim / 2;
      const pairs = this.#pairs(half, values.pairs);
      const { scaled, plain } = await this.#angles(pe, headDim, base, layout, scaling);
      if (generation !== this.generation) return;
      const colourOf = new Map(pairs.map((pair, k) => [pair, SERIES_COLOURS[k % SERIES_COLOURS.length]]));
      this.#drawDimensions(headDim, layout, colourOf);
      this.dials.replaceChildren(...pairs.map((pair) => drawPicture(pairDial({
        pair, dimensions: layout === 'half' ? [pair, pair + half] : [2 * pair, 2 * pair + 1],
        angle: scaled[pair], plainAngle: plain?.[pair], rate: invFreq.data[pair], colour: colourOf.get(pair),
      }), { 'aria-hidden': 'true' })));
      const layoutName = layout === 'half' ? 'halves (GPT-NeoX, LLaMA): dimension i pairs with i + d/2' : 'pairs (GPT-J): dimension 2i pairs with 2i + 1';
      root.querySelector('.caption').textContent = `RoPE, ${layoutName}; head dim ${headDim}, base ${base}${scaling ? `, ${scaling.type} scaling ×${scaling.factor} (grey: unscaled)` : ''}. `
        + 'Each pair turns by the position times its own rate: the first spins, the last barely moves.';
      const readout = root.querySelector('.readout');
      readout.setAttribute('aria-live', spoken ? 'polite' : 'off');
      readout.textContent = `position ${this.#position}: ${pairs.map((pair) => `pair ${pair} at ${formatValue((scaled[pair] * 180) / Math.PI)}°`).join(', ')}`;
      this.dials.setAttribute('aria-label', `Dials of ${pairs.length} pairs at position ${this.#position}. Space plays or pauses, the arrow keys step.`);
      this.dataset.position = String(this.#position);
      this.dataset.rendered = String(generation);
      errorBox.hidden = true;
      this.announce('render', { position: this.#position, pairs, headDim, scaling: scaling?.type ?? 'default' });
      if (!this.#timer && this.#playing) this.#tick();
    } catch (error) {
      errorBox.textContent = inAttributeWords(TAG, error.message);
      errorBox.hidden = false;
    }
  }

  // As many of the strip's cells to a row as fit the element's width at their full size (a power of two, 4 to 32), so
  // that the pair numbers stay readable on a phone.
  #cellsPerRow(headDim) {
    const room = (this.getBoundingClientRect().width || DIMENSION_CELL * 32 + DIMENSION_LABEL) - DIMENSION_LABEL;
    let perRow = 4;
    while (perRow < 32 && perRow * 2 * DIMENSION_CELL <= room) perRow *= 2;
    return Math.min(headDim, perRow);
  }

  // The dimension strip, drawn to fit the element's width.
  #drawDimensions(headDim, layout, colourOf) {
    const perRow = this.#cellsPerRow(headDim);
    this.#strip = { headDim, layout, colourOf, perRow };
    const strip = dimensionStrip(headDim, layout, colourOf, perRow);
    this.shadowRoot.querySelector('.dims').replaceWith(drawPicture(strip, { class: 'dims', role: 'img', 'aria-label': strip.label }));
  }
}

define(TAG, PosembedRope);
