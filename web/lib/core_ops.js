// The ops stated whole in the C++ core (core_ops.hpp): one runner serves them all. The package checks only what the
// core cannot see (a value that is not a number, an unknown option, out); the core checks every range and names the
// value in the package's words: each check is made in one place.
import { CORE_OPS } from './core_tables.js';
import { describe, options } from './validate.js';

export const CORE_OP_NAMES = Object.keys(CORE_OPS);

// The op's values in the core's order (booleans as 0 and 1; a default where one is left out), and out.
function coreOpValues(op, args) {
  const positional = CORE_OPS[op].options.filter((option) => option.positional);
  const named = CORE_OPS[op].options.filter((option) => !option.positional);
  const given = options(`${op} options`, args[positional.length], [...named.map((option) => option.name), 'out']);
  const values = CORE_OPS[op].options.map((option) => {
    const value = (option.positional ? args[positional.indexOf(option)] : given[option.name]) ?? option.default;
    if (option.type === 'boolean') {
      if (typeof value !== 'boolean') throw new TypeError(`${option.name} must be true or false, got ${describe(value)}`);
      return Number(value);
    }
    if (typeof value !== 'number') throw new TypeError(`${option.name} must be a number, got ${describe(value)}`);
    return value;
  });
  return { values, out: given.out };
}

// The result's shape and the size of the op's input table, after the core's checks (the binding returns
// { shape, inputElements } or the error).
export function coreOpShape(core, op, args) {
  const { values, out } = coreOpValues(op, args);
  const result = core.module.coreOpShape(op, values);
  if (!result.shape) core.check(result);
  return { values, out, shape: result.shape, inputElements: result.inputElements };
}

// The table every row of the op reads (core_ops.hpp's CoreOp::input), computed by the core; null for an op that
// reads none.
export function coreOpInput(core, op, { values, inputElements }) {
  if (inputElements === 0) return null;
  return core.produce({ elements: inputElements, what: `${op}'s input table` }, (pointer) => core.module.coreOpInput(op, values, pointer, inputElements));
}

// args: the op's positional values, then its options, as the method was called.
export function runCoreOp(core, op, args) {
  const p = coreOpShape(core, op, args);
  const { values, shape, inputElements } = p;
  // An out on the heap is viewed again after the input's allocation, which may grow the heap and detach it.
  const outAfter = core.keep(p.out, 'out');
  const input = coreOpInput(core, op, p);
  const out = outAfter();
  const rowElements = shape.at(-1);
  const rows = shape.slice(0, -1).reduce((a, b) => a * b, 1);
  const type = CORE_OPS[op].result === 'int32' ? Int32Array : Float32Array;
  const data = core.produceRows({ rows, rowElements, what: `${op}'s result`, out, type, inputs: input ? [{ data: input, what: `${op}'s input table` }] : [] },
    (pointer, firstRow, rowCount, inputPointer = 0) => core.module.coreOpRows(op, values, inputPointer, inputElements, firstRow, pointer, rowCount * rowElements));
  return { data, shape };
}

// Gives a class a method per op, named as the op (a name the class has already is an error, not a silent
// replacement). run(instance, op, args) does the work; it is written in the class's static block, where the
// instance's private fields are in reach.
export function installCoreOpMethods(Class, ops, run) {
  for (const op of ops) {
    if (op in Class.prototype) throw new Error(`posembed: the core's op ${op} has the name of a method of ${Class.name}`);
    Object.defineProperty(Class.prototype, op, { value: { [op](...args) { return run(this, op, args); } }[op], writable: true, configurable: true });
  }
}
