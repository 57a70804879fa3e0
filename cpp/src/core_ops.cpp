#include "posembed/core_ops.hpp"

#include <cmath>
#include <string>

namespace posembed {
namespace {

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
    return Status::range_error(std::string(op.name) + " takes " + std::to_string(op.options.size()) + " values, got " + std::to_string(values.size()));
  }
  for (std::size_t i = 0; i < values.size(); ++i) POSEMBED_RETURN_IF_ERROR(check_option(op.options[i], values[i]));
  return op.shape(values, shape);
}

Status core_op_rows(const CoreOp& op, std::span<const double> values, int64_t first_row, std::span<float> out) {
  OpShape shape;
  POSEMBED_RETURN_IF_ERROR(core_op_shape(op, values, shape));
  const auto row_elements = static_cast<std::size_t>(shape.row_elements());
  POSEMBED_RETURN_IF_ERROR(check_row_run(first_row, out.size(), row_elements, static_cast<std::size_t>(shape.rows()),
                                         std::string(op.name) + "'s result", std::to_string(row_elements)));
  return op.rows(values, first_row, out);
}

}  // namespace posembed
