// T5 on the GPU: the host computes the bucket of each of the q + k - 1 relative positions (integer-exact,
// as HF); the shader spreads them over the matrix, or gathers the bias table by them.
import { elementwise, uniforms } from './runtime.js';
import { GpuTensor } from './tensor.js';

const CODE = elementwise(/* wgsl */ `
struct Params { count: u32, query_length: u32, key_length: u32, num_heads: u32, gather: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> by_relative: array<i32>;  // bucket of (key - query) + queryLength - 1
@group(0) @binding(2) var<storage, read> table: array<f32>;        // [numBuckets, numHeads] when gathering
@group(0) @binding(3) var<storage, read_write> out: array<u32>;   // i32 buckets or f32 bias bits`, /* wgsl */ `
  let key = i % params.key_length;
  let query = (i / params.key_length) % params.query_length;
  let bucket = by_relative[key + params.query_length - 1u - query];
  if (params.gather == 0u) { out[local] = bitcast<u32>(bucket); return; }
  let head = i / (params.key_length * params.query_length);
  out[local] = bitcast<u32>(table[u32(bucket) * params.num_heads + head]);`);

// relativeBuckets: Int32Array of q + k - 1 buckets; table: a GPU buffer [numBuckets, numHeads] or null.
export function t5Gpu(runtime, { queryLength, keyLength, numHeads = 1, table = null }, relativeBuckets) {
  const elements = numHeads * queryLength * keyLength;
  const out = runtime.buffer(elements * 4, table ? 'the T5 bias' : 'the bucket matrix', { chunked: true });
  const bucketBuffer = runtime.upload(relativeBuckets, 'the buckets');
  const placeholder = table ? null : runtime.buffer(4, 'no table');
  const done = runtime.dispatch('t5', CODE, {
    uniforms: uniforms([['u32', elements], ['u32', queryLength], ['u32', keyLength], ['u32', numHeads], ['u32', table ? 1 : 0]]),
    buffers: [bucketBuffer, table ?? placeholder, out],
    chunked: { count: elements, sliced: [2] },
  });
  runtime.release(bucketBuffer);
  if (placeholder) runtime.release(placeholder);
  const shape = table ? [numHeads, queryLength, keyLength] : [queryLength, keyLength];
  return new GpuTensor(runtime, out, shape, table ? Float32Array : Int32Array, done);
}
