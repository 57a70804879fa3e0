// The WebGPU side of posembed: one device, a cache of compute pipelines, buffers counted so tests can check
// that nothing leaks. Its results are GpuTensors (tensor.js).

const WORKGROUP = 64;
// Bindings a row table may be split over (see uploadRows and tableRows).
const TABLE_PARTS = 4;

// The spec's constants, so that Node needs no globals from its WebGPU package.
const BUFFER_USAGE = { MAP_READ: 0x1, COPY_SRC: 0x4, COPY_DST: 0x8, UNIFORM: 0x40, STORAGE: 0x80 };
const MAP_MODE_READ = 0x1;  // GPUMapMode.READ (a map mode, not a buffer usage)

export class GpuRuntime {
  // source and adapter are held only to keep them alive as long as the device (Node's WebGPU bindings
  // crash when the instance is collected under a living device).
  constructor({ source, adapter, device, limits = {} }) {
    this.source = source;
    this.adapter = adapter;
    this.device = device;
    this.asked = limits;
    this.usage = BUFFER_USAGE;
    this.pipelines = new Map();
    this.liveBuffers = 0;
    this.lost = null;
    device.lost.then((info) => { this.lost = info; });
  }

  // A device limit, or the smaller value load's gpuLimits asked for.
  limit(name) {
    return Math.min(this.device.limits[name], this.asked[name] ?? Infinity);
  }

  get maxBindingBytes() {
    return Math.min(this.limit('maxStorageBufferBindingSize'), this.limit('maxBufferSize'));
  }

  // A storage buffer of `bytes`; beyond the device's limits a RangeError that names them. A `chunked`
  // buffer (an output written slice by slice) may exceed one binding, up to maxBufferSize.
  buffer(bytes, what, { chunked = false } = {}) {
    if (chunked && bytes > this.limit('maxBufferSize')) {
      throw new RangeError(`${what} needs ${bytes} bytes, more than this GPU's maxBufferSize of ${this.limit('maxBufferSize')} bytes`);
    }
    if (!chunked && bytes > this.maxBindingBytes) {
      throw new RangeError(`${what} needs ${bytes} bytes, more than this GPU's maxStorageBufferBindingSize of ${this.maxBindingBytes} bytes`);
    }
    const buffer = this.device.createBuffer({ size: Math.max(4, Math.ceil(bytes / 4) * 4), usage: this.usage.STORAGE | this.usage.COPY_SRC | this.usage.COPY_DST });
    this.liveBuffers++;
    return buffer;
  }

  // data: 4-byte elements, so always a multiple of 4 bytes. A view of shared memory (the threaded module's
  // heap), which WebGPU implementations may refuse, goes over in copies of at most 16 MiB.
  upload(data, what, opts) {
    const buffer = this.buffer(data.byteLength, what, opts);
    if (data.buffer instanceof ArrayBuffer) {
      this.device.queue.writeBuffer(buffer, 0, data);
      return buffer;
    }
    const piece = (16 * 2 ** 20) / data.BYTES_PER_ELEMENT;
    for (let at = 0; at < data.length; at += piece) this.device.queue.writeBuffer(buffer, at * data.BYTES_PER_ELEMENT, data.slice(at, at + piece));
    return buffer;
  }

  // A table of rows (`rowElements` floats each) too large for one binding, split into at most TABLE_PARTS
  // buffers of whole rows, each within one binding: { parts, rowsPerPart }. Beyond that a RangeError.
  uploadRows(data, rowElements, what) {
    const rowsPerPart = Math.floor(this.maxBindingBytes / 4 / rowElements);
    const rows = data.length / rowElements;
    const count = rowsPerPart === 0 ? Infinity : Math.ceil(rows / rowsPerPart);
    if (count > TABLE_PARTS) {
      throw new RangeError(`${what} needs ${data.byteLength} bytes, more than ${TABLE_PARTS} bindings of whole rows within this GPU's maxStorageBufferBindingSize of ${this.maxBindingBytes} bytes`);
    }
    const parts = [];
    for (let first = 0; first < Math.max(rows, 1); first += rowsPerPart) {
      parts.push(this.upload(data.subarray(first * rowElements, Math.min(rows, first + rowsPerPart) * rowElements), what));
    }
    return { parts, rowsPerPart };
  }

