// The README's recipes, followed in one scratch copy of the repository, so that a recipe that no longer fits the code
// fails here rather than in a contributor's hands. A RoPE scaling rule (NTK by a fixed factor, base ×
// factor^(d / (d − 2))) is its struct and table row in rope.cpp and its test in test_rope.cpp; an op of the core's
// table (relative distances, clipped as Shaw et al. 2018 clip them) is its header, its source (kernel and table
// entry), its Catch2 file and its WGSL kernel; and nothing else changes. The copy is built natively (the core, and
// the test files of what it runs: the new tests, every RoPE test and the table's pass) and for the web (the three modules the package ships, and dist/), both
// compiled at -O1 to spare CI's time, and the copy's built package has the op: a method on the wasm instance and its GPU
// form on the webgpu backend (Node's WebGPU, SwiftShader) with the same values, its options checked in the core's
// words, and its declarations in index.d.ts.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempFolder } from '../temp_folders.mjs';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const VECTORS = process.env.POSEMBED_VECTORS ?? join(REPO, '../shared/vectors');

// The recipe: each file it touches, and the edits (text found once, and what it becomes).
const RULE = `// NTK by a fixed factor: the base grown once, by factor^(d / (d - 2)).
struct NtkRule {
  static constexpr std::string_view name = "ntk";
  static constexpr std::array<std::string_view, 1> parameters{"factor"};
  static constexpr std::size_t required = 1;
  static Status joint_checks(const RopeScaling& s, int64_t dim) { return no_joint_checks(s, dim); }
  template <class Real>
  static void inv_freq(const RopeScaling& s, int64_t dim, double base, Real* out) {
    const double grown = base * std::pow(s.factor, static_cast<double>(dim) / static_cast<double>(dim - 2));
    for (int64_t i = 0; i < dim / 2; ++i) out[i] = plain_inv_freq(static_cast<Real>(grown), i, dim);
  }
  static double attention(const RopeScaling& s) { return unit_attention(s); }
};

`;
const TEST = `
namespace posembed {
TEST_CASE("the recipe's ntk rule: its frequencies, its name and parameters", "[rope][recipe]") {
  std::vector<double> inv_freq(8);
  const RopeScaling scaling{.type = "ntk", .factor = 4.0};
  REQUIRE(rope_inv_freq(16, 10000.0, scaling, inv_freq).ok());
  const double grown = 10000.0 * std::pow(4.0, 16.0 / 14.0);
  for (int i = 0; i < 8; ++i) CHECK(inv_freq[static_cast<std::size_t>(i)] == Approx(1.0 / std::pow(grown, 2.0 * i / 16.0)).epsilon(1e-14));
  CHECK(rope_rules().back().name == "ntk");
  CHECK(rope_rules().back().required == 1);
  CHECK(validate(RopeScaling{.type = "ntk", .factor = 0.5}, 16).message() == "scaling.factor must be a number in [1, 1000000], got 0.5");
}
}  // namespace posembed
`;
const ROPE_RULE_RECIPE = {
  'cpp/src/rope.cpp': [
    ['// The table of rules:', `${RULE}// The table of rules:`],
    ['rule_entry<ProportionalRule>()};', 'rule_entry<ProportionalRule>(), rule_entry<NtkRule>()};'],
  ],
  'tests/cpp/test_rope.cpp': [[null, TEST]],
};

