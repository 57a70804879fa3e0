// The ranges public parameters are checked against, each stated once. The core's checks and their messages use
// these constants, and kLimits gives them by name to the JS package (cpp/bindings; the package's build writes them
// into dist/core_tables.js), whose option registry (web/lib/op_schemas.js) names them: the layers cannot disagree
// about what is allowed.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace posembed::limits {

// A bound and the name the package's registry gives it; it reads as its value.
template <class T>
struct Limit {
  std::string_view name;
  T value;
  constexpr operator T() const { return value; }
};

inline constexpr Limit<int64_t> kMaxDModel{"maxDModel", 65536};
inline constexpr Limit<int64_t> kMaxLength{"maxLength", int64_t{1} << 24};  // rows one call may produce
// The largest position: angles stay exact (see sinusoidal.cpp).
inline constexpr Limit<int64_t> kMaxPosition{"maxPosition", (int64_t{1} << 31) - 1};
inline constexpr Limit<int64_t> kMaxVocabSize{"maxVocabSize", int64_t{1} << 24};
inline constexpr Limit<double> kMinBase{"minBase", 1.0};
inline constexpr Limit<double> kMaxBase{"maxBase", 1e12};
inline constexpr Limit<int64_t> kMaxHeads{"maxHeads", 4096};  // ALiBi's and T5's heads
inline constexpr Limit<int64_t> kMaxBuckets{"maxBuckets", 65536};  // T5's buckets
inline constexpr Limit<int64_t> kMaxGridSide{"maxGridSide", 65536};  // patches along a side of a 2-D grid
// The largest RoPE scaling factor or parameter (factor, beta, mscale, attention factor), ALiBi slope and
// initialisation std or gain: far past any model's, small enough that no product overflows.
inline constexpr Limit<double> kMaxScalingValue{"maxScalingValue", 1e6};

// The toy transformer's sizes: a model that trains in a page.
inline constexpr Limit<int64_t> kTrainerMinDModel{"trainerMinDModel", 4};
inline constexpr Limit<int64_t> kTrainerMaxDModel{"trainerMaxDModel", 512};
inline constexpr Limit<int64_t> kTrainerMaxHeads{"trainerMaxHeads", 16};
inline constexpr Limit<int64_t> kTrainerMaxLayers{"trainerMaxLayers", 8};
inline constexpr Limit<int64_t> kTrainerMinLength{"trainerMinLength", 4};
inline constexpr Limit<int64_t> kTrainerMaxLength{"trainerMaxLength", 256};
inline constexpr Limit<int64_t> kTrainerMaxItems{"trainerMaxItems", 20};  // numbers in a task's list
inline constexpr Limit<int64_t> kTrainerMaxBatchSize{"trainerMaxBatchSize", 1024};
// Steps one call takes (the trainer's and the word vectors').
inline constexpr Limit<int64_t> kMaxTrainingSteps{"maxTrainingSteps", 100000};
inline constexpr Limit<int64_t> kMaxEvaluationExamples{"maxEvaluationExamples", 65536};

// The word vectors' sizes.
inline constexpr Limit<int64_t> kWordsMinDim{"wordsMinDim", 2};
inline constexpr Limit<int64_t> kWordsMaxDim{"wordsMaxDim", 256};
inline constexpr Limit<int64_t> kWordsMaxWindow{"wordsMaxWindow", 10};
inline constexpr Limit<int64_t> kWordsMaxNegatives{"wordsMaxNegatives", 20};
inline constexpr Limit<int64_t> kWordsMaxBatchSize{"wordsMaxBatchSize", 4096};

// Every limit, as the bindings give them to the package.
struct NamedLimit {
  std::string_view name;
  double value;
};
template <class T>
constexpr NamedLimit named(const Limit<T>& limit) {
  return {limit.name, static_cast<double>(limit.value)};
}

inline constexpr std::array kLimits{
    named(kMaxDModel),
    named(kMaxLength),
    named(kMaxPosition),
    named(kMaxVocabSize),
    named(kMinBase),
    named(kMaxBase),
    named(kMaxHeads),
    named(kMaxBuckets),
    named(kMaxGridSide),
    named(kMaxScalingValue),
    named(kTrainerMinDModel),
    named(kTrainerMaxDModel),
    named(kTrainerMaxHeads),
    named(kTrainerMaxLayers),
    named(kTrainerMinLength),
    named(kTrainerMaxLength),
    named(kTrainerMaxItems),
    named(kTrainerMaxBatchSize),
    named(kMaxTrainingSteps),
    named(kMaxEvaluationExamples),
    named(kWordsMinDim),
    named(kWordsMaxDim),
    named(kWordsMaxWindow),
    named(kWordsMaxNegatives),
    named(kWordsMaxBatchSize),
};

}  // namespace posembed::limits
