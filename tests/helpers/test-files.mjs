// The in-process test files (tests/*/*.test.ts, tests/*/*/*.test.ts) in two groups, printed one
// per line for package.json's test scripts:
//
//   node tests/helpers/test-files.mjs covered    every file but the sampling and static ones
//                                                (test:suites, under c8's coverage gate)
//   node tests/helpers/test-files.mjs sampling   the fuzzers, statistical and enumeration tests
//                                                (test:sampling, without coverage)
//   node tests/helpers/test-files.mjs static     the checks of the sources and documents
//                                                against each other (test:static, in `npm run
//                                                check`, without coverage)
//   node tests/helpers/test-files.mjs integration
//   node tests/helpers/test-files.mjs integration-waiting
//   node tests/helpers/test-files.mjs integration-deadlines
//                                                the integration and soak files
//                                                (tests/*/*.integration.ts, tests/soak/*.soak.ts)
//                                                of test:integration's main lane, waiting lane
//                                                and last step, in the order they start
//                                                (tests/helpers/integration-run.mjs; below)
//
// Why the static files run in `npm run check`: they read files (docs/ against lib/ and spec/,
// the import graph, the generated files against their sources), so their verdict is the same on
// every Node line, as lint's and the typecheck's are; they run once, beside those, and not in
// each line's `npm test`. Without them the gate's coverage was the same to the line (99.26 %).
//
// Why the sampling files run without coverage: V8's coverage counters made them take nearly
// twice the CPU (Node 24, one file at a time: the rules statistics 9.2 s to 15.9 s, the rules
// fuzz 11.1 to 18.8), for nothing the gate needs: without their processes, coverage of lib/ was
// 99.27 % of lines and 96.48 % of branches, against 99.30 and 96.60 with them, over the same 77
// files. They still run in `npm test`, and fail it as before. The rules counts and the corpus
// (enumeration over the engine) joined them for the same reason: under coverage they took 13.0
// and 9.4 s of CPU, without it 9.2 and 7.9 (Node 20, one at a time); `npm test` on Node 20 went
// from 185 s of CPU to 140 to 175 s in five runs. The plan's refusals and the big-number draw's
// tests, cheap and needed by the gate, moved out of the counts file into covered ones.
import { existsSync, readdirSync } from 'node:fs';

const SAMPLING = [
  'tests/core/engine.test.ts',
  'tests/request/fuzz.test.ts',
  'tests/core/password-constraints.test.ts',
  'tests/core/statistics.test.ts',
  'tests/core/rules/corpus.test.ts',
  'tests/core/rules/count.test.ts',
  'tests/core/rules/fuzz.test.ts',
  'tests/core/rules/statistics.test.ts',
  'tests/core/pattern/count.test.ts',
  'tests/core/pattern/statistics.test.ts',
];

/**
 * The integration run (tests/helpers/integration-run.mjs): two lanes at once, then the deadline
 * files. Times are seconds each file took in a whole run two at a time (docs/test-timing.md).
 *
 * The waiting lane, one file at a time: files that spend most of their time waiting on a timer,
 * the network or a topology to settle (the recipes install from the registry; Redis Cluster and
 * Sentinel are polled until they settle; Newman waits on its child; the contract run waits out
 * the server's request and header timeouts; the Redis equivalence pauses between its calls),
 * and the memory soak, first: the longest file of the run, whose floods compute. Beside the
 * main lane's two files they use the core those leave idle. (The memory soak waited up to a
 * minute twice for the limiter's sweep until it set RATE_LIMIT_SWEEP_SECONDS=1; the contract
 * run and the Redis equivalence moved here from the main lane then, so that the lanes end
 * together.)
 */
const INTEGRATION_WAITING = [
  'tests/soak/memory.soak.ts', // 181 with its two waits of up to a minute for the sweep
  'tests/spec/recipes.integration.ts', // 40
  'tests/rate-limit/redis-cluster.integration.ts', // 24
  'tests/rate-limit/redis-sentinel.integration.ts', // 17
  'tests/spec/newman.integration.ts', // 9
  'tests/spec/contract.integration.ts',
  'tests/rate-limit/redis-equivalence.integration.ts',
];
/** The main lane, two files at a time: its longest files first (a long file started late runs
 * alone at the end), the others in name order. */
