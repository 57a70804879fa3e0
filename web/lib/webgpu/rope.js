// RoPE on the GPU. The cos/sin of every (position, pair), times the attention factor, come from the host
// (wasm, exact angle reduction); the shader only rotates, in float32.
import { elementwise, uniforms } from './runtime.js';
import { GpuTensor } from './tensor.js';

const CODE = elementwise(/* wgsl */ `
struct Params { count: u32, head_dim: u32, half: u32, seq: u32, interleaved: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;      // [rows, seq, headDim], this slice of it
@group(0) @binding(2) var<storage, read> table: array<f32>;  // [seq, 2 * half]: sines, then cosines
@group(0) @binding(3) var<storage, read_write> out: array<f32>;`, /* wgsl */ `
  let column = i % params.head_dim;
  if (column >= 2u * params.half) { out[local] = x[local]; return; }
  let row = local - column;  // x is bound from the slice's first element, like out
  let position = (i / params.head_dim) % params.seq;
  var pair: u32;
  var partner: u32;
  var sign: f32;
  if (params.interleaved == 1u) {
    pair = column / 2u;
    partner = column ^ 1u;
    sign = select(1.0, -1.0, (column & 1u) == 0u);
  } else {
    pair = column % params.half;
    partner = select(column + params.half, column - params.half, column >= params.half);
    sign = select(-1.0, 1.0, column >= params.half);
  }
  let sine = table[position * 2u * params.half + pair];
  let cosine = table[position * 2u * params.half + params.half + pair];
  out[local] = x[row + column] * cosine + sign * x[row + partner] * sine;`);

// x: a GPU buffer [rows, seq, headDim]; table: [seq, rotaryDim] as the host computed it.
export function applyRopeGpu(runtime, { x, shape, headDim, rotaryDim, layout, table, seq }) {
  const elements = shape.reduce((a, b) => a * b, 1);
  const out = runtime.buffer(elements * 4, 'the rotated x', { chunked: true });
  const tableBuffer = runtime.upload(table, 'the cos/sin table');
  const done = runtime.dispatch('rope', CODE, {
    uniforms: uniforms([['u32', elements], ['u32', headDim], ['u32', rotaryDim / 2], ['u32', seq], ['u32', layout === 'interleaved' ? 1 : 0]]),
    buffers: [x, tableBuffer, out],
    chunked: { count: elements, sliced: [0, 2], align: headDim },  // x is sliced with the output, rows whole
  });
  runtime.release(tableBuffer);
  return new GpuTensor(runtime, out, [...shape], Float32Array, done);
}
