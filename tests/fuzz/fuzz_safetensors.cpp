// libFuzzer target: arbitrary bytes through the .safetensors header reader (JSON, offsets, shapes, dtypes) and the
// float conversion.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "posembed/weight_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::span<const uint8_t> file(data, size);
  posembed::WeightFileHeader header;
  if (!posembed::read_safetensors_header(file, size, header).ok()) return 0;
  for (const auto& tensor : header.tensors) {
    if (tensor.data_offset > size || tensor.byte_count > size - tensor.data_offset) std::abort();  // accepted offsets lie inside the file
    if (!posembed::is_float(tensor.dtype) || tensor.element_count > (std::size_t{1} << 22)) continue;
    std::vector<float> out(tensor.element_count);
    if (!posembed::convert_to_float(tensor.dtype, file.subspan(tensor.data_offset, tensor.byte_count), out).ok()) std::abort();
  }
  return 0;
}
