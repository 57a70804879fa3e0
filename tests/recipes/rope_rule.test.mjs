// The README's recipe for a RoPE scaling rule, followed in a scratch copy of the core: a new rule (NTK by a fixed
// factor, base × factor^(d / (d − 2))) is its struct and table row in rope.cpp and its test in test_rope.cpp, and
// nothing else; the copy is built natively and the new rule's test and every RoPE test
// pass. A recipe that no longer fits the code fails here, not in a contributor's hands.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
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
const RECIPE = {
  'cpp/src/rope.cpp': [
    ['// The table of rules:', `${RULE}// The table of rules:`],
    ['rule_entry<ProportionalRule>()};', 'rule_entry<ProportionalRule>(), rule_entry<NtkRule>()};'],
  ],
  'tests/cpp/test_rope.cpp': [[null, TEST]],
};

// Every file under path (relative to root), as paths relative to root.
function filesUnder(root, path) {
  const full = join(root, path);
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full).flatMap((name) => filesUnder(root, join(path, name)));
}

describe('the README\'s recipes, followed in a scratch copy', () => {
  it('a RoPE scaling rule is two files: its rule and table row, its test; built natively, it works and every RoPE test passes', () => {
    const copy = tempFolder('recipe');
    for (const path of ['cpp', 'tests/cpp', 'CMakeLists.txt']) cpSync(join(REPO, path), join(copy, path), { recursive: true });
    for (const [file, edits] of Object.entries(RECIPE)) {
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
    // The files the copy now differs in are the two the README names, and no others.
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    assert.match(readme, /A RoPE variant is two files: one rule in the table of `cpp\/src\/rope\.cpp`.*its test in\s+`tests\/cpp\/test_rope\.cpp`/s);
    const changed = ['cpp', 'tests/cpp', 'CMakeLists.txt'].flatMap((path) => filesUnder(copy, path))
      .filter((file) => !readFileSync(join(copy, file)).equals(readFileSync(join(REPO, file))));
    assert.deepEqual(changed.sort(), ['cpp/src/rope.cpp', 'tests/cpp/test_rope.cpp']);
    const step = (command, args) => {
      const run = spawnSync(command, args, { cwd: copy, encoding: 'utf8' });
      assert.equal(run.status, 0, `${command} ${args.join(' ')}\n${run.stdout.slice(-4000)}${run.stderr.slice(-4000)}`);
      return run.stdout;
    };
    step('cmake', ['-S', '.', '-B', 'build', '-DCMAKE_BUILD_TYPE=Release', `-DPOSEMBED_VECTORS_DIR=${VECTORS}`]);
    step('cmake', ['--build', 'build', '--target', 'posembed_tests', '--parallel', '2']);
    assert.match(step(join(copy, 'build/posembed_tests'), ['[recipe]']), /All tests passed/);
    assert.match(step(join(copy, 'build/posembed_tests'), ['[rope]']), /All tests passed/);
  });
});
