#include "posembed/core_ops.hpp"

#include <cmath>
#include <string>

namespace posembed {
namespace {

constexpr double kMaxElements = 0x1p53;

// "numHeads must be an integer in [1, 4096], got 2.5": the package's words for the same check.
Status check_option(const OpOption& option, double value) {
  const bool in_range = value >= option.min && value <= option.max;  // false for NaN
  switch (option.kind) {
    case OptionKind::kBoolean:
      if (value == 0 || value == 1) return {};
      return Status::type_error(std::string(option.name) + " must be true or false, got " + js_number(value));
    case OptionKind::kInteger:
      if (in_range && value == std::floor(value)) return {};
      return Status::range_error(std::string(option.name) + " must be an integer in [" + js_number(option.min) + ", " + js_number(option.max) +
                                 "], got " + js_number(value));
    case OptionKind::kNumber:
      if (in_range) return {};
      return Status::range_error(std::string(option.name) + " must be a number in [" + js_number(option.min) + ", " + js_number(option.max) +
                                 "], got " + js_number(value));
  }
  return {};
}

Status input_size_error(const CoreOp& op, const OpShape& shape, std::size_t given) {
  return Status::range_error(std::string(op.name) + "'s input table holds " + std::to_string(shape.input_elements) + " values for these options, got " +
                             std::to_string(given));
}

// The checks of a run of rows of a result whose elements are int32 (or float32: int_result false).
Status check_rows(const CoreOp& op, std::span<const double> values, std::span<const float> input, int64_t first_row, std::size_t out_size,
                  bool int_result) {
  if (op.int_result() != int_result) {
    return Status::type_error(std::string(op.name) + "'s result is " + (op.int_result() ? "int32" : "float32") + ", not " + (int_result ? "int32" : "float32"));
  }
  OpShape shape;
  POSEMBED_RETURN_IF_ERROR(core_op_shape(op, values, shape));
  if (static_cast<int64_t>(input.size()) != shape.input_elements) return input_size_error(op, shape, input.size());
  const auto row_elements = static_cast<std::size_t>(shape.row_elements());
  const auto rows = static_cast<std::size_t>(shape.rows());
  if (first_row < 0 || out_size % row_elements != 0 || static_cast<std::size_t>(first_row) + out_size / row_elements > rows) {
    return Status::range_error("the rows written must lie within " + std::string(op.name) + "'s " + std::to_string(rows) + " rows of " +
                               std::to_string(row_elements) + " values: first row " + std::to_string(first_row) + ", " +
                               std::to_string(out_size) + " values");
  }
  return {};
}

}  // namespace

int64_t OpShape::rows() const {
  int64_t rows = 1;
  for (int d = 0; d + 1 < rank; ++d) rows *= dims[static_cast<std::size_t>(d)];
  return rows;
}

const CoreOp* core_op_named(std::string_view name) {
  for (const CoreOp* op : core_ops()) {
    if (op->name == name) return op;
  }
  return nullptr;
}

Status core_op_shape(const CoreOp& op, std::span<const double> values, OpShape& shape) {
  if (values.size() != op.options.size()) {
    return Status::range_error(std::string(op.name) + " takes a value for each of its " + std::to_string(op.options.size()) + " options, got " +
                               std::to_string(values.size()));
  }
  for (std::size_t i = 0; i < values.size(); ++i) POSEMBED_RETURN_IF_ERROR(check_option(op.options[i], values[i]));
  POSEMBED_RETURN_IF_ERROR(op.shape(values, shape));
  // The op's own shape, held to what every caller assumes: 1 to 4 dimensions, none empty, a count of elements a
  // double holds exactly (the package's arrays could never be larger).
  bool sound = shape.rank >= 1 && shape.rank <= 4;
  double elements = 1;
  for (int d = 0; sound && d < shape.rank; ++d) {
    const auto dim = static_cast<double>(shape.dims[static_cast<std::size_t>(d)]);
    sound = dim >= 1 && dim <= kMaxElements / elements;
    elements *= dim;
  }
  if (!sound) return Status::range_error(std::string(op.name) + "'s result must have 1 to 4 dimensions of at least 1 and at most 2^53 elements");
  if (shape.input_elements < 0 || static_cast<double>(shape.input_elements) > kMaxElements || (shape.input_elements > 0) != (op.input != nullptr)) {
    return Status::range_error(std::string(op.name) + "'s input table must have 0 to 2^53 values, and values exactly when the op has an input");
  }
  return {};
}

Status core_op_input(const CoreOp& op, std::span<const double> values, std::span<float> out) {
  OpShape shape;
  POSEMBED_RETURN_IF_ERROR(core_op_shape(op, values, shape));
  if (static_cast<int64_t>(out.size()) != shape.input_elements) return input_size_error(op, shape, out.size());
  return shape.input_elements == 0 ? Status{} : op.input(values, out);
}

Status core_op_rows(const CoreOp& op, std::span<const double> values, std::span<const float> input, int64_t first_row, std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(check_rows(op, values, input, first_row, out.size(), false));
  return op.rows(values, input, first_row, out);
}

Status core_op_rows(const CoreOp& op, std::span<const double> values, std::span<const float> input, int64_t first_row, std::span<int32_t> out) {
  POSEMBED_RETURN_IF_ERROR(check_rows(op, values, input, first_row, out.size(), true));
  return op.int_rows(values, input, first_row, out);
}

}  // namespace posembed
