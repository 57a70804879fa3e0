// Every position's signature and what the base buys: the distance between two rows of the sinusoidal table as
// their offset grows, for three bases, with what each base gives measured: how close any two distinct positions
// come (a collision is a far position closer than a neighbour), the slowest pair's wavelength against the length,
// and the pairs that barely turn over the whole length.
import { onHost } from 'posembed/components';
import { figures, integerField, mountIdea, rows } from './idea.js';

const BASES = [{ value: 100, name: 'base 100' }, { value: 1e4, name: 'base 10⁴' }, { value: 1e6, name: 'base 10⁶' }];
// A pair "barely turns" when its angle moves less than an eighth of a turn over the whole length.
const STILL_ANGLE = Math.PI / 4;
// Positions at least this far apart count as far: the closest of them, against a neighbour, shows a near collision.
const FAR = 10;

function distance(a, b) {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] - b[i]) ** 2;
  return Math.sqrt(sum);
}

// What one base gives, read from its table: distances from position 0 to each later position, and each pair's turn
// per position from row 1 (as the barber pole reads its wavelengths).
function measure(table, length, dModel) {
  const origin = rows(table, 0);
  const distances = Array.from({ length }, (_, k) => distance(origin, rows(table, k)));
  let closest = FAR;
  for (let k = FAR + 1; k < length; k++) if (distances[k] < distances[closest]) closest = k;
  const turns = Array.from({ length: dModel / 2 }, (_, i) => Math.atan2(table.data[dModel + 2 * i], table.data[dModel + 2 * i + 1]));
  const slowest = turns.reduce((least, turn) => Math.min(least, turn), Infinity);
  const still = turns.filter((turn) => turn * (length - 1) < STILL_ANGLE).length;
  return { distances, closest, longestWavelength: (2 * Math.PI) / slowest, still, pairs: dModel / 2 };
}

export function mountSignature(pe, section) {
  const [chart] = figures(section, [{ label: 'Distance between two positions against how far apart they are, for three bases' }]);
  const tableBody = section.querySelector('tbody');
  return mountIdea(section, [chart], async (form) => {
    const dModel = integerField(form, 'dModel', 4, 256, 'd_model');
    if (dModel % 2) throw new RangeError(`d_model must be even (sine and cosine pairs), got ${dModel}`);
    const length = integerField(form, 'length', 16, 4096, 'length');
    const measured = [];
    for (const base of BASES) measured.push(measure(await onHost(pe.sinusoidal({ length, dModel, base: base.value })), length, dModel));
    const offsets = Array.from({ length: length - 1 }, (_, i) => i + 1);
    chart.lines(measured.map((m, i) => ({ label: BASES[i].name, x: offsets, y: m.distances.slice(1), width: 1.5 })), {
      x: { label: 'k: how many positions apart (log scale)', log: true }, y: { label: '‖PE(p) − PE(p + k)‖', domain: [0, Math.sqrt(2 * dModel)] },
      describe: (i) => `k = ${offsets[i]}: ${measured.map((m, b) => `${BASES[b].name} ${m.distances[i + 1].toFixed(3)}`).join(', ')}`,
    });
    tableBody.replaceChildren(...measured.map((m, b) => {
      const row = document.createElement('tr');
      const neighbour = m.distances[1];
      const far = m.distances[m.closest];
      const collides = far < neighbour;
      row.dataset.base = String(BASES[b].value);
      row.dataset.collides = String(collides);
      row.dataset.still = String(m.still);
      for (const text of [
        BASES[b].name,
        neighbour.toFixed(3),
        `${far.toFixed(3)} at k = ${m.closest}${collides ? ': closer than a neighbour' : ''}`,
        `${Math.round(m.longestWavelength).toLocaleString('en')}${m.longestWavelength < length ? ' (comes round within the length)' : ''}`,
        `${m.still} of ${m.pairs}`,
      ]) row.insertCell().textContent = text;
      return row;
    }));
    const [small, middle, large] = measured;
    const colliding = measured.map((m, b) => (m.distances[m.closest] < m.distances[1] ? BASES[b].name : null)).filter(Boolean);
    chart.caption = 'From position 0 to each later one (the distance between p and p + k is the same for every p: section 8 shows why, so this covers every pair). '
      + 'No line touches 0: every position has its own row. '
      + (small.longestWavelength < length
        ? `Base 100's slowest pair comes round every ${Math.round(small.longestWavelength)} positions, so its distance stops growing long before ${length}: far positions look no farther than middling ones. `
        : `Base 100's slowest pair needs ${Math.round(small.longestWavelength)} positions to come round, more than this length: make the length longer to see its distance stop growing. `)
      + `Base 10⁶ keeps growing, but ${large.still} of its ${large.pairs} pairs barely turn over ${length} positions, so its neighbours are the closest of all (${large.distances[1].toFixed(3)} apart); `
      + `base 10⁴ (${middle.still} of ${middle.pairs} still) sits between. `
      + (colliding.length
        ? `With only ${dModel / 2} pairs, ${colliding.join(', ')} ${colliding.length > 1 ? 'put' : 'puts'} a far position closer than a neighbour: a near collision, where more columns would tell them apart.`
        : 'Make d_model 8: with four pairs, far positions come closer than neighbours.');
  });
}
