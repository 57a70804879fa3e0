// 2-D sin-cos positions for a gridH x gridW patch grid (ViT/MAE layout).
import { boolean, integer, number, options } from './validate.js';

export function sincos2dParams(core, opts) {
  const o = options('sincos2d options', opts, ['gridH', 'gridW', 'dModel', 'base', 'clsToken', 'out']);
  const gridH = integer('gridH', o.gridH, 1, 65536);
  const gridW = integer('gridW', o.gridW, 1, 65536);
  const dModel = integer('dModel', o.dModel, 4, core.limits.maxDModel);
  if (dModel % 4 !== 0) throw new RangeError(`dModel must be a multiple of 4 in [4, ${core.limits.maxDModel}], got ${dModel}`);
  const base = number('base', o.base ?? 10000, core.limits.minBase, core.limits.maxBase);
  const clsToken = boolean('clsToken', o.clsToken ?? false);
  return { gridH, gridW, dModel, base, clsToken, out: o.out };
}

export function sincos2d(core, opts) {
  const { gridH, gridW, dModel, base, clsToken, out } = sincos2dParams(core, opts);
  const rows = (clsToken ? 1 : 0) + gridH * gridW;
  const data = core.produce({ elements: rows * dModel, what: 'the 2-D position table', out },
    (pointer) => core.module.sincos2d(gridH, gridW, dModel, base, clsToken, pointer, rows * dModel));
  return { data, shape: [rows, dModel] };
}
