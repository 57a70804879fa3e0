// Rows of sin/cos(position × w_i) written from a few exact anchors and rotations: the sinusoidal encoder's tables
// and RoPE's cos/sin cache.
#include "sinusoidal_rows.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <new>

#include "angle_reduction.hpp"
#include "posembed/simd.hpp"
#include "posembed/threads.hpp"

namespace posembed::detail {
namespace {

// Rows are produced from an exact "anchor" row at position p0 by the angle-addition identities
//   sin(a + kw) = sin a cos kw + cos a sin kw,   cos(a + kw) = cos a cos kw - sin a sin kw.
// Every kRowsPerRotation-th row is the anchor rotated by k*w from a table of cos kw, ±sin kw (exact sin/cos
// of reduced angles); each row between is the row before it rotated by one step w. That is two multiplies
// per value, not a sin, and the error stays bounded: at most kRowsPerRotation - 1 float rotations (about
// 1e-7 each) from a value that is one rotation from an anchor.
constexpr int64_t kRowsPerRotation = 8;
constexpr int64_t kRotations = 8;
constexpr int64_t kRowsPerAnchor = kRowsPerRotation * kRotations;
static_assert(kSinusoidalBlockRows % kRowsPerAnchor == 0, "a block for sinusoidal_blocks must hold whole anchor blocks");
// The anchors themselves walk in double precision, each rotated from the one before by kRowsPerAnchor * w
// (an error near 1e-16 per step), and are computed afresh every kBlocksPerExactAnchor blocks.
constexpr int64_t kBlocksPerExactAnchor = 256;

// Column of pair i's sine and cosine.
struct PairColumns {
  int64_t sine;
  int64_t cosine;
};
PairColumns pair_columns(SinusoidalLayout layout, int64_t half, int64_t pair) {
  if (layout == SinusoidalLayout::kInterleaved) return {2 * pair, 2 * pair + 1};
  return {pair, half + pair};
}

class SinusoidalWriter {
 public:
  SinusoidalWriter(const SinusoidalRows& rows, const double* frequencies, double* doubles, float* workspace)
      : rows_(rows),
        half_(rows.width / 2),
        frequencies_(frequencies),
        anchor_sin_(doubles),
        anchor_cos_(anchor_sin_ + half_),
        walk_sin_(anchor_cos_ + half_),
        walk_cos_(walk_sin_ + half_),
        frequency_angle_(workspace),
        frequency_sin_(frequency_angle_ + half_),
        frequency_cos_(frequency_sin_ + half_),
        anchor_(frequency_cos_ + half_),
        anchor_partner_(anchor_ + rows.width),
        rotation_cos_(anchor_partner_ + rows.width),
        rotation_sin_(rotation_cos_ + (kRotations + 1) * rows.width) {}

  static std::size_t workspace_doubles(const SinusoidalRows& rows) { return static_cast<std::size_t>(4 * (rows.width / 2)); }

  static std::size_t workspace_floats(const SinusoidalRows& rows) {
    return static_cast<std::size_t>(3 * (rows.width / 2) + (2 + 2 * (kRotations + 1)) * rows.width);
  }

