// A pair of sinusoid columns as a point on a circle: position p puts pair i's point at angle ω_i·p, and moving k
// positions turns it by ω_i·k whatever p is, so PE(p + k) = R_k · PE(p). The binary clock's bits, the barber pole's
// columns and RoPE's dials are this one picture.
import { onHost } from 'posembed/components';
import { figures, integerField, mountIdea } from './idea.js';

const D_MODEL = 64;
const POSITIONS = 48;

export function mountRotation(pe, section) {
  const [circle] = figures(section, [{ label: 'One pair of sinusoid columns, each position a point on the unit circle' }]);
  const equation = section.querySelector('.rotation-check');
  // p + k is a position of the table: each box's range follows the other's value.
  const { p: pBox, k: kBox } = section.querySelector('form').elements;
  const linkRanges = () => {
    kBox.max = String(POSITIONS - 1 - (Number(pBox.value) || 0));
    pBox.max = String(POSITIONS - 1 - (Number(kBox.value) || 0));
  };
  section.querySelector('form').addEventListener('input', linkRanges);
  linkRanges();
  return mountIdea(section, [circle], async (form) => {
    const pair = integerField(form, 'pair', 0, D_MODEL / 2 - 1, 'pair i');
    const p = integerField(form, 'p', 0, POSITIONS - 1, 'position p');
    const k = integerField(form, 'k', 0, POSITIONS - 1 - p, `k (at most ${POSITIONS - 1} − p)`);
    const table = await onHost(pe.sinusoidal({ length: POSITIONS, dModel: D_MODEL }));
    const at = (position) => ({ sin: table.data[position * D_MODEL + 2 * pair], cos: table.data[position * D_MODEL + 2 * pair + 1] });
    // The pair's turn per position, read from row 1 of the table, as the barber pole's wavelengths are.
    const omega = Math.atan2(at(1).sin, at(1).cos);
    const points = Array.from({ length: POSITIONS }, (_, position) => ({
      x: at(position).cos, y: at(position).sin, label: position === p || position === p + k ? String(position) : '',
      group: position === p ? 'p' : position === p + k ? 'p + k' : 'other positions',
    }));
    circle.points(points, {
      groups: [{ name: 'p', colour: '#1f5fbf' }, { name: 'p + k', colour: '#c0392b' }, { name: 'other positions', colour: '#9aa3ad' }],
      x: { label: `cos(ω_${pair} · position)`, domain: [-1.15, 1.15] }, y: { label: `sin(ω_${pair} · position)`, domain: [-1.15, 1.15] },
      path: { indices: [p, p + k], label: `the turn from p to p + k: ${(omega * k).toFixed(3)} rad` },
      describe: (i) => `position ${i}: (cos, sin) = (${at(i).cos.toFixed(4)}, ${at(i).sin.toFixed(4)})`,
    });
    // R_k applied to PE(p)'s pair, against PE(p + k)'s pair as the table holds it.
    const [c, s] = [Math.cos(omega * k), Math.sin(omega * k)];
    const turned = { sin: at(p).sin * c + at(p).cos * s, cos: at(p).cos * c - at(p).sin * s };
    const gap = Math.max(Math.abs(turned.sin - at(p + k).sin), Math.abs(turned.cos - at(p + k).cos));
    section.dataset.gap = String(gap);
    equation.textContent = `R_${k} · PE(${p}) for pair ${pair}: turned by ω·k = ${(omega * k).toFixed(4)} rad, (sin, cos) = (${turned.sin.toFixed(4)}, ${turned.cos.toFixed(4)}); `
      + `PE(${p + k}) holds (${at(p + k).sin.toFixed(4)}, ${at(p + k).cos.toFixed(4)}): difference ${gap.toExponential(1)}, float32 rounding.`;
    circle.caption = `Pair ${pair} (columns ${2 * pair} and ${2 * pair + 1}) turns ${omega.toFixed(4)} rad per position: every position is a point on this circle. `
      + 'Moving k positions turns the point by the same angle wherever it starts: that rotation R_k is why PE(p + k) is a fixed linear function of PE(p). '
      + 'Pair 0 goes round fast; high pairs creep, like the slow hands of a clock. The binary clock\'s bits flip as such hands pass half-turns, '
      + 'and RoPE turns the pairs of a query and a key by exactly these angles.';
  });
}
