// Dropout on the input layer, once, after the sum: the package's fused layer (token rows × √d + positions) in
// training mode zeroes whole cells of the sum, token and position together, and multiplies the rest by 1/(1 − p).
import { TOY_VOCABULARY, onHost, toyIds, toyTokens } from 'posembed/components';
import { figures, mountIdea, numberField } from './idea.js';

const D_MODEL = 32;
const TEXT = 'Max(1,6,2)';

export function mountDropout(pe, section) {
  const [evaluated, trained] = figures(section, [
    { label: 'The input layer\'s output, not training', title: 'not training: no dropout', in: '.left' },
    { label: 'The input layer\'s output while training, with dropout', title: 'training: dropout after the sum', in: '.right' },
  ]);
  const check = section.querySelector('.dropout-check');
  return mountIdea(section, [evaluated, trained], async (form) => {
    const p = numberField(form, 'p', 0, 0.9, 'dropout p');
    const tokens = toyTokens(TEXT);
    const layer = pe.transformerEmbedding({ vocabSize: TOY_VOCABULARY.length, dModel: D_MODEL, maxLength: 16, scale: 'sqrt', dropout: p, seed: 0 });
    try {
      const ids = toyIds(tokens);
      const plain = await onHost(layer.forward(ids));
      const dropped = await onHost(layer.forward(ids, { training: true }));
      const axes = { x: { label: 'dimension' }, y: { label: 'position · token', names: tokens.map((t, i) => `${i} ${t}`) }, colour: { label: 'value' } };
      const range = { min: -3, max: 3 };
      evaluated.heatmap(plain, { ...axes, range });
      trained.heatmap(dropped, { ...axes, range });
      // Every cell is either 0 (dropped: token and position part alike) or the plain sum × 1/(1 − p).
      let zeroed = 0;
      let largest = 0;
      plain.data.forEach((v, i) => {
        if (dropped.data[i] === 0 && v !== 0) zeroed++;
        else largest = Math.max(largest, Math.abs(dropped.data[i] - v / (1 - p)));
      });
      const cells = plain.data.length;
      section.dataset.zeroed = String(zeroed);
      section.dataset.largestDifference = String(largest);
      check.textContent = `${zeroed} of ${cells} cells zeroed (${(p * cells).toFixed(0)} expected at p = ${p}); every other cell is the plain sum × 1/(1 − p) = `
        + `×${(1 / (1 - p)).toFixed(3)} (largest difference ${largest.toExponential(1)}).`;
      evaluated.caption = `${TEXT}: rows of an untrained (random) token table × √${D_MODEL}, plus sinusoidal positions, as a model reads them when it answers.`;
      trained.caption = 'While training, dropout zeroes cells of the sum: where a cell is dropped, its token part and its position part go together, '
        + 'since dropout comes once, after adding them. The survivors are scaled up so that the sum keeps its expected size.';
    } finally {
      layer.dispose();
    }
  });
}
