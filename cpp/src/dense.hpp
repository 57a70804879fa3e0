// Dense matrix products for the trainer, in float (training) or double (the gradient checks). Every output
// element is its starting value plus its products added one at a time in ascending order of the inner index,
// each product rounded, then the sum (no fused multiply-add): SIMD lanes run across output columns, threads
// across output rows, so neither changes any element's arithmetic, and native, wasm SIMD, scalar and threaded
// builds give the same bits.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "posembed/simd.hpp"
#include "posembed/threads.hpp"

namespace posembed::dense {

// A row-major matrix view: element (r, c) at data[r * stride + c].
template <class T>
struct Matrix {
  T* data;
  std::size_t stride;
  T* row(std::size_t r) const { return data + r * stride; }
};

template <class T>
Matrix<const T> read_only(Matrix<T> m) {
  return {m.data, m.stride};
}

namespace detail {

#ifdef POSEMBED_HAS_SIMD
template <class T>
using Batch = xsimd::batch<T>;
template <class T>
inline constexpr std::size_t kLanes = Batch<T>::size;
#endif

template <class V>
constexpr std::size_t width() {
  if constexpr (std::is_arithmetic_v<V>) {
    return 1;
  } else {
    return V::size;
  }
}

// Rows r0 .. r0 + R, columns c0 .. c0 + C * width(V): out += a · b over the inner index k in order.
template <class V, std::size_t R, std::size_t C, class T>
void block(Matrix<const T> a, Matrix<const T> b, Matrix<T> out, std::size_t r0, std::size_t c0, std::size_t inner) {
  constexpr std::size_t kWidth = width<V>();
  V sum[R][C];
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t c = 0; c < C; ++c) sum[r][c] = simd::load<V>(out.row(r0 + r) + c0 + c * kWidth);
  }
  for (std::size_t k = 0; k < inner; ++k) {
    V right[C];
    for (std::size_t c = 0; c < C; ++c) right[c] = simd::load<V>(b.row(k) + c0 + c * kWidth);
    for (std::size_t r = 0; r < R; ++r) {
      const V left(a.row(r0 + r)[k]);
      for (std::size_t c = 0; c < C; ++c) {
        const V product = left * right[c];
        sum[r][c] = sum[r][c] + product;
      }
    }
  }
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t c = 0; c < C; ++c) simd::store(out.row(r0 + r) + c0 + c * kWidth, sum[r][c]);
  }
}

// All columns of rows r0 .. r0 + R: two vectors at a time, then one, then single elements.
template <std::size_t R, class T>
void row_block(Matrix<const T> a, Matrix<const T> b, Matrix<T> out, std::size_t r0, std::size_t inner, std::size_t columns) {
  std::size_t c = 0;
#ifdef POSEMBED_HAS_SIMD
  constexpr std::size_t kWidth = kLanes<T>;
  for (; c + 2 * kWidth <= columns; c += 2 * kWidth) block<Batch<T>, R, 2>(a, b, out, r0, c, inner);
  for (; c + kWidth <= columns; c += kWidth) block<Batch<T>, R, 1>(a, b, out, r0, c, inner);
#endif
  for (; c < columns; ++c) block<T, R, 1>(a, b, out, r0, c, inner);
}

}  // namespace detail

// out[rows, columns] += a[rows, inner] · b[inner, columns], rows split over the threads when `parallel`
// (callers already running on a thread of their own pass false).
template <class T>
void multiply_add(Matrix<const T> a, Matrix<const T> b, Matrix<T> out, std::size_t rows, std::size_t inner, std::size_t columns,
                  bool parallel = true) {
  constexpr std::size_t kRowBlock = 4;
  const auto run = [&](std::size_t first, std::size_t count) {
    std::size_t r = first;
    for (; r + kRowBlock <= first + count; r += kRowBlock) detail::row_block<kRowBlock>(a, b, out, r, inner, columns);
    for (; r < first + count; ++r) detail::row_block<1>(a, b, out, r, inner, columns);
  };
  if (!parallel) return run(0, rows);
  // Runs of whole row blocks, so that a thread's share does not change which rows are blocked together
  // (that would not change any value either, but keeps the work even).
  const auto blocks = static_cast<int64_t>((rows + kRowBlock - 1) / kRowBlock);
  const auto work_per_block = static_cast<int64_t>(kRowBlock * inner * columns);
  const int64_t min_blocks = work_per_block >= 65536 ? 1 : 65536 / (work_per_block < 1 ? 1 : work_per_block);
  parallel_rows(blocks, min_blocks, [&](int64_t first, int64_t count) {
    const std::size_t begin = static_cast<std::size_t>(first) * kRowBlock;
    const std::size_t end = std::min(rows, static_cast<std::size_t>(first + count) * kRowBlock);
    run(begin, end - begin);
  });
}

// out[columns, rows] = a[rows, columns] transposed.
template <class T>
void transpose(Matrix<const T> a, Matrix<T> out, std::size_t rows, std::size_t columns) {
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < columns; ++c) out.row(c)[r] = a.row(r)[c];
  }
}

}  // namespace posembed::dense
