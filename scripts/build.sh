#!/usr/bin/env bash
# Builds everything: the native Catch2 suite (build/native, build/asan under ASan + UBSan with the fuzz
# targets, build/tsan under ThreadSanitizer), the wasm modules and their Catch2 suites (build/wasm), the npm package (dist/) and the site
# (build/site). Incremental: a second run is quick.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's emcc runs its JS optimizer with Node and needs acorn from Debian's node modules.
[ -d /usr/share/nodejs ] && export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)

echo "build: native"
[ -f build/native/CMakeCache.txt ] || cmake -S . -B build/native "${generator[@]}" >/dev/null
cmake --build build/native

echo "build: native with AddressSanitizer + UndefinedBehaviorSanitizer, and the fuzz targets"
if [ ! -f build/asan/CMakeCache.txt ]; then
  CC=clang CXX=clang++ cmake -S . -B build/asan "${generator[@]}" -DPOSEMBED_SANITIZE=ON -DPOSEMBED_FUZZ=ON >/dev/null
fi
cmake --build build/asan

echo "build: native with ThreadSanitizer"
[ -f build/tsan/CMakeCache.txt ] || CC=clang CXX=clang++ cmake -S . -B build/tsan "${generator[@]}" -DPOSEMBED_TSAN=ON >/dev/null
cmake --build build/tsan

echo "build: wasm"
if [ ! -f build/wasm/CMakeCache.txt ]; then
  # Debian's Emscripten toolchain sets the test emulator to `node --experimental-wasm-threads`, which
  # Node 20 rejects; --no-experimental-fetch makes 3.1.6's glue read files with fs instead of fetch().
  emcmake cmake -S . -B build/wasm "${generator[@]}" \
    -DCMAKE_CROSSCOMPILING_EMULATOR="$(command -v node);--no-experimental-fetch" >/dev/null
fi
cmake --build build/wasm

echo "build: dist/"
mkdir -p dist/webgpu
cp web/lib/*.js web/lib/*.d.ts dist/
cp web/lib/webgpu/*.js dist/webgpu/
cp build/wasm/posembed-simd.mjs build/wasm/posembed-simd.wasm build/wasm/posembed-scalar.mjs build/wasm/posembed-scalar.wasm dist/
if [ -f build/wasm/posembed-threads.worker.js ]; then
  cp build/wasm/posembed-threads.mjs build/wasm/posembed-threads.wasm build/wasm/posembed-threads.worker.js dist/
  # The pthread worker script is CommonJS: Node's worker_threads read a .js file in this "type": "module"
  # package as an ES module, so Node gets the same script as .cjs (browsers need a JavaScript MIME type: .js).
  cp build/wasm/posembed-threads.worker.js dist/posembed-threads.worker.cjs
else
  echo "build: no threaded module with this Emscripten (see CMakeLists.txt): the package will not have one" >&2
fi

echo "build: build/site"
npx vite build --config web/site/vite.config.js --logLevel warn
