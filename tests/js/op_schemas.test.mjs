// One schema per op (web/lib/op_schemas.js): the package checks options through it, the elements take their
// attributes from it, and index.d.ts and the facades are checked against it here.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { load, Posembed } from '../../dist/index.js';
import { OP_SCHEMAS, attributeName, readOptions, resolvedOption } from '../../dist/op_schemas.js';
import { ELEMENT_SCHEMAS, readValues } from '../../dist/components/attributes.js';

// Where an element's default differs from its op's on purpose.
const ELEMENT_DEFAULTS = { 'posembed-heatmap metric': 'cosines, drawn on [-1, 1] whatever d-model' };

const TYPES = readFileSync(new URL('../../dist/index.d.ts', import.meta.url), 'utf8');

// The members of an exported interface of index.d.ts and of the interfaces it extends: name → { optional, type }.
function interfaceMembers(name) {
  const match = TYPES.match(new RegExp(`export interface ${name}(?: extends (\\w+))? \\{([\\s\\S]*?)\\n\\}`));
  assert.ok(match, `index.d.ts declares no interface ${name}`);
  const members = match[1] ? interfaceMembers(match[1]) : {};
  for (const [, member, optional, type] of match[2].matchAll(/^ {2}(\w+)(\??): ([^;]+);/gm)) members[member] = { optional: optional === '?', type: aliased(type) };
  return members;
}

// A type named by an exported alias of index.d.ts, spelled out.
function aliased(type) {
  return TYPES.match(new RegExp(`export type ${type} = ([^;]+);`))?.[1] ?? type;
}

// The positional parameters of a method of the Posembed class in index.d.ts, in order (the last, options, left out).
function parameters(method) {
  const body = TYPES.slice(TYPES.indexOf('export interface Posembed {'));
  const match = body.match(new RegExp(`^ {2}${method}\\(([^)]*)\\)`, 'm'));
  assert.ok(match, `index.d.ts declares no Posembed.${method}`);
  return [...match[1].matchAll(/(\w+)\??: /g)].map(([, name]) => name).filter((name) => name !== 'options');
}

