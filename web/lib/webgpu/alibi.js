// ALiBi bias on the GPU: -slope * |distance|, exact integers times the host's slopes; -Infinity where masked.
import { elementwise, uniforms } from './runtime.js';
import { GpuTensor } from './tensor.js';

const CODE = elementwise(/* wgsl */ `
struct Params { count: u32, query_length: u32, key_length: u32, causal: u32, masked: f32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> slopes: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;`, /* wgsl */ `
  let key = i % params.key_length;
  let query = (i / params.key_length) % params.query_length + (params.key_length - params.query_length);
  let head = i / (params.key_length * params.query_length);
  if (params.causal == 1u && key > query) { out[local] = params.masked; return; }
  out[local] = -slopes[head] * abs(f32(query) - f32(key));`);

export function alibiBiasGpu(runtime, { numHeads, queryLength, keyLength, causal }, slopes) {
  const elements = numHeads * queryLength * keyLength;
  const out = runtime.buffer(elements * 4, 'the ALiBi bias', { chunked: true });
  const slopeBuffer = runtime.upload(slopes, 'the slopes');
  const done = runtime.dispatch('alibi', CODE, {
    // -Infinity as a uniform: WGSL has no literal for it and rejects it as a constant expression.
    uniforms: uniforms([['u32', elements], ['u32', queryLength], ['u32', keyLength], ['u32', causal ? 1 : 0], ['f32', -Infinity]]),
    buffers: [slopeBuffer, out],
    chunked: { count: elements, sliced: [1] },
  });
  runtime.release(slopeBuffer);
  return new GpuTensor(runtime, out, [numHeads, queryLength, keyLength], Float32Array, done);
}
