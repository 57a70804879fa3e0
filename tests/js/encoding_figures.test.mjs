// The heatmap's (and the render command's) RoPE figure takes every parameter of the drawn scaling rules from the core's
// table: the length the model was trained at is the figure's own unless original-max-positions says otherwise, and the
// figure is the package's applyRope of a query of ones with that scaling.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/index.js';
import { encodingFigure } from '../../dist/components.js';
import { DRAWN_SCALING_PARAMETERS, DRAWN_SCALING_RULES } from '../../dist/encoding_figures.js';
import { CORE_ROPE_RULES } from '../../dist/core_tables.js';
import { kebabCase } from '../../dist/op_schemas.js';
import { ELEMENT_SCHEMAS, inAttributeWords } from '../../dist/element_schemas.js';

const LENGTH = 48;
const HEAD_DIM = 16;

describe('the RoPE heatmap\'s scaling', () => {
  let pe;
  before(async () => { pe = await load(); });

  const ropeOfOnes = (scaling) => pe.applyRope({ data: new Float32Array(LENGTH * HEAD_DIM).fill(1), shape: [LENGTH, HEAD_DIM] }, { scaling }).data;

  it('is the package\'s applyRope with the rule\'s parameters, the figure\'s length as the trained one unless given', async () => {
    const trainedHere = await encodingFigure(pe, 'rope', { length: LENGTH, dModel: HEAD_DIM, scaling: 'dynamic', factor: 4 });
    assert.deepEqual(Array.from(trainedHere.tensor.data), Array.from(ropeOfOnes({ type: 'dynamic', factor: 4, originalMaxPositions: LENGTH })));
    assert.deepEqual(Array.from(trainedHere.tensor.data), Array.from(ropeOfOnes(undefined)), 'dynamic within its trained length turns as unscaled');
    assert.match(trainedHere.caption, new RegExp(`dynamic scaling ×4, trained at ${LENGTH} positions`));
    const trainedShorter = await encodingFigure(pe, 'rope', { length: LENGTH, dModel: HEAD_DIM, scaling: 'dynamic', factor: 4, originalMaxPositions: 12 });
    assert.deepEqual(Array.from(trainedShorter.tensor.data), Array.from(ropeOfOnes({ type: 'dynamic', factor: 4, originalMaxPositions: 12 })));
    assert.notDeepEqual(Array.from(trainedShorter.tensor.data), Array.from(ropeOfOnes(undefined)), 'past its trained length dynamic turns the pairs slower');
    assert.match(trainedShorter.caption, /trained at 12 positions/);
    const yarn = await encodingFigure(pe, 'rope', { length: LENGTH, dModel: HEAD_DIM, scaling: 'yarn', factor: 8, originalMaxPositions: 16, betaFast: 8, betaSlow: 2, truncate: false });
    assert.deepEqual(Array.from(yarn.tensor.data), Array.from(ropeOfOnes({ type: 'yarn', factor: 8, originalMaxPositions: 16, betaFast: 8, betaSlow: 2, truncate: false })));
    const linear = await encodingFigure(pe, 'rope', { length: LENGTH, dModel: HEAD_DIM, scaling: 'linear', factor: 3 });
    assert.deepEqual(Array.from(linear.tensor.data), Array.from(ropeOfOnes({ type: 'linear', factor: 3 })));
    assert.doesNotMatch(linear.caption, /trained at/, 'linear reads no trained length');
  });

  it('has an attribute for every parameter the drawn rules read (the per-pair lists aside), with the core\'s range', () => {
    const heatmap = ELEMENT_SCHEMAS['posembed-heatmap'].attributes;
    assert.deepEqual(heatmap.scaling.values, DRAWN_SCALING_RULES);
    for (const rule of DRAWN_SCALING_RULES) {
      for (const name of CORE_ROPE_RULES.rules[rule].parameters) {
        if (CORE_ROPE_RULES.parameters[name].type === 'list') continue;
        assert.ok(DRAWN_SCALING_PARAMETERS.includes(name), `${rule} reads ${name}`);
        const attribute = heatmap[kebabCase(name)];
        assert.ok(attribute, `an attribute for ${name}`);
        if (attribute.type !== 'boolean') assert.deepEqual([attribute.min, attribute.max], [CORE_ROPE_RULES.parameters[name].min, CORE_ROPE_RULES.parameters[name].max], name);
      }
    }
  });

  it('a joint check\'s message, shown by the element, names the attributes the author wrote', async () => {
    const joint = await encodingFigure(pe, 'rope', { length: LENGTH, dModel: HEAD_DIM, scaling: 'llama3', factor: 8, lowFreqFactor: 3, highFreqFactor: 2 }).catch((error) => error);
    assert.match(joint.message, /^scaling\.lowFreqFactor must be at most scaling\.highFreqFactor = 2, got 3$/);
    assert.equal(inAttributeWords('posembed-heatmap', joint.message), 'low-freq-factor must be at most high-freq-factor = 2, got 3');
    assert.equal(inAttributeWords('posembed-rope', 'scaling.factor must be a number in [1, 1000000], got 0.5'), 'factor must be a number in [1, 1000000], got 0.5');
    assert.equal(inAttributeWords('posembed-heatmap', 'dModel must be even; scaling.type must be one of …'), 'd-model must be even; scaling must be one of …');
    // Words that are no option stay as they are.
    assert.equal(inAttributeWords('posembed-heatmap', 'the model was trained at 4096 positions'), 'the model was trained at 4096 positions');
  });
});