describe('one schema per op', () => {
  let pe;
  before(async () => { pe = await load(); });

  it('index.d.ts declares each op\'s options as its schema states them: the same names, required where the schema has no default, the same choices', () => {
    for (const [op, { options, types }] of Object.entries(OP_SCHEMAS)) {
      const declared = interfaceMembers(types ?? `${op[0].toUpperCase()}${op.slice(1)}Options`);
      assert.deepEqual(Object.keys(declared).sort(), Object.keys(options).sort(), op);
      for (const [name, spec] of Object.entries(options)) {
        const optional = spec.default !== undefined || spec.optional === true || spec.unless !== undefined;
        assert.equal(declared[name].optional, optional, `${op}.${name} optional`);
        if (spec.type === 'enum') assert.deepEqual(declared[name].type.split(' | ').map((v) => v.slice(1, -1)), spec.values, `${op}.${name} choices`);
        if (spec.type === 'boolean') assert.equal(declared[name].type, 'boolean', `${op}.${name}`);
        if (spec.type === 'integer' || spec.type === 'number') assert.match(declared[name].type, /^number( \| null)?$/, `${op}.${name}`);
      }
    }
  });

  it('index.d.ts takes each op\'s positional arguments as its schema names them, in order', () => {
    for (const [op, schema] of Object.entries(OP_SCHEMAS)) assert.deepEqual(parameters(op), Object.keys(schema.arguments ?? {}), op);
  });

  it('reads positional arguments in their range, in the op\'s words', () => {
    assert.throws(() => pe.alibiSlopes(4097), { name: 'RangeError', message: 'numHeads must be an integer in [1, 4096], got 4097' });
    assert.throws(() => pe.interpolatePositions({ data: new Float32Array(4), shape: [2, 2] }, 0), { name: 'RangeError', message: 'newLength must be an integer in [1, 16777216], got 0' });
    assert.throws(() => pe.applyRope({ data: new Float32Array(8), shape: [2, 4] }, { precision: 'float16' }),
      { name: 'TypeError', message: 'applyRope: precision is that of a spec\'s cache; give spec too, or leave precision out' });
    assert.throws(() => pe.ropeCache(pe.modelPositions('Llama-3.1-8B').rope, { positions: [0, 1], precision: 'float8' }),
      { name: 'RangeError', message: 'precision must be one of \'exact\', \'float32\', \'bfloat16\', \'float16\', got \'float8\'' });
  });

  // (The webgpu facade offers every op of this one: tests/js/webgpu.test.mjs.)
  it('the facade offers every op the schemas describe', () => {
    for (const op of Object.keys(OP_SCHEMAS)) assert.equal(typeof Posembed.prototype[op], 'function', `Posembed lacks ${op}`);
  });

  it('the elements\' attributes taken from an op keep its spelling, choices and default, within its range', () => {
    let taken = 0;
    for (const [tag, { attributes }] of Object.entries(ELEMENT_SCHEMAS)) {
      for (const [attribute, spec] of Object.entries(attributes)) {
        if (!spec.option) continue;
        taken++;
        const [op, name] = spec.option.split('.');
        const option = resolvedOption(op, name, pe.limits);
        assert.equal(attribute, attributeName(op, name), `${tag} ${attribute}`);
        if (option.type === 'boolean') assert.equal(spec.type, option.default === false ? 'flag' : 'boolean', `${tag} ${attribute}`);
        else assert.equal(spec.type, option.type, `${tag} ${attribute}`);
        if (option.values) assert.deepEqual(spec.values, option.values, `${tag} ${attribute}`);
        if (option.default !== undefined && spec.type !== 'flag' && !ELEMENT_DEFAULTS[`${tag} ${attribute}`]) assert.equal(spec.default, option.default, `${tag} ${attribute} default`);
        if (option.min !== undefined) {
          assert.ok(spec.min >= option.min && spec.max <= option.max, `${tag} ${attribute}: [${spec.min}, ${spec.max}] is outside ${op}.${name}'s [${option.min}, ${option.max}]`);
          if (option.exclusiveMin && spec.min === option.min) assert.equal(spec.exclusiveMin, true, `${tag} ${attribute}: ${op}.${name} leaves out ${option.min}`);
          if (option.even) assert.equal(spec.even, true, `${tag} ${attribute} even`);
        }
      }
    }
    assert.ok(taken >= 17, `${taken} attributes taken from ops`);
  });

  it('an attribute several encodings read lies within the range of every option it feeds (sincos2d\'s multiple of 4 checked by the element)', () => {
    let fed = 0;
    for (const [tag, { attributes }] of Object.entries(ELEMENT_SCHEMAS)) {
      for (const [attribute, spec] of Object.entries(attributes)) {
        for (const feed of spec.feeds ?? []) {
          fed++;
          const [op, name] = feed.split('.');
          const option = resolvedOption(op, name, pe.limits);
          assert.ok(spec.min >= option.min && spec.max <= option.max, `${tag} ${attribute}: [${spec.min}, ${spec.max}] is outside ${feed}'s [${option.min}, ${option.max}]`);
          if (option.exclusiveMin && spec.min === option.min) assert.equal(spec.exclusiveMin, true, `${tag} ${attribute}: ${feed} leaves out ${option.min}`);
          if (option.even) assert.equal(spec.even, true, `${tag} ${attribute}: ${feed} is even`);
        }
      }
    }
    assert.ok(fed >= 9, `${fed} options fed`);
  });

  it('an attribute that means one thing for one encoding and another for the next is checked for the encoding drawn', () => {
    const problems = (given) => readValues('posembed-heatmap', (name) => given[name] ?? null).problems;
    assert.deepEqual(problems({ encoding: 'rope', layout: 'split' }), ['layout must be one of "half", "interleaved" for rope, got "split"']);
    assert.deepEqual(problems({ encoding: 'sinusoidal', layout: 'half' }), ['layout must be one of "interleaved", "split" for sinusoidal, got "half"']);
    assert.deepEqual(problems({ encoding: 'sincos2d', 'd-model': '6' }), ['d-model must be a multiple of 4 for sincos2d, got "6"']);
    assert.deepEqual(problems({ encoding: 'rope', layout: 'interleaved', 'd-model': '6' }), []);
  });

  it('reads options: defaults filled in, every value checked in the op\'s words, unknown names refused', () => {
    assert.deepEqual(readOptions('trainer', { task: 'copy' }), {
      task: 'copy', positional: 'sinusoidal', dModel: 64, layers: 1, heads: 4, maxLength: 16, minItems: 2, maxItems: undefined, batchSize: 32,
      learningRate: 3e-3, weightDecay: 0.01, scale: 'sqrt', seed: 0,
    });
    assert.deepEqual(pe.trainer({ positional: 'rope' }).config, { ...readOptions('trainer', { positional: 'rope' }), maxItems: 5 });
    assert.throws(() => pe.trainer({ learningRate: 0 }), { name: 'RangeError', message: 'learningRate must be a number in (0, 1], got 0' });
    assert.throws(() => pe.trainer({ heads: 17 }), { name: 'RangeError', message: 'heads must be an integer in [1, 16], got 17' });
    assert.throws(() => pe.sincos2d({ gridH: 2, gridW: 2, dModel: 8, clsToken: 1 }), { name: 'TypeError', message: 'clsToken must be true or false, got 1' });
    assert.throws(() => pe.alibiBias({ numHeads: 2, keyLength: 4, causual: true }),
      { name: 'TypeError', message: "alibiBias options: unknown option 'causual'; known options are numHeads, queryLength, keyLength, causal, slopes, out" });
  });
});
