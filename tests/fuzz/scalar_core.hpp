// The kernels of a second copy of the core, built without SIMD (scalar_core.cpp), behind plain functions:
// what the differential fuzz target compares the SIMD build with. Each returns whether the call succeeded.
#pragma once

#include <cstddef>
#include <cstdint>

bool scalar_sinusoidal(int64_t length, int64_t d_model, double base, bool split, bool t2t, int64_t offset, float* out);
bool scalar_alibi_bias(int64_t heads, int64_t query_length, int64_t key_length, bool causal, float* out);
bool scalar_apply_rope(int64_t head_dim, int64_t rotary_dim, double base, bool interleaved, const float* x, int64_t rows,
                       const int32_t* positions, std::size_t seq, float* out);
bool scalar_similarity(const float* a, int64_t n, const float* b, int64_t m, int64_t d, bool cosine, float* out);
