#include "posembed/status.hpp"

#include <cmath>
#include <cstdio>

namespace posembed {

Status out_of_range(std::string_view parameter, std::string_view allowed, double got) {
  char number[32];
  if (std::isnan(got)) {
    std::snprintf(number, sizeof number, "NaN");
  } else if (std::isinf(got)) {
    std::snprintf(number, sizeof number, got > 0 ? "Infinity" : "-Infinity");  // as JavaScript writes them
  } else {
    std::snprintf(number, sizeof number, "%.17g", got);
  }
  std::string message;
  message.append(parameter).append(" must be ").append(allowed).append(", got ").append(number);
  return Status::range_error(std::move(message));
}

Status output_size_error(std::size_t expected, std::size_t got) {
  return Status::range_error("out must hold exactly " + std::to_string(expected) + " elements, got " +
                             std::to_string(got));
}

}  // namespace posembed
