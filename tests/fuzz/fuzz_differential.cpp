// libFuzzer target: the SIMD kernels against the same kernels built without SIMD (scalar_core.cpp), on
// parameters decoded from the input. Both must accept or reject alike, and agree to float rounding.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "posembed/alibi.hpp"
#include "posembed/analysis.hpp"
#include "posembed/rope.hpp"
#include "posembed/sinusoidal.hpp"
#include "fuzz_input.hpp"
#include "scalar_core.hpp"

namespace {

using posembed::fuzz::Bytes;

[[noreturn]] void fail(const char* what, double difference) {
  char message[160];
  std::snprintf(message, sizeof message, "%s (difference %g)", what, difference);
  posembed::fuzz::fail("fuzz_differential", message);
}

// Both builds accept alike, and their outputs differ by at most tolerance(i) at every i.
template <class Tolerance>
void compare(const char* what, bool simd_ok, bool scalar_ok, const std::vector<float>& simd, const std::vector<float>& scalar, Tolerance tolerance) {
  if (simd_ok != scalar_ok) fail(what, NAN);
  if (!simd_ok) return;
  for (std::size_t i = 0; i < simd.size(); ++i) {
    if (simd[i] == scalar[i]) continue;
    const double difference = std::abs(static_cast<double>(simd[i]) - scalar[i]);
    if (!(difference <= tolerance(i))) fail(what, difference);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace posembed;
  Bytes in(data, size);
  const auto op = in.next<uint8_t>() % 4;
  if (op == 0) {
    const int64_t length = 1 + in.next<uint8_t>(), d = 2 * (1 + in.next<uint8_t>() % 128);
    const double base = 2.0 + std::abs(std::fmod(in.next<double>(), 1e6));
    const bool split = in.next<uint8_t>() & 1, t2t = in.next<uint8_t>() & 1;
    const int64_t offset = in.next<uint32_t>() % (int64_t{1} << 30);
    std::vector<float> a(static_cast<std::size_t>(length * d)), b(a.size());
    const bool ok = sinusoidal({length, d, base, split ? SinusoidalLayout::kSplit : SinusoidalLayout::kInterleaved,
                                t2t ? SinusoidalTimescale::kT2T : SinusoidalTimescale::kStandard, offset}, a).ok();
    compare("sinusoidal", ok, scalar_sinusoidal(length, d, base, split, t2t, offset, b.data()), a, b, [](std::size_t) { return 1e-6; });
  } else if (op == 1) {
    const int64_t heads = 1 + in.next<uint8_t>() % 64, keys = 1 + in.next<uint8_t>(), queries = 1 + in.next<uint8_t>() % keys;
    const bool causal = in.next<uint8_t>() & 1;
    std::vector<float> a(static_cast<std::size_t>(heads * queries * keys)), b(a.size());
    const bool ok = alibi_bias({heads, queries, keys, causal}, a).ok();
    compare("alibi_bias", ok, scalar_alibi_bias(heads, queries, keys, causal, b.data()), a, b, [&](std::size_t i) { return 1e-6 * std::abs(b[i]); });
  } else if (op == 2) {
    const int64_t head_dim = 2 * (1 + in.next<uint8_t>() % 64);
    const int64_t rotary = 2 * (1 + in.next<uint8_t>() % (head_dim / 2));
    const double base = 2.0 + std::abs(std::fmod(in.next<double>(), 1e6));
    const bool interleaved = in.next<uint8_t>() & 1;
    std::vector<int32_t> positions(1 + in.next<uint8_t>() % 16);
    for (auto& p : positions) p = static_cast<int32_t>(in.next<uint32_t>() % (1u << 30));
    const int64_t rows = 1 + in.next<uint8_t>() % 4;
    std::vector<float> x(static_cast<std::size_t>(rows) * positions.size() * static_cast<std::size_t>(head_dim));
    for (auto& v : x) v = static_cast<float>(in.next<int8_t>()) / 128.0f;
    std::vector<float> a(x.size()), b(x.size());
    const RopeParams params{.head_dim = head_dim, .rotary_dim = rotary, .base = base, .layout = interleaved ? RopeLayout::kInterleaved : RopeLayout::kHalf};
    const bool ok = apply_rope(params, x, rows, positions, a).ok();
    compare("apply_rope", ok, scalar_apply_rope(head_dim, rotary, base, interleaved, x.data(), rows, positions.data(), positions.size(), b.data()), a, b,
            [](std::size_t) { return 4e-6; });
  } else {
    const int64_t n = 1 + in.next<uint8_t>() % 40, m = 1 + in.next<uint8_t>() % 40, d = 1 + in.next<uint8_t>() % 96;
    const bool cosine = in.next<uint8_t>() & 1;
    std::vector<float> x(static_cast<std::size_t>((n + m) * d));
    for (auto& v : x) v = static_cast<float>(in.next<int8_t>()) / 32.0f;
    std::vector<float> a(static_cast<std::size_t>(n * m)), b(a.size());
    const std::span<const float> left(x.data(), static_cast<std::size_t>(n * d)), right(x.data() + n * d, static_cast<std::size_t>(m * d));
    const bool ok = similarity(left, n, right, m, d, cosine ? SimilarityMetric::kCosine : SimilarityMetric::kDot, a).ok();
    // Sums of d products of values up to 4 in magnitude, accumulated in different orders.
    compare("similarity", ok, scalar_similarity(left.data(), n, right.data(), m, d, cosine, b.data()), a, b,
            [&](std::size_t) { return cosine ? 1e-5 : 1e-6 * 16.0 * static_cast<double>(d); });
  }
  return 0;
}
