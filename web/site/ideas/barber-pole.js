// The barber pole: the whole sinusoidal table, and the wavelength of each column read from the table itself.
import { onHost } from 'posembed/components';
import { figures, integerField, mountIdea } from './idea.js';

export function mountBarberPole(pe, section) {
  const [pole, wavelengths] = figures(section, [
    { label: 'The sinusoidal encoding, position by dimension' },
    { label: 'The wavelength of each pair of columns' },
  ]);
  return mountIdea(section, [pole, wavelengths], async (form) => {
    const length = integerField(form, 'length', 2, 1024, 'length');
    const dModel = integerField(form, 'dModel', 4, 512, 'd_model');
    if (dModel % 2) throw new RangeError(`d_model must be even (sine and cosine pairs), got ${dModel}`);
    const table = await onHost(pe.sinusoidal({ length, dModel }));
    pole.heatmap(table, { range: { min: -1, max: 1 }, x: { label: 'dimension' }, y: { label: 'position' }, colour: { label: 'value' } });
    pole.caption = 'Stripes that widen to the right: the left columns cycle every few positions, the right ones barely move over the whole table. '
      + 'Read any cell with the cursor.';
    // Row 1 holds sin(ω) and cos(ω) of every pair: its angle is the pair's turn per position.
    const pairs = dModel / 2;
    const x = [];
    const y = [];
    for (let i = 0; i < pairs; i++) {
      const omega = Math.atan2(table.data[dModel + 2 * i], table.data[dModel + 2 * i + 1]);
      x.push(i);
      y.push(Math.log10((2 * Math.PI) / omega));
    }
    wavelengths.lines([{ label: 'log10 of the wavelength (positions per turn)', x, y }], {
      x: { label: 'pair i (columns 2i and 2i + 1)' }, y: { label: 'log10 wavelength' },
      describe: (i) => `pair ${i}: wavelength ${(10 ** y[i]).toPrecision(4)} positions`,
    });
    wavelengths.caption = `Read from row 1 of the table: each pair turns 2π/wavelength per position, and the wavelengths grow geometrically from 2π ≈ 6.3 to about ${(10 ** y[pairs - 1]).toPrecision(3)} (a straight line on this log scale).`;
  }).then(() => Promise.all([
    noteMisprintedDivisors(pe, section.querySelector('.tutorial-note[data-note="divisors"]')),
    noteSixColumns(pe, section.querySelector('.tutorial-note[data-note="six-columns"]')),
  ]));
}

// Each pair's divisor 10000^(2i/d), read from row 1 of a table of width d (as the wavelengths above are).
const divisorOf = (table, dModel, i) => 1 / Math.atan2(table.data[dModel + 2 * i], table.data[dModel + 2 * i + 1]);

// The tutorial on positional encodings (doc 000) draws a table "for d_model = 6" whose pairs divide the positions by
// 1, 10 and 100, and prints 0.64 for dimension 2 at position 7: d = 8's divisors (its fourth, 1000, left out).
const SIX_PRINTED = { position: 7, column: 2, value: '0.64', divisors: '1, 10 and 100' };
async function noteSixColumns(pe, note) {
  const [six, eight] = await Promise.all([6, 8].map((dModel) => onHost(pe.sinusoidal({ length: 8, dModel }))));
  const divisors = (table, dModel, count = 3) => Array.from({ length: count }, (_, i) => String(Number(divisorOf(table, dModel, i).toPrecision(3))));
  const cell = (table, dModel) => table.data[SIX_PRINTED.position * dModel + SIX_PRINTED.column].toFixed(3);
  const [sixDivisors, eightDivisors] = [divisors(six, 6), divisors(eight, 8)];
  note.textContent = `A tutorial's table, checked: the one on positional encodings (doc 000) draws "d_model = 6" with pairs that divide the positions by `
    + `${SIX_PRINTED.divisors}, and prints ${SIX_PRINTED.value} for dimension ${SIX_PRINTED.column} at position ${SIX_PRINTED.position}. Read from the package's tables, `
    + `d = 6 divides by ${sixDivisors.join(', ')} and gives ${cell(six, 6)} there; d = 8 divides by ${eightDivisors.join(', ')} (and ${divisors(eight, 8, 4)[3]}) and gives ${cell(eight, 8)}: `
    + 'the table is the first six columns of d = 8. Its lesson, slower columns to the right, holds for both.';
  note.dataset.measured = JSON.stringify({ six: cell(six, 6), eight: cell(eight, 8), sixDivisors, eightDivisors });
}

// The tutorial on sinusoids (doc 002) prints the divisors 10000^(2i/64) of d = 64 as 1.17, 1.37, 3.98 and 6812; the
// table says otherwise. Read from its row 1, as the figure above reads its wavelengths.
const PRINTED = [[1, '1.17'], [2, '1.37'], [10, '3.98'], [31, '6812']];
async function noteMisprintedDivisors(pe, note) {
  const table = await onHost(pe.sinusoidal({ length: 3, dModel: 64 }));
  // The check-yourself answers: PE(2, 4) and row 0, read from the same table.
  const section = note.closest('section');
  section.querySelector('[data-answer="pe-2-4"] .value').textContent = table.data[2 * 64 + 4].toFixed(4);
  section.querySelector('[data-answer="row-0"] .value').textContent = `${Array.from(table.data.subarray(0, 8), (v) => v.toFixed(0)).join(', ')}, …`;
  const measured = PRINTED.map(([i]) => divisorOf(table, 64, i).toPrecision(i === 31 ? 4 : 3));
  note.textContent = `A tutorial's numbers, checked: the one on sinusoids (doc 002) divides positions by 10000^(2i/64) and prints, for i = 1, 2, 10 `
    + `and 31, ${PRINTED.map(([, printed]) => printed).join(', ')}. Read from the package's table at d = 64 they are ${measured.join(', ')}: 10000^(2/64) is `
    + `${measured[0]}, not ${PRINTED[0][1]}. Its worked values (sin(1/1.17) …) inherit the slip; the picture it describes, wavelengths growing `
    + 'geometrically from left to right, is right.';
  note.dataset.measured = measured.join(' ');
}