const INTEGRATION_FIRST = [
  'tests/browser/home.integration.ts', // 104
  'tests/soak/fuzz.soak.ts', // 83
  'tests/soak/rules-fuzz.soak.ts', // 63
  'tests/e2e/keys-security.integration.ts', // 49
  'tests/deploy/deploy-files.integration.ts', // 41
  'tests/browser/honest-page.integration.ts', // 31
  'tests/spec/clients.integration.ts', // 29
  'tests/soak/faults.soak.ts', // 27
  'tests/e2e/keys.integration.ts', // 26
  'tests/e2e/operations.integration.ts', // 21
  'tests/deploy/reproducible-build.integration.ts', // 41 with two builds, now one
];
/**
 * The files that time a deadline the server keeps (cuts of stalled readers, connection slots,
 * TLS handshakes, slow clients), longest first: they run after both lanes, two at a time with
 * nothing else of the run beside them, at the load they always ran at (three files at a time,
 * S1 missed its deadline; docs/test-timing.md).
 */
const INTEGRATION_DEADLINES = [
  'tests/e2e/stalled-readers.integration.ts', // 62
  'tests/e2e/connection-slots.integration.ts', // 38
  'tests/server/metrics-listener.integration.ts', // 24
  'tests/e2e/connection-caps.integration.ts', // 18
  'tests/server/tls.integration.ts', // 15
  'tests/soak/slow-clients.soak.ts', // 15
  'tests/e2e/hardening.integration.ts', // 12
];

/** The static files: every test file of tests/spec/ (spec/ and docs/ against the code), and the
 * generated files against their sources. */
const isStatic = (f) => f.startsWith('tests/spec/') || f === 'tests/core/generated-fresh.test.ts';

function testFiles(dir, depth) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory() && depth < 2) found.push(...testFiles(path, depth + 1));
    else if (entry.isFile() && depth > 0 && entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

/** The integration and soak files, as the shell globs above name them, in name order. */
function integrationFiles() {
  const found = [];
  for (const dir of readdirSync('tests', { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const entry of readdirSync(`tests/${dir.name}`, { withFileTypes: true })) {
      const { name } = entry;
      const wanted = name.endsWith('.integration.ts') || (dir.name === 'soak' && name.endsWith('.soak.ts'));
      if (entry.isFile() && wanted) found.push(`tests/${dir.name}/${name}`);
    }
  }
  return found.sort();
}

const group = process.argv[2];
const GROUPS = ['covered', 'sampling', 'static', 'integration', 'integration-waiting', 'integration-deadlines'];
if (!GROUPS.includes(group)) {
  process.stderr.write(`usage: node tests/helpers/test-files.mjs ${GROUPS.join('|')}\n`);
  process.exit(2);
}
// A listed file renamed or removed must not leave a stale name here unnoticed: its name is
// printed all the same (the list is read by $(...), whose exit code the shell drops), and
// node --test fails on a file it cannot find.
const listed = [...INTEGRATION_WAITING, ...INTEGRATION_FIRST, ...INTEGRATION_DEADLINES];
const missing = [...SAMPLING, ...listed].filter((f) => !existsSync(f));
if (missing.length > 0) {
  process.stderr.write(`tests/helpers/test-files.mjs: no such file: ${missing.join(', ')}\n`);
  process.stdout.write(`${missing.join('\n')}\n`);
  process.exit(1);
}
const files =
  group === 'sampling'
    ? SAMPLING
    : group === 'integration-waiting'
      ? INTEGRATION_WAITING
      : group === 'integration-deadlines'
        ? INTEGRATION_DEADLINES
        : group === 'integration'
          ? [...INTEGRATION_FIRST, ...integrationFiles().filter((f) => !listed.includes(f))]
          : testFiles('tests', 0)
              .filter((f) => !SAMPLING.includes(f) && isStatic(f) === (group === 'static'))
              .sort();
process.stdout.write(`${files.join('\n')}\n`);
