// Positions that are not one counter. Time: the sinusoids take any number, so events can be placed by their
// timestamps (seconds here) rather than by their index, and a pause shows. Hierarchy: a (section, word) position
// encoded as two halves, one per level, as the patches' rows and columns are (the same 2-D sin-cos table), so words
// of one section are alike and so are the n-th words of every section.
import { onHost } from 'posembed/components';
import { figures, integerField, mountIdea, seededVector } from './idea.js';

const D_MODEL = 64;
const EVENTS = 16;
const PAUSE_AFTER = 7;  // the pause falls between events 7 and 8

// Cosine similarity of every row with every other, [n, n].
const cosines = async (pe, table) => onHost(pe.similarity(table, null, { metric: 'cosine' }));

// One colour scale for two similarity matrices drawn side by side: from the lower of their least values to 1.
function sharedScale(a, b) {
  let least = 1;
  for (const similarity of [a, b]) for (const v of similarity.data) least = Math.min(least, v);
  return { range: { min: least, max: 1 }, colormap: 'viridis', colour: { label: 'cosine' } };
}

export function mountTime(pe, section) {
  const [byIndex, byTime] = figures(section, [
    { label: 'Cosine similarity of events encoded by their index', title: 'By index: 0, 1, 2, …' },
    { label: 'Cosine similarity of events encoded by their time in seconds', title: 'By time, in seconds' },
  ]);
  // Seeded gaps of 2 to 20 s between events, the same on every visit.
  const gaps = Array.from(seededVector(7, EVENTS - 1), (v) => Math.round(11 + 9 * v));
  return mountIdea(section, [byIndex, byTime], async (form) => {
    const pause = integerField(form, 'pause', 0, 3600, 'pause');
    const times = [0];
    gaps.forEach((gap, i) => times.push(times[i] + gap + (i === PAUSE_AFTER ? pause : 0)));
    const [indexTable, timeTable] = await Promise.all([
      onHost(pe.sinusoidal({ length: EVENTS, dModel: D_MODEL })),
      onHost(pe.sinusoidal({ positions: times, dModel: D_MODEL })),
    ]);
    const [indexSimilarity, timeSimilarity] = await Promise.all([cosines(pe, indexTable), cosines(pe, timeTable)]);
    const names = times.map((t, i) => `${i} (${t} s)`);
    const options = { ...sharedScale(indexSimilarity, timeSimilarity), x: { label: 'event' }, y: { label: 'event (time)', names } };
    byIndex.heatmap(indexSimilarity, options);
    byTime.heatmap(timeSimilarity, options);
    const across = (similarity) => similarity.data[PAUSE_AFTER * EVENTS + PAUSE_AFTER + 1];
    byIndex.caption = `By index, events ${PAUSE_AFTER} and ${PAUSE_AFTER + 1} are neighbours like any others (cosine ${across(indexSimilarity).toFixed(2)}), whatever happened between them.`;
    // The pause against the other neighbours: the least alike of the other consecutive events.
    const others = times.slice(1).map((_, i) => timeSimilarity.data[i * EVENTS + i + 1]).filter((_, i) => i !== PAUSE_AFTER);
    const leastOther = others.reduce((a, b) => Math.min(a, b), 1);
    const gap = times[PAUSE_AFTER + 1] - times[PAUSE_AFTER];
    byTime.caption = `By time, events ${PAUSE_AFTER} and ${PAUSE_AFTER + 1} are ${gap} s apart and their cosine is ${across(timeSimilarity).toFixed(2)}`
      + (across(timeSimilarity) < leastOther
        ? ` (other neighbours: ${leastOther.toFixed(2)} or more): the pause shows, and the events before and after it form two blocks.`
        : `, as alike as other neighbours (${leastOther.toFixed(2)} or more): a pause this short does not stand out.`)
      + ' The formula needs no change: a time is a position like any other.';
    section.dataset.across = JSON.stringify({ pause, times, index: across(indexSimilarity), time: across(timeSimilarity) });
  });
}

export function mountHierarchy(pe, section) {
  const [flat, nested] = figures(section, [
    { label: 'Cosine similarity of every word with every other, positions counted straight through', title: 'One counter: 0, 1, 2, …' },
    { label: 'Cosine similarity of every word with every other, positions as (section, word)', title: 'Two levels: (section, word)' },
  ]);
  return mountIdea(section, [flat, nested], async (form) => {
    const sections = integerField(form, 'sections', 2, 8, 'sections');
    const words = integerField(form, 'words', 2, 16, 'words per section');
    const n = sections * words;
    // (section, word) as the patch grid's (row, column): half the columns for each level.
    const [flatTable, nestedTable] = await Promise.all([
      onHost(pe.sinusoidal({ length: n, dModel: D_MODEL })),
      onHost(pe.sincos2d({ gridH: sections, gridW: words, dModel: D_MODEL })),
    ]);
    const [flatSimilarity, nestedSimilarity] = await Promise.all([cosines(pe, flatTable), cosines(pe, nestedTable)]);
    const names = Array.from({ length: n }, (_, i) => `§${Math.floor(i / words) + 1} w${i % words + 1}`);
    const options = { ...sharedScale(flatSimilarity, nestedSimilarity), x: { label: 'word' }, y: { label: 'word (§section w·word)', names } };
    flat.heatmap(flatSimilarity, options);
    nested.heatmap(nestedSimilarity, options);
    // The last word of section 1 against the first of section 2 (neighbours in the text), and the first words of
    // sections 1 and 2 (the same place in their sections).
    const at = (similarity, a, b) => similarity.data[a * n + b];
    const pairs = (similarity) => ({ neighbours: at(similarity, words - 1, words), firsts: at(similarity, 0, words) });
    const [f, h] = [pairs(flatSimilarity), pairs(nestedSimilarity)];
    flat.caption = `Counted straight through, the last word of §1 and the first of §2 are neighbours (cosine ${f.neighbours.toFixed(2)}), and the first words of §1 and §2 are ${words} apart (${f.firsts.toFixed(2)}).`;
    nested.caption = `With one half for the section and one for the word, the words of a section form a block, and the first words of §1 and §2 are alike (cosine ${h.firsts.toFixed(2)}), `
      + `more than the neighbours across the boundary (${h.neighbours.toFixed(2)}): the position says which section and where in it. BERT's segment embeddings (a learned vector for sentence A or B, added to every token of it) give a text one such level.`;
    section.dataset.pairs = JSON.stringify({ flat: f, nested: h });
  });
}
