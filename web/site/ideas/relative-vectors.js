// Relative positions as vectors inside attention: Shaw et al. (2018) add a learned vector a_clip(j−i) to each key,
// one per offset up to a clipping distance K; Transformer-XL (Dai et al., 2019) scores the query against R_(i−j),
// the sinusoidal row of the offset itself, plus a global vector v's score against it. Both leave the token rows
// alone and put position into the score; they differ past K, where Shaw's offsets all share one vector.
import { onHost } from 'posembed/components';
import { figures, integerField, mountIdea, rows, seededVector } from './idea.js';

const D_HEAD = 64;

// Shaw et al.'s index into the 2K + 1 learned vectors, for key j seen from query i.
const clipped = (offset, clip) => Math.max(-clip, Math.min(clip, offset));

export function mountRelativeVectors(pe, section) {
  const [indexMap, terms] = figures(section, [
    { label: 'Shaw et al.: which learned vector each query and key use, clip(j − i, −K, K)' },
    { label: 'The position part of one query\'s scores against how far back the key is' },
  ]);
  return mountIdea(section, [indexMap, terms], async (form) => {
    const length = integerField(form, 'length', 8, 512, 'length');
    const clip = integerField(form, 'clip', 1, 64, 'clipping distance K');
    const offsets = new Float32Array(length * length);
    for (let i = 0; i < length; i++) for (let j = 0; j < length; j++) offsets[i * length + j] = clipped(j - i, clip);
    indexMap.heatmap({ data: offsets, shape: [length, length] }, {
      range: { min: -clip, max: clip }, x: { label: 'key position j' }, y: { label: 'query position i' }, colour: { label: 'clip(j − i)' },
      describe: (row, column, value) => `query ${row}, key ${column}: vector a_${value}`,
    });
    indexMap.caption = `${2 * clip + 1} learned vectors, one per offset from −${clip} to ${clip}: every diagonal uses one vector, so the score sees only j − i. `
      + `Past ${clip} positions the colour stops changing: all farther keys share the last vector, as all far distances share T5's last bucket.`;

    // One query (random: nothing here is trained), v and Shaw's table random too; W_R left out (the identity).
    const query = { data: seededVector(7, D_HEAD), shape: [1, D_HEAD] };
    const global = seededVector(11, D_HEAD);
    const shawTable = pe.learnedPositions({ maxLength: 2 * clip + 1, dModel: D_HEAD, init: { type: 'normal', std: 1, seed: 3 } });
    const shawScores = await onHost(pe.similarity(query, shawTable.weights, { metric: 'dot' }));
    shawTable.dispose();
    // Transformer-XL lays its R rows out sines first, then cosines; R_k is the row of offset k.
    const relative = await onHost(pe.sinusoidal({ length, dModel: D_HEAD, layout: 'split' }));
    const queryAndGlobal = { data: query.data.map((q, c) => q + global[c]), shape: [1, D_HEAD] };
    const xlScores = await onHost(pe.similarity(queryAndGlobal, relative, { metric: 'dot' }));
    const back = Array.from({ length }, (_, k) => k);
    // A key k positions back has j − i = −k: Shaw's row index is K + clip(−k).
    const shaw = back.map((k) => shawScores.data[clip + clipped(-k, clip)]);
    const xl = back.map((k) => xlScores.data[k]);
    terms.lines([
      { label: 'Shaw et al.: q · a_clip(−k)', x: back, y: shaw },
      { label: 'Transformer-XL: (q + v) · R_k', x: back, y: xl },
    ], {
      x: { label: 'k: how many positions back the key is' }, y: { label: 'position part of the score' }, rules: [{ x: clip, label: `K = ${clip}` }],
      describe: (k) => `k = ${k}: Shaw ${shaw[k].toFixed(3)}, Transformer-XL ${xl[k].toFixed(3)}`,
    });
    const shawFar = new Set(shaw.slice(clip)).size;
    section.dataset.shawDistinctPastClip = String(shawFar);
    terms.caption = 'Untrained: q, v and the vectors a are random and W_R is left out, so the shapes matter, not the values. '
      + (clip < length - 1
        ? `Shaw's line is flat from k = ${clip} on (${shawFar === 1 ? 'one value' : `${shawFar} values`} for all ${length - clip} farther keys); `
        : `K reaches past this length, so every offset here has its own vector a; make the length longer than K to see Shaw's line go flat. `)
      + 'Transformer-XL\'s keeps changing at every k, because R_k is a sinusoidal row of the offset itself: nothing to learn per offset and no largest offset. '
      + '(v · R_k, the part without q, is the same for every query: a bias by distance.)';
    section.querySelector('.readout').textContent = `k = 1: Shaw ${shaw[1].toFixed(4)}, Transformer-XL ${xl[1].toFixed(4)}; `
      + `k = ${length - 1}: Shaw ${shaw[length - 1].toFixed(4)}, Transformer-XL ${xl[length - 1].toFixed(4)}.`;
  });
}
