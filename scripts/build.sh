#!/usr/bin/env bash
# Builds what the site and the package need: the wasm modules (build/wasm), the npm package (dist/) and the site
# (build/site). With --suites, only the test builds instead: the native Catch2 suite (build/native), the same under
# ASan + UBSan with the fuzz targets (build/asan) and under ThreadSanitizer (build/tsan), and the wasm Catch2
# suites (build/wasm). With --tests, both. Incremental: a second run is quick.
set -euo pipefail
cd "$(dirname "$0")/.."

web=true
suites=false
case "${1:-}" in
  --tests) suites=true ;;
  --suites) suites=true; web=false ;;
  "") ;;
  *) echo "usage: scripts/build.sh [--tests | --suites]" >&2; exit 2 ;;
esac

# Debian's emcc runs its JS optimizer with Node and needs acorn from Debian's node modules.
[ -d /usr/share/nodejs ] && export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"

# Each step says how long the one before it took, so a slow build (or CI's) shows where its time went.
step_started=$SECONDS
step_name=""
step() {
  [ -n "$step_name" ] && echo "build: $step_name took $((SECONDS - step_started)) s"
  step_name="$1"
  step_started=$SECONDS
  [ -n "$step_name" ] && echo "build: $step_name"
  return 0
}

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)

# Debian's Emscripten toolchain sets the test emulator to `node --experimental-wasm-threads`, which Node 20
# rejects; --no-experimental-fetch makes 3.1.6's glue read files with fs instead of fetch().
configure_wasm() {
  [ -f build/wasm/CMakeCache.txt ] || emcmake cmake -S . -B build/wasm "${generator[@]}" \
    -DCMAKE_CROSSCOMPILING_EMULATOR="$(command -v node);--no-experimental-fetch" >/dev/null
}

if $web; then
  step "wasm modules"
  configure_wasm
  # The modules the package ships; the threaded one where this Emscripten builds it (see CMakeLists.txt).
  modules=(posembed_simd posembed_scalar posembed_encoders_simd)
  cmake --build build/wasm --target help | grep -q '^posembed_threads:' && modules+=(posembed_threads)
  cmake --build build/wasm --target "${modules[@]}"

  step "dist/"
  node scripts/build-dist.mjs

  step "build/site"
  npx vite build --config web/site/vite.config.js --logLevel warn
fi

if $suites; then
  step "native"
  [ -f build/native/CMakeCache.txt ] || cmake -S . -B build/native "${generator[@]}" >/dev/null
  cmake --build build/native

  step "native with AddressSanitizer + UndefinedBehaviorSanitizer, and the fuzz targets"
  if [ ! -f build/asan/CMakeCache.txt ]; then
    CC=clang CXX=clang++ cmake -S . -B build/asan "${generator[@]}" -DPOSEMBED_SANITIZE=ON -DPOSEMBED_FUZZ=ON >/dev/null
  fi
  cmake --build build/asan

  step "native with ThreadSanitizer"
  [ -f build/tsan/CMakeCache.txt ] || CC=clang CXX=clang++ cmake -S . -B build/tsan "${generator[@]}" -DPOSEMBED_TSAN=ON >/dev/null
  cmake --build build/tsan

  step "wasm Catch2 suites"
  configure_wasm
  cmake --build build/wasm
fi
step ""
