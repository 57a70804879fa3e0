// Why not just count: the position as a raw integer grows without bound, and as position/length its step
// changes with the length; the sinusoid columns stay in [-1, 1] and their step does not change.
import { onHost } from 'posembed/components';
import { figures, integerField, mountIdea, rows } from './idea.js';

const D_MODEL = 64;
const LENGTHS = [10, 100, 1000];

// The distance between the encodings of neighbouring positions p and p + 1.
function neighbourStep(table, p) {
  const a = rows(table, p);
  const b = rows(table, p + 1);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] - b[i]) ** 2;
  return Math.sqrt(sum);
}

export function mountCounting(pe, section) {
  const [values, steps] = figures(section, [
    { label: 'Position encoded as a raw count, as a fraction of the length, and as two sinusoid columns' },
    { label: 'Distance between neighbouring positions, for sentences of different lengths' },
  ]);
  return mountIdea(section, [values, steps], async (form) => {
    const length = integerField(form, 'length', 2, 4096, 'length');
    const table = await onHost(pe.sinusoidal({ length, dModel: D_MODEL }));
    const x = Array.from({ length }, (_, p) => p);
    values.lines([
      { label: 'raw count p', x, y: x },
      { label: 'p / length', x, y: x.map((p) => p / length) },
      { label: 'sinusoid, dimension 0', x, y: x.map((p) => table.data[p * D_MODEL]) },
      { label: 'sinusoid, dimension 10', x, y: x.map((p) => table.data[p * D_MODEL + 10]) },
    ], { x: { label: 'position p' }, y: { label: 'value' } });
    values.caption = `The raw count reaches ${length - 1}, while a token's embedding values are around ±1: added to them it would drown `
      + 'the token out, and later positions would look nothing like anything seen in training. The sinusoids stay within ±1 at every length.';
    // The reader's length beside a few fixed ones.
    const lengths = [...new Set([...LENGTHS, length])].sort((a, b) => a - b);
    const bars = [];
    for (const n of lengths) {
      const sinusoids = await onHost(pe.sinusoidal({ length: n, dModel: D_MODEL }));
      const yours = n === length ? ' (yours)' : '';
      bars.push({ label: `p/len, ${n}${yours}`, value: 1 / n, group: 'p / length' });
      bars.push({ label: `sin, ${n}${yours}`, value: neighbourStep(sinusoids, 0), group: `sinusoids (d = ${D_MODEL})` });
    }
    steps.bars(bars, {
      groups: [{ name: 'p / length', colour: '#d1495b' }, { name: `sinusoids (d = ${D_MODEL})`, colour: '#2a9d8f' }],
      x: { label: 'encoding, sentence length' }, y: { label: 'distance from p to p + 1' },
    });
    steps.caption = `As a fraction, one step is 1/length: 0.1 in a 10-token sentence, ${+(1 / length).toPrecision(2)} in your ${length}-token one, so "next to each other" `
      + 'means something different in every sentence. The sinusoidal step is the same at every length.';
  });
}
