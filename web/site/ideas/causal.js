// A causal mask lets order in without positions: each token attends to itself and those before it, so the same
// token's output depends on how many came before. Measured on `First` followed by the same digit n times, one
// attention layer, no positions added: with the mask the digits' outputs differ position by position (First's share
// of each shrinks as more digits come before it), without it they are all the same row.
import { TOY_VOCABULARY, onHost, toyIds } from 'posembed/components';
import { figures, integerField, mountIdea, rows } from './idea.js';
import { selfAttention } from './permutation.js';

const D_MODEL = 16;
const SEED = 0;

export function mountCausal(pe, section) {
  const [figure] = figures(section, [{ label: 'How far each digit\'s attention output lies from the first digit\'s, with and without a causal mask' }]);
  const embedding = pe.tokenEmbedding({ vocabSize: TOY_VOCABULARY.length, dModel: D_MODEL, paddingIdx: 0, scale: 'sqrt', init: { std: 1 / Math.sqrt(D_MODEL), seed: SEED } });
  return mountIdea(section, [figure], async (form) => {
    const count = integerField(form, 'count', 2, 64, 'digits');
    const tokens = ['First', ...Array.from({ length: count }, () => '1')];
    const x = await onHost(embedding.lookup(toyIds(tokens)));
    const [masked, open] = await Promise.all([selfAttention(pe, x, { causal: true }), selfAttention(pe, x)]);
    const positions = Array.from({ length: count }, (_, i) => i + 1);
    // Distance of each digit's output from the first digit's (position 1).
    const apart = (output) => positions.map((p) => Math.hypot(...rows(output, p).map((v, c) => v - rows(output, 1)[c])));
    const [withMask, withoutMask] = [apart(masked), apart(open)];
    figure.lines([
      { label: 'causal mask (each token sees itself and those before)', x: positions, y: withMask, width: 3 },
      { label: 'no mask (each token sees all)', x: positions, y: withoutMask, width: 2, dashed: true },
    ], { x: { label: 'position of the digit' }, y: { label: 'distance from the first digit\'s output' } });
    const largestOpen = withoutMask.reduce((a, b) => Math.max(a, b), 0);
    const sameness = largestOpen === 0 ? 'exactly' : `to ${largestOpen.toExponential(0)}, rounding`;
    figure.caption = `First, then "1" ${count} times, no positions added. Without a mask every "1" gets the same output (${sameness}): `
      + `the layer cannot tell them apart. With a causal mask the "1" at position ${count} lies ${withMask.at(-1).toFixed(2)} from the first one: `
      + 'each sees a different number of tokens before it, so its output carries its position. This is how a decoder with no positional encoding (NoPE) can still know where a token stands.';
    section.dataset.apart = JSON.stringify({ masked: withMask.at(-1), open: largestOpen });
  });
}
