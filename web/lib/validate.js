// Checks at the package boundary. Every message names the parameter, what is allowed and what was given:
//   RangeError: dModel must be an even integer in [2, 65536], got 7
// TypeError for a wrong type, RangeError for a value of the right type outside what is allowed.

export function describe(value) {
  if (typeof value === 'string') return `'${value}'`;
  if (typeof value === 'bigint') return `${value}n`;
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name} of length ${value.length}`;
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'function') return 'a function';
  return String(value);
}

export function integer(name, value, min, max, { even = false } = {}) {
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${describe(value)}`);
  if (!Number.isInteger(value) || value < min || value > max || (even && value % 2 !== 0)) {
    throw new RangeError(`${name} must be ${even ? 'an even integer' : 'an integer'} in [${min}, ${max}], got ${describe(value)}`);
  }
  return value;
}

// A number in [min, max], or (min, max] where min itself is not allowed.
export function number(name, value, min, max, { exclusiveMin = false } = {}) {
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${describe(value)}`);
  if (!((exclusiveMin ? value > min : value >= min) && value <= max)) {
    throw new RangeError(`${name} must be a number in ${exclusiveMin ? '(' : '['}${min}, ${max}], got ${describe(value)}`);
  }
  return value;
}

export function oneOf(name, value, choices) {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string, got ${describe(value)}`);
  if (!choices.includes(value)) {
    throw new RangeError(`${name} must be one of ${choices.map((c) => `'${c}'`).join(', ')}, got ${describe(value)}`);
  }
  return value;
}

// An options object: undefined reads as {}; unknown keys are typos the caller wants to hear about.
export function options(name, value, known) {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError(`${name} must be an options object, got ${describe(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new TypeError(`${name}: unknown option '${key}'; known options are ${known.join(', ')}`);
  }
  return value;
}

// The length of a caller's typed array, for a message; where it is 0 because its memory is gone, it says so:
// a view of the wasm heap taken before the heap grew (a pe.allocate() array's .data, read too early) or of
// a transferred buffer.
export function lengthOf(array) {
  if (array.length > 0 || !isDetached(array.buffer)) return String(array.length);
  return "0: its buffer is detached, as a view of the wasm heap is once the heap grows (read the pe.allocate() array's .data again after each call)";
}

function isDetached(buffer) {
  try {
    buffer.slice(0, 0);
    return false;
  } catch {
    return true;
  }
}

// A caller's output buffer: a typed array of exactly the result's size (a new one when not given).
export function outBuffer(value, elements, type = Float32Array) {
  if (!(value instanceof type)) throw new TypeError(`out must be a ${type.name}, got ${describe(value)}`);
  if (value.length !== elements) throw new RangeError(`out must hold exactly ${elements} elements, got ${lengthOf(value)}`);
  return value;
}

export function boolean(name, value) {
  if (typeof value !== 'boolean') throw new TypeError(`${name} must be true or false, got ${describe(value)}`);
  return value;
}