  // Writes every row of the table, one block of kRowsPerAnchor rows (fewer at the end) at a time:
  // destination(first, rows) gives the memory for rows first .. first + rows, written(first, rows) hears
  // when they are there.
  template <class Destination, class Written>
  void write(Destination&& destination, Written&& written) {
    // Rotation r < kRotations turns an anchor by kRowsPerRotation * r * w; rotation kRotations, the step,
    // by w. Cosines stay in every column; sines carry the identity's sign.
    for (int64_t r = 0; r <= kRotations; ++r) {
      sincos_at(static_cast<double>(r < kRotations ? kRowsPerRotation * r : 1));
      scatter_pairs(rotation_cos_ + r * rows_.width, frequency_cos_, frequency_cos_);
      scatter_pairs(rotation_sin_ + r * rows_.width, frequency_sin_, frequency_sin_);
      for (int64_t i = 0; i < half_; ++i) {
        rotation_sin_[r * rows_.width + pair_columns(rows_.layout, half_, i).cosine] *= -1.0f;
      }
    }
    const auto d = static_cast<std::size_t>(rows_.width);
    for (int64_t i = 0; i < half_; ++i) {
      const double step = reduced_angle_double(static_cast<double>(kRowsPerAnchor), frequencies_[i]);
      walk_sin_[i] = std::sin(step);
      walk_cos_[i] = std::cos(step);
    }
    for (int64_t first = 0; first < rows_.count; first += kRowsPerAnchor) {
      if ((first / kRowsPerAnchor) % kBlocksPerExactAnchor == 0) {
        exact_anchor(static_cast<double>(rows_.first + first));
      } else {
        walk_anchor();
      }
      for (int64_t i = 0; i < half_; ++i) {
        frequency_sin_[i] = static_cast<float>(anchor_sin_[i]);
        frequency_cos_[i] = static_cast<float>(anchor_cos_[i]);
      }
      scatter_pairs(anchor_, frequency_sin_, frequency_cos_);
      scatter_pairs(anchor_partner_, frequency_cos_, frequency_sin_);
      const int64_t block_rows = std::min(kRowsPerAnchor, rows_.count - first);
      float* block = destination(first, block_rows);
      // Each run of kRowsPerRotation rows depends only on the anchor: the runs are split over the threads,
      // and the values are the same whatever the split.
      const int64_t runs = (block_rows + kRowsPerRotation - 1) / kRowsPerRotation;
      parallel_rows(runs, min_rows_per_part(kRowsPerRotation * rows_.width), [&](int64_t first_run, int64_t run_count) {
        const int64_t end = std::min(block_rows, (first_run + run_count) * kRowsPerRotation);
        for (int64_t k = first_run * kRowsPerRotation; k < end; ++k) {
          float* row = block + k * rows_.width;
          if (k % kRowsPerRotation != 0) {
            step_row(row - rows_.width, row);
            continue;
          }
          const float* cos_k = rotation_cos_ + k / kRowsPerRotation * rows_.width;
          const float* sin_k = rotation_sin_ + k / kRowsPerRotation * rows_.width;
          simd::for_each_float(d, [&]<class V>(std::size_t j) {
            const V rotated = simd::load<V>(anchor_partner_ + j) * simd::load<V>(sin_k + j);
            simd::store(row + j, simd::mul_add(simd::load<V>(anchor_ + j), simd::load<V>(cos_k + j), rotated));
          });
        }
      });
      written(first, block_rows);
    }
  }

  void write(float* out) {
    write([&](int64_t first, int64_t) { return out + first * rows_.width; }, [](int64_t, int64_t) {});
  }

 private:
  // row = prev turned by one step w: prev * cos w + (each value's pair partner in prev) * (±sin w). The
  // partner is the neighbour in the pair (interleaved) or the value half a row away (split).
  void step_row(const float* prev, float* row) const {
    const float* cosine = rotation_cos_ + kRotations * rows_.width;
    const float* sine = rotation_sin_ + kRotations * rows_.width;
    if (rows_.layout == SinusoidalLayout::kInterleaved) {
      simd::for_each_batch<2>(
          static_cast<std::size_t>(rows_.width),
          [&]<class V>(std::size_t j) {
            const V values = simd::load<V>(prev + j);
            simd::store(row + j, simd::mul_add(values, simd::load<V>(cosine + j), simd::swap_pairs(values) * simd::load<V>(sine + j)));
          },
          [&](std::size_t j) {
            row[j] = prev[j] * cosine[j] + prev[j + 1] * sine[j];
            row[j + 1] = prev[j + 1] * cosine[j + 1] + prev[j] * sine[j + 1];
          });
      return;
    }
    const auto half = static_cast<std::size_t>(half_);
    for (const std::size_t from : {std::size_t{0}, half}) {
      const float* partner = prev + (from == 0 ? half : 0);
      simd::for_each_float(half, [&]<class V>(std::size_t j) {
        const V rotated = simd::load<V>(partner + j) * simd::load<V>(sine + from + j);
        simd::store(row + from + j, simd::mul_add(simd::load<V>(prev + from + j), simd::load<V>(cosine + from + j), rotated));
      });
    }
  }

  void exact_anchor(double position) {
    for (int64_t i = 0; i < half_; ++i) {
      const double angle = reduced_angle_double(position, frequencies_[i]);
      anchor_sin_[i] = std::sin(angle);
      anchor_cos_[i] = std::cos(angle);
    }
  }

  // The anchor kRowsPerAnchor positions on: (sin, cos)(a + s) = (sin a cos s + cos a sin s, cos a cos s - sin a sin s).
  void walk_anchor() {
    for (int64_t i = 0; i < half_; ++i) {
      const double sine = anchor_sin_[i] * walk_cos_[i] + anchor_cos_[i] * walk_sin_[i];
      anchor_cos_[i] = anchor_cos_[i] * walk_cos_[i] - anchor_sin_[i] * walk_sin_[i];
      anchor_sin_[i] = sine;
    }
  }

