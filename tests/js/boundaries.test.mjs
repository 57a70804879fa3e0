// Two layers check every option: the package at its boundary (with the message a caller reads), the C++ core again
// as a second line. At each boundary of each range, the least and the most allowed and one step past each, both
// layers accept or both refuse: neither lets through what the other refuses.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadWasmCore } from '../../dist/wasm.js';
import { sinusoidalParams } from '../../dist/sinusoidal.js';
import { alibiParams } from '../../dist/alibi.js';
import { t5Bucket } from '../../dist/t5.js';
import { ropeInvFreq, ropeParams, ropeScaling } from '../../dist/rope.js';
import { readArgument, readOptions } from '../../dist/op_schemas.js';
import { pca } from '../../dist/analysis.js';
import { CORE_ROPE_RULES } from '../../dist/core_tables.js';

const MAX_INT32 = 2 ** 31 - 1;

// Whether the package's checks let the parameter named `name` through: a RangeError or TypeError naming it is a refusal.
function packageAccepts(name, check) {
  try {
    check();
    return true;
  } catch (error) {
    if (error instanceof RangeError || error instanceof TypeError) return !error.message.startsWith(name);
    throw error;
  }
}

describe('the package and the C++ core agree at every boundary', () => {
  let core;
  // Whether the core accepts the parameter named `name` (its spelling in the core's messages): it refuses it when its
  // status names it; any other complaint (the deliberately tiny output) is past that check. A binding that takes its
  // output's size from the parameters themselves is given outBytes.
  const coreAccepts = (name, call, outBytes = 64) => core.withHeap([[outBytes, 'a probe output'], [64, 'probe inputs']], (out, inputs) => {
    const status = call(out, inputs);
    return status === null || !status.message.startsWith(name);
  });

  before(async () => { core = await loadWasmCore({ simd: true, threads: 1 }); });

  // Each case: the parameter's name in the core's messages (and the package's, where they differ), the values, how
  // the package checks them, how the core does.
  function agree(name, values, packageCheck, coreCheck, coreName, { packageName = coreName, outBytes } = {}) {
    for (const value of values) {
      const byPackage = packageAccepts(packageName, () => packageCheck(value));
      const byCore = coreAccepts(coreName, (out, inputs) => coreCheck(value, out, inputs), outBytes);
      assert.equal(byPackage, byCore, `${name} = ${value}: the package ${byPackage ? 'accepts' : 'refuses'}, the core ${byCore ? 'accepts' : 'refuses'}`);
    }
  }

  it('sinusoidal: length, dModel, base, offset', () => {
    const { maxLength, maxDModel, minBase, maxBase, maxPosition } = core.limits;
    const call = (o) => (out) => core.module.sinusoidal(o.length, o.dModel, o.base, 'interleaved', 'standard', o.offset, out, 1);
    const base = { length: 4, dModel: 8, base: 10000, offset: 0 };
    const cases = {
      length: [0, 1, maxLength, maxLength + 1],
      dModel: [0, 1, 2, 3, maxDModel - 1, maxDModel, maxDModel + 1, maxDModel + 2],
      base: [minBase - 1e-9, minBase, maxBase, maxBase * (1 + 1e-9)],
      offset: [-1, 0, maxPosition + 1 - 4, maxPosition + 2 - 4],
    };
    for (const [key, values] of Object.entries(cases)) {
      agree(`sinusoidal ${key}`, values, (v) => sinusoidalParams(core, { ...base, [key]: v }), (v, out) => call({ ...base, [key]: v })(out), key);
    }
  });

  it('alibiBias: numHeads, keyLength, queryLength', () => {
    const { maxLength } = core.limits;
    const base = { numHeads: 4, keyLength: 8, queryLength: 1 };
    const call = (o, out) => core.module.alibiBiasRows(o.numHeads, o.queryLength, o.keyLength, false, 0, 0, 0, out);
    const cases = { numHeads: [0, 1, 4096, 4097], keyLength: [0, 1, maxLength, maxLength + 1], queryLength: [0, 1, 8, 9] };  // against keyLength 8
    for (const [key, values] of Object.entries(cases)) {
      agree(`alibiBias ${key}`, values, (v) => alibiParams(core, { ...base, [key]: v }), (v, out) => call({ ...base, [key]: v }, out), key);
    }
  });

  it('t5Bucket and t5Bias\'s bucketing: numBuckets (bidirectional or not) and maxDistance above the exact buckets', () => {
    for (const bidirectional of [true, false]) {
      const lowest = bidirectional ? 4 : 2;
      const base = { numBuckets: 32, maxDistance: 128, bidirectional };
      const call = (o, out, inputs) => core.module.t5Buckets(o.numBuckets, o.maxDistance, o.bidirectional, inputs, 1, out);
      agree(`t5 numBuckets (bidirectional ${bidirectional})`, [lowest - 1, lowest, 65536, 65537],
        (v) => t5Bucket(core, [0], { ...base, numBuckets: v }), (v, out, inputs) => call({ ...base, numBuckets: v }, out, inputs), 'numBuckets');
      const exact = (bidirectional ? 16 : 32) / 2;
      agree(`t5 maxDistance (bidirectional ${bidirectional})`, [exact, exact + 1, MAX_INT32, MAX_INT32 + 1],
        (v) => t5Bucket(core, [0], { ...base, maxDistance: v }), (v, out, inputs) => call({ ...base, maxDistance: v }, out, inputs), 'maxDistance');
    }
  });

  // (The ops of the core's table, alibiSlopes among them, are checked by the core alone: core_ops.test.mjs.)
  it('interpolatePositions: newLength', () => {
    const { maxLength } = core.limits;
    agree('interpolatePositions newLength', [0, 1, maxLength, maxLength + 1], (v) => readArgument('interpolatePositions', 'newLength', v, core.limits),
      (v, out, inputs) => core.module.interpolatePositions(inputs, 2, 1, v, out), 'newLength', { outBytes: maxLength * 4 });
  });

  it('RoPE: headDim, rotaryDim and base, in ropeInvFreq and applyRope', () => {
    const { maxDModel, maxBase } = core.limits;
    const bases = [1, 1 + 1e-9, maxBase, maxBase * (1 + 1e-9)];
    agree('ropeInvFreq base', bases, (v) => ropeInvFreq(core, { headDim: 8, base: v }), (v, out) => core.module.ropeInvFreq(8, v, { type: 'default' }, out), 'base');
    agree('ropeInvFreq headDim', [0, 1, 2, 3, maxDModel, maxDModel + 2], (v) => ropeInvFreq(core, { headDim: v }), (v, out) => core.module.ropeInvFreq(v, 10000, { type: 'default' }, out), 'rotaryDim',
      { packageName: 'headDim', outBytes: maxDModel * 4 });
    // x [1, headDim], rotated at position 0: the probe's output holds 16 floats, enough for the heads tried here.
    const rotate = (o, out, inputs) => core.module.applyRope(o.headDim, o.rotaryDim ?? o.headDim, o.base ?? 10000, 'half', { type: 'default' }, inputs, 1, inputs, 1, out);
    const x = (headDim) => ({ data: new Float32Array(headDim), shape: [1, headDim] });
    agree('applyRope base', bases, (v) => ropeParams(core, x(8), { base: v }), (v, out, inputs) => rotate({ headDim: 8, base: v }, out, inputs), 'base');
    agree('applyRope rotaryDim', [0, 1, 2, 3, 8, 9, 10], (v) => ropeParams(core, x(8), { rotaryDim: v }), (v, out, inputs) => rotate({ headDim: 8, rotaryDim: v }, out, inputs), 'rotaryDim');
  });

  it('tokenEmbedding: vocabSize, dModel; pca: components', () => {
    const { maxVocabSize, maxDModel } = core.limits;
    const options = (o) => readOptions('tokenEmbedding', { init: {}, ...o });
    // One id looked up: the probe's output holds the one row the core writes for a shape it accepts.
    const lookup = (vocabSize, dModel, out, inputs) => {
      core.view(Int32Array, inputs, 1)[0] = 0;  // id 0: its row is the probe's own memory, whatever the table's size
      return core.module.tokenEmbeddingLookup(inputs, 'F32', vocabSize, dModel, -1, 1, inputs, 1, out);
    };
    agree('tokenEmbedding vocabSize', [0, 1, maxVocabSize, maxVocabSize + 1], (v) => options({ vocabSize: v, dModel: 4 }), (v, out, inputs) => lookup(v, 4, out, inputs), 'vocabSize');
    agree('tokenEmbedding dModel', [0, 1, maxDModel, maxDModel + 1], (v) => options({ vocabSize: 4, dModel: v }), (v, out, inputs) => lookup(4, v, out, inputs), 'dModel',
      { outBytes: (maxDModel + 1) * 4 });
    const x = { data: new Float32Array(12).map((_, i) => Math.sin(i)), shape: [4, 3] };  // components at most min(4, 3)
    agree('pca components', [0, 1, 3, 4], (v) => pca(core, x, { components: v }), (v, out, inputs) => core.module.pca(inputs, 'F32', 4, 3, v, out, 'x'), 'components');
  });

  it('RoPE scaling rules: factor, originalMaxPositions, the llama3 and YaRN pairs, LongRoPE\'s lists', () => {
    const frequencies = (scaling, out) => core.module.ropeInvFreq(8, 10000, scaling, out);
    const rules = {
      linear: { type: 'linear', factor: 2 },
      dynamic: { type: 'dynamic', factor: 2, originalMaxPositions: 16, sequenceLength: 32 },
      llama3: { type: 'llama3', factor: 8, originalMaxPositions: 16, lowFreqFactor: 1, highFreqFactor: 4 },
      yarn: { type: 'yarn', factor: 8, originalMaxPositions: 16, betaFast: 32, betaSlow: 1 },
      longrope: { type: 'longrope', factor: 8, originalMaxPositions: 16, shortFactor: [1, 1, 1, 1], longFactor: [2, 2, 2, 2] },
    };
    for (const [type, scaling] of Object.entries(rules)) {
      agree(`${type} factor`, [0.5, 1, 1e6, 1e6 * (1 + 1e-9)], (v) => ropeScaling({ ...scaling, factor: v }), (v, out) => frequencies({ ...scaling, factor: v }, out), 'scaling.factor');
      if (scaling.originalMaxPositions) {
        agree(`${type} originalMaxPositions`, [0, 1, MAX_INT32, MAX_INT32 + 1],
          (v) => ropeScaling({ ...scaling, originalMaxPositions: v }), (v, out) => frequencies({ ...scaling, originalMaxPositions: v }, out), 'scaling.originalMaxPositions');
      }
    }
    agree('llama3 highFreqFactor (against lowFreqFactor 1)', [0.5, 1, 4, 1e6, 2e6],
      (v) => ropeScaling({ ...rules.llama3, highFreqFactor: v }), (v, out) => frequencies({ ...rules.llama3, highFreqFactor: v }, out), 'scaling.');
    agree('yarn betaSlow (equal to betaFast and past it are HF\'s too)', [0, 1, 31.9, 32, 33, 1e6, 2e6],
      (v) => ropeScaling({ ...rules.yarn, betaSlow: v }), (v, out) => frequencies({ ...rules.yarn, betaSlow: v }, out), 'scaling.betaSlow');
    agree('longrope shortFactor[0]', [0.5, 1, 1e6, 2e6],
      (v) => ropeScaling({ ...rules.longrope, shortFactor: [v, 1, 1, 1] }), (v, out) => frequencies({ ...rules.longrope, shortFactor: [v, 1, 1, 1] }, out), 'scaling.shortFactor');
    // Every parameter of every rule, at the bounds of the core's table (core_tables.js), one step inside and past each.
    const given = { ...rules, default: { type: 'default' }, proportional: { type: 'proportional' } };
    let tried = 0;
    for (const [type, { parameters }] of Object.entries(CORE_ROPE_RULES.rules)) {
      for (const key of parameters) {
        const { type: kind, min, max } = CORE_ROPE_RULES.parameters[key];
        if (kind === 'boolean' || (type === 'proportional' && key === 'rotatedPairs')) continue;  // rotatedPairs: at most rotaryDim / 2, below
        const step = kind === 'integer' ? 1 : Math.max(1e-9 * max, 1e-6);
        const values = [min - step, min, min + step, max - step, max, max + step];
        const scaling = (v) => ({ ...given[type], [key]: kind === 'list' ? [v, 1, 1, 1] : v });
        agree(`${type} ${key}`, values, (v) => ropeScaling(scaling(v), undefined, 4), (v, out) => frequencies(scaling(v), out), `scaling.${key}`);
        tried++;
      }
    }
    assert.ok(tried >= 20, `${tried} parameters tried`);
    agree('proportional rotatedPairs (at most rotaryDim / 2 = 4)', [-1, 0, 4, 5],
      (v) => ropeScaling({ type: 'proportional', rotatedPairs: v }, undefined, 4), (v, out) => frequencies({ type: 'proportional', rotatedPairs: v }, out), 'scaling.rotatedPairs');
    agree('longrope longFactor length', [3, 4, 5],
      (n) => ropeScaling({ ...rules.longrope, longFactor: Array(n).fill(2) }, undefined, 4), (n, out) => frequencies({ ...rules.longrope, longFactor: Array(n).fill(2) }, out), 'scaling.longFactor');
  });
});
