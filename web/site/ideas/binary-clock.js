// The binary clock: the bits of the position flip at halving rates, like the sinusoid columns at doubling
// wavelengths. With d = 8 and base 16 the pairs' wavelengths double exactly: 2π·16^(2i/8) = 2π·2^i.
import { onHost } from 'posembed/components';
import { figures, integerField, mountIdea, numberField } from './idea.js';

const BITS = 6;
const D_MODEL = 8;

export function mountBinaryClock(pe, section) {
  const [bits, waves] = figures(section, [
    { label: 'The bits of each position, in binary', in: '.left' },
    { label: 'The sinusoidal encoding of the same positions', in: '.right' },
  ]);
  return mountIdea(section, [bits, waves], async (form) => {
    const length = integerField(form, 'length', 2, 64, 'positions');
    const base = numberField(form, 'base', 2, 1e12, 'base');
    const data = new Float32Array(length * BITS);
    for (let p = 0; p < length; p++) for (let b = 0; b < BITS; b++) data[p * BITS + b] = (p >> b) & 1;
    bits.heatmap({ data, shape: [length, BITS] }, {
      colormap: 'viridis', range: { min: 0, max: 1 }, x: { label: 'bit', names: (b) => `2^${b}` }, y: { label: 'position' }, colour: { label: 'bit' },
    });
    bits.caption = 'Bit 2^0 flips at every position, bit 2^1 every 2, bit 2^2 every 4: each column at half the rate of the one before.';
    const table = await onHost(pe.sinusoidal({ length, dModel: D_MODEL, base }));
    waves.heatmap(table, {
      range: { min: -1, max: 1 }, x: { label: 'dimension', names: (c) => `${c % 2 ? 'cos' : 'sin'}${c >> 1}` }, y: { label: 'position' }, colour: { label: 'value' },
    });
    const wavelengths = Array.from({ length: D_MODEL / 2 }, (_, i) => 2 * Math.PI * base ** ((2 * i) / D_MODEL));
    waves.caption = `The same idea, smooth: pair i turns with wavelength 2π·base^(2i/d) = ${wavelengths.map((w) => w.toPrecision(3)).join(', ')} positions`
      + ` (each ${(base ** (2 / D_MODEL)).toPrecision(4)}× the last). With base 16 each doubles, like the bits.`;
  });
}
