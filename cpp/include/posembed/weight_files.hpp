// Reading weights from .npy (NumPy, format versions 1-3) and .safetensors files: f32, f16 and bf16 (and
// f64 from .npy) become float32. Every malformed file gives an error that says what is wrong and at which
// byte offset; nothing is read outside the given bytes, and sizes are checked for overflow.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "posembed/status.hpp"

namespace posembed {

enum class FileDType { kF32, kF16, kBF16, kF64 };

struct StoredTensor {
  std::string name;             // safetensors: the key; npy: empty
  std::vector<int64_t> shape;
  FileDType dtype = FileDType::kF32;
  std::size_t data_offset = 0;  // byte offset of the payload in the file
  std::size_t element_count = 0;
  bool fortran_order = false;   // npy only: the payload is column-major
};

Status read_npy_header(std::span<const uint8_t> file, StoredTensor& tensor);

// The tensors of a safetensors file, in the order of their data; "__metadata__" is skipped.
Status read_safetensors_header(std::span<const uint8_t> file, std::vector<StoredTensor>& tensors);

// Converts a tensor described by one of the header readers into row-major float32 (out: element_count).
Status read_tensor_data(std::span<const uint8_t> file, const StoredTensor& tensor, std::span<float> out);

}  // namespace posembed
