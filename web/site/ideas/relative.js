// Relative position: PE(p)·PE(p + k) depends on k only; RoPE's q·k depends on m − n only; and the score each
// encoding gives one query and one key as the distance between them grows, past the length it was made for.
import { onHost } from 'posembed/components';
import { dot, figures, integerField, mountIdea, rows, seededVector } from './idea.js';

const D_MODEL = 64;
const HEAD_DIM = 16;
const GRID = 32;

// q (at each of `positions`) rotated by RoPE: [positions.length, HEAD_DIM].
export async function rotated(pe, vector, positions, scaling) {
  const data = new Float32Array(positions.length * HEAD_DIM);
  for (let r = 0; r < positions.length; r++) data.set(vector, r * HEAD_DIM);
  return onHost(pe.applyRope({ data, shape: [positions.length, HEAD_DIM] }, { positions, scaling }));
}

// One query and one key (seeded), rotated to every position the figures ask for.
export const QUERY = seededVector(1, HEAD_DIM);
export const KEY = seededVector(2, HEAD_DIM);

async function ropeScores(pe) {
  const positions = Array.from({ length: GRID }, (_, p) => p);
  return onHost(pe.similarity(await rotated(pe, QUERY, positions), await rotated(pe, KEY, positions), { metric: 'dot' }));
}

export function mountSinusoidDots(pe, section) {
  const [figure] = figures(section, [{ label: 'PE(p) · PE(p + k) against k, for several p' }]);
  return mountIdea(section, [figure], async () => {
    const table = await onHost(pe.sinusoidal({ length: 200, dModel: D_MODEL }));
    const dots = await onHost(pe.similarity(table, null, { metric: 'dot' }));
    const ks = Array.from({ length: 100 }, (_, k) => k);
    figure.lines([0, 20, 60, 99].map((p, i) => ({ label: `p = ${p}`, x: ks, y: ks.map((k) => dots.data[p * 200 + p + k]), dashed: i % 2 === 1, width: 4 - i })),
      { x: { label: 'offset k' }, y: { label: 'PE(p) · PE(p + k)' } });
    figure.caption = `The four curves lie on top of each other: the dot product of two positions depends only on how far apart they are (d = ${D_MODEL}; ${D_MODEL / 2} at k = 0, the row's squared length).`;
  });
}

export function mountRopeShift(pe, section) {
  const [figure] = figures(section, [{ label: 'RoPE score of query at m and key at n, for every m and n' }]);
  const readout = section.querySelector('.rope-score');
  const form = section.querySelector('form');
  let scores = null;
  // A click on a cell puts the query and the key there.
  figure.plot.addEventListener('click', () => {
    form.m.value = String(Math.floor(figure.cursor / GRID));
    form.n.value = String(figure.cursor % GRID);
    form.dispatchEvent(new Event('input'));
  });
  return mountIdea(section, [figure], async (form) => {
    const m = integerField(form, 'm', 0, GRID - 1, 'm');
    const n = integerField(form, 'n', 0, GRID - 1, 'n');
    scores ??= await ropeScores(pe);
    figure.heatmap(scores, { x: { label: 'key position n' }, y: { label: 'query position m' }, colour: { label: 'q·k' },
      describe: (r, c, v) => `query at ${r}, key at ${c} (m − n = ${r - c}): q·k = ${v.toFixed(4)}` });
    figure.moveCursorTo(m * GRID + n);
    const score = scores.data[m * GRID + n];
    readout.textContent = `q rotated to m = ${m}, k rotated to n = ${n}: q·k = ${score.toFixed(5)} (m − n = ${m - n}).`;
    section.dataset.score = String(score);
    figure.caption = 'The same colours run along every diagonal: moving both positions by the same amount leaves the score unchanged. Only m − n matters.';
  });
}

