// What every binding file shares: statuses handed to JS as values, JS numbers as the core's integers, heap
// pointers as spans. The bindings live in one file per module part: encoders.cpp (every module, and the light one
// the elements draw with); analysis.cpp (PCA), training.cpp and weight_files.cpp (the full modules only).
#pragma once

#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <string>

#include "posembed/status.hpp"
#include "posembed/stored_table.hpp"

namespace posembed::bindings {

using emscripten::val;

inline val to_js(const Status& status) {
  if (status.ok()) return val::null();
  const char* name = "Error";
  if (status.kind() == ErrorKind::kType) name = "TypeError";
  if (status.kind() == ErrorKind::kRange) name = "RangeError";
  if (status.kind() == ErrorKind::kFormat) name = "WeightFileError";
  val error = val::object();
  error.set("name", name);
  error.set("message", status.message());
  return error;
}

// JS numbers arrive as doubles. The package has already checked they are integers; anything that is not
// representable becomes a value every range check rejects, rather than undefined behaviour.
inline int64_t to_int64(double value) {
  if (!(std::abs(value) < 0x1p62)) return INT64_MIN;
  return static_cast<int64_t>(value);
}

#define POSEMBED_RETURN_IF_ERROR_JS(expr) \
  do {                                    \
    const Status status_ = (expr);        \
    if (!status_.ok()) return to_js(status_); \
  } while (false)

template <class T>
std::span<T> heap_span(uintptr_t address, double count) {
  return {reinterpret_cast<T*>(address), static_cast<std::size_t>(count)};
}

// A table on the heap as stored: its dtype by name ("F32", "BF16", …; another name is refused by the op that reads it).
inline StoredTable heap_table(uintptr_t address, const std::string& dtype, double rows, double cols) {
  return {reinterpret_cast<const void*>(address), dtype_from_name(dtype), to_int64(rows), to_int64(cols)};
}

// A result object, or the error: { name, message } values are told apart by `name`.
inline val result_or_error(const Status& status, val result) { return status.ok() ? result : to_js(status); }

}  // namespace posembed::bindings
