// The √d_model balance: a table initialised with standard deviation 1/√d has rows of length about 1, while a
// sinusoidal row has length √(d/2). Multiplying the token rows by √d brings them to the positions' size.
import { onHost } from 'posembed/components';
import { figures, integerField, mountIdea, rows, seededVector } from './idea.js';

const VOCABULARY = 20;
const SIZES = [16, 32, 64, 128, 256, 512, 1024];

function meanNorm(tensor, factor = 1) {
  let total = 0;
  for (let r = 0; r < tensor.shape[0]; r++) {
    let sum = 0;
    for (const v of rows(tensor, r)) sum += (v * factor) ** 2;
    total += Math.sqrt(sum);
  }
  return total / tensor.shape[0];
}

// Counts of values in equal bins over [-limit, limit].
function histogram(values, limit, bins) {
  const counts = new Array(bins).fill(0);
  for (const v of values) {
    const b = Math.floor(((v + limit) / (2 * limit)) * bins);
    if (b >= 0 && b < bins) counts[b]++;
  }
  return counts.map((c) => c / values.length);
}

export function mountBalance(pe, section) {
  const [spread, norms] = figures(section, [
    { label: 'How the values of token rows and position rows are spread' },
    { label: 'Average length of a row against d_model' },
  ]);
  const learnedTable = (dModel) => {
    const table = pe.learnedPositions({ maxLength: VOCABULARY, dModel, init: { type: 'normal', std: 0.02, seed: 0 } });
    try {
      return table.weights;
    } finally {
      table.dispose();
    }
  };
  const tables = (dModel) => {
    const embedding = pe.tokenEmbedding({ vocabSize: VOCABULARY, dModel, init: { std: 1 / Math.sqrt(dModel), seed: 0 } });
    try {
      return embedding.weights;
    } finally {
      embedding.dispose();
    }
  };
  return mountIdea(section, [spread, norms], async (form) => {
    const dModel = integerField(form, 'dModel', 4, 1024, 'd_model');
    if (dModel % 2) throw new RangeError(`d_model must be even, got ${dModel}`);
    const factor = form.scale ? Math.sqrt(dModel) : 1;
    const tokens = tables(dModel);
    const positions = await onHost(pe.sinusoidal({ length: VOCABULARY, dModel }));
    const bins = 41;
    const limit = 3;
    const centres = Array.from({ length: bins }, (_, b) => -limit + ((b + 0.5) * 2 * limit) / bins);
    spread.lines([
      { label: `token values ×${factor === 1 ? '1' : `√${dModel}`}`, x: centres, y: histogram(tokens.data.map((v) => v * factor), limit, bins) },
      { label: 'position values', x: centres, y: histogram(positions.data, limit, bins) },
    ], { x: { label: 'value' }, y: { label: 'share of values' } });
    spread.caption = form.scale
      ? `Scaled by √${dModel}: token values spread over about ±2, as wide as the positions' ±1. Neither drowns the other when they are added.`
      : `Unscaled: token values huddle within ±${(2 / Math.sqrt(dModel)).toFixed(2)} while positions fill ±1. Added together, the sum is mostly position.`;
    const curves = { unscaled: [], scaled: [], positions: [], learned: [] };
    for (const d of SIZES) {
      const t = tables(d);
      curves.unscaled.push(meanNorm(t));
      curves.scaled.push(meanNorm(t, Math.sqrt(d)));
      curves.positions.push(meanNorm(await onHost(pe.sinusoidal({ length: VOCABULARY, dModel: d }))));
      curves.learned.push(meanNorm(learnedTable(d)));
    }
    norms.lines([
      { label: 'token row', x: SIZES, y: curves.unscaled },
      { label: 'token row × √d', x: SIZES, y: curves.scaled },
      { label: 'sinusoidal position row', x: SIZES, y: curves.positions, dashed: true },
      { label: 'learned position row (std 0.02)', x: SIZES, y: curves.learned, dashed: true },
    ], { x: { label: 'd_model', log: true }, y: { label: 'average row length' } });
    const at = SIZES.indexOf(512);
    norms.caption = `A sinusoidal position row always has length √(d/2) (${Math.sqrt(dModel / 2).toFixed(2)} at d = ${dModel}); an unscaled token row stays near 1. `
      + '×√d keeps the two in step at every width. A learned position table drawn with standard deviation 0.02, as GPT-2\'s and BERT\'s start, '
      + `has rows of 0.02·√d (${curves.learned[at].toFixed(2)} at d = 512, against ${curves.scaled[at].toFixed(1)} for a scaled token row): `
      + 'added to scaled token rows it starts as a whisper, and training must grow it. GPT-2 does not scale its token rows, and draws them with 0.02 too.';
    section.dataset.learnedAt512 = String(curves.learned[at]);
  }).then(() => Promise.all([
    noteUnitInitialisation(pe, section.querySelector('.tutorial-note[data-note="unit-initialisation"]'), tables),
    noteInitialRanges(pe, section.querySelector('.tutorial-note[data-note="initial-ranges"]')),
  ]));
}

