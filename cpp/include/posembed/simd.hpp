// The one place that knows how SIMD is reached. Kernels are written once as generic lambdas over a value
// type V, which is xsimd::batch<float> for the body of a loop and plain float for its tail (and for the
// whole loop in builds without SIMD, such as the wasm scalar module).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <xsimd/xsimd.hpp>

// POSEMBED_FORCE_SCALAR turns SIMD off in a build that has it (the differential fuzz target compares both).
#if !defined(XSIMD_NO_SUPPORTED_ARCHITECTURE) && !defined(POSEMBED_FORCE_SCALAR)
#define POSEMBED_HAS_SIMD 1
#endif

namespace posembed::simd {

#ifndef POSEMBED_HAS_SIMD
using Widest = float;
using WidestDouble = double;
inline constexpr std::size_t kFloatLanes = 1;
#else
using FloatBatch = xsimd::batch<float>;
using DoubleBatch = xsimd::batch<double>;
using Widest = FloatBatch;  // the widest float vector of the build: a batch, or float without SIMD
using WidestDouble = DoubleBatch;
inline constexpr std::size_t kFloatLanes = FloatBatch::size;
#endif

// Calls step.template operator()<V>(i) for i = 0, W, 2W, ... with V the batch of W values of type T, then for
// each remaining i with V = T.
template <class T, class Step>
void for_each(std::size_t n, Step&& step) {
  std::size_t i = 0;
#ifdef POSEMBED_HAS_SIMD
  using Batch = xsimd::batch<T>;
  for (; i + Batch::size <= n; i += Batch::size) step.template operator()<Batch>(i);
#endif
  for (; i < n; ++i) step.template operator()<T>(i);
}

template <class Step>
void for_each_float(std::size_t n, Step&& step) {
  for_each<float>(n, std::forward<Step>(step));
}

template <class V, class T>
V load(const T* p) {
  if constexpr (std::is_arithmetic_v<V>) {
    return *p;
  } else {
    return V::load_unaligned(p);
  }
}

// V's width of floats from p, widened exactly to doubles (V a double batch, or double). xsimd 8 widens a load
// value by value; these are the instructions made for it (wasm: f64x2.promote_low_f32x4).
template <class V>
V load_widened(const float* p) {
  if constexpr (std::is_arithmetic_v<V>) {
    return static_cast<double>(*p);
  } else {
#if XSIMD_WITH_AVX
    if constexpr (V::size == 4) return V(_mm256_cvtps_pd(_mm_loadu_ps(p)));
#endif
#if XSIMD_WITH_SSE2
    if constexpr (V::size == 2) return V(_mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)))));
#endif
    return V::load_unaligned(p);
  }
}

template <class T, class V>
void store(T* p, const V& v) {
  if constexpr (std::is_arithmetic_v<V>) {
    *p = v;
  } else {
    v.store_unaligned(p);
  }
}

