// The ops stated whole in the core's table (core_ops.hpp), through the package's one runner: a method each, every
// option's range checked once (by the core, in the package's words), defaults, out, and the errors the core cannot
// see (a value that is not a number, an unknown option).
import { it, before } from 'node:test';
import assert from 'node:assert/strict';
import { CORE_OPS } from '../../dist/core_tables.js';
import { coreOpShape } from '../../dist/core_ops.js';
import { OP_SCHEMAS } from '../../dist/op_schemas.js';
import { loadWasmCore } from '../../dist/wasm.js';
import { describeEachModule } from './helpers.mjs';

// The settings the other options take while one is tried: each at its lowest value (false for a boolean), at its
// default (its lowest where it has none), or at its highest. Where an op joins options (t5Buckets' numBuckets is at
// least 4 when bidirectional), a value in an option's range is reached from at least one of them.
const SETTINGS = {
  lowest: (option) => (option.type === 'boolean' ? false : option.min),
  default: (option) => option.default ?? (option.type === 'boolean' ? false : option.min),
  highest: (option) => (option.type === 'boolean' ? true : option.max),
};

// The arguments of a call of the op with every option set as `setting` says but `name`, set to `value`.
function argumentsWith(op, name, value, setting = 'lowest') {
  const { options } = CORE_OPS[op];
  const valueOf = (option) => (option.name === name ? value : SETTINGS[setting](option));
  const positional = options.filter((option) => option.positional).map(valueOf);
  const named = Object.fromEntries(options.filter((option) => !option.positional).map((option) => [option.name, valueOf(option)]));
  return [...positional, named];
}

const call = (pe, op, name, value) => pe[op](...argumentsWith(op, name, value));

// The first of `settings` under which run(args) does not throw: its result, or the last error.
function underSomeSetting(op, name, value, settings, run) {
  let error;
  for (const setting of settings) {
    try {
      return run(argumentsWith(op, name, value, setting));
    } catch (refused) {
      error = refused;
    }
  }
  throw error;
}
const resultType = (op) => (CORE_OPS[op].result === 'int32' ? Int32Array : Float32Array);

it('the registry takes each op of the core\'s table as it is: its options, ranges, defaults and docs', () => {
  assert.ok(Object.keys(CORE_OPS).includes('alibiSlopes'));
  for (const [op, { doc, options }] of Object.entries(CORE_OPS)) {
    const schema = OP_SCHEMAS[op];
    assert.equal(schema.doc, doc, op);
    for (const option of options) {
      const spec = (option.positional ? schema.arguments : schema.options)[option.name];
      assert.deepEqual({ type: spec.type, min: spec.min, max: spec.max, default: spec.default, doc: spec.doc },
        { type: option.type, min: option.min, max: option.max, default: option.default, doc: option.doc }, `${op}.${option.name}`);
    }
    assert.equal(schema.options.out.type, 'data', `${op} takes an out`);
  }
});

it('every option of every op of the table is accepted at its largest value (the shape alone: such results may be large)', async () => {
  const core = await loadWasmCore({ simd: true, threads: 1 });
  for (const [op, { options }] of Object.entries(CORE_OPS)) {
    for (const option of options.filter((o) => o.type !== 'boolean')) {
      const { shape } = underSomeSetting(op, option.name, option.max, Object.keys(SETTINGS), (args) => coreOpShape(core, op, args));
      assert.ok(shape.length >= 1, `${op}.${option.name} = ${option.max}`);
    }
  }
});

describeEachModule('the core\'s table of ops', (instance) => {
  let pe;
  before(() => { pe = instance(); });

  for (const [op, { options }] of Object.entries(CORE_OPS)) {
    it(`${op}: every option at its bounds, the values past them named in the package's words`, () => {
      for (const option of options) {
        if (option.type === 'boolean') {
          for (const value of [false, true]) {
            assert.ok(underSomeSetting(op, option.name, value, ['lowest', 'default'], (args) => pe[op](...args)).data instanceof resultType(op));
          }
          assert.throws(() => call(pe, op, option.name, 1), { name: 'TypeError', message: `${option.name} must be true or false, got 1` });
          continue;
        }
        const kind = option.type === 'integer' ? 'an integer' : 'a number';
        const step = option.type === 'integer' ? 1 : Math.max(Math.abs(option.min), Math.abs(option.max), 1) * 1e-9;
        for (const value of [option.min - step, option.max + step, NaN]) {
          assert.throws(() => call(pe, op, option.name, value),
            { name: 'RangeError', message: `${option.name} must be ${kind} in [${option.min}, ${option.max}], got ${value}` }, `${op}.${option.name} = ${value}`);
        }
        assert.throws(() => call(pe, op, option.name, String(option.min)),
          { name: 'TypeError', message: `${option.name} must be a number, got '${option.min}'` });
        assert.ok(underSomeSetting(op, option.name, option.min, ['lowest', 'default'], (args) => pe[op](...args)).data instanceof resultType(op));
      }
      assert.throws(() => pe[op](...options.filter((option) => option.positional).map((option) => option.min), { nonsense: 1 }),
        { name: 'TypeError', message: new RegExp(`^${op} options: unknown option 'nonsense'`) });
    });
  }

  it('alibiSlopes: its shape, the defaults of the paper\'s rule, and out', () => {
    const { data, shape } = pe.alibiSlopes(8);
    assert.deepEqual(shape, [8]);
    assert.deepEqual(Array.from(data), Array.from({ length: 8 }, (_, k) => 2 ** -(k + 1)));
    const out = new Float32Array(8);
    assert.equal(pe.alibiSlopes(8, { out }).data, out);
    assert.deepEqual(out, data);
    assert.throws(() => pe.alibiSlopes(8, { out: new Float32Array(7) }), { name: 'RangeError', message: /^out must hold exactly 8 / });
    assert.throws(() => pe.alibiSlopes(), { name: 'TypeError', message: 'numHeads must be a number, got undefined' });
  });
});
