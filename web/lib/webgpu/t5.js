// T5's bias on the GPU: the host computes the bucket of each of the q + k - 1 relative positions (integer-exact,
// as HF); the shader gathers the bias table by them.
import { elementwise, uniforms } from './runtime.js';
import { GpuTensor } from './tensor.js';

const CODE = elementwise(/* wgsl */ `
struct Params { count: u32, query_length: u32, key_length: u32, num_heads: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> by_relative: array<i32>;  // bucket of (key - query) + queryLength - 1
@group(0) @binding(2) var<storage, read> table: array<f32>;        // [numBuckets, numHeads]
@group(0) @binding(3) var<storage, read_write> out: array<f32>;`, /* wgsl */ `
  let key = i % params.key_length;
  let query = (i / params.key_length) % params.query_length;
  let bucket = by_relative[key + params.query_length - 1u - query];
  let head = i / (params.key_length * params.query_length);
  out[local] = table[u32(bucket) * params.num_heads + head];`);

// relativeBuckets: Int32Array of q + k - 1 buckets; table: a GPU buffer [numBuckets, numHeads].
export function t5BiasGpu(runtime, { queryLength, keyLength, numHeads, table }, relativeBuckets) {
  const elements = numHeads * queryLength * keyLength;
  const out = runtime.buffer(elements * 4, 'the T5 bias', { chunked: true });
  const bucketBuffer = runtime.upload(relativeBuckets, 'the buckets');
  const done = runtime.dispatch('t5', CODE, {
    uniforms: uniforms([['u32', elements], ['u32', queryLength], ['u32', keyLength], ['u32', numHeads]]),
    buffers: [bucketBuffer, table, out],
    chunked: { count: elements, sliced: [2] },
  });
  runtime.release(bucketBuffer);
  return new GpuTensor(runtime, out, [numHeads, queryLength, keyLength], Float32Array, done);
}
