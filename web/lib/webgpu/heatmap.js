// A heatmap of a GpuTensor drawn by a render pipeline: the fragment shader reads the tensor's storage buffer
// and applies the colormap, so the values never leave the GPU. One canvas pixel per cell, like the canvas 2D
// picture of colormap.js (heatmapPixels), whose colours and rounding it repeats.
import { MASKED, colormap } from '../colormap.js';
import { integer } from '../validate.js';
import { popErrorScopes, uniforms } from './runtime.js';

const CODE = /* wgsl */ `
struct Params { rows: u32, columns: u32, first: u32, steps: u32, low: f32, span: f32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> values: array<f32>;   // [..., rows, columns]; this matrix from first on
@group(0) @binding(2) var<storage, read> colours: array<u32>;  // steps colours, rgba8 packed

@vertex fn vertex(@builtin(vertex_index) corner: u32) -> @builtin(position) vec4f {
  let xy = vec2f(f32((corner << 1u) & 2u), f32(corner & 2u)) * 2.0 - 1.0;  // one triangle over the viewport
  return vec4f(xy, 0.0, 1.0);
}

@fragment fn fragment(@builtin(position) pixel: vec4f) -> @location(0) vec4f {
  let row = min(u32(pixel.y), params.rows - 1u);
  let column = min(u32(pixel.x), params.columns - 1u);
  let value = values[params.first + row * params.columns + column];
  // Non-finite (masked attention) is the masked grey; tested on the bits, since WGSL may assume values are finite.
  if ((bitcast<u32>(value) & 0x7f800000u) == 0x7f800000u) { return vec4f(${MASKED.rgb.map((c) => `${c}.0 / 255.0`).join(', ')}, 1.0); }
  let step = clamp(floor((value - params.low) / params.span * f32(params.steps - 1u) + 0.5), 0.0, f32(params.steps - 1u));
  return vec4f(unpack4x8unorm(colours[u32(step)]).rgb, 1.0);
}`;

// Packs a colormap's rgb table as one rgba8 word per colour (little-endian: r in the low byte).
function packedColours(rgb) {
  const packed = new Uint32Array(rgb.length / 3);
  for (let k = 0; k < packed.length; k++) packed[k] = rgb[3 * k] | (rgb[3 * k + 1] << 8) | (rgb[3 * k + 2] << 16) | (0xff << 24);
  return packed;
}

function checkRange(range) {
  if (!range || !Number.isFinite(range.min) || !Number.isFinite(range.max) || range.min > range.max) {
    throw new RangeError(`range must be { min, max } with finite min <= max (a GpuTensor is not read to find it), got ${JSON.stringify(range)}`);
  }
  return range;
}

// Draws matrix `index` of tensor [..., rows, columns] onto canvas (an HTMLCanvasElement or OffscreenCanvas
// without a 2d context), resized to columns x rows, inside error scopes: resolves once the GPU has taken the
// work without error, rejects with the error otherwise.
export async function renderHeatmapGpu(runtime, tensor, canvas, { colormap: name = 'RdBu', range, index = 0 } = {}) {
  if (tensor.shape.length < 2) throw new RangeError(`the tensor must have at least 2 dimensions [rows, columns], got shape [${tensor.shape}]`);
  const [rows, columns] = tensor.shape.slice(-2);
  const matrices = tensor.elements / (rows * columns);
  const first = integer('index', index, 0, matrices - 1) * rows * columns;
  const map = colormap(name, checkRange(range));
  const largest = runtime.device.limits.maxTextureDimension2D;
  if (rows > largest || columns > largest) {
    throw new RangeError(`a heatmap of ${rows} x ${columns} cells exceeds this GPU's maxTextureDimension2D of ${largest} pixels`);
  }
  const context = canvas.getContext('webgpu');
  if (!context) throw new TypeError('canvas must be a canvas that can take a webgpu context (not one already drawn in 2d)');
  const format = globalThis.navigator?.gpu?.getPreferredCanvasFormat?.() ?? 'bgra8unorm';
  const device = runtime.device;
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  try {
    canvas.width = columns;
    canvas.height = rows;
    context.configure({ device, format, alphaMode: 'opaque' });
    const pipeline = runtime.renderPipeline('heatmap', CODE, format);
    const params = runtime.uniformBuffer(uniforms([['u32', rows], ['u32', columns], ['u32', first], ['u32', map.steps], ['f32', map.low], ['f32', map.span]]));
    const colours = runtime.upload(packedColours(map.rgb), 'the colormap');
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginRenderPass({ colorAttachments: [{ view: context.getCurrentTexture().createView(), loadOp: 'clear', storeOp: 'store', clearValue: [0, 0, 0, 1] }] });
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      entries: [{ binding: 0, resource: { buffer: params } }, { binding: 1, resource: { buffer: tensor.buffer } }, { binding: 2, resource: { buffer: colours } }],
    }));
    pass.draw(3);
    pass.end();
    device.queue.submit([encoder.finish()]);
    params.destroy();
    runtime.release(colours);
  } finally {
    const error = await popErrorScopes(device);
    if (error) throw new Error(`WebGPU error while drawing the heatmap: ${error.message}`);
  }
}