// The recipe for an op of the core's table: its four new files.
const OP_RECIPE = {
  'cpp/include/posembed/relative_distance.hpp': `// Relative distances as Shaw et al. (2018) clip them: distance[i][j] = clamp(j - i, -maxDistance, maxDistance), or
// its size when absolute.
#pragma once

#include <cstdint>
#include <span>

#include "posembed/core_ops.hpp"

namespace posembed {

struct RelativeDistanceParams {
  int64_t query_length = 0;
  int64_t key_length = 0;
  int64_t max_distance = 16;
  bool absolute = false;
};

// Rows first_row .. of the [queryLength, keyLength] distances, as many as out holds.
Status relative_distance_rows(const RelativeDistanceParams& params, int64_t first_row, std::span<float> out);

extern const CoreOp kRelativeDistanceOp;

}  // namespace posembed
`,
  'cpp/src/relative_distance.cpp': `#include "posembed/relative_distance.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>

#include "posembed/limits.hpp"

namespace posembed {
namespace {

constexpr auto kMaxLength = static_cast<double>(limits::kMaxLength.value);
constexpr std::array kOptions{
    OpOption{.name = "queryLength", .min = 1, .max = kMaxLength, .doc = "rows: the queries"},
    OpOption{.name = "keyLength", .min = 1, .max = kMaxLength, .doc = "columns: the keys"},
    OpOption{.name = "maxDistance", .min = 1, .max = kMaxLength, .default_value = 16, .doc = "distances past it are clipped to it"},
    OpOption{.name = "absolute", .kind = OptionKind::kBoolean, .default_value = 0, .doc = "the distance's size, without its direction"},
};

}  // namespace

const CoreOp kRelativeDistanceOp{
    .name = "relativeDistance",
    .doc = "relative distances key − query, clipped to ±maxDistance [queryLength, keyLength]",
    .options = kOptions,
    .shape = [](std::span<const double> values, OpShape& shape) {
      shape = {.dims = {static_cast<int64_t>(values[0]), static_cast<int64_t>(values[1])}, .rank = 2};
      return Status{};
    },
    .rows = [](std::span<const double> values, std::span<const float>, int64_t first_row, std::span<float> out) {  // no input table
      const auto keys = static_cast<int64_t>(values[1]);
      const auto clip = static_cast<int64_t>(values[2]);
      for (std::size_t k = 0; k < out.size(); ++k) {
        const int64_t query = first_row + static_cast<int64_t>(k) / keys;
        const int64_t distance = std::clamp(static_cast<int64_t>(k) % keys - query, -clip, clip);
        out[k] = static_cast<float>(values[3] != 0 ? std::abs(distance) : distance);
      }
      return Status{};
    },
};

Status relative_distance_rows(const RelativeDistanceParams& params, int64_t first_row, std::span<float> out) {
  const std::array values{static_cast<double>(params.query_length), static_cast<double>(params.key_length),
                          static_cast<double>(params.max_distance), params.absolute ? 1.0 : 0.0};
  return core_op_rows(kRelativeDistanceOp, values, {}, first_row, out);
}

}  // namespace posembed
`,
  'tests/cpp/test_relative_distance.cpp': `#include "posembed/relative_distance.hpp"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "vectors.hpp"

namespace posembed {
namespace {

TEST_CASE("relative distances: clipped, absolute, any run of rows, and the checks", "[relative_distance]") {
  for (const bool absolute : {false, true}) {
    const RelativeDistanceParams params{.query_length = 5, .key_length = 7, .max_distance = 2, .absolute = absolute};
    std::vector<float> out(35);
    REQUIRE(relative_distance_rows(params, 0, out).ok());
    for (int i = 0; i < 5; ++i) {
      for (int j = 0; j < 7; ++j) {
        const int clipped = std::clamp(j - i, -2, 2);
        CHECK(out[static_cast<std::size_t>(i * 7 + j)] == static_cast<float>(absolute ? std::abs(clipped) : clipped));
      }
    }
    std::vector<float> last_two(14);
    REQUIRE(relative_distance_rows(params, 3, last_two).ok());
    CHECK(std::equal(last_two.begin(), last_two.end(), out.begin() + 21));
  }
  std::vector<float> out(4);
  CHECK(relative_distance_rows({.query_length = 0, .key_length = 4}, 0, out).message() == "queryLength must be an integer in [1, 16777216], got 0");
  CHECK(relative_distance_rows({.query_length = 1, .key_length = 4, .max_distance = 0}, 0, out).message() ==
        "maxDistance must be an integer in [1, 16777216], got 0");
}

}  // namespace
}  // namespace posembed
`,
  'web/lib/webgpu/kernels/relativeDistance.wgsl': `// Relative distances clipped to ±maxDistance; absolute: their size.
fn element(row: u32, column: u32) -> f32 {
  let distance = clamp(f32(column) - f32(row), -options.maxDistance, options.maxDistance);
  return select(distance, abs(distance), options.absolute != 0.0);
}
`,
};

