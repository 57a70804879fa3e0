#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>

#include "posembed/threads.hpp"

// POSEMBED_TEST_THREADS=n runs the suite with the kernels' rows split over n threads (a wasm build, which
// does not see the environment, is given its number when compiled).
int main(int argc, char* argv[]) {
#ifdef POSEMBED_TEST_THREADS_DEFAULT
  posembed::set_threads(POSEMBED_TEST_THREADS_DEFAULT);
#endif
  if (const char* threads = std::getenv("POSEMBED_TEST_THREADS")) posembed::set_threads(std::atoi(threads));
  return Catch::Session().run(argc, argv);
}
