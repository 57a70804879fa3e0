#include "posembed/status.hpp"

#include <cmath>
#include <cstdio>
#include <string>

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

Status check_row_run(int64_t first_row, std::size_t out_size, std::size_t row_size, std::size_t total_rows, std::string_view total_name,
                     std::string_view row_name) {
  if (first_row >= 0 && out_size % row_size == 0 && static_cast<std::size_t>(first_row) + out_size / row_size <= total_rows) return {};
  std::string message("the rows must lie within ");
  message.append(total_name).append(" = ").append(std::to_string(total_rows)).append(" rows of ").append(row_name).append(" values");
  return Status::range_error(std::move(message));
}

Status output_size_error(std::size_t expected, std::size_t got) {
  return Status::range_error("out must hold exactly " + std::to_string(expected) + " elements, got " +
                             std::to_string(got));
}

}  // namespace posembed
