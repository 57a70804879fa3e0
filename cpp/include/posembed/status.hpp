// Errors as values: the core never throws and never aborts. The bindings turn a failed Status into the
// JS error of the same kind (TypeError, RangeError, Error), so messages are written once, here.
#pragma once

#include <cstddef>
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

// "out must hold exactly 512 elements, got 100": a caller's buffer of the wrong size.
Status output_size_error(std::size_t expected, std::size_t got);

// Runs checks in order and keeps the first failure.
#define POSEMBED_RETURN_IF_ERROR(expr)  \
  do {                                  \
    ::posembed::Status status_ = (expr); \
    if (!status_.ok()) return status_;  \
  } while (false)

}  // namespace posembed
