// The ranges every public parameter is checked against. The JS package reads the same numbers from the
// module (see cpp/bindings), so the two layers cannot disagree about what is allowed.
#pragma once

#include <cstdint>

namespace posembed::limits {

inline constexpr int64_t kMaxDModel = 65536;
inline constexpr int64_t kMaxLength = int64_t{1} << 24;      // rows one call may produce
inline constexpr int64_t kMaxPosition = (int64_t{1} << 31) - 1;  // angles stay exact (see sinusoidal.cpp)
inline constexpr int64_t kMaxVocabSize = int64_t{1} << 24;
inline constexpr double kMinBase = 1.0;
inline constexpr double kMaxBase = 1e12;

}  // namespace posembed::limits
