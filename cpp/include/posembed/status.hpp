// Errors as values: the core never throws and never aborts. The bindings turn a failed Status into the
// JS error of the same kind (TypeError, RangeError, Error), so messages are written once, here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace posembed {

enum class ErrorKind { kNone, kType, kRange, kFormat };

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status type_error(std::string message) { return {ErrorKind::kType, std::move(message)}; }
  static Status range_error(std::string message) { return {ErrorKind::kRange, std::move(message)}; }
  static Status format_error(std::string message) { return {ErrorKind::kFormat, std::move(message)}; }

  bool ok() const { return kind_ == ErrorKind::kNone; }
  ErrorKind kind() const { return kind_; }
  const std::string& message() const { return message_; }

 private:
  Status(ErrorKind kind, std::string message) : kind_(kind), message_(std::move(message)) {}
  ErrorKind kind_ = ErrorKind::kNone;
  std::string message_;
};

// "dModel must be an even integer in [2, 65536], got 7": the parameter's public (JS) name, what is
// allowed, and what was given.
Status out_of_range(std::string_view parameter, std::string_view allowed, double got);

// A parameter checked against its range, the message stating the bounds the check uses ("heads must be an integer in
// [1, 16], got 17"), so that a bound is written once (a limits:: constant, or the value it depends on). `note`
// follows the range in parentheses ("(0: the rule's own)"). Bounds are written as JavaScript writes numbers.
Status check_integer(std::string_view parameter, int64_t value, int64_t low, int64_t high, std::string_view note = {});
Status check_even_integer(std::string_view parameter, int64_t value, int64_t low, int64_t high, std::string_view note = {});
enum class LowBound { kIncluded, kExcluded };
Status check_number(std::string_view parameter, double value, double low, double high, LowBound low_bound = LowBound::kIncluded,
                    std::string_view note = {});

// A number as JavaScript's String(number) writes it: integers in full (1e12 as 1000000000000), others in their
// shortest exact form.
std::string js_number(double value);

// "out must hold exactly 512 elements, got 100": a caller's buffer of the wrong size.
Status output_size_error(std::size_t expected, std::size_t got);

// For a kernel writing a run of an output's rows: out (out_size values) must hold whole rows of row_size
// values that, from first_row on, lie within the output's total_rows rows. The names say, for the message,
// what the total is and what a row's values are: "the rows must lie within numHeads * queryLength = 30 rows
// of keyLength values".
Status check_row_run(int64_t first_row, std::size_t out_size, std::size_t row_size, std::size_t total_rows, std::string_view total_name,
                     std::string_view row_name);

// Runs checks in order and keeps the first failure.
#define POSEMBED_RETURN_IF_ERROR(expr)  \
  do {                                  \
    ::posembed::Status status_ = (expr); \
    if (!status_.ok()) return status_;  \
  } while (false)

}  // namespace posembed
