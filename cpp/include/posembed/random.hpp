// A seeded generator whose output is the same bits on every build (native, wasm SIMD, wasm scalar):
// only integer arithmetic and correctly rounded float operations, no libm.
#pragma once

#include <cstdint>
#include <span>

namespace posembed {

class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}

  // The whole state of uniform draws: Random(state()) continues this sequence of next_u64 and uniform.
  uint64_t state() const { return state_; }

  uint64_t next_u64();
  // Uniform in [0, 1) with 53 random bits.
  double uniform();
  // Standard normal (Marsaglia's polar method).
  double normal();

 private:
  uint64_t state_;
  double spare_normal_ = 0.0;
  bool has_spare_ = false;
};

// Natural log from + - * / only, so that it rounds the same everywhere (libm's log may differ by an ulp
// between glibc and musl). Accurate to about 1 ulp for finite x > 0.
double portable_log(double x);

// e^x from + - * / and exact scalings by powers of two, for the same reason (the trainer's softmax and GELU
// must give the same bits on every build). About 1 ulp; 0 below -745, +Infinity above 709.78.
double portable_exp(double x);

void fill_normal(Random& random, double mean, double std, std::span<float> out);
void fill_uniform(Random& random, double low, double high, std::span<float> out);

}  // namespace posembed
