// The WebGPU side of posembed: one device, a cache of compute pipelines, buffers counted so tests can check
// that nothing leaks, and GpuTensor, the result type of the webgpu backend.

const WORKGROUP = 64;

// The spec's constants, so that Node needs no globals from its WebGPU package.
const BUFFER_USAGE = { MAP_READ: 0x1, COPY_SRC: 0x4, COPY_DST: 0x8, UNIFORM: 0x40, STORAGE: 0x80 };
const MAP_READ = 0x1;

// Finds an adapter and a device, or throws an Error that says why (the reason 'auto' reports).
export async function acquireDevice(gpu) {
  const source = gpu ?? globalThis.navigator?.gpu;
  if (!source) {
    throw new Error('WebGPU is not available here: there is no navigator.gpu (in Node, pass gpu: create([]) from the webgpu package)');
  }
  const adapter = await source.requestAdapter();
  if (!adapter) throw new Error('WebGPU is available but no adapter was found');
  const device = await adapter.requestDevice({
    requiredLimits: {
      maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
      maxBufferSize: adapter.limits.maxBufferSize,
    },
  });
  return { source, adapter, device };
}

export class GpuRuntime {
  // source and adapter are held only to keep them alive as long as the device (Node's WebGPU bindings
  // crash when the instance is collected under a living device).
  constructor({ source, adapter, device }) {
    this.source = source;
    this.adapter = adapter;
    this.device = device;
    this.usage = BUFFER_USAGE;
    this.pipelines = new Map();
    this.liveBuffers = 0;
    this.lost = null;
    device.lost.then((info) => { this.lost = info; });
  }

  get maxBindingBytes() {
    return Math.min(this.device.limits.maxStorageBufferBindingSize, this.device.limits.maxBufferSize);
  }

  // A storage buffer of `bytes`; beyond the device's limits a RangeError that names them.
  buffer(bytes, what, extraUsage = 0) {
    if (bytes > this.maxBindingBytes) {
      throw new RangeError(`${what} needs ${bytes} bytes, more than this GPU's maxStorageBufferBindingSize of ${this.maxBindingBytes} bytes`);
    }
    const buffer = this.device.createBuffer({ size: Math.max(4, Math.ceil(bytes / 4) * 4), usage: this.usage.STORAGE | this.usage.COPY_SRC | this.usage.COPY_DST | extraUsage });
    this.liveBuffers++;
    return buffer;
  }

  upload(data, what) {
    const buffer = this.buffer(data.byteLength, what);
    this.device.queue.writeBuffer(buffer, 0, data);  // 4-byte elements: always a multiple of 4 bytes
    return buffer;
  }

  release(buffer) {
    buffer.destroy();
    this.liveBuffers--;
  }

