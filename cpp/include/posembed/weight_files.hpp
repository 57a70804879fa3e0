// Reading the headers of .npy (NumPy, format versions 1-3) and .safetensors files from their first bytes, and
// converting a tensor's stored elements to float32. Every malformed header gives an error that says what is wrong
// and at which byte offset; nothing is read outside the given bytes, and sizes are checked for overflow. A header
// describes tensors of any dtype the format has; whether one can be converted is a question about that tensor
// alone, asked when it is read.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "posembed/status.hpp"

namespace posembed {

enum class FileDType { kF64, kF32, kF16, kBF16, kF8E4M3, kF8E5M2, kI64, kI32, kI16, kI8, kU64, kU32, kU16, kU8, kBool, kOther };

// The safetensors spelling ("F32", "F8_E4M3", "BOOL", …); "other" for kOther.
const char* dtype_name(FileDType dtype);
// kOther for a name that is not one of the format's.
FileDType dtype_from_name(std::string_view name);
// Bytes per element; 0 for kOther.
std::size_t element_size(FileDType dtype);
bool is_float(FileDType dtype);

struct StoredTensor {
  std::string name;             // safetensors: the key; npy: empty
  std::vector<int64_t> shape;
  FileDType dtype = FileDType::kF32;
  std::string dtype_text;       // as the file spells it: the safetensors dtype, or the npy descr
  // 64-bit: a 32-bit build (wasm) reads files past 4 GB a tensor at a time.
  uint64_t data_offset = 0;     // byte offset of the payload from the file's start
  uint64_t byte_count = 0;
  uint64_t element_count = 0;
  bool fortran_order = false;   // npy only: the payload is column-major
};

struct WeightFileHeader {
  std::vector<StoredTensor> tensors;                             // in the order of their data
  std::vector<std::pair<std::string, std::string>> metadata;     // safetensors' __metadata__
};

// safetensors refuses headers longer than this (100 MB): a longer one is a damaged or hostile file.
constexpr uint64_t kMaxSafetensorsHeader = 100'000'000;
// The bytes a header reader needs to find the header's length.
constexpr std::size_t kSafetensorsPreamble = 8;
constexpr std::size_t kNpyPreamble = 12;

// How many bytes from the file's start hold the whole header, from its first bytes (the preamble, or all of a
// shorter file); file_size is the whole file's.
Status safetensors_header_size(std::span<const uint8_t> first, uint64_t file_size, uint64_t& size);
Status npy_header_size(std::span<const uint8_t> first, uint64_t file_size, uint64_t& size);

// start: the file's first bytes, the whole header at least; file_size: the whole file's. Structural checks: valid
// JSON, every entry's fields, data_offsets in order, inside the data, without overlaps or holes, shapes that fit
// their bytes, unique names, string metadata.
Status read_safetensors_header(std::span<const uint8_t> start, uint64_t file_size, WeightFileHeader& header);
Status read_npy_header(std::span<const uint8_t> start, uint64_t file_size, StoredTensor& tensor);

// A float dtype's stored elements (little-endian) as float32: F16, BF16 and F8 exactly, F64 rounded to nearest.
// bytes: out.size() elements.
Status convert_to_float(FileDType dtype, std::span<const uint8_t> bytes, std::span<float> out);

}  // namespace posembed
