#include "posembed/status.hpp"

#include <algorithm>
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
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value == 0.0) return "0";  // -0 too, as String(-0) is
  char text[40];
  int digits = 1;  // the fewest significant digits that give the value back (17 always do)
  for (;; ++digits) {
    std::snprintf(text, sizeof text, "%.*e", digits - 1, value);
    if (digits == 17 || std::strtod(text, nullptr) == value) break;
  }
  const int exponent = static_cast<int>(std::floor(std::log10(std::abs(value))));
  if (std::abs(value) >= 1e-6 && std::abs(value) < 1e21) {
    // Fixed notation, as JavaScript writes numbers in this range: the significant digits, then zeros to the point.
    if (exponent >= digits - 1) {
      std::string written(text);  // d.ddde+x
      std::string significant = written.substr(0, written.find('e'));
      significant.erase(std::remove(significant.begin(), significant.end(), '.'), significant.end());
      return significant + std::string(static_cast<std::size_t>(exponent - (digits - 1)), '0');
    }
    std::snprintf(text, sizeof text, "%.*f", digits - 1 - exponent, value);
    return text;
  }
  // Else m.mmm e±x, with JavaScript's exponent: its sign always, no leading zeros.
  std::snprintf(text, sizeof text, "%.*e", digits - 1, value);
  std::string written(text);
  const auto e = written.find('e');
  const int power = std::atoi(written.c_str() + e + 1);
  return written.substr(0, e) + (power < 0 ? "e-" : "e+") + std::to_string(std::abs(power));
}

namespace {

// The message of a value outside [low, high] (or (low, high]), made only when a check fails.
Status range_error(std::string_view parameter, double value, std::string_view kind, char open, const std::string& low, const std::string& high,
                   std::string_view note) {
  std::string allowed(kind);
  allowed.append(" in ").append(1, open).append(low).append(", ").append(high).append("]");
  if (!note.empty()) allowed.append(" (").append(note).append(")");
  return out_of_range(parameter, allowed, value);
}

}  // namespace

Status check_integer(std::string_view parameter, int64_t value, int64_t low, int64_t high, std::string_view note) {
  if (value >= low && value <= high) return {};
  return range_error(parameter, static_cast<double>(value), "an integer", '[', std::to_string(low), std::to_string(high), note);
}

Status check_even_integer(std::string_view parameter, int64_t value, int64_t low, int64_t high, std::string_view note) {
  if (value >= low && value <= high && value % 2 == 0) return {};
  return range_error(parameter, static_cast<double>(value), "an even integer", '[', std::to_string(low), std::to_string(high), note);
}

Status check_number(std::string_view parameter, double value, double low, double high, LowBound low_bound, std::string_view note) {
  const bool included = low_bound == LowBound::kIncluded;
  if ((included ? value >= low : value > low) && value <= high) return {};
  return range_error(parameter, value, "a number", included ? '[' : '(', js_number(low), js_number(high), note);
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
