#include "posembed/core_ops.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "posembed/alibi.hpp"
#include "posembed/sincos2d.hpp"
#include "posembed/t5.hpp"
#include "vectors.hpp"  // Catch2, as every test file has it

namespace posembed {
namespace {

// Each option at the low end of its range (false for a boolean): values every op must accept.
std::vector<double> lowest_values(const CoreOp& op) {
  std::vector<double> values;
  for (const OpOption& option : op.options) values.push_back(option.kind == OptionKind::kBoolean ? 0 : option.min);
  return values;
}

TEST_CASE("the core's table of ops: names unique, ranges and defaults that hold", "[core_ops]") {
  REQUIRE_FALSE(core_ops().empty());
  std::set<std::string_view> names;
  for (const CoreOp* op : core_ops()) {
    INFO(op->name);
    CHECK(names.insert(op->name).second);
    CHECK(core_op_named(op->name) == op);
    CHECK_FALSE(op->doc.empty());
    CHECK((op->rows == nullptr) != (op->int_rows == nullptr));  // one kernel: a float32 or an int32 result
    bool named_seen = false;
    for (const OpOption& option : op->options) {
      INFO(option.name);
      CHECK_FALSE(option.doc.empty());
      if (option.kind == OptionKind::kBoolean) {
        if (!option.required()) CHECK((option.default_value == 0 || option.default_value == 1));
      } else {
        // Finite bounds (the package writes them as JSON, which has no Infinity) and a default between them.
        CHECK((std::isfinite(option.min) && std::isfinite(option.max) && option.min <= option.max));
        if (!option.required()) CHECK((option.default_value >= option.min && option.default_value <= option.max));
      }
      // The positional options come first: the method's arguments, then its options object.
      if (!option.positional) named_seen = true;
      CHECK_FALSE((option.positional && named_seen));
    }
    OpShape shape;
    REQUIRE(core_op_shape(*op, lowest_values(*op), shape).ok());
    CHECK((shape.rank >= 1 && shape.rank <= 4));
  }
  CHECK(core_op_named("noSuchOp") == nullptr);
}

TEST_CASE("the table's checks: every option's range, NaN, the count of values and the rows asked for", "[core_ops]") {
  const CoreOp& op = kAlibiSlopesOp;
  OpShape shape;
  CHECK(core_op_shape(op, std::vector<double>{0}, shape).message() == "numHeads must be an integer in [1, 4096], got 0");
  CHECK(core_op_shape(op, std::vector<double>{4097}, shape).message() == "numHeads must be an integer in [1, 4096], got 4097");
  CHECK(core_op_shape(op, std::vector<double>{2.5}, shape).message() == "numHeads must be an integer in [1, 4096], got 2.5");
  CHECK(core_op_shape(op, std::vector<double>{std::nan("")}, shape).message() == "numHeads must be an integer in [1, 4096], got NaN");
  CHECK(core_op_shape(op, std::vector<double>{std::numeric_limits<double>::infinity()}, shape).message() ==
        "numHeads must be an integer in [1, 4096], got Infinity");
  CHECK(core_op_shape(op, std::vector<double>{}, shape).message() == "alibiSlopes takes a value for each of its 1 options, got 0");
  REQUIRE(core_op_shape(op, std::vector<double>{12}, shape).ok());
  CHECK(shape.rank == 1);
  CHECK(shape.dims[0] == 12);
  CHECK(shape.rows() == 1);
  CHECK(shape.row_elements() == 12);
  std::vector<float> out(12);
  CHECK(core_op_rows(op, std::vector<double>{12}, {}, 1, out).message() == "the rows written must lie within alibiSlopes's 1 rows of 12 values: first row 1, 12 values");
  std::vector<float> short_out(11);
  CHECK(core_op_rows(op, std::vector<double>{12}, {}, 0, short_out).message() ==
        "the rows written must lie within alibiSlopes's 1 rows of 12 values: first row 0, 11 values");
}

// An op whose shape function gives the shape `given` (none of the table's would): held to 1 to 4 dimensions, none
// empty, at most 2^53 elements, before any kernel runs.
Status shape_of(OpShape given) {
  static OpShape returned;
  returned = given;
  static constexpr std::array<OpOption, 0> kNoOptions{};
  const CoreOp op{.name = "unsound", .doc = "a test's", .options = kNoOptions,
                  .shape = [](std::span<const double>, OpShape& shape) { shape = returned; return Status{}; },
                  .rows = [](std::span<const double>, std::span<const float>, int64_t, std::span<float>) { return Status{}; }};
  OpShape shape;
  return core_op_shape(op, {}, shape);
}

TEST_CASE("an op's result is held to a sound shape", "[core_ops]") {
  const std::string refused = "unsound's result must have 1 to 4 dimensions of at least 1 and at most 2^53 elements";
  CHECK(shape_of({.dims = {}, .rank = 0}).message() == refused);
  CHECK(shape_of({.dims = {2, 0}, .rank = 2}).message() == refused);
  CHECK(shape_of({.dims = {1, 2, 3, 4}, .rank = 5}).message() == refused);
  CHECK(shape_of({.dims = {int64_t{1} << 30, int64_t{1} << 30, 1 << 20}, .rank = 3}).message() == refused);
  CHECK(shape_of({.dims = {int64_t{1} << 62, int64_t{1} << 62}, .rank = 2}).message() == refused);
  CHECK(shape_of({.dims = {int64_t{1} << 26, int64_t{1} << 27}, .rank = 2}).ok());
  // An input table's size without the function that writes it.
  CHECK(shape_of({.dims = {2}, .rank = 1, .input_elements = 3}).message() ==
        "unsound's input table must have 0 to 2^53 values, and values exactly when the op has an input");
}

TEST_CASE("alibiSlopes through the table is alibi_slopes (tested against the golden vectors in test_alibi.cpp)", "[core_ops]") {
  for (int64_t heads = 1; heads <= 256; ++heads) {
    std::vector<float> through_table(static_cast<std::size_t>(heads)), direct(static_cast<std::size_t>(heads));
    REQUIRE(core_op_rows(kAlibiSlopesOp, std::vector<double>{static_cast<double>(heads)}, {}, 0, through_table).ok());
    REQUIRE(alibi_slopes(heads, direct).ok());
    REQUIRE(through_table == direct);
  }
}

TEST_CASE("an op with an input table: the table computed once, every run of rows given it, its size held", "[core_ops]") {
  const CoreOp& op = kSincos2dOp;
  for (const auto& [grid_h, grid_w, d_model, cls_token] : {std::tuple{3, 5, 8, 1}, std::tuple{7, 2, 12, 0}, std::tuple{1, 1, 4, 1}}) {
    const std::vector<double> values{static_cast<double>(grid_h), static_cast<double>(grid_w), static_cast<double>(d_model), 10000, static_cast<double>(cls_token)};
    INFO(grid_h << " x " << grid_w << ", dModel " << d_model << ", clsToken " << cls_token);
    OpShape shape;
    REQUIRE(core_op_shape(op, values, shape).ok());
    REQUIRE(shape.input_elements == std::max(grid_h, grid_w) * d_model / 2);
    std::vector<float> table(static_cast<std::size_t>(shape.input_elements));
    REQUIRE(core_op_input(op, values, table).ok());
    // Written a row, then two, then the rest at a time, through the table: sincos2d written whole.
    std::vector<float> through_table(static_cast<std::size_t>(shape.rows() * d_model));
    std::vector<float> direct(through_table.size());
    REQUIRE(sincos2d({grid_h, grid_w, d_model, 10000, cls_token != 0}, direct).ok());
    for (int64_t first = 0, count = 1; first < shape.rows(); first += count, ++count) {
      count = std::min(count, shape.rows() - first);
      const std::span<float> run = std::span<float>(through_table).subspan(static_cast<std::size_t>(first * d_model), static_cast<std::size_t>(count * d_model));
      REQUIRE(core_op_rows(op, values, table, first, run).ok());
    }
    CHECK(through_table == direct);
  }
  const std::vector<double> values{2, 3, 8, 10000, 0};
  std::vector<float> table(11), out(8);
  CHECK(core_op_input(op, values, table).message() == "sincos2d's input table holds 12 values for these options, got 11");
  CHECK(core_op_rows(op, values, table, 0, out).message() == "sincos2d's input table holds 12 values for these options, got 11");
  OpShape refused;
  CHECK(core_op_shape(op, std::vector<double>{2, 3, 6, 10000, 0}, refused).message() == "dModel must be a multiple of 4 in [4, 65536], got 6");
  // An op without an input takes an empty one.
  std::vector<float> slopes(4);
  CHECK(core_op_input(kAlibiSlopesOp, std::vector<double>{4}, {}).ok());
  CHECK(core_op_rows(kAlibiSlopesOp, std::vector<double>{4}, table, 0, slopes).message() == "alibiSlopes's input table holds 0 values for these options, got 11");
}

TEST_CASE("an op with an int32 result: t5Buckets through the table is t5_bucket_matrix, in runs of rows", "[core_ops]") {
  const CoreOp& op = kT5BucketsOp;
  for (const auto& [query_length, key_length, num_buckets, max_distance, bidirectional] :
       {std::tuple{5, 9, 32, 128, 1}, std::tuple{40, 3, 8, 20, 0}, std::tuple{1, 1, 2, 2, 0}, std::tuple{300, 300, 32, 128, 1}}) {
    const std::vector<double> values{static_cast<double>(query_length), static_cast<double>(key_length), static_cast<double>(num_buckets),
                                     static_cast<double>(max_distance), static_cast<double>(bidirectional)};
    INFO(query_length << " x " << key_length << ", " << num_buckets << " buckets to " << max_distance << ", bidirectional " << bidirectional);
    OpShape shape;
    REQUIRE(core_op_shape(op, values, shape).ok());
    std::vector<float> buckets(static_cast<std::size_t>(shape.input_elements));
    REQUIRE(core_op_input(op, values, buckets).ok());
    std::vector<int32_t> through_table(static_cast<std::size_t>(query_length * key_length));
    std::vector<int32_t> direct(through_table.size());
    REQUIRE(t5_bucket_matrix({num_buckets, max_distance, bidirectional != 0}, query_length, key_length, direct).ok());
    for (int64_t first = 0, count = 1; first < query_length; first += count, count *= 2) {
      count = std::min<int64_t>(count, query_length - first);
      const auto run = std::span<int32_t>(through_table).subspan(static_cast<std::size_t>(first * key_length), static_cast<std::size_t>(count * key_length));
      REQUIRE(core_op_rows(op, values, buckets, first, run).ok());
    }
    CHECK(through_table == direct);
  }
  // The joined checks, and each result written only as its type.
  OpShape shape;
  CHECK(core_op_shape(op, std::vector<double>{2, 2, 2, 128, 1}, shape).message() == "numBuckets must be an integer in [4, 65536] (bidirectional), got 2");
  std::vector<float> buckets(3), floats(4);
  std::vector<int32_t> ints(4);
  const std::vector<double> values{2, 2, 32, 128, 1};
  REQUIRE(core_op_input(op, values, buckets).ok());
  CHECK(core_op_rows(op, values, buckets, 0, floats).message() == "t5Buckets's result is int32, not float32");
  CHECK(core_op_rows(kSincos2dOp, std::vector<double>{1, 1, 4, 10000, 0}, std::vector<float>(2), 0, ints).message() ==
        "sincos2d's result is float32, not int32");
}

}  // namespace
}  // namespace posembed
