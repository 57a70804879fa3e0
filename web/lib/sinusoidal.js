// Sinusoidal positional encoding: [length, dModel], rows are positions offset .. offset + length - 1.
import { integer, number, oneOf, options } from './validate.js';

const KNOWN = ['length', 'dModel', 'base', 'layout', 'timescale', 'offset', 'out'];

export function sinusoidal(core, opts) {
  const o = options('sinusoidal options', opts, KNOWN);
  const { maxLength, maxDModel, minBase, maxBase, maxPosition } = core.limits;
  const length = integer('length', o.length, 1, maxLength);
  const dModel = integer('dModel', o.dModel, 2, maxDModel, { even: true });
  const base = number('base', o.base ?? 10000, minBase, maxBase);
  const layout = oneOf('layout', o.layout ?? 'interleaved', ['interleaved', 'split']);
  const timescale = oneOf('timescale', o.timescale ?? 'standard', ['standard', 't2t']);
  const offset = integer('offset', o.offset ?? 0, 0, maxPosition + 1 - length);
  const elements = length * dModel;
  const data = core.produce({ elements, what: 'the sinusoidal table', out: o.out },
    (pointer) => core.module.sinusoidal(length, dModel, base, layout, timescale, offset, pointer, elements));
  return { data, shape: [length, dModel] };
}
