// The core's table of ops stated whole in C++: each op's options (numbers, with their ranges and defaults), the
// shape of its result (float32 or int32) and a kernel that writes any run of its rows. The bindings run every op of the table through
// one pair of functions, and the package makes the op's method, messages, declarations and GPU form from the table,
// so an op of this kind is four files: its header (the parameters C++ callers pass, and its entry's declaration),
// its source (the kernel and its entry), its Catch2 file and its WGSL kernel. The build lists the entries: every
// `const CoreOp kNameOp{` that opens a line of a source of cpp/src joins the table (generated core_op_table.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "posembed/status.hpp"

namespace posembed {

enum class OptionKind { kInteger, kNumber, kBoolean };

struct OpOption {
  std::string_view name;  // as the package spells it (camelCase): dModel, numHeads
  OptionKind kind = OptionKind::kInteger;
  double min = 0;  // the range, both ends included and finite (a boolean has none: false or true, 0 or 1)
  double max = 0;
  double default_value = kRequired;  // kRequired: the caller must give it
  std::string_view doc;              // a line for the declarations and the README
  bool positional = false;           // the method's first argument rather than an option (alibiSlopes(numHeads))
  std::string_view attribute{};      // its name as elements' attributes and command-line flags spell it, where that is
                                     // not the kebab-case of name (numBuckets: buckets)

  static constexpr double kRequired = -0x1p1023;
  bool required() const { return default_value == kRequired; }
};

// The result: rank dims (a row is the last dimension's values), and the size of the op's input table.
struct OpShape {
  std::array<int64_t, 4> dims{};
  int rank = 0;
  int64_t input_elements = 0;  // 0: the op reads no input table (see CoreOp::input)
  int64_t rows() const;
  int64_t row_elements() const { return rank == 0 ? 1 : dims[static_cast<std::size_t>(rank - 1)]; }
};

// An op's values come in the order of its options, each already in its range (core_op_shape checks them).
struct CoreOp {
  std::string_view name;  // the package's method: alibiSlopes
  std::string_view doc;   // what it returns, with its shape
  std::span<const OpOption> options;
  // The checks that join options, then the result's shape.
  Status (*shape)(std::span<const double> values, OpShape& shape);
  // A table every row reads, computed from the values once for a call (shape.input_elements values; sincos2d's
  // 1-D encoding): the runner passes it to every run of rows, and the GPU form uploads it for the WGSL kernel,
  // which reads it as `input`, so that a value the GPU's float32 maths would not give exactly comes from the core.
  // nullptr: none.
  Status (*input)(std::span<const double> values, std::span<float> out) = nullptr;
  // Rows first_row .. first_row + out.size() / row_elements of the result (input: the table above, or empty): a
  // float32 result's kernel, or an int32 result's (T5's buckets). An op gives one of the two.
  Status (*rows)(std::span<const double> values, std::span<const float> input, int64_t first_row, std::span<float> out) = nullptr;
  Status (*int_rows)(std::span<const double> values, std::span<const float> input, int64_t first_row, std::span<int32_t> out) = nullptr;

  bool int_result() const { return int_rows != nullptr; }
};

// Every op of the table, in the order of their sources' names; core_op_named: nullptr for a name it does not hold.
// (The entries' declarations in the ops' headers, `extern const CoreOp kNameOp;`, give them the external linkage the
// generated table needs: a namespace-scope const is otherwise private to its source.)
std::span<const CoreOp* const> core_ops();
const CoreOp* core_op_named(std::string_view name);

// Values checked against the op's options ("numHeads must be an integer in [1, 4096], got 0"; NaN and infinities
// refused), then against each other; the result's shape (1 to 4 dimensions, none empty, at most 2^53 elements).
Status core_op_shape(const CoreOp& op, std::span<const double> values, OpShape& shape);
// The checks, then the op's input table into out (exactly shape.input_elements values).
Status core_op_input(const CoreOp& op, std::span<const double> values, std::span<float> out);
// The checks, then rows first_row .. of the result into out (whole rows within the result), given the op's input
// table (from core_op_input; empty for an op that reads none).
Status core_op_rows(const CoreOp& op, std::span<const double> values, std::span<const float> input, int64_t first_row, std::span<float> out);
// The same for an op with an int32 result (each refuses an op whose result is of the other type).
Status core_op_rows(const CoreOp& op, std::span<const double> values, std::span<const float> input, int64_t first_row, std::span<int32_t> out);

}  // namespace posembed
