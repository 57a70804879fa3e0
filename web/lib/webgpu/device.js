// Acquiring the device comes before the rest of the WebGPU side (parts.js): a page without an adapter falls back
// to wasm without fetching the runtime.

// Finds an adapter and a device, or throws an Error that says why (the reason 'auto' reports). The device
// asks for the adapter's largest buffers; `limits` (load's gpuLimits) are asked for instead, and the runtime
// keeps within them even where the device gives more (WebGPU raises a request below its defaults to them).
export async function acquireDevice(gpu, limits = {}) {
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
      ...limits,
    },
  });
  return { source, adapter, device, limits };
}
