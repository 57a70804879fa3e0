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
  }).then(() => noteModuloTwoPi(section.querySelector('.tutorial-note')));
}

// The tutorial on positional encodings (doc 000) advises `angle = (position * div_term) % (2π)` against the precision
// lost at large positions. Measured at its position 1,000,000 and d = 512: in float32 the angle is already wrong
// before the remainder (div_term rounded to float32, then the product rounded to the spacing of float32 numbers near
// it), and the remainder by a float32 2π adds its own error; an angle computed in float64 has neither. Each pair's
// exact angle, and its remainder, in float64 (their error is ~1e-10 rad).
const FAR_POSITION = 1_000_000;
const NOTE_D_MODEL = 512;
const TUTORIAL_DIVISOR = 9886;  // the tutorial's div_term ≈ 1/9886 (10000^(510/512) is 9647)
function noteModuloTwoPi(note) {
  const turn = 2 * Math.PI;
  const wrapped = (a) => Math.abs(((a % turn) + 1.5 * turn) % turn - turn / 2);  // |a| brought into [0, π]
  const float32Angle = (divTerm) => Math.fround(FAR_POSITION * Math.fround(divTerm));
  let [product, remainder, worstPair] = [0, 0, 0];
  for (let i = 0; i < NOTE_D_MODEL / 2; i++) {
    const divTerm = 10000 ** (-2 * i / NOTE_D_MODEL);
    const exact = FAR_POSITION * divTerm;
    const error = wrapped(float32Angle(divTerm) - exact);
    if (error > product) [product, worstPair] = [error, i];
    remainder = Math.max(remainder, wrapped(Math.fround(float32Angle(divTerm) % Math.fround(turn)) - (exact % turn)));
  }
  const worstAngle = FAR_POSITION * 10000 ** (-2 * worstPair / NOTE_D_MODEL);
  const spacing = 2 ** (Math.floor(Math.log2(worstAngle)) - 23);
  const slowError = Math.abs(float32Angle(1 / TUTORIAL_DIVISOR) - FAR_POSITION / TUTORIAL_DIVISOR);
  note.textContent = `A tutorial's advice, checked: the one on positional encodings (doc 000) warns that at position 1,000,000 the angles lose precision and `
    + `advises angle = (position × div_term) % 2π. Measured in float32 at d = ${NOTE_D_MODEL}: the angle is already up to ${product.toFixed(3)} rad off `
    + `(pair ${worstPair}, an angle near ${Math.round(worstAngle).toLocaleString('en')}: div_term is rounded to float32, and the product to float32 numbers ${spacing} apart), `
    + `and after % 2π it is up to ${remainder.toFixed(3)} off: the remainder cannot restore what was rounded away, and a float32 2π adds its own error. `
    + `The pair the tutorial shows (div_term ≈ 1/${TUTORIAL_DIVISOR}, angle ≈ ${(FAR_POSITION / TUTORIAL_DIVISOR).toFixed(2)}) is only ${slowError.toExponential(0)} off. `
    + 'What helps is computing position × div_term in float64, then taking the sine and cosine and casting those.';
  note.dataset.measured = JSON.stringify({ product, remainder, slow: slowError });
}
