// Runs every suite, after `scripts/build.sh` has built the package and the site, in two lanes at once. The page's
// lane (the package tests, then the browser tests) goes first; the other lane builds and runs the rest at the
// lowest CPU priority beside it (nice 19: it takes only what the first leaves idle, which measured little while the
// browser tests ran, so the gain over one lane is about a tenth of the run): the test builds (`build.sh --suites`), the Catch2 suites natively and as wasm (through ctest), then the
// recipes. The first lane's output streams; the second's is printed a step at a time, whole. Prints each suite's
// result and a closing "N passed, N failed" line.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const vectors = process.env.POSEMBED_VECTORS ?? join(repo, '../shared/vectors');
if (!existsSync(join(vectors, 'sinusoidal.json'))) {
  console.error(`test: the golden vectors are missing at ${vectors} (a checkout of shared/ beside this repo, or POSEMBED_VECTORS)`);
  process.exit(1);
}

// A lane: `background` runs its commands under nice 19 and prints each one's output when it ends.
function lane({ background }) {
  return (command, args, title) => new Promise((resolve) => {
    let output = '';
    const [program, programArgs] = background ? ['nice', ['-n', '19', command, ...args]] : [command, args];
    const child = spawn(program, programArgs, { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (chunk) => {
        output += chunk;
        if (!background) process.stdout.write(chunk);
      });
    }
    child.on('close', (code) => {
      if (background) process.stdout.write(`\n── ${title} (the lane beside the package and browser tests) ──\n${output}── end of ${title} ──\n`);
      resolve({ code, output });
    });
  });
}

async function ctest(run, name, dir) {
  // One test binary per core at a time: the suites' entries are independent (one per family and build).
  const { code, output } = await run('ctest', ['--test-dir', dir, '--output-on-failure', '--parallel', String(availableParallelism())], name);
  const match = output.match(/tests passed, (\d+) tests failed out of (\d+)/);
  const total = match ? Number(match[2]) : 0;
  const failed = match ? Number(match[1]) : 1;
  return { name, passed: total - failed, failed: code === 0 && total > 0 ? failed : Math.max(failed, 1) };
}

// The files of a suite run on every core at once (Node's default leaves one idle). A file that has not ended in
// TEST_TIMEOUT_MS (Node times each file run in a process of its own as one test) fails, named, rather than holding
// the run; the longest, the docs frameworks', takes about 8 minutes on two busy cores.
const TEST_TIMEOUT_MS = 1200000;
async function nodeTests(run, name, dir) {
  const tapDir = mkdtempSync(join(tmpdir(), 'posembed-tap-'));
  const tap = join(tapDir, 'results.tap');
  const { code } = await run(process.execPath, [
    '--test', `--test-concurrency=${availableParallelism()}`, `--test-timeout=${TEST_TIMEOUT_MS}`, '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tap}`, dir,
  ], name);
  const results = readFileSync(tap, 'utf8');
  rmSync(tapDir, { recursive: true, force: true });
  const count = (label) => Number(results.match(new RegExp(`^# ${label} (\\d+)$`, 'm'))?.[1] ?? 0);
  const passed = count('pass');
  const failed = count('fail') + count('cancelled');
  return { name, passed, failed: code === 0 && passed > 0 ? failed : Math.max(failed, 1) };
}

// Each suite's wall time is printed with its result, so a slow run shows where its time went.
async function timed(suite) {
  const started = performance.now();
  const result = await suite;
  return { ...result, seconds: Math.round((performance.now() - started) / 1000) };
}

const pageLane = lane({ background: false });
const besideLane = lane({ background: true });
const CTEST_SUITES = [
  ['Catch2 native', 'build/native'],
  ['Catch2 native under ASan + UBSan, fuzz corpora replayed', 'build/asan'],
  ['Catch2 native under ThreadSanitizer', 'build/tsan'],
  ['Catch2 wasm (simd, scalar, threads) under Node', 'build/wasm'],
];
const RECIPES = 'recipes (followed in a scratch copy, built natively and for the web)';

async function besideThePages() {
  const results = [];
  const build = await timed(besideLane('bash', ['scripts/build.sh', '--suites'], 'the test builds (scripts/build.sh --suites)'));
  if (build.code !== 0) {
    results.push({ name: 'the test builds (scripts/build.sh --suites)', passed: 0, failed: 1, seconds: build.seconds });
    return results;
  }
  for (const [name, dir] of CTEST_SUITES) results.push(await timed(ctest(besideLane, name, dir)));
  results.push(await timed(nodeTests(besideLane, RECIPES, 'tests/recipes/')));
  return results;
}

async function thePages() {
  return [
    await timed(nodeTests(pageLane, 'package (Node)', 'tests/js/')),
    await timed(nodeTests(pageLane, 'browser (Chromium)', 'tests/browser/')),
  ];
}

const [beside, pages] = await Promise.all([besideThePages(), thePages()]);
const suites = [...beside, ...pages];

console.log('\nsuite results');
for (const s of suites) console.log(`  ${s.failed ? 'FAIL' : 'ok  '} ${s.name}: ${s.passed} passed, ${s.failed} failed (${s.seconds} s)`);
const passed = suites.reduce((sum, s) => sum + s.passed, 0);
const failed = suites.reduce((sum, s) => sum + s.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
