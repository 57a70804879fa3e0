// The GPU form of the core's ops that have a WGSL kernel (webgpu/kernels/<op>.wgsl, written into core_tables.js's
// GPU_KERNELS when the package is built). A kernel defines fn element(row: u32, column: u32) -> f32 (-> i32 for an
// op with an int32 result), the value at
// that row and column of the result, reading the op's options as options.<name> (f32, so integers exact up to 2^24;
// booleans 0 or 1) and, for an op with an input table, that table as input[] (computed by the core: coreOpInput). The options' names are fields of a WGSL struct: an op with a kernel names none of them as WGSL
// reserves (layout, type, target, …); the runner's own fields are snake_case, which no option's camelCase name is.
import { CORE_OPS, GPU_KERNELS } from '../core_tables.js';
import { elementwise, uniforms } from './runtime.js';
import { GpuTensor } from './tensor.js';

const programs = new Map();

function program(op, hasInput) {
  if (!programs.has(op)) {
    const fields = CORE_OPS[op].options.map((option) => `${option.name}: f32`).join(', ');
    const input = hasInput ? '@group(0) @binding(1) var<storage, read> input: array<f32>;\n' : '';
    programs.set(op, elementwise(/* wgsl */ `
struct Options { element_count: u32, row_elements: u32, ${fields} }
@group(0) @binding(0) var<uniform> options: Options;
${input}@group(0) @binding(${hasInput ? 2 : 1}) var<storage, read_write> out: array<${CORE_OPS[op].result === 'int32' ? 'i32' : 'f32'}>;
${GPU_KERNELS[op]}`, /* wgsl */ `
  out[local] = element(i / options.row_elements, i % options.row_elements);`));
  }
  return programs.get(op);
}

// values: the op's options in the core's order, checked by the core (coreOpShape), the result's shape, and the
// op's input table (coreOpInput; null when it reads none).
export function coreOpGpu(runtime, op, { values, shape }, input) {
  const count = shape.reduce((a, b) => a * b, 1);
  const out = runtime.buffer(count * 4, `${op}'s result`, { chunked: true });
  const inputBuffer = input && runtime.upload(input, `${op}'s input table`);
  const done = runtime.dispatch(`core:${op}`, program(op, Boolean(input)), {
    uniforms: uniforms([['u32', count], ['u32', shape.at(-1)], ...values.map((value) => ['f32', value])]),
    buffers: inputBuffer ? [inputBuffer, out] : [out],
    chunked: { count, sliced: [inputBuffer ? 1 : 0] },
  });
  if (inputBuffer) runtime.release(inputBuffer);
  return new GpuTensor(runtime, out, shape, CORE_OPS[op].result === 'int32' ? Int32Array : Float32Array, done);
}
