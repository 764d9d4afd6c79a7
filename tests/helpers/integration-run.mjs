// `npm run test:integration` (after `npm run build:dist`): the integration and soak files, each
// in a process of its own, as `node --test` runs them, in two steps:
//
//   1. two lanes at once: the main lane, two files at a time (`node
//      tests/helpers/test-files.mjs integration`), its report printed as each file ends; and the
//      waiting lane, one file at a time (`... integration-waiting`), its report printed when the
//      lane is done, so the two never interleave;
//   2. once both are done, the deadline files (`... integration-deadlines`), two at a time,
//      with nothing else of the run beside them.
//
// Through node:test's run(), not `node --test FILES`: the command line sorts its files by name
// whatever order they are given in, and run() starts them in the order given (the order is the
// point: tests/helpers/test-files.mjs says why). The files load TypeScript as `node --test`
// loads them: this script runs under `--import ./tests/helpers/typescript.mjs`, which node:test
// passes on to each file's process. Exit 1 if any test failed or a file could not run.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

const files = (group) =>
  execFileSync(process.execPath, ['tests/helpers/test-files.mjs', group], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((f) => resolve(f));

let failed = false;

/** Runs `group`'s files `concurrency` at a time; resolves with the spec reporter's text. */
function lane(group, concurrency, write) {
  const stream = run({ files: files(group), concurrency });
  // Any failure fails the run, a todo test's too (node --test would let that one pass; no test
  // here is marked todo, tests/spec/integration-layout.test.ts holds it).
  stream.on('test:fail', () => (failed = true));
  return new Promise((done, fail) => {
    const report = stream.compose(spec);
    report.on('data', (chunk) => write(String(chunk)));
    report.on('end', done);
    report.on('error', fail);
  });
}

let waitingReport = '';
await Promise.all([
  lane('integration', 2, (text) => process.stdout.write(text)),
  lane('integration-waiting', 1, (text) => (waitingReport += text)),
]);
process.stdout.write(`\nthe waiting lane (${files('integration-waiting').length} files, one at a time):\n`);
process.stdout.write(waitingReport);
process.stdout.write(`\nthe deadline files (${files('integration-deadlines').length}, two at a time, alone):\n`);
await lane('integration-deadlines', 2, (text) => process.stdout.write(text));
process.exitCode = failed ? 1 : 0;
