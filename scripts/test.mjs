// Runs every suite after a build: Catch2 natively and as wasm (through ctest), the package tests and the
// browser tests (Node's test runner). Prints each suite's result and a closing "N passed, N failed" line.
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

// held: the output is printed whole when the command ends (a suite run beside another would interleave its lines).
function run(command, args, { held = false } = {}) {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(command, args, { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (chunk) => {
        output += chunk;
        if (!held) process.stdout.write(chunk);
      });
    }
    child.on('close', (code) => {
      if (held) process.stdout.write(output);
      resolve({ code, output });
    });
  });
}

async function ctest(name, dir) {
  // One test binary per core at a time: the suites' entries are independent (one per family and build).
  const { code, output } = await run('ctest', ['--test-dir', dir, '--output-on-failure', '--parallel', String(availableParallelism())]);
  const match = output.match(/tests passed, (\d+) tests failed out of (\d+)/);
  const total = match ? Number(match[2]) : 0;
  const failed = match ? Number(match[1]) : 1;
  return { name, passed: total - failed, failed: code === 0 && total > 0 ? failed : Math.max(failed, 1) };
}

// concurrency: how many of the suite's files run at once.
async function nodeTests(name, dir, { concurrency, held } = {}) {
  const tapDir = mkdtempSync(join(tmpdir(), 'posembed-tap-'));
  const tap = join(tapDir, 'results.tap');
  const { code } = await run(process.execPath, [
    '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tap}`, dir,
  ], { held });
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

const suites = [];
suites.push(await timed(ctest('Catch2 native', 'build/native')));
suites.push(await timed(ctest('Catch2 native under ASan + UBSan, fuzz corpora replayed', 'build/asan')));
suites.push(await timed(ctest('Catch2 native under ThreadSanitizer', 'build/tsan')));
suites.push(await timed(ctest('Catch2 wasm (simd, scalar, threads) under Node', 'build/wasm')));
const cores = availableParallelism();
// The package's files on every core (Node's default leaves one idle): they are independent processes.
suites.push(await timed(nodeTests('package (Node)', 'tests/js/', { concurrency: cores })));
// The browser's files spend most of their time waiting (on pages, servers, workers and npm; about a third of two
// cores busy): one more at a time than there are cores, and the recipes' builds beside them.
suites.push(...await Promise.all([
  timed(nodeTests('recipes (followed in a scratch copy, built natively and for the web)', 'tests/recipes/', { concurrency: 1, held: true })),
  timed(nodeTests('browser (Chromium)', 'tests/browser/', { concurrency: cores + 1 })),
]));

console.log('\nsuite results');
for (const s of suites) console.log(`  ${s.failed ? 'FAIL' : 'ok  '} ${s.name}: ${s.passed} passed, ${s.failed} failed (${s.seconds} s)`);
const passed = suites.reduce((sum, s) => sum + s.passed, 0);
const failed = suites.reduce((sum, s) => sum + s.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
