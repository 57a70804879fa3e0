// Two facts about the sinusoids' dot product, measured on the package's table: it is a sum of one cosine per pair,
// cos(ω_i k) (the Fourier view: its shape set by the base's range of frequencies, which are not multiples of one, so
// it never repeats exactly), and, cosines being even, it is the same k before as k after; RoPE's q·k, where the query
// and the key are different vectors, is not.
import { onHost } from 'posembed/components';
import { dot, figures, mountIdea, numberField, rows } from './idea.js';
import { KEY, QUERY, rotated } from './relative.js';

const REACH = 48;  // offsets -REACH..REACH
const FAR = 8;
const D_MODEL = 64;
const round = (value) => value.toFixed(2);

export function mountDirection(pe, section) {
  const [terms, sides] = figures(section, [
    { label: 'The sinusoids\' dot product as a sum of cosines, one per pair, against the offset k', title: 'A sum of cosines' },
    { label: 'Score against the offset k, before and after, for sinusoids and for RoPE', title: 'Before or after?' },
  ]);
  return mountIdea(section, [terms, sides], async (form) => {
    const base = numberField(form, 'base', 10, 1e6, 'base');
    const pairs = D_MODEL / 2;
    const offsets = Array.from({ length: 2 * REACH + 1 }, (_, i) => i - REACH);
    // PE(p)·PE(p + k) for p = REACH, from the package's table, over the pairs (1 at k = 0).
    const table = await onHost(pe.sinusoidal({ length: 2 * REACH + 1, dModel: D_MODEL, base }));
    const dots = await onHost(pe.similarity(table, null, { metric: 'dot' }));
    const measured = offsets.map((k) => dots.data[REACH * (2 * REACH + 1) + REACH + k] / pairs);
    const frequencies = Array.from({ length: pairs }, (_, i) => base ** (-2 * i / D_MODEL));
    const fourier = offsets.map((k) => frequencies.reduce((sum, w) => sum + Math.cos(w * k), 0) / pairs);
    const apart = measured.reduce((most, v, i) => Math.max(most, Math.abs(v - fourier[i])), 0);
    terms.lines([
      ...[0, pairs / 4, pairs - 1].map((i, n) => ({ label: `cos(ω${subscript(i)} k), pair ${i}`, x: offsets, y: offsets.map((k) => Math.cos(frequencies[i] * k)), width: 1.5, dashed: n > 0 })),
      { label: `their mean over all ${pairs} pairs = PE(p)·PE(p + k) / ${pairs}`, x: offsets, y: measured, width: 3 },
    ], { x: { label: 'offset k' }, y: { label: 'value' } });
    // Beyond the first few offsets: how high the curve comes back (a far position that looks near).
    const far = measured.filter((_, i) => Math.abs(offsets[i]) >= FAR);
    const [low, high] = [far.reduce((a, b) => Math.min(a, b), 1), far.reduce((a, b) => Math.max(a, b), -1)];
    terms.caption = `Each pair adds one cosine of the offset, fast for the first pairs and slow for the last: PE(p)·PE(p + k) is their sum `
      + `(the table's dot products and the sum of cosines agree to ${apart.toExponential(0)}); its frequencies are not multiples of one, so unlike a Fourier `
      + `series the curve never repeats exactly. Its neighbours (k = ±1) score ${round(measured[REACH + 1])}; beyond k = ±${FAR} the curve stays between `
      + `${round(low)} and ${round(high)}. The base sets the slowest frequency: a small base makes every pair fast and the curve comes back up at far offsets `
      + '(far positions look near); a large base adds slow pairs that barely turn, a floor under the whole curve.';

    // A query at m and a key at m + k: RoPE with two different vectors, and the sinusoids (the same curve, cosine).
    const m = REACH;
    const query = rows(await rotated(pe, QUERY, [m]), 0);
    const keys = await rotated(pe, KEY, offsets.map((k) => m + k));
    const rope = offsets.map((_, i) => dot(rows(keys, i), query));
    const ropeScale = rope.reduce((most, v) => Math.max(most, Math.abs(v)), 0);
    sides.lines([
      { label: 'sinusoids: PE(p)·PE(p + k) / pairs', x: offsets, y: measured, width: 3 },
      { label: 'RoPE (base 10000): q at m, k at m + k (÷ largest)', x: offsets, y: rope.map((v) => v / ropeScale), width: 2, dashed: true },
    ], { x: { label: 'offset k (negative: the key comes before)' }, y: { label: 'score' } });
    const asymmetry = (values) => offsets.reduce((most, k, i) => (k > 0 ? Math.max(most, Math.abs(values[i] - values[REACH - k])) : most), 0);
    const [sinusoidGap, ropeGap] = [asymmetry(measured), asymmetry(rope.map((v) => v / ropeScale))];
    sides.caption = `The sinusoids' curve is a mirror image about k = 0 (the largest difference between k and −k is ${sinusoidGap.toExponential(0)}, float rounding): `
      + 'cosines are even, so the dot product of two position rows says how far apart they are but not which comes first. '
      + `RoPE scores a query against a different key vector, and its curve is not symmetric (k and −k differ by up to ${ropeGap.toFixed(2)}): `
      + 'it can tell before from after. So can a model that adds sinusoids, once its learned query and key matrices turn the rows differently, '
      + 'and so can a causal mask (§3).';
    section.dataset.asymmetry = JSON.stringify({ base, sinusoid: sinusoidGap, rope: ropeGap, fourier: apart });
  });
}

const subscript = (n) => String(n).replace(/\d/g, (digit) => '₀₁₂₃₄₅₆₇₈₉'[digit]);
