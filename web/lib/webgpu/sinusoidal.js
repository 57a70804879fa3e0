// Sinusoidal encoding on the GPU. WGSL's sin/cos are only bounded to 2^-11 on [-pi, pi], so the shader
// evaluates no trigonometry: the host (wasm, double-precision angle reduction) supplies exact rows at every
// 64th position (anchors) and the rotations by k*w for k < 64, and each value is one rotation of an anchor:
//   sin(a + kw) = sin a cos kw + cos a sin kw,   cos(a + kw) = cos a cos kw - sin a sin kw.
// Error: a few float32 roundings, below 1e-6 at any position.
import { elementwise, uniforms } from './runtime.js';
import { GpuTensor } from './tensor.js';

export const ROWS_PER_ANCHOR = 64;

const CODE = elementwise(/* wgsl */ `
struct Params { count: u32, d_model: u32, half: u32, split: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> anchors: array<f32>;    // [blocks, d_model]
@group(0) @binding(2) var<storage, read> rotations: array<f32>;  // [64, d_model]
@group(0) @binding(3) var<storage, read_write> out: array<f32>;`, /* wgsl */ `
  let row = i / params.d_model;
  let column = i % params.d_model;
  var sine_column: u32;
  var cosine_column: u32;
  var is_cosine: bool;
  if (params.split == 1u) {
    let pair = column % params.half;
    sine_column = pair;
    cosine_column = params.half + pair;
    is_cosine = column >= params.half;
  } else {
    sine_column = column & ~1u;
    cosine_column = sine_column + 1u;
    is_cosine = (column & 1u) == 1u;
  }
  let anchor = (row / ${ROWS_PER_ANCHOR}u) * params.d_model;
  let rotation = (row % ${ROWS_PER_ANCHOR}u) * params.d_model;
  let sa = anchors[anchor + sine_column];
  let ca = anchors[anchor + cosine_column];
  let sk = rotations[rotation + sine_column];
  let ck = rotations[rotation + cosine_column];
  out[local] = select(sa * ck + ca * sk, ca * ck - sa * sk, is_cosine);`);

// p: checked sinusoidal options (see ../sinusoidal.js); wasm: the host's posembed for anchors and rotations.
export function sinusoidalGpu(runtime, wasm, p) {
  const { length, dModel, base, layout, timescale, offset } = p;
  const elements = length * dModel;
  const out = runtime.buffer(elements * 4, 'the sinusoidal table', { chunked: true });
  const blocks = Math.ceil(length / ROWS_PER_ANCHOR);
  const anchors = wasm.sinusoidal({ positions: Int32Array.from({ length: blocks }, (_, b) => offset + b * ROWS_PER_ANCHOR), dModel, base, layout, timescale });
  // Each rotation from its own reduced angle (positions, not a consecutive table, whose rows between every
  // 8th are stepped from the row before): one rounding each.
  const rotations = wasm.sinusoidal({ positions: Int32Array.from({ length: Math.min(ROWS_PER_ANCHOR, length) }, (_, k) => k), dModel, base, layout, timescale });
  const anchorBuffer = runtime.upload(anchors.data, 'the anchors');
  const rotationBuffer = runtime.upload(rotations.data, 'the rotations');
  const done = runtime.dispatch('sinusoidal', CODE, {
    uniforms: uniforms([['u32', elements], ['u32', dModel], ['u32', dModel / 2], ['u32', layout === 'split' ? 1 : 0]]),
    buffers: [anchorBuffer, rotationBuffer, out],
    chunked: { count: elements, sliced: [2] },
  });
  runtime.release(anchorBuffer);
  runtime.release(rotationBuffer);
  return new GpuTensor(runtime, out, [length, dModel], Float32Array, done);
}
