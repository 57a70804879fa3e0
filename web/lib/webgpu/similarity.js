// Similarity on the GPU: a · bᵀ tiled 16 x 16 through workgroup memory; cosine divides by row norms
// computed in a first pass.
import { FLAT_INDEX, GpuTensor, uniforms } from './runtime.js';

const TILE = 16;

const NORMS = /* wgsl */ `
struct Params { rows: u32, depth: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> norms: array<f32>;
${FLAT_INDEX}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let r = flat_index(id, groups);
  if (r >= params.rows) { return; }
  var sum = 0.0;
  for (var k = 0u; k < params.depth; k++) { let v = x[r * params.depth + k]; sum += v * v; }
  norms[r] = sqrt(sum);
}`;

const PRODUCT = /* wgsl */ `
struct Params { n: u32, m: u32, depth: u32, cosine: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read> a_norms: array<f32>;
@group(0) @binding(4) var<storage, read> b_norms: array<f32>;
@group(0) @binding(5) var<storage, read_write> out: array<f32>;
var<workgroup> a_tile: array<array<f32, ${TILE}>, ${TILE}>;
var<workgroup> b_tile: array<array<f32, ${TILE}>, ${TILE}>;
@compute @workgroup_size(${TILE}, ${TILE})
fn main(@builtin(workgroup_id) group: vec3u, @builtin(local_invocation_id) local: vec3u) {
  let i = group.y * ${TILE}u + local.y;  // row of a
  let j = group.x * ${TILE}u + local.x;  // row of b
  let b_row = group.x * ${TILE}u + local.y;
  var sum = 0.0;
  for (var k0 = 0u; k0 < params.depth; k0 += ${TILE}u) {
    let k = k0 + local.x;
    a_tile[local.y][local.x] = select(0.0, a[min(i, params.n - 1u) * params.depth + min(k, params.depth - 1u)], i < params.n && k < params.depth);
    b_tile[local.y][local.x] = select(0.0, b[min(b_row, params.m - 1u) * params.depth + min(k, params.depth - 1u)], b_row < params.m && k < params.depth);
    workgroupBarrier();
    for (var t = 0u; t < ${TILE}u; t++) { sum += a_tile[local.y][t] * b_tile[local.x][t]; }
    workgroupBarrier();
  }
  if (i >= params.n || j >= params.m) { return; }
  if (params.cosine == 1u) {
    let norms = a_norms[i] * b_norms[j];
    sum = select(0.0, sum / norms, norms > 0.0);
  }
  out[i * params.m + j] = sum;
}`;

function norms(runtime, x, rows, depth) {
  const out = runtime.buffer(rows * 4, 'the row norms');
  const done = runtime.dispatch('norms', NORMS, { uniforms: uniforms([['u32', rows], ['u32', depth]]), buffers: [x, out], invocations: rows });
  return { out, done };
}

// a, b: GPU buffers [n, depth] and [m, depth].
export function similarityGpu(runtime, { a, n, b, m, depth, metric }) {
  const limit = runtime.device.limits.maxComputeWorkgroupsPerDimension;
  if (Math.ceil(n / TILE) > limit || Math.ceil(m / TILE) > limit) {
    throw new RangeError(`similarity of ${n} x ${m} rows exceeds this GPU's maxComputeWorkgroupsPerDimension of ${limit} tiles of ${TILE}`);
  }
  const out = runtime.buffer(n * m * 4, 'the similarity matrix');
  const cosine = metric === 'cosine';
  const passes = cosine ? [norms(runtime, a, n, depth), norms(runtime, b, m, depth)] : [];
  const placeholder = cosine ? null : runtime.buffer(4, 'no norms');
  const product = runtime.dispatch('similarity', PRODUCT, {
    uniforms: uniforms([['u32', n], ['u32', m], ['u32', depth], ['u32', cosine ? 1 : 0]]),
    buffers: [a, b, passes[0]?.out ?? placeholder, passes[1]?.out ?? placeholder, out],
    workgroups: [Math.ceil(m / TILE), Math.ceil(n / TILE)],
  });
  for (const pass of passes) runtime.release(pass.out);
  if (placeholder) runtime.release(placeholder);
  const done = Promise.all([...passes.map((p) => p.done), product]).then((errors) => errors.find(Boolean) ?? null);
  return new GpuTensor(runtime, out, [n, m], Float32Array, done);
}
