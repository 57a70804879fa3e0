// Reads a dropped weights file off the main thread: streams it in (reporting progress), then parses it with
// the package's .npy / .safetensors readers and sends the float32 tensors back (transferred, not copied).
import { load } from 'posembed';

let posembed = null;

self.onmessage = async ({ data: { file } }) => {
  try {
    const bytes = new Uint8Array(file.size);
    let received = 0;
    const reader = file.stream().getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes.set(value, received);
      received += value.length;
      self.postMessage({ progress: received / Math.max(file.size, 1) });
    }
    posembed ??= load();
    const pe = await posembed;
    const tensors = file.name.toLowerCase().endsWith('.npy') ? { [file.name]: pe.readNpy(bytes) } : pe.readSafetensors(bytes);
    self.postMessage({ tensors }, Object.values(tensors).map((t) => t.data.buffer));
  } catch (error) {
    self.postMessage({ error: `${file.name}: ${error.message}` });
  }
};
