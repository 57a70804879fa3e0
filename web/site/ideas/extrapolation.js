// Extrapolation: each encoding over twice the length it was made for, drawn as values (the learned table's
// missing rows drawn as missing, not as an error).
import { onHost } from 'posembed/components';
import { figures, integerField, mountIdea } from './idea.js';

const D_MODEL = 32;

const ENCODINGS = {
  sinusoidal: {
    async table(pe, length) { return onHost(pe.sinusoidal({ length, dModel: D_MODEL })); },
    caption: 'The sinusoids simply go on: the rows past the training length are new combinations, never seen in training, but well defined.',
    colours: 'sines and cosines',
  },
  learned: {
    async table(pe, length, trained) {
      const learned = pe.learnedPositions({ maxLength: trained, dModel: D_MODEL, init: { std: 1, seed: 0 } });
      const data = new Float32Array(length * D_MODEL).fill(NaN);
      data.set(learned.weights.data);
      learned.dispose();
      return { data, shape: [length, D_MODEL] };
    },
    range: { min: -3, max: 3 },
    missing: 'no row: the table ends at the training length',
    caption: 'An untrained (random) learned table has one row per position it was made for, and nothing after: the model cannot be given position 40 of a 32-row table.',
    colours: 'random values drawn with standard deviation 1, nearly all within ±3',
  },
  stretched: {
    async table(pe, length, trained) {
      const learned = pe.learnedPositions({ maxLength: trained, dModel: D_MODEL, init: { std: 1, seed: 0 } });
      const stretched = pe.interpolatePositions(learned.weights, length);
      learned.dispose();
      return stretched;
    },
    range: { min: -3, max: 3 },
    caption: 'Stretching the (untrained, random) learned table by linear interpolation covers the longer length, with each row spread over two positions: neighbours become near copies.',
    colours: 'random values drawn with standard deviation 1, nearly all within ±3',
  },
  rope: {
    async table(pe, length) {
      const ones = { data: new Float32Array(length * D_MODEL).fill(1), shape: [length, D_MODEL] };
      return onHost(pe.applyRope(ones, {}));
    },
    range: { min: -1.5, max: 1.5 },
    caption: 'RoPE adds nothing to a row; it turns a query or key. Here it turns a query of ones (1 in every dimension), so the colours show the turning itself: '
      + 'each pair a fixed angle per position, forever, and past the training length the slow pairs reach angles never seen in training.',
    colours: 'a pair of ones turned: each number within ±√2',
  },
  'rope-linear': {
    async table(pe, length) {
      const ones = { data: new Float32Array(length * D_MODEL).fill(1), shape: [length, D_MODEL] };
      return onHost(pe.applyRope(ones, { scaling: { type: 'linear', factor: 2 } }));
    },
    range: { min: -1.5, max: 1.5 },
    caption: 'RoPE with linear scaling ×2, turning a query of ones: every pair turns half as fast, so twice the length covers the same angles as training did.',
    colours: 'a pair of ones turned: each number within ±√2',
  },
};

export function mountExtrapolation(pe, section) {
  const [figure] = figures(section, [{ label: 'An encoding over twice its training length' }]);
  return mountIdea(section, [figure], async (form) => {
    const trained = integerField(form, 'trained', 4, 256, 'training length');
    const encoding = ENCODINGS[form.encoding];
    if (!encoding) throw new RangeError(`encoding must be one of ${Object.keys(ENCODINGS).join(', ')}, got ${form.encoding}`);
    const length = 2 * trained;
    const table = await encoding.table(pe, length, trained);
    figure.heatmap(table, {
      range: encoding.range ?? { min: -1, max: 1 }, x: { label: 'dimension' },
      y: { label: 'position' }, colour: { label: 'value', missing: encoding.missing },
      rowRule: { row: trained, label: `training length ${trained}` },
    });
    const { min, max } = encoding.range ?? { min: -1, max: 1 };
    figure.caption = `Positions 0–${trained - 1} were seen in training, ${trained}–${length - 1} were not. ${encoding.caption} `
      + `Colours from ${min} to ${max}: ${encoding.colours}.`;
  });
}
