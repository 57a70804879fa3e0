// <posembed-heatmap encoding="sinusoidal" length="64" d-model="128">: a heatmap of an encoding, framed by the
// figure layer (axes, colour bar, caption, keyboard readout).
// encoding: sinusoidal (length, d-model, base, layout, timescale, offset), learned (length, d-model, seed,
// new-length), rope (length, d-model, base, layout, scaling, factor), similarity (length, d-model, base, metric),
// alibi (heads, head, length, causal), t5 (length, buckets, max-distance, bidirectional), sincos2d (grid-h, grid-w,
// d-model, base). colormap overrides the encoding's; caption replaces the default caption; axes="false" and
// legend="false" leave out the axes and the colour bar. Every attribute change draws it again.
import { encodingFigure } from '../figures.js';
import { Figure } from './figure.js';
import { BASE_STYLE, LazyElement, adoptStyles, define, numberAttribute, posembed } from './shared.js';

const NUMBERS = ['length', 'd-model', 'base', 'offset', 'heads', 'head', 'buckets', 'max-distance', 'grid-h', 'grid-w', 'seed',
  'new-length', 'factor'];
const ATTRIBUTES = ['encoding', ...NUMBERS, 'layout', 'timescale', 'causal', 'bidirectional', 'scaling', 'metric', 'colormap',
  'caption', 'axes', 'legend'];

const camel = (name) => name.replace(/-(\w)/g, (_, letter) => letter.toUpperCase());

export class PosembedHeatmap extends LazyElement {
  static observedAttributes = ATTRIBUTES;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, BASE_STYLE);
    this.figure = new Figure(root, { label: 'Heatmap' });
  }

  // The figure's options, from the attributes.
  #options() {
    const options = {};
    for (const name of NUMBERS) if (this.hasAttribute(name)) options[camel(name)] = numberAttribute(this, name, undefined);
    for (const name of ['layout', 'timescale', 'scaling', 'metric']) if (this.hasAttribute(name)) options[name] = this.getAttribute(name);
    options.causal = this.hasAttribute('causal');
    options.bidirectional = this.getAttribute('bidirectional') !== 'false';
    return options;
  }

  async render() {
    const generation = ++this.generation;
    const figure = this.figure;
    figure.stale(true);
    try {
      const pe = await posembed();
      const drawn = await encodingFigure(pe, this.getAttribute('encoding') ?? 'sinusoidal', this.#options());
      if (generation !== this.generation) return;
      figure.axes = this.getAttribute('axes') !== 'false';
      figure.legend = this.getAttribute('legend') !== 'false';
      figure.label = `Heatmap: ${drawn.y.label} by ${drawn.x.label}`;
      figure.heatmap(drawn.tensor, { colormap: this.getAttribute('colormap') ?? drawn.colormap, range: drawn.range, x: drawn.x, y: drawn.y, colour: drawn.colour });
      figure.caption = this.getAttribute('caption') ?? drawn.caption;
      this.dataset.rendered = String(generation);
    } catch (error) {
      if (generation === this.generation) figure.error(error.message);
    }
  }
}

define('posembed-heatmap', PosembedHeatmap);