  // frequency_sin_/cos_[i] = sin/cos(position * w_i).
  void sincos_at(double position) {
    for (int64_t i = 0; i < half_; ++i) frequency_angle_[i] = reduced_angle(position, frequencies_[i]);
    simd::for_each_float(static_cast<std::size_t>(half_), [&]<class V>(std::size_t i) {
      V s, c;
      simd::sincos(simd::load<V>(frequency_angle_ + i), s, c);
      simd::store(frequency_sin_ + i, s);
      simd::store(frequency_cos_ + i, c);
    });
  }

  // row[sine column of i] = at_sine[i], row[cosine column of i] = at_cosine[i].
  void scatter_pairs(float* row, const float* at_sine, const float* at_cosine) const {
    for (int64_t i = 0; i < half_; ++i) {
      const PairColumns columns = pair_columns(rows_.layout, half_, i);
      row[columns.sine] = at_sine[i];
      row[columns.cosine] = at_cosine[i];
    }
  }

  const SinusoidalRows& rows_;
  const int64_t half_;
  const double* frequencies_;  // w_i
  double* anchor_sin_;   // sin/cos of the current block's first position times w_i
  double* anchor_cos_;
  double* walk_sin_;     // sin/cos of kRowsPerAnchor * w_i
  double* walk_cos_;
  float* frequency_angle_;
  float* frequency_sin_;
  float* frequency_cos_;
  float* anchor_;          // the encoding at the block's first position
  float* anchor_partner_;  // the other member of each pair: cos where anchor_ has sin, and sin where cos
  float* rotation_cos_;    // [kRotations + 1, d_model]: the rotations from an anchor, then the one-row step
  float* rotation_sin_;    // [kRotations + 1, d_model]
};

// Runs write(writer) with a writer for rows, or says there is no memory for its workspace.
template <class Write>
Status with_sinusoidal_writer(const SinusoidalRows& rows, const double* frequencies, Write&& write) {
  std::unique_ptr<double[]> doubles(new (std::nothrow) double[SinusoidalWriter::workspace_doubles(rows)]);
  std::unique_ptr<float[]> workspace(new (std::nothrow) float[SinusoidalWriter::workspace_floats(rows)]);
  if (!doubles || !workspace) return Status::range_error("sinusoidal: out of memory for its workspace");
  SinusoidalWriter writer(rows, frequencies, doubles.get(), workspace.get());
  write(writer);
  return {};
}

}  // namespace

Status write_sinusoidal_rows(const SinusoidalRows& rows, const double* frequencies, float* out) {
  return with_sinusoidal_writer(rows, frequencies, [&](SinusoidalWriter& writer) { writer.write(out); });
}

Status write_sinusoidal_rows_in_blocks(const SinusoidalRows& rows, const double* frequencies, std::span<float> block,
                                       const std::function<void(int64_t, int64_t)>& on_block) {
  const auto width = static_cast<std::size_t>(rows.width);
  const auto rows_held = static_cast<int64_t>(block.size() / width);
  return with_sinusoidal_writer(rows, frequencies, [&](SinusoidalWriter& writer) {
    writer.write([&](int64_t first, int64_t) { return block.data() + static_cast<std::size_t>(first % rows_held) * width; },
                 [&](int64_t first, int64_t count) {
                   // Anchor blocks never straddle two fills of the block: it holds a multiple of them.
                   const int64_t block_first = first - first % rows_held;
                   const int64_t end = first + count;
                   if (end % rows_held == 0 || end == rows.count) on_block(block_first, end - block_first);
                 });
  });
}

Status write_sinusoidal_rows_at(int64_t width, SinusoidalLayout layout, const double* frequencies, std::span<const int32_t> positions, float* out) {
  const auto half = static_cast<std::size_t>(width / 2);
  std::unique_ptr<float[]> scratch(new (std::nothrow) float[3 * half]);
  if (!scratch) return Status::range_error("sinusoidal: out of memory for its workspace");
  float* angles = scratch.get();
  float* sines = angles + half;
  float* cosines = sines + half;
  for (std::size_t r = 0; r < positions.size(); ++r) {
    for (std::size_t i = 0; i < half; ++i) angles[i] = reduced_angle(positions[r], frequencies[i]);
    simd::for_each_float(half, [&]<class V>(std::size_t i) {
      V sine, cosine;
      simd::sincos(simd::load<V>(angles + i), sine, cosine);
      simd::store(sines + i, sine);
      simd::store(cosines + i, cosine);
    });
    float* row = out + r * 2 * half;
    for (std::size_t i = 0; i < half; ++i) {
      const PairColumns columns = pair_columns(layout, static_cast<int64_t>(half), static_cast<int64_t>(i));
      row[columns.sine] = sines[i];
      row[columns.cosine] = cosines[i];
    }
  }
  return {};
}

}  // namespace posembed::detail
