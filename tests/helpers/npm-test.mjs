// `npm test`: the package's scripts in two lanes at once, each lane in order, because on 2 cores
// one lane alone leaves a core idle: the static checks are one process each (tsc, ESLint,
// Prettier), and the suites wait on sockets and timers part of the time.
//   lane 1: typecheck, lint                      (read the sources only)
//   lane 2: test:generated, build:dist, test:suites  (the suites need dist/)
// A step's output is held until it ends and printed only if it failed (the suites' output, quiet
// already, always: it ends with node:test's `# tests N`, `# pass N`, `# fail N` lines and the
// coverage summary). Every step of a lane after a failure is still run in the other lane; a lane
// stops at its first failure. Then one line per step (passed or FAILED, seconds) and exit 1 if
// any failed.
//
//   node tests/helpers/npm-test.mjs              both lanes (npm test)
//   node tests/helpers/npm-test.mjs --suites     lane 2 only (CI's other Node.js lines: the static
//                                                checks do not depend on the Node line)
import { spawn } from 'node:child_process';

const suitesOnly = process.argv.includes('--suites');
const lanes = suitesOnly
  ? [['test:generated', 'build:dist', 'test:suites']]
  : [
      ['typecheck', 'lint'],
      ['test:generated', 'build:dist', 'test:suites'],
    ];
const npm = process.env.npm_execpath;

function run(step) {
  const started = performance.now();
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

const results = [];
async function lane(steps) {
  for (const step of steps) {
    const r = await run(step);
    results.push(r);
    if (!r.ok) {
      process.stdout.write(`\nnpm test: ${step} FAILED (exit ${r.code}):\n${r.output}\n`);
      return;
    }
  }
}

const started = performance.now();
await Promise.all(lanes.map(lane));
const lines = results.map((r) => `npm test: ${r.step} ${r.ok ? 'passed' : 'FAILED'} in ${r.seconds.toFixed(1)} s`);
process.stdout.write(`${lines.join('\n')}\nnpm test: ${((performance.now() - started) / 1000).toFixed(1)} s in all\n`);
// The suites' own report last: node:test's closing counts and the coverage summary.
const suites = results.find((r) => r.step === 'test:suites');
if (suites?.ok === true) process.stdout.write(suites.output);
process.exit(results.every((r) => r.ok) && results.length === lanes.flat().length ? 0 : 1);
