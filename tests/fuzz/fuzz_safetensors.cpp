// libFuzzer target: arbitrary bytes through the .safetensors reader (header JSON, offsets, shapes, dtypes).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "posembed/weight_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::span<const uint8_t> file(data, size);
  std::vector<posembed::StoredTensor> tensors;
  if (!posembed::read_safetensors_header(file, tensors).ok()) return 0;
  for (const auto& tensor : tensors) {
    if (tensor.element_count > (std::size_t{1} << 22)) continue;
    std::vector<float> out(tensor.element_count);
    if (!posembed::read_tensor_data(file, tensor, out).ok()) std::abort();  // accepted headers must read
  }
  return 0;
}
