// Weight files for the JS package (the full modules only): headers parsed from a file's first bytes (the package
// reads them, from bytes or lazily from a Blob), and float tensors converted to float32 a chunk at a time.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <span>
#include <string>

#include "js_values.hpp"
#include "posembed/weight_files.hpp"

namespace posembed {
namespace {

using namespace bindings;

val js_tensor(const StoredTensor& tensor) {
  val entry = val::object();
  entry.set("name", tensor.name);
  entry.set("dtype", tensor.dtype == FileDType::kOther ? tensor.dtype_text : std::string(dtype_name(tensor.dtype)));
  entry.set("known", tensor.dtype != FileDType::kOther);
  val shape = val::array();
  for (int64_t n : tensor.shape) shape.call<void>("push", static_cast<double>(n));
  entry.set("shape", shape);
  entry.set("offset", static_cast<double>(tensor.data_offset));
  entry.set("bytes", static_cast<double>(tensor.byte_count));
  entry.set("fortranOrder", tensor.fortran_order);
  return entry;
}

// { error: null, size } : the bytes from the file's start that hold its header, from its first bytes.
val js_weight_header_size(uintptr_t first, double count, double file_size, bool npy) {
  const auto bytes = heap_span<const uint8_t>(first, count);
  uint64_t size = 0;
  const auto total = static_cast<uint64_t>(file_size);
  const Status status = npy ? npy_header_size(bytes, total, size) : safetensors_header_size(bytes, total, size);
  val result = val::object();
  result.set("error", to_js(status));
  result.set("size", static_cast<double>(size));
  return result;
}

// { error: null, tensors: [{ name, dtype, known, shape, offset, bytes, fortranOrder }], metadata: [[key, value]] }.
val js_weight_file_info(uintptr_t start, double count, double file_size, bool npy) {
  const auto bytes = heap_span<const uint8_t>(start, count);
  WeightFileHeader header;
  Status status;
  if (npy) {
    header.tensors.emplace_back();
    status = read_npy_header(bytes, static_cast<uint64_t>(file_size), header.tensors[0]);
  } else {
    status = read_safetensors_header(bytes, static_cast<uint64_t>(file_size), header);
  }
  val result = val::object();
  result.set("error", to_js(status));
  if (!status.ok()) return result;
  val tensors = val::array();
  for (const auto& tensor : header.tensors) tensors.call<void>("push", js_tensor(tensor));
  val metadata = val::array();
  for (const auto& [key, value] : header.metadata) {
    val pair = val::array();
    pair.call<void>("push", key);
    pair.call<void>("push", value);
    metadata.call<void>("push", pair);
  }
  result.set("tensors", tensors);
  result.set("metadata", metadata);
  return result;
}

val js_convert_to_float(std::string dtype, uintptr_t bytes, double byte_count, uintptr_t out, double count) {
  return to_js(convert_to_float(dtype_from_name(dtype), heap_span<const uint8_t>(bytes, byte_count), heap_span<float>(out, count)));
}

// -1, or the first non-finite value's index in a table read from a file: -2 for a dtype that is not a table's.
double js_table_non_finite(uintptr_t table, const std::string& dtype, double rows, double cols) {
  const StoredTable stored = heap_table(table, dtype, rows, cols);
  return is_table_dtype(stored.dtype) ? static_cast<double>(first_non_finite(stored)) : -2.0;
}

}  // namespace
}  // namespace posembed

EMSCRIPTEN_BINDINGS(posembed_weight_files) {
  using namespace emscripten;
  function("weightHeaderSize", &posembed::js_weight_header_size);
  function("weightFileInfo", &posembed::js_weight_file_info);
  function("convertToFloat", &posembed::js_convert_to_float);
  function("tableNonFinite", &posembed::js_table_non_finite);
}
