#!/usr/bin/env bash
# npm run fuzz: each libFuzzer target for RUNS executions (default 1,000,000), growing its corpus in
# tests/fuzz/corpus/<target> (replayed by npm test). Prints the executions and any crash of each target.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${RUNS:-1000000}"
bash scripts/setup.sh --tests
[ -f build/asan/CMakeCache.txt ] || CC=clang CXX=clang++ cmake -S . -B build/asan -DPOSEMBED_SANITIZE=ON -DPOSEMBED_FUZZ=ON >/dev/null
cmake --build build/asan --target fuzz_npy fuzz_safetensors fuzz_kernels fuzz_differential
for target in npy safetensors kernels differential; do
  echo "fuzz: $target, $runs runs"
  build/asan/fuzz_$target -runs="$runs" -max_len=4096 -print_final_stats=1 "tests/fuzz/corpus/$target" ../shared/vectors/formats 2>&1 \
    | grep -E "stat::number_of_executed_units|ERROR|SUMMARY|Done" || true
done
