// PCA for the JS package (the full modules only: its exact decomposition is a tenth of the light module's bytes,
// and the elements never project).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <string>

#include "js_values.hpp"
#include "posembed/analysis.hpp"

namespace posembed {
namespace {

using namespace bindings;

// name: x's name in errors ('x', or 'table' for a token table).
val js_pca(uintptr_t x, const std::string& dtype, double n, double d, double components, uintptr_t out, const std::string& name) {
  return to_js(pca(heap_table(x, dtype, n, d), to_int64(components), heap_span<float>(out, n * components), {}, name));
}

}  // namespace
}  // namespace posembed

EMSCRIPTEN_BINDINGS(posembed_analysis) {
  emscripten::function("pca", &posembed::js_pca);
}
