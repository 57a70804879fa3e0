// Similarity on the GPU: a · bᵀ tiled 16 x 16 through workgroup memory; cosine multiplies unit rows, each
// value divided by its row's norm as it is loaded.
import { FLAT_INDEX, uniforms } from './runtime.js';
import { GpuTensor } from './tensor.js';

const TILE = 16;

// Every row's norm as (largest |value|, norm of the row divided by it): in f32 a plain sum of squares
// overflows past values of 1e19 and flushes to zero below 1e-19, where these two numbers do neither.
const NORMS = /* wgsl */ `
struct Params { rows: u32, depth: u32, first: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;                  // rows first .. first + rows of x
@group(0) @binding(2) var<storage, read_write> norms: array<vec2<f32>>;  // every row's
${FLAT_INDEX}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let r = flat_index(id, groups);
  if (r >= params.rows) { return; }
  var largest = 0.0;
  for (var k = 0u; k < params.depth; k++) { largest = max(largest, abs(x[r * params.depth + k])); }
  var sum = 0.0;
  if (largest > 0.0) {
    for (var k = 0u; k < params.depth; k++) { let v = x[r * params.depth + k] / largest; sum += v * v; }
  }
  norms[params.first + r] = vec2(largest, sqrt(sum));
}`;

// One block of the product: rows a_first .. a_first + n of a against rows b_first .. b_first + m of b, into
// out's rows a_first .. (bound from there), columns b_first .., out having `columns` columns in all.
const PRODUCT = /* wgsl */ `
struct Params { n: u32, m: u32, depth: u32, cosine: u32, a_first: u32, b_first: u32, columns: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read> a_norms: array<vec2<f32>>;
@group(0) @binding(4) var<storage, read> b_norms: array<vec2<f32>>;
@group(0) @binding(5) var<storage, read_write> out: array<f32>;
var<workgroup> a_tile: array<array<f32, ${TILE}>, ${TILE}>;
var<workgroup> b_tile: array<array<f32, ${TILE}>, ${TILE}>;
@compute @workgroup_size(${TILE}, ${TILE})
fn main(@builtin(workgroup_id) group: vec3u, @builtin(local_invocation_id) local: vec3u) {
  let i = group.y * ${TILE}u + local.y;  // row of a (in this block)
  let j = group.x * ${TILE}u + local.x;  // row of b (in this block)
  let b_row = group.x * ${TILE}u + local.y;
  let a_norm = select(vec2(1.0), a_norms[params.a_first + min(i, params.n - 1u)], params.cosine == 1u);
  let b_norm = select(vec2(1.0), b_norms[params.b_first + min(b_row, params.m - 1u)], params.cosine == 1u);
  var sum = 0.0;
  for (var k0 = 0u; k0 < params.depth; k0 += ${TILE}u) {
    let k = k0 + local.x;
    let a_value = a[min(i, params.n - 1u) * params.depth + min(k, params.depth - 1u)] / a_norm.x / a_norm.y;
    let b_value = b[min(b_row, params.m - 1u) * params.depth + min(k, params.depth - 1u)] / b_norm.x / b_norm.y;
    a_tile[local.y][local.x] = select(0.0, a_value, i < params.n && k < params.depth && a_norm.x > 0.0);
    b_tile[local.y][local.x] = select(0.0, b_value, b_row < params.m && k < params.depth && b_norm.x > 0.0);
    workgroupBarrier();
    for (var t = 0u; t < ${TILE}u; t++) { sum += a_tile[local.y][t] * b_tile[local.x][t]; }
    workgroupBarrier();
  }
  if (i >= params.n || j >= params.m) { return; }
  out[i * params.columns + params.b_first + j] = sum;
}`;

// rows [first, first + rows) of a buffer of rows `width` elements wide, as a binding.
function rowsOf(buffer, width, { first, rows }) {
  return { buffer, offset: first * width * 4, size: rows * width * 4 };
}

function norms(runtime, x, rows, depth) {
  const out = runtime.buffer(rows * 8, 'the row norms');
  const done = runtime.rowParts(rows, [depth], runtime.maxInvocations).map((part) => runtime.dispatch('norms', NORMS, {
    uniforms: uniforms([['u32', part.rows], ['u32', depth], ['u32', part.first]]), buffers: [rowsOf(x, depth, part), out], invocations: part.rows,
  }));
  return { out, done };
}

// a, b: GPU buffers [n, depth] and [m, depth], each as large as maxBufferSize allows. The product runs in
// blocks of rows of a (with the rows of out they make) and of b that fit one binding and one dispatch.
export function similarityGpu(runtime, { a, n, b, m, depth, metric }) {
  const most = runtime.limit('maxComputeWorkgroupsPerDimension') * TILE;
  const aParts = runtime.rowParts(n, [depth, m], most);  // before anything is made: these may refuse the sizes
  const bParts = runtime.rowParts(m, [depth], most);
  const out = runtime.buffer(n * m * 4, 'the similarity matrix', { chunked: true });
  const cosine = metric === 'cosine';
  const passes = cosine ? [norms(runtime, a, n, depth), norms(runtime, b, m, depth)] : [];
  const placeholder = cosine ? null : runtime.buffer(8, 'no norms');
  const products = [];
  for (const aPart of aParts) {
    for (const bPart of bParts) {
      products.push(runtime.dispatch('similarity', PRODUCT, {
        uniforms: uniforms([['u32', aPart.rows], ['u32', bPart.rows], ['u32', depth], ['u32', cosine ? 1 : 0], ['u32', aPart.first], ['u32', bPart.first], ['u32', m]]),
        buffers: [rowsOf(a, depth, aPart), rowsOf(b, depth, bPart), passes[0]?.out ?? placeholder, passes[1]?.out ?? placeholder, rowsOf(out, m, aPart)],
        workgroups: [Math.ceil(bPart.rows / TILE), Math.ceil(aPart.rows / TILE)],
      }));
    }
  }
  for (const pass of passes) runtime.release(pass.out);
  if (placeholder) runtime.release(placeholder);
  const done = Promise.all([...passes.flatMap((p) => p.done), ...products]).then((errors) => errors.find(Boolean) ?? null);
  return new GpuTensor(runtime, out, [n, m], Float32Array, done);
}