  #pipeline(key, code) {
    if (!this.pipelines.has(key)) {
      const module = this.device.createShaderModule({ label: key, code });
      this.pipelines.set(key, this.device.createComputePipeline({ label: key, layout: 'auto', compute: { module, entryPoint: 'main' } }));
    }
    return this.pipelines.get(key);
  }

  // Runs kernel `key` (WGSL `code`, entry point main, @workgroup_size(64) unless `workgroups` is given) over
  // `invocations` threads, with `uniforms` (an ArrayBuffer) at binding 0 and `buffers` at 1, 2, ...
  // Returns a promise of the validation or out-of-memory error it raised, or null.
  dispatch(key, code, { uniforms, buffers, invocations, workgroups }) {
    const device = this.device;
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    const uniformBuffer = device.createBuffer({ size: Math.max(16, Math.ceil(uniforms.byteLength / 16) * 16), usage: this.usage.UNIFORM | this.usage.COPY_DST });
    device.queue.writeBuffer(uniformBuffer, 0, uniforms);
    const pipeline = this.#pipeline(key, code);
    const bindGroup = device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      entries: [{ binding: 0, resource: { buffer: uniformBuffer } }, ...buffers.map((buffer, i) => ({ binding: i + 1, resource: { buffer } }))],
    });
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(...(workgroups ?? this.#grid(invocations)));
    pass.end();
    device.queue.submit([encoder.finish()]);
    uniformBuffer.destroy();
    const validation = device.popErrorScope();
    const memory = device.popErrorScope();
    return Promise.all([validation, memory]).then(([a, b]) => a ?? b);
  }

  // Workgroups of 64 in x, spilling into y past maxComputeWorkgroupsPerDimension; kernels rebuild the flat
  // index from num_workgroups.
  #grid(invocations) {
    const groups = Math.ceil(invocations / WORKGROUP);
    const limit = this.device.limits.maxComputeWorkgroupsPerDimension;
    if (groups <= limit) return [Math.max(groups, 1), 1];
    const rows = Math.ceil(groups / limit);
    if (rows > limit) throw new RangeError(`${invocations} invocations exceed this GPU's maxComputeWorkgroupsPerDimension of ${limit} squared`);
    return [limit, rows];
  }

  async read(buffer, bytes, type) {
    const staging = this.device.createBuffer({ size: Math.max(4, Math.ceil(bytes / 4) * 4), usage: this.usage.MAP_READ | this.usage.COPY_DST });
    const encoder = this.device.createCommandEncoder();
    encoder.copyBufferToBuffer(buffer, 0, staging, 0, staging.size);
    this.device.queue.submit([encoder.finish()]);
    try {
      await staging.mapAsync(MAP_READ);
      return new type(staging.getMappedRange().slice(0, bytes));
    } finally {
      staging.destroy();
    }
  }
}

// The flat invocation index of a 64-wide, possibly 2-D, dispatch.
export const FLAT_INDEX = /* wgsl */ `
fn flat_index(id: vec3u, groups: vec3u) -> u32 { return id.x + id.y * groups.x * 64u; }
`;

// Packs uniform fields (all 4 bytes: 'u32', 'i32' or 'f32') in order.
export function uniforms(fields) {
  const data = new DataView(new ArrayBuffer(Math.ceil(fields.length / 4) * 16 || 16));
  fields.forEach(([type, value], i) => {
    if (type === 'f32') data.setFloat32(i * 4, value, true);
    else if (type === 'i32') data.setInt32(i * 4, value, true);
    else data.setUint32(i * 4, value, true);
  });
  return data.buffer;
}

// Destroys the buffers of GpuTensors dropped without dispose(), once they are collected.
const bufferReleaser = new FinalizationRegistry(({ runtime, buffer }) => runtime.release(buffer));

// A result of the webgpu backend: its data stays on the GPU until read(); pass it to other GPU ops as is.
export class GpuTensor {
  #runtime;
  #done;

  constructor(runtime, buffer, shape, type, done) {
    this.#runtime = runtime;
    this.buffer = buffer;
    this.shape = shape;
    this.type = type;
    this.#done = done;
    bufferReleaser.register(this, { runtime, buffer }, this);
  }

  get elements() {
    return this.shape.reduce((a, b) => a * b, 1);
  }

  // Resolves when the GPU work that made this tensor has been validated; rejects with its error.
  async ready() {
    const error = await this.#done;
    if (error) throw new Error(`WebGPU error: ${error.message}`);
  }

  // The data, as a host tensor. If the GPU work failed validation and the backend gave a fallback, the
  // result is computed again on wasm instead.
  async read() {
    if (!this.buffer) throw new Error('this GpuTensor has been disposed');
    const error = await this.#done;
    if (error && this.fallback) return this.fallback(error);
    if (error) throw new Error(`WebGPU error: ${error.message}`);
    return { data: await this.#runtime.read(this.buffer, this.elements * 4, this.type), shape: [...this.shape] };
  }

  dispose() {
    if (!this.buffer) return;
    bufferReleaser.unregister(this);
    this.#runtime.release(this.buffer);
    this.buffer = null;
  }
}

// What a GPU op returns after the device was lost: the wasm result behind the same interface.
export class HostTensor {
  constructor(tensor) {
    this.tensor = tensor;
    this.buffer = null;
    this.shape = tensor.shape;
    this.type = tensor.data.constructor;
  }

  async ready() {}

  async read() {
    return { data: this.tensor.data, shape: [...this.tensor.shape] };
  }

  dispose() {}
}
