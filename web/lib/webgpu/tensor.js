// The webgpu backend's result types, apart from the runtime so that the package can export GpuTensor (for
// instanceof) without loading the runtime on pages that never use WebGPU.

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

  // The data, as a host tensor. If the GPU failed it (an error in its work, a lost device or instance, a failed
  // mapAsync) and the backend gave a fallback, the result is computed again on wasm instead (computeOnHost(),
  // which the backend gives its results too, does that at any time, for a caller that will not wait).
  async read() {
    if (!this.buffer) throw new Error('this GpuTensor has been disposed');
    try {
      const error = await this.#done;
      if (error) throw new Error(`WebGPU error: ${error.message}`);
      return { data: await this.#runtime.read(this.buffer, this.elements * 4, this.type), shape: [...this.shape] };
    } catch (error) {
      // Not once disposed mid-read: a freed tensor's read fails as such, not by computing it again.
      if (this.fallback && this.buffer) return this.fallback(error);
      throw error;
    }
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
