// The ops' TypeScript declarations, made at build time from the option registry (op_schemas.js as built in dist/, its
// bounds the C++ core's): each op's options interface, every option with its type, whether it may be left out, and a
// line of documentation with its range and default; the names of the core's limits; PosembedOps, each op's method
// with its positional arguments, in order, and its result; and PosembedGpuOps, the webgpu backend's form of the ops
// it runs on the GPU. index.d.ts holds them where its marker line is.

export const GENERATED_MARKER = '// @posembed-generated: op declarations';

const optionsInterface = (op, schema) => schema.types ?? `${op[0].toUpperCase()}${op.slice(1)}Options`;

// Whether an option (or argument) may be left out: it has a default, is optional, or is given in place of another.
export const mayBeLeftOut = (spec) => spec.default !== undefined || spec.optional === true || spec.unless !== undefined;

function typeOf(spec) {
  if (spec.ts) return spec.ts;
  if (spec.type === 'enum') return spec.values.map((v) => `'${v}'`).join(' | ');
  if (spec.type === 'integer' || spec.type === 'number') return 'number';
  if (spec.type === 'boolean') return 'boolean';
  throw new Error(`op-types: an option of type ${spec.type} needs its TypeScript type (ts)`);
}

function rangeText(spec) {
  if (spec.type !== 'integer' && spec.type !== 'number') return '';
  const kind = spec.type === 'number' ? 'a number' : spec.even ? 'an even integer' : 'an integer';
  return `${kind} in ${spec.exclusiveMin ? '(' : '['}${spec.min}, ${spec.max}]`;
}

const defaultText = (spec) => (spec.default === undefined || spec.type === 'data' ? '' : `default ${typeof spec.default === 'string' ? `'${spec.default}'` : spec.default}`);

function docLine(spec, indent) {
  const sentence = [spec.doc, rangeText(spec), defaultText(spec)].filter(Boolean).join('; ');
  return sentence ? `${indent}/** ${sentence}. */` : null;
}

const PARAMETER_TYPES = { number: 'number', integer: 'number', boolean: 'boolean', list: 'number[]' };

// RoPE's scaling object, one member per rule of the core's table (rope_rules), each parameter with its type, whether
// the rule needs it, and in its documentation what it does, its range, default and HF spelling.
function ropeScalingDeclaration({ parameters, rules }) {
  const lines = ['/** A RoPE scaling rule and its parameters, as the C++ core\'s table of rules states them. */', 'export type RopeScaling ='];
  for (const [type, { parameters: read, required }] of Object.entries(rules)) {
    const fields = read.map((name) => {
      const spec = parameters[name];
      // A list's range is each value's.
      const range = spec.type === 'list' ? `each ${rangeText({ ...spec, type: 'number' })}` : rangeText(spec);
      const optional = !required.includes(name);
      const doc = [spec.doc, range, spec.note, optional && !spec.note && defaultText(spec), spec.hfKey && `HF's ${spec.hfKey}`].filter(Boolean).join('; ');
      return [`      /** ${doc}. */`, `      ${name}${optional ? '?' : ''}: ${PARAMETER_TYPES[spec.type]};`];
    });
    lines.push(fields.length ? `  | {\n      type: '${type}';\n${fields.flat().join('\n')}\n    }` : `  | { type: '${type}' }`);
  }
  lines[lines.length - 1] += ';';
  return lines;
}

// `schemas`: OP_SCHEMAS with its bounds resolved (resolvedSchemas); `limits`: CORE_LIMITS; `ropeRules`: CORE_ROPE_RULES.
export function opDeclarations(schemas, limits, ropeRules) {
  const lines = [
    '// Made from the option registry (op_schemas.js) and the C++ core\'s limits and RoPE rules by scripts/op-types.mjs.',
    '',
    '/** The C++ core\'s limits (limits::kLimits), which the options\' ranges name. */',
    `export type CoreLimitName = ${Object.keys(limits).map((name) => `'${name}'`).join(' | ')};`,
    '',
    ...ropeScalingDeclaration(ropeRules),
  ];
  for (const [op, schema] of Object.entries(schemas)) {
    lines.push('', `/** The options of ${op}(). */`, `export interface ${optionsInterface(op, schema)} {`);
    for (const [name, spec] of Object.entries(schema.options)) {
      const doc = docLine(spec, '  ');
      if (doc) lines.push(doc);
      lines.push(`  ${name}${mayBeLeftOut(spec) ? '?' : ''}: ${typeOf(spec)};`);
    }
    lines.push('}');
  }
  lines.push('', '/** The ops, each with its positional arguments and its options. */', 'export interface PosembedOps {');
  for (const [op, schema] of Object.entries(schemas)) {
    const parameters = Object.entries(schema.arguments ?? {}).map(([name, spec]) => `${name}${mayBeLeftOut(spec) ? '?' : ''}: ${typeOf(spec)}`);
    const optionsOptional = Object.values(schema.options).every(mayBeLeftOut);
    parameters.push(`options${optionsOptional ? '?' : ''}: ${optionsInterface(op, schema)}`);
    lines.push(`  /** ${schema.doc}. */`, `  ${op}(${parameters.join(', ')}): ${schema.returns};`);
  }
  lines.push('}');
  // The webgpu backend's ops: its arguments that may be GpuTensors take Input (a tensor or a GpuTensor).
  const onGpu = Object.entries(schemas).filter(([, schema]) => schema.webgpu);
  lines.push('', '/** The ops the webgpu backend runs on the GPU. */', `export type GpuOpName = ${onGpu.map(([op]) => `'${op}'`).join(' | ')};`,
    '/** Those ops on the webgpu backend: results stay on the GPU until read(); no `out`. */', 'export interface PosembedGpuOps {');
  for (const [op, schema] of onGpu) {
    const parameters = Object.entries(schema.arguments ?? {}).map(([name, spec]) => {
      const type = schema.webgpu.gpuInputs?.includes(name) ? typeOf(spec).replace('Tensor<Float32Array>', 'Input') : typeOf(spec);
      return `${name}${mayBeLeftOut(spec) ? '?' : ''}: ${type}`;
    });
    const optionsType = 'out' in schema.options ? `Omit<${optionsInterface(op, schema)}, 'out'>` : optionsInterface(op, schema);
    parameters.push(`options${Object.values(schema.options).every(mayBeLeftOut) ? '?' : ''}: ${optionsType}`);
    lines.push(`  ${op}(${parameters.join(', ')}): ${schema.webgpu.returns};`);
  }
  lines.push('}');
  return lines.join('\n');
}

// index.d.ts with the declarations where its marker is.
export function withOpDeclarations(declarations, text) {
  if (!text.includes(GENERATED_MARKER)) throw new Error(`op-types: index.d.ts has no line ${GENERATED_MARKER}`);
  return text.replace(GENERATED_MARKER, declarations);
}
