// Addition against concatenation: [n, d] with token and position mixed in every number, or [n, 2d] with each
// in its own half; what a dot product between two rows then adds up.
import { TOY_VOCABULARY, onHost, toyIds, toyTokens } from 'posembed/components';
import { dot, figures, integerField, mountIdea, rows } from './idea.js';

const D_MODEL = 8;

export function mountAddConcat(pe, section) {
  const [added, joined, terms] = figures(section, [
    { label: 'Token rows plus position rows', in: '.left' },
    { label: 'Token rows and position rows side by side', in: '.right' },
    { label: 'The terms of the dot product of two rows' },
  ]);
  const embedding = pe.tokenEmbedding({ vocabSize: TOY_VOCABULARY.length, dModel: D_MODEL, paddingIdx: 0, scale: 'sqrt', init: { std: 1 / Math.sqrt(D_MODEL), seed: 1 } });
  return mountIdea(section, [added, joined, terms], async (form) => {
    const tokens = toyTokens('Max(1,6,2)');
    const n = tokens.length;
    const i = integerField(form, 'i', 0, n - 1, 'row i');
    const j = integerField(form, 'j', 0, n - 1, 'row j');
    const x = await onHost(embedding.lookup(toyIds(tokens)));
    const p = await onHost(pe.sinusoidal({ length: n, dModel: D_MODEL }));
    const sum = { data: x.data.map((v, k) => v + p.data[k]), shape: [n, D_MODEL] };
    const both = { data: new Float32Array(n * 2 * D_MODEL), shape: [n, 2 * D_MODEL] };
    for (let r = 0; r < n; r++) {
      both.data.set(rows(x, r), r * 2 * D_MODEL);
      both.data.set(rows(p, r), r * 2 * D_MODEL + D_MODEL);
    }
    const y = { label: 'position · token', names: tokens.map((t, r) => `${r} ${t}`) };
    const range = { min: -3, max: 3 };
    added.heatmap(sum, { range, x: { label: 'dimension' }, y, colour: { label: 'value' } });
    added.caption = `Added: ${D_MODEL} numbers per token, each a mix of token and position.`;
    joined.heatmap(both, { range, x: { label: 'dimension', names: (c) => (c < D_MODEL ? `t${c}` : `p${c - D_MODEL}`) }, y, colour: { label: 'value' } });
    joined.caption = `Concatenated: ${2 * D_MODEL} numbers per token, token in t0–t${D_MODEL - 1}, position in p0–p${D_MODEL - 1}. Twice the width for every layer after.`;
    const [xi, xj, pi, pj] = [rows(x, i), rows(x, j), rows(p, i), rows(p, j)];
    const parts = [
      { label: 'token·token', value: dot(xi, xj), group: 'both' },
      { label: 'token·position', value: dot(xi, pj), group: 'added only' },
      { label: 'position·token', value: dot(pi, xj), group: 'added only' },
      { label: 'position·position', value: dot(pi, pj), group: 'both' },
    ];
    terms.bars(parts, {
      groups: [{ name: 'both', colour: '#1f5fbf' }, { name: 'added only', colour: '#e08a00' }],
      x: { label: `terms of row ${i} (${tokens[i]}) · row ${j} (${tokens[j]})` }, y: { label: 'value' },
    });
    const total = parts.reduce((s, part) => s + part.value, 0);
    terms.caption = `Added, the dot product is all four terms: ${total.toFixed(3)}. Concatenated, it is token·token + position·position only: `
      + `${(parts[0].value + parts[3].value).toFixed(3)}. In high dimensions random token and position rows are nearly orthogonal, so the cross terms stay small and addition loses little.`;
  });
}
