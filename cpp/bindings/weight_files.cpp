// Reading .npy and .safetensors files for the JS package (the full modules only): the headers parsed, each
// tensor converted to float32 into the heap buffer the package gives.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <span>
#include <vector>

#include "js_values.hpp"
#include "posembed/weight_files.hpp"

namespace posembed {
namespace {

using namespace bindings;

Status stored_tensors(std::span<const uint8_t> file, bool npy, std::vector<StoredTensor>& tensors) {
  if (!npy) return read_safetensors_header(file, tensors);
  tensors.assign(1, {});
  return read_npy_header(file, tensors[0]);
}

// { error: null, tensors: [{ name, shape }] } or { error: { name, message } }.
val js_weight_file_info(uintptr_t file, double size, bool npy) {
  std::vector<StoredTensor> tensors;
  const Status status = stored_tensors(heap_span<const uint8_t>(file, size), npy, tensors);
  val result = val::object();
  result.set("error", to_js(status));
  if (!status.ok()) return result;
  val list = val::array();
  for (const auto& tensor : tensors) {
    val entry = val::object();
    entry.set("name", tensor.name);
    val shape = val::array();
    for (int64_t n : tensor.shape) shape.call<void>("push", static_cast<double>(n));
    entry.set("shape", shape);
    list.call<void>("push", entry);
  }
  result.set("tensors", list);
  return result;
}

val js_read_weight_tensor(uintptr_t file, double size, bool npy, double index, uintptr_t out, double count) {
  const auto bytes = heap_span<const uint8_t>(file, size);
  std::vector<StoredTensor> tensors;
  POSEMBED_RETURN_IF_ERROR_JS(stored_tensors(bytes, npy, tensors));
  const auto i = static_cast<std::size_t>(to_int64(index));
  if (i >= tensors.size()) return to_js(Status::range_error("tensor index out of range"));
  return to_js(read_tensor_data(bytes, tensors[i], heap_span<float>(out, count)));
}

}  // namespace
}  // namespace posembed

EMSCRIPTEN_BINDINGS(posembed_weight_files) {
  using namespace emscripten;
  function("weightFileInfo", &posembed::js_weight_file_info);
  function("readWeightTensor", &posembed::js_read_weight_tensor);
}