  releaseRows({ parts }) {
    for (const part of parts) this.release(part);
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

  // A render pipeline drawing a full-screen triangle into `format` (WGSL `code`, entry points vertex and
  // fragment), cached by key and format.
  renderPipeline(key, code, format) {
    const cacheKey = `${key}:${format}`;
    if (!this.pipelines.has(cacheKey)) {
      const module = this.device.createShaderModule({ label: key, code });
      this.pipelines.set(cacheKey, this.device.createRenderPipeline({
        label: key, layout: 'auto', vertex: { module, entryPoint: 'vertex' }, fragment: { module, entryPoint: 'fragment', targets: [{ format }] },
      }));
    }
    return this.pipelines.get(cacheKey);
  }

  // Runs kernel `key` (WGSL `code`, entry point main, @workgroup_size(64) unless `workgroups` is given) over
  // `invocations` threads, with `uniforms` (an ArrayBuffer) at binding 0 and `buffers` at 1, 2, ... (each a
  // GPUBuffer, or a { buffer, offset, size } range of one).
  // An elementwise kernel (`chunked`: { count, sliced: indices of the buffers indexed like the output,
  // align: elements a slice must keep together }) runs once per slice of at most one binding, with the
  // slice's first element and length at @group(1) (see elementwise). Returns a promise of the validation or
  // out-of-memory error it raised, or null.
  dispatch(key, code, { uniforms, buffers, invocations, workgroups, chunked }) {
    const device = this.device;
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    const uniformBuffer = this.uniformBuffer(uniforms);
    const pipeline = this.#pipeline(key, code);
    const slices = chunked ? this.#slices(chunked) : [null];
    const encoder = device.createCommandEncoder();
    const chunkBuffers = [];
    for (const slice of slices) {
      const bound = (buffer, i) => {
        if (slice && chunked.sliced.includes(i)) return { buffer, offset: slice.first * 4, size: slice.length * 4 };
        return 'offset' in buffer ? buffer : { buffer };
      };
      const pass = encoder.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, device.createBindGroup({
        layout: pipeline.getBindGroupLayout(0),
        entries: [{ binding: 0, resource: { buffer: uniformBuffer } }, ...buffers.map((buffer, i) => ({ binding: i + 1, resource: bound(buffer, i) }))],
      }));
      if (slice) {
        const chunkBuffer = this.uniformBuffer(new Uint32Array([slice.first, slice.length, 0, 0]).buffer);
        chunkBuffers.push(chunkBuffer);
        pass.setBindGroup(1, device.createBindGroup({ layout: pipeline.getBindGroupLayout(1), entries: [{ binding: 0, resource: { buffer: chunkBuffer } }] }));
      }
      pass.dispatchWorkgroups(...(workgroups ?? this.#grid(slice ? slice.length : invocations)));
      pass.end();
    }
    device.queue.submit([encoder.finish()]);
    uniformBuffer.destroy();
    for (const chunkBuffer of chunkBuffers) chunkBuffer.destroy();
    return popErrorScopes(device);
  }

  uniformBuffer(data) {
    const buffer = this.device.createBuffer({ size: Math.max(16, Math.ceil(data.byteLength / 16) * 16), usage: this.usage.UNIFORM | this.usage.COPY_DST });
    this.device.queue.writeBuffer(buffer, 0, data);
    return buffer;
  }

  // Slices of at most one binding, starting on the device's offset alignment and on whole `align` groups.
  // A slice is also at most one dispatch: its groups of `align` never exceed maxInvocations.
  #slices({ count, align = 1 }) {
    return this.rowParts(count / align, [align], Math.floor(this.maxInvocations / align)).map(({ first, rows }) => ({ first: first * align, length: rows * align }));
  }

  // The most invocations of 64 a dispatch can have (2-D: see #grid).
  get maxInvocations() {
    return this.limit('maxComputeWorkgroupsPerDimension') ** 2 * WORKGROUP;
  }

  // Rows [0, rows) in parts { first, rows } of at most `most` rows, such that for each width w (elements per
  // row of a tensor bound part by part) a part's w * rows elements fit one binding and start on the
  // device's minStorageBufferOffsetAlignment. Beyond that, a RangeError naming the limit.
  rowParts(rows, widths, most = Infinity) {
    const gcd = (a, b) => (b ? gcd(b, a % b) : a);
    const alignment = this.device.limits.minStorageBufferOffsetAlignment / 4;
    const unit = widths.reduce((u, w) => { const r = alignment / gcd(alignment, w); return (u * r) / gcd(u, r); }, 1);
    const fit = widths.reduce((least, w) => Math.min(least, Math.floor(this.maxBindingBytes / 4 / w)), most);
    const size = Math.floor(fit / unit) * unit;
    if (size === 0) {
      throw new RangeError(`${unit} rows of ${widths.reduce((a, b) => Math.max(a, b))} elements are more than this GPU's maxStorageBufferBindingSize of ${this.maxBindingBytes} bytes`);
    }
    const parts = [];
    for (let first = 0; first < rows; first += size) parts.push({ first, rows: Math.min(size, rows - first) });
    return parts;
  }

  // Workgroups of 64 in x, spilling into y past maxComputeWorkgroupsPerDimension; kernels rebuild the flat
  // index from num_workgroups.
  #grid(invocations) {
    const groups = Math.ceil(invocations / WORKGROUP);
    const limit = this.limit('maxComputeWorkgroupsPerDimension');
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
      await staging.mapAsync(MAP_MODE_READ);
      return new type(staging.getMappedRange().slice(0, bytes));
    } finally {
      staging.destroy();
    }
  }
}

