// libFuzzer target: parameters decoded from the input bytes, through validation and the kernels. Every call
// either fails validation or writes exactly its output; sinusoidal values stay within 2e-6 of exact,
// T5 buckets in range and runs of the bucket matrix and the bias equal to the whole, rotated values finite.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "posembed/alibi.hpp"
#include "posembed/rope.hpp"
#include "posembed/sinusoidal.hpp"
#include "posembed/t5.hpp"
#include "fuzz_input.hpp"

namespace {

using posembed::fuzz::Bytes;

constexpr std::size_t kMaxOutput = std::size_t{1} << 18;

[[noreturn]] void fail(const char* what) { posembed::fuzz::fail("fuzz_kernels", what); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace posembed;
  Bytes in(data, size);
  const auto op = in.next<uint8_t>() % 4;
  if (op == 0) {
    SinusoidalParams p{.length = in.next<int16_t>(), .d_model = in.next<int16_t>(), .base = in.next<double>(),
                       .layout = in.next<uint8_t>() % 2 ? SinusoidalLayout::kSplit : SinusoidalLayout::kInterleaved,
                       .timescale = in.next<uint8_t>() % 2 ? SinusoidalTimescale::kT2T : SinusoidalTimescale::kStandard, .offset = in.next<int32_t>()};
    if (!validate(p).ok() || static_cast<std::size_t>(p.length * p.d_model) > kMaxOutput) return 0;
    std::vector<float> out(static_cast<std::size_t>(p.length * p.d_model), 9.0f);
    if (!sinusoidal(p, out).ok()) fail("sinusoidal rejected validated parameters");
    // Every value within 2e-6 of the exact sine or cosine (the kernel's bound; a few float rotations from an
    // anchor may carry one a few ulps past 1), checked on up to 4096 of them against long double.
    const auto d = static_cast<std::size_t>(p.d_model);
    const std::size_t half = d / 2;
    const std::size_t sample_step = std::max<std::size_t>(1, out.size() / 4096);
    for (std::size_t at = 0; at < out.size(); at += sample_step) {
      const std::size_t column = at % d;
      const bool sine = p.layout == SinusoidalLayout::kSplit ? column < half : column % 2 == 0;
      const std::size_t pair = p.layout == SinusoidalLayout::kSplit ? column % half : column / 2;
      const long double angle = static_cast<long double>(p.offset + static_cast<int64_t>(at / d)) * sinusoidal_frequency(p, static_cast<int64_t>(pair));
      const long double exact = sine ? std::sin(angle) : std::cos(angle);
      if (!(std::abs(out[at] - exact) <= 2e-6L)) fail("a sinusoidal value more than 2e-6 from the exact one");
    }
    // Through a block, the same table bit for bit, each row handed over once, in order.
    std::vector<float> block(static_cast<std::size_t>(kSinusoidalBlockRows * (1 + in.next<uint8_t>() % 3) * p.d_model));
    int64_t next = 0;
    const Status blocks = sinusoidal_blocks(p, block, [&](int64_t first, int64_t rows) {
      if (first != next || rows < 1) fail("sinusoidal_blocks handed over rows out of order");
      if (!std::equal(block.begin(), block.begin() + rows * p.d_model, out.begin() + first * p.d_model)) fail("sinusoidal_blocks differs from sinusoidal");
      next = first + rows;
    });
    if (!blocks.ok() || next != p.length) fail("sinusoidal_blocks did not write the whole table");
  } else if (op == 1) {
    const AlibiBiasParams p{in.next<int8_t>(), in.next<int16_t>(), in.next<int16_t>(), (in.next<uint8_t>() & 1) != 0};
    if (!validate(p).ok() || static_cast<std::size_t>(p.num_heads * p.query_length * p.key_length) > kMaxOutput) return 0;
    std::vector<float> out(static_cast<std::size_t>(p.num_heads * p.query_length * p.key_length));
    if (!alibi_bias(p, out).ok()) fail("alibi_bias rejected validated parameters");
    // Any run of rows: the same values, or an error when the run leaves the bias.
    const int64_t rows = p.num_heads * p.query_length;
    const int64_t first = static_cast<int64_t>(in.next<uint16_t>() % (rows + 2)) - 1;
    const int64_t count = in.next<uint8_t>() % 8;
    std::vector<float> run(static_cast<std::size_t>(count * p.key_length));
    const bool inside = first >= 0 && first + count <= rows;
    if (alibi_bias_rows(p, first, run).ok() != inside) fail("alibi_bias_rows accepted a run outside the bias, or refused one inside");
    if (inside && !std::equal(run.begin(), run.end(), out.begin() + first * p.key_length)) fail("alibi_bias_rows differs from alibi_bias");
  } else if (op == 2) {
    const T5BucketParams p{in.next<int16_t>(), in.next<int32_t>(), (in.next<uint8_t>() & 1) != 0};
    if (!validate(p).ok()) return 0;
    std::vector<int32_t> relative(64);
    for (auto& r : relative) r = in.next<int32_t>();
    std::vector<int32_t> out(relative.size());
    if (!t5_buckets(p, relative, out).ok()) fail("t5_buckets rejected validated parameters");
    for (int32_t b : out) if (b < 0 || b >= p.num_buckets) fail("a T5 bucket out of range");
    // The bias: any run of rows from the relative buckets equals the whole, unless the run leaves the bias or a
    // bucket (perhaps corrupted here) leaves the table, which must be refused.
    const int64_t heads = 1 + in.next<uint8_t>() % 4, q = 1 + in.next<uint8_t>() % 32, k = 1 + in.next<uint8_t>() % 32;
    std::vector<float> table(static_cast<std::size_t>(p.num_buckets * heads));
    for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<float>(i);
    std::vector<float> bias(static_cast<std::size_t>(heads * q * k));
    if (!t5_bias(p, table, heads, q, k, bias).ok()) fail("t5_bias rejected validated parameters");
    std::vector<int32_t> by_relative(static_cast<std::size_t>(q + k - 1));
    for (std::size_t r = 0; r < by_relative.size(); ++r) by_relative[r] = t5_bucket(p, static_cast<int64_t>(r) - (q - 1));
    // The bucket matrix: any run of its rows written from the relative buckets equals it whole, and a run
    // leaving it is refused.
    std::vector<int32_t> matrix(static_cast<std::size_t>(q * k));
    if (!t5_bucket_matrix(p, q, k, matrix).ok()) fail("t5_bucket_matrix rejected validated parameters");
    const int64_t first_query = static_cast<int64_t>(in.next<uint8_t>() % (q + 2)) - 1;
    std::vector<int32_t> matrix_run(static_cast<std::size_t>((in.next<uint8_t>() % 8) * k));
    const bool run_inside = first_query >= 0 && first_query + static_cast<int64_t>(matrix_run.size()) / k <= q;
    if (t5_bucket_matrix_rows(q, k, by_relative, first_query, matrix_run).ok() != run_inside) fail("t5_bucket_matrix_rows accepted a run outside the matrix, or refused one inside");
    if (run_inside && !std::equal(matrix_run.begin(), matrix_run.end(), matrix.begin() + first_query * k)) fail("t5_bucket_matrix_rows differs from t5_bucket_matrix");
    const std::size_t corrupted = in.next<uint8_t>() % by_relative.size();
    if (in.next<uint8_t>() % 2) by_relative[corrupted] = in.next<int32_t>();
    const bool buckets_valid = std::all_of(by_relative.begin(), by_relative.end(), [&](int32_t b) { return b >= 0 && b < p.num_buckets; });
    const int64_t rows = heads * q;
    const int64_t first = static_cast<int64_t>(in.next<uint8_t>() % (rows + 2)) - 1;
    const int64_t count = in.next<uint8_t>() % 8;
    std::vector<float> run(static_cast<std::size_t>(count * k));
    const bool inside = first >= 0 && first + count <= rows;
    const bool accepted = t5_bias_rows(table, p.num_buckets, heads, q, k, by_relative, first, run).ok();
    if (accepted != (inside && buckets_valid)) fail("t5_bias_rows accepted a bad run or bucket, or refused a good one");
    if (accepted) {
      for (std::size_t r = 0; r < by_relative.size(); ++r) if (by_relative[r] != t5_bucket(p, static_cast<int64_t>(r) - (q - 1))) return 0;
      if (!std::equal(run.begin(), run.end(), bias.begin() + first * k)) fail("t5_bias_rows differs from t5_bias");
    }
  } else {
    RopeParams p{.head_dim = in.next<uint8_t>(), .rotary_dim = in.next<uint8_t>(), .base = in.next<double>(),
                 .layout = in.next<uint8_t>() % 2 ? RopeLayout::kInterleaved : RopeLayout::kHalf};
    p.scaling.type = rope_rules()[in.next<uint8_t>() % rope_rules().size()].name;  // every rule of the table
    p.scaling.factor = in.next<double>();
    p.scaling.original_max_positions = in.next<int32_t>();
    p.scaling.sequence_length = in.next<int32_t>();
    p.scaling.mscale = in.next<double>();
    p.scaling.mscale_all_dim = in.next<double>();
    p.scaling.truncate = in.next<uint8_t>() % 2 == 0;
    p.scaling.rotated_pairs = in.next<uint8_t>();
    std::vector<int32_t> positions(1 + in.next<uint8_t>() % 8);
    for (auto& position : positions) position = in.next<int32_t>();
    std::vector<float> x(positions.size() * p.head_dim, 0.5f), out(x.size());
    const Status status = apply_rope(p, x, 1, positions, out);
    if (status.ok()) for (float v : out) if (!std::isfinite(v)) fail("a non-finite rotated value from accepted parameters");
  }
  return 0;
}
