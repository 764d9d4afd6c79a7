// `npm test` and `npm run check`: package scripts run in lanes at once, each lane in order, each
// step's output held until it ends and printed only if it failed (the suites' output, quiet
// already, always: it ends with node:test's `# tests N`, `# pass N`, `# fail N` lines and the
// coverage summary). A line as each step ends (passed or FAILED, seconds); a lane stops at its
// first failure, the others run on. Exit 1 if any step failed or did not run.
//
//   node tests/helpers/npm-test.mjs          npm test: build:page (the home page's files in
//                                            dist/browser/, which the in-process service reads at
//                                            start), then test:suites (the *.test.ts files but
//                                            the sampling and static ones, under the coverage
//                                            gate); beside them test:sampling (the
//                                            fuzzers and statistical tests, without coverage:
//                                            tests/helpers/test-files.mjs says why), which needs
//                                            no build and keeps the other core busy meanwhile.
//                                            No static check: those read the sources, whatever
//                                            the Node line, and run once, in `npm run check`. The
//                                            files that read the rest of the build (the single
//                                            file, dist/lib) are integration files.
//   node tests/helpers/npm-test.mjs --suites-only
//                                            build:page and test:suites alone (CI, on the Node
//                                            lines other than its integration line).
//   node tests/helpers/npm-test.mjs --page-only
//                                            build:page alone (CI, once before the runs it makes
//                                            at the same time, which then skip it: none of them
//                                            rewrites dist/browser/ while another reads it).
//   node tests/helpers/npm-test.mjs --check  npm run check: lint:eslint beside typecheck, then
//                                            lint:prettier and test:static (the checks of docs/
//                                            and spec/ against the code, which read files and
//                                            so give the same verdict on every Node line:
//                                            tests/helpers/test-files.mjs), two lanes of about
//                                            the same length on 2 cores.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const check = process.argv.includes('--check');
// CI's other Node lines: the fuzzers and statistical tests run the same JavaScript whatever the
// line, and take about two fifths of `npm test`'s CPU, so CI runs them once, on its integration
// line (.ci/run); the suites, every edge test with real sockets among them, run on every line.
const suitesOnly = process.argv.includes('--suites-only');
const pageOnly = process.argv.includes('--page-only');
const name = check
  ? 'npm run check'
  : suitesOnly
    ? 'npm test -- --suites-only'
    : pageOnly
      ? 'npm test -- --page-only'
      : 'npm test';
const lanes = check
  ? [['lint:eslint'], ['typecheck', 'lint:prettier', 'test:static']]
  : suitesOnly
    ? [['build:page', 'test:suites']]
    : pageOnly
      ? [['build:page']]
      : [['test:sampling'], ['build:page', 'test:suites']];
const npm = process.env.npm_execpath;
/** Steps whose whole report is printed at the end, passed or failed (quiet already). */
const TEST_RUNS = ['test:sampling', 'test:suites', 'test:static'];

// build:page is skipped when dist/browser/ was built by it from the same sources: the build is
// reproducible (tests/deploy/reproducible-build.integration.ts), so the same inputs give the
// same bytes, and CI's second, third and fourth Node lines, or a second `npm test`, need not
// pay its CPU again. The inputs are every file of the folders and configuration files the page
// build reads, by path and content; a marker beside dist/browser/ holds their digest, and
// `npm run build:dist`, which empties dist/, removes it. PAGE_BUILD=always forces the build.
const PAGE_FOLDERS = ['browser', 'lib', 'spec', 'wordlist'];
const PAGE_MARKER = join('dist', '.page-inputs');

function pageInputsDigest() {
  const files = [
    ...PAGE_FOLDERS.flatMap((dir) =>
      readdirSync(dir, { withFileTypes: true, recursive: true })
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name)),
    ),
    ...readdirSync('.').filter(
      (f) => f === 'package.json' || f === 'package-lock.json' || /^tsconfig.*\.json$/.test(f),
    ),
  ].sort();
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file}\0`).update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

function pageIsBuilt(digest) {
  if (process.env.PAGE_BUILD === 'always' || !existsSync(join('dist', 'browser'))) return false;
  return existsSync(PAGE_MARKER) && readFileSync(PAGE_MARKER, 'utf8') === digest;
}

function run(step) {
  return step === 'build:page' ? buildPage() : runScript(step, performance.now());
}

function runScript(step, started) {
  return new Promise((resolve) => {
    // npm_execpath is npm's own CLI when run by npm; else the npm on PATH.
    const [command, args] =
      npm !== undefined && npm.endsWith('.js')
        ? [process.execPath, [npm, 'run', '--silent', step]]
        : ['npm', ['run', '--silent', step]];
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('close', (code, signal) => {
      const seconds = (performance.now() - started) / 1000;
      resolve({ step, ok: code === 0, code: code ?? signal, seconds, output: Buffer.concat(chunks).toString() });
    });
  });
}

async function buildPage() {
  const started = performance.now();
  const digest = pageInputsDigest();
  if (pageIsBuilt(digest)) {
    return {
      step: 'build:page (up to date)',
      ok: true,
      code: 0,
      seconds: (performance.now() - started) / 1000,
      output: '',
    };
  }
  const r = await runScript('build:page', started);
  if (r.ok) writeFileSync(PAGE_MARKER, digest);
  return r;
}

const results = [];
async function lane(steps) {
  for (const step of steps) {
    const r = await run(step);
    results.push(r);
    // A line as each step ends, so a long run shows where it is.
    process.stdout.write(`${name}: ${r.step} ${r.ok ? 'passed' : 'FAILED'} in ${r.seconds.toFixed(1)} s\n`);
    if (!r.ok) {
      // (The test runs' reports, failures included, are printed last, below.)
      if (!TEST_RUNS.includes(step)) process.stdout.write(`\n${name}: ${step} FAILED (exit ${r.code}):\n${r.output}\n`);
      return;
    }
  }
}

const started = performance.now();
await Promise.all(lanes.map(lane));
const failed = results.filter((r) => !r.ok).map((r) => r.step);
process.stdout.write(
  `${name}: ${((performance.now() - started) / 1000).toFixed(1)} s in all, ${failed.length === 0 ? 'every step passed' : `FAILED: ${failed.join(', ')}`}\n`,
);
// The test runs' own reports last, passed or failed: their failures, node:test's closing counts
// and (the suites) the coverage summary, or c8's line on a coverage shortfall.
for (const step of TEST_RUNS) {
  const r = results.find((x) => x.step === step);
  if (r !== undefined) process.stdout.write(`\n${step}:\n${r.output}`);
}
process.exit(results.every((r) => r.ok) && results.length === lanes.flat().length ? 0 : 1);