// What the built package of the copy is asked, in a Node process of its own (its dist/, Node's WebGPU).
const USE = `
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { create } from 'webgpu';
import { GpuTensor, load } from './dist/index.js';

const wasm = await load();
const gpu = await load({ backend: 'webgpu', gpu: create([]) });
assert.equal(gpu.backend, 'webgpu', gpu.fallbackReason ?? '');
const { data, shape } = wasm.relativeDistance({ queryLength: 3, keyLength: 6, maxDistance: 2 });
assert.deepEqual(shape, [3, 6]);
assert.deepEqual(Array.from(data), [0, 1, 2, 2, 2, 2, -1, 0, 1, 2, 2, 2, -2, -1, 0, 1, 2, 2]);
const options = { queryLength: 300, keyLength: 500, maxDistance: 40, absolute: true };
const onGpu = gpu.relativeDistance(options);
assert.ok(onGpu instanceof GpuTensor);
await onGpu.ready();  // the WGSL kernel compiled and ran (read() would compute on wasm instead of failing)
const read = await onGpu.read();
assert.equal(gpu.backend, 'webgpu', gpu.fallbackReason ?? '');
assert.deepEqual(read.shape, [300, 500]);
assert.deepEqual(Array.from(read.data), Array.from(wasm.relativeDistance(options).data));
onGpu.dispose();
assert.throws(() => wasm.relativeDistance({ queryLength: 3, keyLength: 0 }), { name: 'RangeError', message: 'keyLength must be an integer in [1, 16777216], got 0' });
assert.throws(() => gpu.relativeDistance({ queryLength: 3, keyLength: 4, absolute: 1 }), { name: 'TypeError', message: 'absolute must be true or false, got 1' });
const declarations = readFileSync('dist/index.d.ts', 'utf8');
assert.match(declarations, /relativeDistance\\(options: RelativeDistanceOptions\\): Tensor<Float32Array>;/);
assert.match(declarations, /maxDistance\\?: number;/);
console.log('the copy\\'s package has relativeDistance');
`;

// Every file under path (relative to root), as paths relative to root.
function filesUnder(root, path) {
  const full = join(root, path);
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full).flatMap((name) => filesUnder(root, join(path, name)));
}

const COPIED = ['cpp', 'tests/cpp', 'CMakeLists.txt', 'web/lib', 'scripts', 'package.json'];

