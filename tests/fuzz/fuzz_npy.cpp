// libFuzzer target: arbitrary bytes through the .npy reader. Every input is either rejected with a format
// error or read completely; AddressSanitizer checks that nothing is read outside the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "posembed/weight_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::span<const uint8_t> file(data, size);
  posembed::StoredTensor tensor;
  if (!posembed::read_npy_header(file, tensor).ok()) return 0;
  if (tensor.element_count > (std::size_t{1} << 22)) return 0;  // valid, but too large to convert here
  std::vector<float> out(tensor.element_count);
  const posembed::Status status = posembed::read_tensor_data(file, tensor, out);
  if (!status.ok()) std::abort();  // a header the reader accepted must be readable
  return 0;
}
