// 2-D sin-cos positions for a gridH x gridW patch grid (ViT/MAE layout).
import { readOptions } from './op_schemas.js';
import { sinusoidal } from './sinusoidal.js';

export function sincos2dParams(core, opts) {
  const o = readOptions('sincos2d', opts);
  if (o.dModel % 4 !== 0) throw new RangeError(`dModel must be a multiple of 4 in [4, ${core.limits.maxDModel}], got ${o.dModel}`);
  return o;
}

// The 1-D table the rows are assembled from: positions 0 .. max(gridH, gridW) - 1, split layout, dModel / 2
// columns (also what the WebGPU path uploads).
export function sincos2dTable(core, { gridH, gridW, dModel, base }) {
  return sinusoidal(core, { length: Math.max(gridH, gridW), dModel: dModel / 2, base, layout: 'split' }).data;
}

// Written a run of rows at a time (a large result streams through the heap), the 1-D table computed once.
export function sincos2d(core, opts) {
  const p = sincos2dParams(core, opts);
  const { gridH, gridW, dModel, base, clsToken } = p;
  const rows = (clsToken ? 1 : 0) + gridH * gridW;
  const outAfter = core.keep(p.out, 'out');
  const table = sincos2dTable(core, p);
  const data = core.produceRows({ rows, rowElements: dModel, what: 'the 2-D position table', out: outAfter(), inputs: [{ data: table, what: 'the 1-D table' }] },
    (outPointer, firstRow, rowCount, tablePointer) => core.module.sincos2dRows(gridH, gridW, dModel, base, clsToken, tablePointer, table.length, firstRow, rowCount, outPointer));
  return { data, shape: [rows, dModel] };
}