// The tutorial on token embeddings (doc 000) argues for ×√d from tables drawn with standard deviation about 1. Measured
// at its d = 512, that argument turns around: such rows are already longer than positions, and ×√d makes them longer.
async function noteUnitInitialisation(pe, note, tables) {
  const dModel = 512;
  const embedding = pe.tokenEmbedding({ vocabSize: VOCABULARY, dModel, init: { std: 1, seed: 0 } });
  const unit = embedding.weights;
  embedding.dispose();
  const positions = meanNorm(await onHost(pe.sinusoidal({ length: VOCABULARY, dModel })));
  const [plain, scaled] = [meanNorm(unit), meanNorm(unit, Math.sqrt(dModel))];
  note.closest('section').querySelector('[data-answer="times-ten"] .value').textContent = meanNorm(tables(dModel), Math.sqrt(dModel)).toFixed(1);
  note.textContent = `A tutorial's argument, checked: the one on token embeddings (doc 000) starts from tables drawn with standard deviation `
    + `about 1. Measured here at d = ${dModel}, such a token row has length ${plain.toFixed(1)} and ×√${dModel} makes it ${scaled.toFixed(0)}, while a `
    + `position row has ${positions.toFixed(1)}: from there, ×√d would bury the positions. The argument holds for tables drawn with `
    + `standard deviation 1/√d, as the original Transformer's and this figure's are: rows near 1, so near √d = ${Math.sqrt(dModel).toFixed(1)} after ×√d.`;
  note.dataset.measured = [plain, scaled, positions].map((v) => v.toFixed(1)).join(' ');
}

// The tutorial on embeddings (doc 002) gives Xavier/Glorot initialisation as Uniform(±√(1/d)), ±0.125 at d = 64, then
// says the token values start "typically in [−0.3, 0.3]" and their sum with positions in ±1.3. Measured on its toy
// table of 20 tokens × 64: the two cannot both hold, and Glorot's own bound is the one near 0.3.
const TOY_ROWS = 20;
const TOY_WIDTH = 64;
async function noteInitialRanges(pe, note) {
  const largest = (values) => values.reduce((most, v) => Math.max(most, Math.abs(v)), 0);
  const bound = Math.sqrt(1 / TOY_WIDTH);
  const uniform = Float32Array.from(seededVector(3, TOY_ROWS * TOY_WIDTH), (v) => v * bound);
  const positions = await onHost(pe.sinusoidal({ length: TOY_ROWS, dModel: TOY_WIDTH }));
  const sum = uniform.map((v, i) => v + positions.data[i]);
  const glorot = Math.sqrt(6 / (TOY_ROWS + TOY_WIDTH));
  const normal = pe.tokenEmbedding({ vocabSize: TOY_ROWS, dModel: TOY_WIDTH, init: { std: 1, seed: 0 } });
  const standard = largest(normal.weights.data);
  normal.dispose();
  note.textContent = `A tutorial's numbers, checked: the one on embeddings (doc 002) gives Xavier/Glorot initialisation as Uniform(±√(1/d)), ±${bound} at d = ${TOY_WIDTH}, `
    + `then says token values start "typically in [−0.3, 0.3]" and their sum with positions in about ±1.3. Drawn here for its ${TOY_ROWS} × ${TOY_WIDTH} toy table, `
    + `Uniform(±${bound}) gives values up to ${largest(uniform).toFixed(3)} and a sum with positions up to ${largest(sum).toFixed(2)}, not 0.3 and 1.3. `
    + `Glorot's own bound, √(6 / (fan in + fan out)) = √(6 / (${TOY_WIDTH} + ${TOY_ROWS})), is ±${glorot.toFixed(3)}, close to the tutorial's 0.3; PyTorch's nn.Embedding starts `
    + `from a standard normal instead, whose largest of these ${(TOY_ROWS * TOY_WIDTH).toLocaleString('en')} values is ${standard.toFixed(2)}.`;
  note.dataset.measured = JSON.stringify({ uniform: largest(uniform), sum: largest(sum), glorot, standard });
}