// Pops the validation and out-of-memory scopes pushed (in that order, memory first) around GPU work. Resolves
// to the first error, or to the error popping raised (a dropped instance, a lost device); never rejects, so a
// fault nobody awaits cannot surface as an unhandled rejection.
export function popErrorScopes(device) {
  try {
    return Promise.all([device.popErrorScope(), device.popErrorScope()]).then(([validation, memory]) => validation ?? memory, (error) => error);
  } catch (error) {
    return Promise.resolve(error);
  }
}

// The flat invocation index of a 64-wide, possibly 2-D, dispatch.
export const FLAT_INDEX = /* wgsl */ `
fn flat_index(id: vec3u, groups: vec3u) -> u32 { return id.x + id.y * groups.x * 64u; }
`;

// An elementwise kernel, run slice by slice: `declarations` (its Params and bindings) and `body`, which
// computes element i = chunk.first + local and writes out[local] (the output, and every buffer indexed like
// it, is bound from chunk.first on).
export function elementwise(declarations, body) {
  return /* wgsl */ `${declarations}
struct Chunk { first: u32, length: u32 }
@group(1) @binding(0) var<uniform> chunk: Chunk;
${FLAT_INDEX}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let local = flat_index(id, groups);
  if (local >= chunk.length) { return; }
  let i = chunk.first + local;
${body}
}`;
}

// WGSL for a row table bound as TABLE_PARTS buffers from @binding(first) on: table_value(row, column), with
// `rows_per_part` and `d_model` read from params. Unused parts are bound to the first buffer.
export function tableRows(first) {
  const bindings = Array.from({ length: TABLE_PARTS }, (_, k) => `@group(0) @binding(${first + k}) var<storage, read> table${k}: array<f32>;`);
  const cases = Array.from({ length: TABLE_PARTS }, (_, k) => `${k === TABLE_PARTS - 1 ? 'default' : `case ${k}u`}: { return table${k}[index]; }`);
  return /* wgsl */ `${bindings.join('\n')}
fn table_value(row: u32, column: u32) -> f32 {
  let index = (row % params.rows_per_part) * params.d_model + column;
  switch (row / params.rows_per_part) {
    ${cases.join('\n    ')}
  }
}`;
}

// The buffers to bind for tableRows: every part, then the first again for the unused ones.
export function tableBindings({ parts }) {
  return Array.from({ length: TABLE_PARTS }, (_, k) => parts[k] ?? parts[0]);
}

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
