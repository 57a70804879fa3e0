// Splitting a kernel's rows over threads. A build with threads (POSEMBED_THREADS: native, or wasm with
// -pthread, which needs a cross-origin-isolated page or Node) keeps a pool of helper threads; every other
// build, and a pool of one, runs the rows on the calling thread.
#pragma once

#include <cstdint>
#include <functional>

namespace posembed {

// Threads the kernels use from now on, the calling one included: n in [1, 64]; more than the build can start
// gives as many as it could (threads() says how many).
void set_threads(int n);
int threads();

// Calls part(first, count) for contiguous runs of [0, rows) that cover them exactly once, and returns when
// all have finished: runs of at least min_rows rows (one run in all when rows < 2 * min_rows), a few per
// thread, each taken by whichever thread is free first, the calling one included. Runs must not depend on
// each other's order.
void parallel_rows(int64_t rows, int64_t min_rows, const std::function<void(int64_t first, int64_t count)>& part);

// The fewest rows of row_elements floats worth a run of their own: handing out a run costs about as much as
// writing 64 KiB.
inline int64_t min_rows_per_part(int64_t row_elements) {
  constexpr int64_t kMinFloatsPerPart = 16384;
  return row_elements >= kMinFloatsPerPart ? 1 : kMinFloatsPerPart / (row_elements < 1 ? 1 : row_elements);
}

// Calls row(r) once for each r in [0, rows), rows of row_elements floats, in runs split over the threads
// (parallel_rows): for kernels whose rows are independent of each other.
template <class Row>
void parallel_for_each_row(int64_t rows, int64_t row_elements, Row&& row) {
  parallel_rows(rows, min_rows_per_part(row_elements), [&](int64_t first, int64_t count) {
    for (int64_t r = first; r < first + count; ++r) row(static_cast<std::size_t>(r));
  });
}

}  // namespace posembed
