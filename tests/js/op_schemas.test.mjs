// One schema per op (web/lib/op_schemas.js): the package checks options through it, the elements take their
// attributes from it, index.d.ts's op declarations are made from it (type-checked here), the facades are checked
// against it, and its bounds are the C++ core's.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempFolder } from '../temp_folders.mjs';
import { mayBeLeftOut } from '../../scripts/op-types.mjs';
import { load, Posembed } from '../../dist/index.js';
import { OP_SCHEMAS, attributeName, readOptions, resolvedOption, resolvedSchemas } from '../../dist/op_schemas.js';
import { ELEMENT_SCHEMAS, readValues } from '../../dist/element_schemas.js';
import { HOST_OPS, PosembedGpu } from '../../dist/webgpu/backend.js';

// Where an element's default differs from its op's on purpose.
const ELEMENT_DEFAULTS = { 'posembed-heatmap metric': 'cosines, drawn on [-1, 1] whatever d-model' };

const REPO = fileURLToPath(new URL('../..', import.meta.url));

// The package's types that the registry's data options name (RopeSpec, EmbeddingInitOptions, …), and Posembed.
const PACKAGE_TYPES = new Set(['Posembed', 'Tensor']);
for (const schema of Object.values(OP_SCHEMAS)) {
  for (const spec of [...Object.values(schema.options), ...Object.values(schema.arguments ?? {})]) {
    for (const [name] of (spec.ts ?? '').matchAll(/\b[A-Z]\w+/g)) if (!(name in globalThis)) PACKAGE_TYPES.add(name);
  }
}

// Type-checks `source` (a TypeScript module importing the built package as `pe`'s types) under tsc --strict: the
// lines tsc reports errors on.
function typeErrors(name, source) {
  const dir = tempFolder(`types-${name}`);
  writeFileSync(join(dir, 'program.ts'), `import type { ${[...PACKAGE_TYPES].join(', ')} } from '${join(REPO, 'dist/index.js')}';\ndeclare const pe: Posembed;\ndeclare const tensor: Tensor<Float32Array>;\n${source}\n`);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'] }, files: ['program.ts'] }));
  const run = spawnSync(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
  return { lines: [...run.stdout.matchAll(/program\.ts\((\d+),\d+\): error/g)].map((m) => Number(m[1]) - 3), output: run.stdout + run.stderr };
}

// A value of an option's type, as TypeScript source: its least value, its first choice, true, or (data) a value
// declared of its declared type.
function valueOf(spec) {
  if (spec.type === 'integer' || spec.type === 'number') return String(spec.min + (spec.exclusiveMin ? 1 : 0));
  if (spec.type === 'enum') return `'${spec.values[0]}'`;
  if (spec.type === 'boolean') return 'true';
  return `(undefined as unknown as ${spec.ts})`;
}

// A call of `op` with its positional arguments and `options` (name → TypeScript source) as one line.
const call = (op, schema, options) => `pe.${op}(${[...Object.values(schema.arguments ?? {}).map(valueOf), `{ ${Object.entries(options).map(([k, v]) => `${k}: ${v}`).join(', ')} }`].join(', ')});`;

describe('one schema per op', () => {
  let pe;
  before(async () => { pe = await load(); });

  it('index.d.ts (its op declarations made from the registry at build time) takes every op with every option at a value in its range, its arguments in order (tsc --strict)', () => {
    const lines = Object.entries(resolvedSchemas()).map(([op, schema]) => call(op, schema, Object.fromEntries(Object.entries(schema.options).map(([name, spec]) => [name, valueOf(spec)]))));
    const { lines: errors, output } = typeErrors('good', lines.join('\n'));
    assert.deepEqual(errors, [], output);
    assert.equal(lines.length, Object.keys(OP_SCHEMAS).length);
  });

  it('index.d.ts refuses, each on its own line, a choice an option does not have, a required option left out, an unknown option and a wrong type (tsc --strict)', () => {
    const lines = [];
    for (const [op, schema] of Object.entries(resolvedSchemas())) {
      const required = Object.fromEntries(Object.entries(schema.options).filter(([, spec]) => !mayBeLeftOut(spec)).map(([name, spec]) => [name, valueOf(spec)]));
      for (const [name, spec] of Object.entries(schema.options)) {
        if (spec.type === 'enum') lines.push(call(op, schema, { ...required, [name]: "'not-a-choice'" }));
        if (spec.type === 'integer' || spec.type === 'number' || spec.type === 'boolean') lines.push(call(op, schema, { ...required, [name]: spec.type === 'boolean' ? '1' : "'1'" }));
        if (!mayBeLeftOut(spec)) lines.push(call(op, schema, Object.fromEntries(Object.entries(required).filter(([key]) => key !== name))));
      }
      lines.push(call(op, schema, { ...required, notAnOption: '1' }));
    }
    const { lines: errors, output } = typeErrors('wrong', lines.join('\n'));
    assert.deepEqual([...new Set(errors)], lines.map((_, i) => i + 1), output);
    assert.ok(lines.length >= 100, `${lines.length} wrong calls`);
  });

  it('the README\'s table of every op\'s options is what scripts/option-table.mjs makes of the registry', async () => {
    const { optionTable } = await import('../../scripts/option-table.mjs');
    const { readmeSection } = await import('../../scripts/readme-sections.mjs');
    assert.equal(readmeSection('options'), optionTable(), 'run node scripts/option-table.mjs --write');
    for (const [op, schema] of Object.entries(OP_SCHEMAS)) for (const name of Object.keys(schema.options)) assert.ok(optionTable().includes(`| \`${name}\` |`), `${op}.${name}`);
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
  it('the facades offer every op the schemas describe: the webgpu backend its own form of each op the registry gives one, the wasm instance\'s of the rest', () => {
    for (const op of Object.keys(OP_SCHEMAS)) assert.equal(typeof Posembed.prototype[op], 'function', `Posembed lacks ${op}`);
    for (const [op, schema] of Object.entries(OP_SCHEMAS)) {
      assert.equal(Object.hasOwn(PosembedGpu.prototype, op), Boolean(schema.webgpu), `PosembedGpu's own ${op}`);
      assert.equal(HOST_OPS.includes(op), !schema.webgpu, `${op} from the wasm instance`);
    }
  });

  it('the elements\' attributes taken from an op keep its spelling, choices and default, within its range', () => {
    let taken = 0;
    for (const [tag, { attributes }] of Object.entries(ELEMENT_SCHEMAS)) {
      for (const [attribute, spec] of Object.entries(attributes)) {
        if (!spec.option) continue;
        taken++;
        const [op, name] = spec.option.split('.');
        const option = resolvedOption(op, name);
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
          const option = resolvedOption(op, name);
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
