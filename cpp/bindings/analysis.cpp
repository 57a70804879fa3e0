// PCA for the JS package (the full modules only: its exact decomposition is a tenth of the light module's bytes,
// and the elements never project).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>

#include "js_values.hpp"
#include "posembed/analysis.hpp"

namespace posembed {
namespace {

using namespace bindings;

val js_pca(uintptr_t x, double n, double d, double components, uintptr_t out) {
  return to_js(pca(heap_span<const float>(x, n * d), to_int64(n), to_int64(d), to_int64(components), heap_span<float>(out, n * components)));
}

}  // namespace
}  // namespace posembed

EMSCRIPTEN_BINDINGS(posembed_analysis) {
  emscripten::function("pca", &posembed::js_pca);
}
