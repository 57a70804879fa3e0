// Token lookup and the fused token * scale + position layer on the GPU: row gathers, exact in float32.
import { elementwise, tableBindings, tableRows, uniforms } from './runtime.js';
import { GpuTensor } from './tensor.js';

const LOOKUP = elementwise(/* wgsl */ `
struct Params { count: u32, d_model: u32, padding: i32, scale: f32, seq: u32, with_positions: u32, rows_per_part: u32 }
@group(0) @binding(0) var<uniform> params: Params;
// the table [vocabSize, dModel], in parts of whole rows at bindings 1 to 4
${tableRows(1)}
@group(0) @binding(5) var<storage, read> ids: array<i32>;        // checked on the host
@group(0) @binding(6) var<storage, read> positions: array<f32>;  // [maxLength, dModel], or one unused value
@group(0) @binding(7) var<storage, read_write> out: array<f32>;`, /* wgsl */ `
  let j = i / params.d_model;
  let column = i % params.d_model;
  let token = ids[j];
  var value = 0.0;
  if (token != params.padding) { value = table_value(u32(token), column) * params.scale; }
  if (params.with_positions == 1u) { value += positions[(j % params.seq) * params.d_model + column]; }
  out[local] = value;`);

// ids: checked by tokenIds (the kernel trusts them: WGSL out-of-bounds reads may return anything);
// table: [vocabSize, dModel] as runtime.uploadRows holds it; positions: a GPU buffer [maxLength, dModel] or
// null, of which the first seq rows are bound.
export function gatherRowsGpu(runtime, { table, vocabSize, dModel, paddingIdx, scale, positions = null, seq = 1 }, ids, shape) {
  if (positions && seq * dModel * 4 > runtime.maxBindingBytes) {
    throw new RangeError(`the position rows of a sequence of ${seq} need ${seq * dModel * 4} bytes, more than this GPU's maxStorageBufferBindingSize of ${runtime.maxBindingBytes} bytes`);
  }
  const elements = ids.length * dModel;
  const out = runtime.buffer(elements * 4, 'the looked-up rows', { chunked: true });
  const idsBuffer = runtime.upload(ids, 'the ids');
  const placeholder = positions ? null : runtime.buffer(4, 'no positions');
  const done = runtime.dispatch('gather-rows', LOOKUP, {
    uniforms: uniforms([['u32', elements], ['u32', dModel], ['i32', paddingIdx ?? -1], ['f32', scale], ['u32', seq], ['u32', positions ? 1 : 0], ['u32', table.rowsPerPart]]),
    buffers: [...tableBindings(table), idsBuffer, positions ? { buffer: positions, offset: 0, size: seq * dModel * 4 } : placeholder, out],
    chunked: { count: elements, sliced: [6] },
  });
  runtime.release(idsBuffer);
  if (placeholder) runtime.release(placeholder);
  return new GpuTensor(runtime, out, [...shape, dModel], Float32Array, done);
}
