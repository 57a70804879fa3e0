// Shared by the fuzz targets that decode parameters from their input.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace posembed::fuzz {

// Reads values from the input in turn; past its end, the missing bytes read as zero.
class Bytes {
 public:
  Bytes(const uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  template <class T>
  T next() {
    T value{};
    const std::size_t n = std::min(sizeof(T), size_ - std::min(at_, size_));
    if (n) std::memcpy(&value, data_ + at_, n);
    at_ += sizeof(T);
    return value;
  }

 private:
  const uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

// A broken promise of the library: say which, then stop (libFuzzer keeps the input).
[[noreturn]] inline void fail(const char* target, const char* what) {
  std::fprintf(stderr, "%s: %s\n", target, what);
  std::abort();
}

}  // namespace posembed::fuzz
