#include "posembed/status.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
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

std::string js_number(double value) {
  char text[32];
  if (value == std::floor(value) && std::abs(value) < 1e21) {
    std::snprintf(text, sizeof text, "%.0f", value);
    return text;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  return text;
}

namespace {

Status range_check(bool ok, std::string_view parameter, double value, std::string_view kind, char open, const std::string& low,
                   const std::string& high, std::string_view note) {
  if (ok) return {};
  std::string allowed(kind);
  allowed.append(" in ").append(1, open).append(low).append(", ").append(high).append("]");
  if (!note.empty()) allowed.append(" (").append(note).append(")");
  return out_of_range(parameter, allowed, value);
}

}  // namespace

Status check_integer(std::string_view parameter, int64_t value, int64_t low, int64_t high, std::string_view note) {
  return range_check(value >= low && value <= high, parameter, static_cast<double>(value), "an integer", '[', std::to_string(low), std::to_string(high), note);
}

Status check_even_integer(std::string_view parameter, int64_t value, int64_t low, int64_t high, std::string_view note) {
  return range_check(value >= low && value <= high && value % 2 == 0, parameter, static_cast<double>(value), "an even integer", '[', std::to_string(low),
                     std::to_string(high), note);
}

Status check_number(std::string_view parameter, double value, double low, double high, LowBound low_bound, std::string_view note) {
  const bool above = low_bound == LowBound::kIncluded ? value >= low : value > low;
  return range_check(above && value <= high, parameter, value, "a number", low_bound == LowBound::kIncluded ? '[' : '(', js_number(low), js_number(high),
                     note);
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
