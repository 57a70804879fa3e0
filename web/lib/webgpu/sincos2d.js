// 2-D sin-cos positions on the GPU, assembled from the host's exact 1-D table (split layout, dModel / 2).
import { elementwise, uniforms } from './runtime.js';
import { GpuTensor } from './tensor.js';

const CODE = elementwise(/* wgsl */ `
struct Params { count: u32, d_model: u32, grid_w: u32, first_patch: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> table: array<f32>;  // [max(gridH, gridW), dModel / 2]
@group(0) @binding(2) var<storage, read_write> out: array<f32>;`, /* wgsl */ `
  let row = i / params.d_model;
  let channel = i % params.d_model;
  if (row < params.first_patch) { out[local] = 0.0; return; }
  let cell = row - params.first_patch;
  let half = params.d_model / 2u;
  let coordinate = select(cell % params.grid_w, cell / params.grid_w, channel >= half);
  out[local] = table[coordinate * half + channel % half];`);

export function sincos2dGpu(runtime, { gridH, gridW, dModel, clsToken }, table) {
  const rows = (clsToken ? 1 : 0) + gridH * gridW;
  const out = runtime.buffer(rows * dModel * 4, 'the 2-D position table', { chunked: true });
  const tableBuffer = runtime.upload(table, 'the 1-D table');
  const done = runtime.dispatch('sincos2d', CODE, {
    uniforms: uniforms([['u32', rows * dModel], ['u32', dModel], ['u32', gridW], ['u32', clsToken ? 1 : 0]]),
    buffers: [tableBuffer, out],
    chunked: { count: rows * dModel, sliced: [1] },
  });
  runtime.release(tableBuffer);
  return new GpuTensor(runtime, out, [rows, dModel], Float32Array, done);
}