// (start, start + 1, ..., start + W - 1).
inline constexpr float kLaneOffsets[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
template <class V>
V iota(float start) {
  if constexpr (std::is_same_v<V, float>) {
    return start;
  } else {
    static_assert(V::size <= 16);
    return V(start) + V::load_unaligned(kLaneOffsets);
  }
}

// a * b + c; fused where the target has FMA. Scalar floats use plain arithmetic: std::fma is a slow
// library call on targets without the instruction (wasm).
template <class V>
V mul_add(const V& a, const V& b, const V& c) {
  if constexpr (std::is_same_v<V, float>) {
    return a * b + c;
  } else {
    return xsimd::fma(a, b, c);
  }
}

// v, lane by lane, kept within [min(a, b), max(a, b)].
template <class V>
V clamp_between(const V& v, const V& a, const V& b) {
  return xsimd::min(xsimd::max(v, xsimd::min(a, b)), xsimd::max(a, b));
}

// Calls batch_step.template operator()<V>(i) for i = 0, W, 2W, ... while a whole batch of W fits below n, then
// tail_step(i) for the rest, kTailStride apart. For kernels whose lanes need their pair's other lane: over n
// floats with a tail per pair (kTailStride 2; W is even), or over n pairs with a batch step that covers W
// pairs (2W floats) and a tail per pair (kTailStride 1).
template <std::size_t kTailStride, class BatchStep, class TailStep>
void for_each_batch(std::size_t n, [[maybe_unused]] BatchStep&& batch_step, TailStep&& tail_step) {
  std::size_t i = 0;
#ifdef POSEMBED_HAS_SIMD
  for (; i + kFloatLanes <= n; i += kFloatLanes) batch_step.template operator()<FloatBatch>(i);
#endif
  for (; i < n; i += kTailStride) tail_step(i);
}

// Lane helpers for the batch steps above (never called without SIMD, where there are none):
// swap_pairs exchanges lanes 2k and 2k + 1; twice_low / twice_high give each lane of v's low / high half
// twice (v0, v0, v1, v1, ...), a per-pair value over its two columns; alternating_signs is (-1, +1, -1, ...).
#ifdef POSEMBED_HAS_SIMD
template <class V, std::size_t... Lane>
V swap_pairs(const V& v, std::index_sequence<Lane...>) {
  using Mask = xsimd::batch_constant<xsimd::batch<uint32_t, typename V::arch_type>, static_cast<uint32_t>(Lane ^ 1)...>;
  return xsimd::swizzle(v, Mask());
}
template <class V>
V swap_pairs(const V& v) {
  return swap_pairs(v, std::make_index_sequence<V::size>());
}
// (Not zip_lo/zip_hi: on AVX those interleave within each 128-bit half.)
template <class V, std::size_t Offset, std::size_t... Lane>
V twice(const V& v, std::index_sequence<Lane...>) {
  using Mask = xsimd::batch_constant<xsimd::batch<uint32_t, typename V::arch_type>, static_cast<uint32_t>(Offset + Lane / 2)...>;
  return xsimd::swizzle(v, Mask());
}
template <class V>
V twice_low(const V& v) {
  return twice<V, 0>(v, std::make_index_sequence<V::size>());
}
template <class V>
V twice_high(const V& v) {
  return twice<V, V::size / 2>(v, std::make_index_sequence<V::size>());
}
inline constexpr float kAlternatingSigns[16] = {-1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1};
template <class V>
V alternating_signs() {
  static_assert(V::size <= 16);
  return V::load_unaligned(kAlternatingSigns);
}
#else
template <class V>
V swap_pairs(const V& v);
template <class V>
V twice_low(const V& v);
template <class V>
V twice_high(const V& v);
template <class V>
V alternating_signs();
#endif

// The sum of the lanes.
inline float reduce_add(float v) { return v; }
inline double reduce_add(double v) { return v; }
#ifdef POSEMBED_HAS_SIMD
inline float reduce_add(const FloatBatch& v) { return xsimd::hadd(v); }
inline double reduce_add(const DoubleBatch& v) { return xsimd::hadd(v); }
#endif

// Σ step(i) over for_each<T>'s steps: the batch steps go in turn into two vectors of sums, so that each add waits on
// the one two steps back rather than on the last (with one vector, the adds' latency sets the loop's pace); total:
// the two vectors' lanes, then the tail steps.
template <class T, class Step>
T sum_each(std::size_t n, Step&& step) {
  std::size_t i = 0;
  T total = 0;
#ifdef POSEMBED_HAS_SIMD
  using Batch = xsimd::batch<T>;
  Batch even(T(0)), odd(T(0));
  for (; i + 2 * Batch::size <= n; i += 2 * Batch::size) {
    even = even + step.template operator()<Batch>(i);
    odd = odd + step.template operator()<Batch>(i + Batch::size);
  }
  if (i + Batch::size <= n) {
    even = even + step.template operator()<Batch>(i);
    i += Batch::size;
  }
  total = reduce_add(even + odd);
#endif
  for (; i < n; ++i) total += step.template operator()<T>(i);
  return total;
}

// Σ a[i] · b[i] over n doubles, in vectors of the widest double batch (sum_each), then across their lanes.
inline double dot(const double* a, const double* b, std::size_t n) {
  return sum_each<double>(n, [&]<class V>(std::size_t i) { return load<V>(a + i) * load<V>(b + i); });
}

template <class V>
void sincos(const V& x, V& s, V& c) {
  if constexpr (std::is_same_v<V, float>) {
    xsimd::sincos(x, s, c);
  } else {
    std::tie(s, c) = xsimd::sincos(x);
  }
}

}  // namespace posembed::simd
