// libFuzzer target: arbitrary bytes through the .npy header reader and the float conversion.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "posembed/weight_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::span<const uint8_t> file(data, size);
  posembed::StoredTensor tensor;
  if (!posembed::read_npy_header(file, size, tensor).ok()) return 0;
  if (!posembed::is_float(tensor.dtype) || tensor.element_count > (std::size_t{1} << 22)) return 0;  // valid, not converted here
  std::vector<float> out(tensor.element_count);
  // A header the reader accepted must describe bytes inside the file, in the size the dtype needs.
  if (!posembed::convert_to_float(tensor.dtype, file.subspan(tensor.data_offset, tensor.byte_count), out).ok()) std::abort();
  return 0;
}