// Scores of one query and one key 0..2L positions before it (the query at 0, the key at the distance, for
// the encodings that add a row per position) for every encoding; L is the training length.
export function mountScoresByDistance(pe, section) {
  // Small multiples, one family each, so no two lines look alike across families: what is added to the input, RoPE
  // and its scalings, and what is added to the score (each on its own scale: ALiBi falls far below the others).
  const panels = figures(section, [
    { label: 'Attention score against distance, with positions added to the input', title: 'Added to the input' },
    { label: 'Attention score against distance, with RoPE and its scaling rules', title: 'RoPE, and its scalings ×2' },
    { label: 'Attention score against distance, with a bias added to the score', title: 'A bias on the score' },
  ]);
  return mountIdea(section, panels, async (form) => {
    const trained = integerField(form, 'trained', 16, 512, 'training length');
    const far = 2 * trained;
    const distances = Array.from({ length: far + 1 }, (_, k) => k);
    const base = dot(QUERY, KEY);
    const scale = 1 / Math.sqrt(HEAD_DIM);
    const sinusoids = await onHost(pe.sinusoidal({ length: far + 1, dModel: HEAD_DIM }));
    const added = (table, k) => dot(QUERY.map((v, c) => v + table.data[c]), KEY.map((v, c) => v + table.data[k * HEAD_DIM + c]));
    const learned = pe.learnedPositions({ maxLength: trained, dModel: HEAD_DIM, init: { std: 1, seed: 3 } });
    const table = learned.weights;
    learned.dispose();
    const queryAt0 = await rotated(pe, QUERY, [0]);
    const ropeLine = async (scaling) => {
      const keys = await rotated(pe, KEY, distances, scaling);
      return distances.map((k) => dot(rows(queryAt0, 0), rows(keys, k)) * scale);
    };
    const slope = (await onHost(pe.alibiSlopes(8))).data[3];
    const buckets = await onHost(pe.t5Bucket(distances.map((k) => -k), { numBuckets: 16, maxDistance: trained, bidirectional: false }));
    const bucketBias = seededVector(4, 16);
    const none = { label: 'none (q·k)', y: distances.map(() => base * scale), colour: '#5b6672', dashed: true };
    const families = [
      [none,
        { label: 'sinusoidal, added', y: distances.map((k) => added(sinusoids, k) * scale) },
        { label: 'learned (untrained), added', y: distances.map((k) => (k < trained ? added(table, k) * scale : NaN)) }],
      [{ label: 'RoPE', y: await ropeLine(undefined) },
        { label: 'RoPE, linear scaling ×2', y: await ropeLine({ type: 'linear', factor: 2 }) },
        { label: 'RoPE, dynamic ×2', y: await ropeLine({ type: 'dynamic', factor: 2, originalMaxPositions: trained, sequenceLength: far }) },
        { label: 'RoPE, llama3 ×2', y: await ropeLine({ type: 'llama3', factor: 2, originalMaxPositions: trained }) },
        { label: 'RoPE, YaRN ×2', y: await ropeLine({ type: 'yarn', factor: 2, originalMaxPositions: trained }) }],
      [none,
        { label: 'ALiBi (head 4 of 8)', y: distances.map((k) => base * scale - slope * k) },
        { label: 'T5 (untrained bias per bucket)', y: distances.map((k) => base * scale + bucketBias[buckets.data[k]]) }],
    ];
    families.forEach((family, i) => panels[i].lines(family.map((s) => ({ ...s, x: distances })), {
      x: { label: 'distance between query and key' }, y: { label: 'score q·k / √d' }, rules: [{ x: trained, label: `trained ${trained}` }],
    }));
    panels[0].caption = 'Past the training length the sinusoids go on with values never seen in training; the learned table has no rows, so its line stops.';
    panels[1].caption = 'Plain RoPE goes on past the training length to angles never seen; linear scaling slows every pair so that twice the length fits, '
      + 'dynamic raises the base for this length, llama3 and YaRN slow only the slow pairs.';
    panels[2].caption = `ALiBi keeps falling in a straight line (${(base * scale - slope * far).toFixed(1)} at distance ${far}); `
      + 'T5 puts every far distance in its last bucket, a flat line.';
  });
}