describe('the README\'s recipes, followed in a scratch copy', () => {
  let copy;
  const step = (command, args, env = {}) => {
    const run = spawnSync(command, args, { cwd: copy, encoding: 'utf8', env: { ...process.env, ...env } });
    assert.equal(run.status, 0, `${command} ${args.join(' ')}\n${run.stdout.slice(-4000)}${run.stderr.slice(-4000)}`);
    return run.stdout;
  };

  before(() => {
    copy = tempFolder('recipes');
    for (const path of COPIED) cpSync(join(REPO, path), join(copy, path), { recursive: true });
    symlinkSync(join(REPO, 'node_modules'), join(copy, 'node_modules'));
    for (const [file, edits] of Object.entries(ROPE_RULE_RECIPE)) {
      let text = readFileSync(join(copy, file), 'utf8');
      for (const [found, becomes] of edits) {
        if (found === null) {
          text += becomes;
          continue;
        }
        assert.equal(text.split(found).length, 2, `${file}: the recipe's anchor "${found}" is not there once`);
        text = text.replace(found, becomes);
      }
      writeFileSync(join(copy, file), text);
    }
    for (const [file, text] of Object.entries(OP_RECIPE)) {
      assert.equal(existsSync(join(REPO, file)), false, `${file} is the recipe's new file`);
      mkdirSync(dirname(join(copy, file)), { recursive: true });
      writeFileSync(join(copy, file), text);
    }
    // The tests the recipes run: the RoPE rule's ([recipe], [rope]), the op's and the table's.
    step('cmake', ['-S', '.', '-B', 'build/native', '-DCMAKE_BUILD_TYPE=Release', '-DCMAKE_CXX_FLAGS_RELEASE=-O1', `-DPOSEMBED_VECTORS_DIR=${VECTORS}`,
      '-DPOSEMBED_TEST_FILES=test_rope.cpp;test_relative_distance.cpp;test_core_ops.cpp']);
    step('cmake', ['--build', 'build/native', '--target', 'posembed_tests', '--parallel', '2']);
  });

  it('the copy differs from the repository in exactly the files the README\'s recipes name', () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    assert.match(readme, /A RoPE variant is two files: one rule in the table of `cpp\/src\/rope\.cpp`.*its test in\s+`tests\/cpp\/test_rope\.cpp`/s);
    assert.match(readme, /An op of the core's table is four files\..*`cpp\/include\/posembed\/<op>\.hpp`.*`cpp\/src\/<op>\.cpp`.*`tests\/cpp\/test_<op>\.cpp`.*`web\/lib\/webgpu\/kernels\/<op>\.wgsl`/s);
    const changed = COPIED.flatMap((path) => filesUnder(copy, path)).filter((file) => !existsSync(join(REPO, file)) || !readFileSync(join(copy, file)).equals(readFileSync(join(REPO, file))));
    assert.deepEqual(changed.sort(), [...Object.keys(ROPE_RULE_RECIPE), ...Object.keys(OP_RECIPE)].sort());
  });

  it('a RoPE scaling rule is two files: its rule and table row, its test; built natively, it works and every RoPE test passes', () => {
    assert.match(step(join(copy, 'build/native/posembed_tests'), ['[recipe]']), /All tests passed/);
    assert.match(step(join(copy, 'build/native/posembed_tests'), ['[rope]']), /All tests passed/);
  });

  it('an op of the core\'s table is four files: built natively, its test and the table\'s pass', () => {
    assert.match(step(join(copy, 'build/native/posembed_tests'), ['[relative_distance]']), /All tests passed/);
    assert.match(step(join(copy, 'build/native/posembed_tests'), ['[core_ops]']), /All tests passed/);
  });

  it('built for the web, the copy\'s package has the op on wasm and on the GPU, checked and declared', () => {
    // The modules the package ships, as scripts/build.sh builds them (their test suites left out), and dist/.
    const emscripten = { NODE_PATH: ['/usr/share/nodejs', process.env.NODE_PATH].filter(Boolean).join(':') };
    step('emcmake', ['cmake', '-S', '.', '-B', 'build/wasm', '-DPOSEMBED_TESTS=OFF', '-DCMAKE_CXX_FLAGS_RELEASE=-O1'], emscripten);
    step('cmake', ['--build', 'build/wasm', '--target', 'posembed_simd', 'posembed_scalar', 'posembed_encoders_simd', '--parallel', '2'], emscripten);
    step('node', ['scripts/build-dist.mjs']);
    writeFileSync(join(copy, 'use.mjs'), USE);
    assert.match(step('node', ['use.mjs'], { VK_ICD_FILENAMES: process.env.VK_ICD_FILENAMES ?? '/usr/lib/chromium/vk_swiftshader_icd.json' }),
      /the copy's package has relativeDistance/);
  });
});
