// Sinusoidal positional encoding: [length, dModel], rows are positions offset .. offset + length - 1.
import { integer, number, oneOf, options, outBuffer } from './validate.js';

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
  return core.withHeap([[elements * 4, 'the sinusoidal table']], (pointer) => {
    const out = outBuffer(o.out, elements);
    core.check(core.module.sinusoidal(length, dModel, base, layout, timescale, offset, pointer, elements));
    out.set(core.f32(pointer, elements));
    return { data: out, shape: [length, dModel] };
  });
}
