// A value's bits read as another type of the same size (std::bit_cast is missing from the libc++ of Emscripten 3.1.6).
#pragma once

#include <cstring>

namespace posembed::detail {

template <class To, class From>
To bits_as(From from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

}  // namespace posembed::detail
