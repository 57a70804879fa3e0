// ALiBi: per-head slopes and the [numHeads, queryLength, keyLength] bias (queries aligned to the last keys).
import { boolean, integer, options } from './validate.js';

const MAX_HEADS = 4096;

export function alibiSlopes(core, numHeads, opts) {
  const heads = integer('numHeads', numHeads, 1, MAX_HEADS);
  const o = options('alibiSlopes options', opts, ['out']);
  const data = core.produce({ elements: heads, what: 'the slopes', out: o.out }, (pointer) => core.module.alibiSlopes(heads, pointer));
  return { data, shape: [heads] };
}

export function alibiParams(core, opts) {
  const o = options('alibiBias options', opts, ['numHeads', 'queryLength', 'keyLength', 'causal', 'out']);
  const numHeads = integer('numHeads', o.numHeads, 1, MAX_HEADS);
  const keyLength = integer('keyLength', o.keyLength, 1, core.limits.maxLength);
  const queryLength = integer('queryLength', o.queryLength ?? keyLength, 1, keyLength);
  const causal = boolean('causal', o.causal ?? false);
  return { numHeads, keyLength, queryLength, causal, out: o.out };
}

export function alibiBias(core, opts) {
  const { numHeads, keyLength, queryLength, causal, out } = alibiParams(core, opts);
  const data = core.produceRows({ rows: numHeads * queryLength, rowElements: keyLength, what: 'the ALiBi bias', out },
    (pointer, firstRow, rowCount) => core.module.alibiBiasRows(numHeads, queryLength, keyLength, causal, firstRow, rowCount, pointer));
  return { data, shape: [numHeads, queryLength, keyLength] };
}
