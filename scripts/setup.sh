#!/usr/bin/env bash
# Installs what posembed's build needs, and nothing when it is all there (a fast no-op). With --tests, also
# what the tests need; with --bench, what the tests need and numpy on OpenBLAS (the peer `npm run bench` times PCA
# beside).
#   Debian/Ubuntu: missing tools come from apt (to build the site and the package: emscripten, libxsimd-dev,
#   nlohmann-json3-dev, catch2, cmake, ninja-build; for the tests also g++, clang with its sanitizer and fuzzer
#   runtimes, the Vulkan loader, chromium, chromium-driver, a sans font; for the bench also python3-numpy and
#   libopenblas0); then `npm ci`.
#   With emsdk: an `emcc` already on PATH is used as it is, and Debian's emscripten is not installed.
set -euo pipefail
cd "$(dirname "$0")/.."

tests=false
bench=false
case "${1:-}" in
  --tests) tests=true ;;
  --bench) tests=true; bench=true ;;
  "") ;;
  *) echo "usage: scripts/setup.sh [--tests | --bench]" >&2; exit 2 ;;
esac

missing=()
need_command() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
need_header() { [ -f "/usr/include/$1" ] || [ -f "/usr/local/include/$1" ] || missing+=("$2"); }

need_command cmake cmake
need_command ninja ninja-build
need_command emcc emscripten
need_header xsimd/xsimd.hpp libxsimd-dev
need_header nlohmann/json.hpp nlohmann-json3-dev
# The wasm build tree is configured once for both commands, with its Catch2 suites (built only by npm test).
need_header catch2/catch.hpp catch2
if $tests; then
  need_command g++ g++
  # The sanitizer build and the fuzzers: clang with its runtime libraries (ASan, UBSan, libFuzzer).
  need_command clang++ clang
  ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || missing+=(libclang-rt-dev)
  # WebGPU in Node (the webgpu package, Dawn) loads Vulkan through the system loader; Chromium ships SwiftShader.
  # (Not `ldconfig -p | grep -q`: grep stopping early kills ldconfig with SIGPIPE, which pipefail reports.)
  [[ "$(ldconfig -p 2>/dev/null)" == *"libvulkan.so.1 "* ]] || missing+=(libvulkan1)
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  # A sans font for the command line's framed PNGs, whose text the tests look for.
  [ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
  [ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
fi
if $bench; then
  # numpy's covariance + eigensolver beside PCA at vocabulary scale, on OpenBLAS: Debian's default reference BLAS
  # is about 40 times slower, no fair peer.
  /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || missing+=(python3-numpy)
  [[ "$(ldconfig -p 2>/dev/null)" == *"libopenblas.so.0 "* ]] || missing+=(libopenblas0)
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  if command -v apt-get >/dev/null 2>&1; then
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: cannot install ${missing[*]} here (no apt-get)." >&2
    echo "  Install them with your package manager (the C++ headers: xsimd 8+, Catch2 2.x, nlohmann-json 3.x)," >&2
    echo "  emcc from emsdk (https://emscripten.org/docs/getting_started), and Chromium at /usr/bin/chromium." >&2
    exit 1
  fi
fi

if ! command -v node >/dev/null 2>&1; then
  echo "setup: Node.js 18 or newer is needed (Debian: apt-get install nodejs npm)." >&2
  exit 1
fi

# npm ci only when node_modules is missing or older than the lock file.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
