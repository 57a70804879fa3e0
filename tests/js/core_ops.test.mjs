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

// The arguments of a call of the op with every option at its lowest value but `name`, set to `value`.
function argumentsWith(op, name, value) {
  const { options } = CORE_OPS[op];
  const valueOf = (option) => (option.name === name ? value : option.type === 'boolean' ? false : option.min);
  const positional = options.filter((option) => option.positional).map(valueOf);
  const named = Object.fromEntries(options.filter((option) => !option.positional).map((option) => [option.name, valueOf(option)]));
  return [...positional, named];
}

const call = (pe, op, name, value) => pe[op](...argumentsWith(op, name, value));

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
      assert.ok(coreOpShape(core, op, argumentsWith(op, option.name, option.max)).shape.length >= 1, `${op}.${option.name} = ${option.max}`);
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
          for (const value of [false, true]) assert.ok(call(pe, op, option.name, value).data instanceof Float32Array);
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
        assert.ok(call(pe, op, option.name, option.min).data instanceof Float32Array);
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
