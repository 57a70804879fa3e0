// A second copy of the kernels, compiled with SIMD off and the namespace renamed so that it links beside
// the SIMD core: the differential fuzz target's reference. Sources are included, not duplicated.
#define POSEMBED_FORCE_SCALAR
#define posembed posembed_scalar
#include "../../cpp/src/status.cpp"
#include "../../cpp/src/threads.cpp"
#include "../../cpp/src/sinusoidal.cpp"
#include "../../cpp/src/sinusoidal_rows.cpp"
#include "../../cpp/src/alibi.cpp"
#include "../../cpp/src/rope.cpp"
#include "../../cpp/src/weight_files.cpp"
#include "../../cpp/src/stored_table.cpp"
#include "../../cpp/src/similarity.cpp"
#include "../../cpp/src/covariance.cpp"
#include "../../cpp/src/eigensolvers.cpp"
#include "../../cpp/src/krylov.cpp"
#include "../../cpp/src/pca.cpp"

#include "scalar_core.hpp"

bool scalar_sinusoidal(int64_t length, int64_t d_model, double base, bool split, bool t2t, int64_t offset, float* out) {
  const posembed::SinusoidalParams p{length, d_model, base, split ? posembed::SinusoidalLayout::kSplit : posembed::SinusoidalLayout::kInterleaved,
                                     t2t ? posembed::SinusoidalTimescale::kT2T : posembed::SinusoidalTimescale::kStandard, offset};
  return posembed::sinusoidal(p, {out, static_cast<std::size_t>(length * d_model)}).ok();
}

bool scalar_alibi_bias(int64_t heads, int64_t query_length, int64_t key_length, bool causal, float* out) {
  const posembed::AlibiBiasParams p{heads, query_length, key_length, causal};
  return posembed::alibi_bias(p, {out, static_cast<std::size_t>(heads * query_length * key_length)}).ok();
}

bool scalar_apply_rope(int64_t head_dim, int64_t rotary_dim, double base, bool interleaved, const float* x, int64_t rows,
                       const int32_t* positions, std::size_t seq, float* out) {
  const posembed::RopeParams p{.head_dim = head_dim, .rotary_dim = rotary_dim, .base = base,
                               .layout = interleaved ? posembed::RopeLayout::kInterleaved : posembed::RopeLayout::kHalf};
  const std::size_t elements = static_cast<std::size_t>(rows) * seq * static_cast<std::size_t>(head_dim);
  return posembed::apply_rope(p, {x, elements}, rows, {positions, seq}, {out, elements}).ok();
}

bool scalar_similarity(const float* a, int64_t n, const float* b, int64_t m, int64_t d, bool cosine, float* out) {
  return posembed::similarity({a, static_cast<std::size_t>(n * d)}, n, {b, static_cast<std::size_t>(m * d)}, m, d,
                              cosine ? posembed::SimilarityMetric::kCosine : posembed::SimilarityMetric::kDot,
                              {out, static_cast<std::size_t>(n * m)}).ok();
}
