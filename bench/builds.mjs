// Two builds of the single file side by side: the server's CPU time per request of each under
// the same wrk load, in paired rounds that alternate their order, and the median of the
// per-round ratios (A / B). For a question `npm run bench` does not ask, as it pairs the
// server with peers, not with its own past: "how does this build compare with that commit's?".
// Each server is pinned to core 0 and wrk to core 1 (taskset), as in the bench's HTTP section;
// the servers listen on loopback, and both are stopped, by PID, at the end.
//
//   node bench/builds.mjs A.mjs B.mjs [count=20] [rounds=10]
//
// Build B from another commit in a worktree: git worktree add /tmp/b <commit>, then
// npm ci && npm run build:dist there.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const [fileA, fileB, countArg = '20', roundsArg = '10'] = process.argv.slice(2);
if (fileA === undefined || fileB === undefined) {
  process.stderr.write('usage: node bench/builds.mjs A.mjs B.mjs [count] [rounds]\n');
  process.exit(2);
}
const KEY = 'bench-builds-key-0123456789abcdef';
const POST_LUA = fileURLToPath(new URL('./post.lua', import.meta.url));
const BODY = JSON.stringify({ mode: 'password', count: Number(countArg) });
const SECONDS = 3;

/** utime + stime of a process, in clock ticks (100 a second on Linux). */
function ticks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

async function start(file, port) {
  const env = {
    PATH: process.env.PATH,
    API_KEY: KEY,
    PORT: String(port),
    HOST: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    LOG_LEVEL: 'silent',
  };
  const child = spawn('taskset', ['-c', '0', process.execPath, file], { env, stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    if (spawnSync('curl', ['-sf', '-o', '/dev/null', `http://127.0.0.1:${port}/health`]).status === 0) return child;
    await sleep(100);
  }
  child.kill();
  throw new Error(`${file} did not answer /health on port ${port}`);
}

function load(server, port) {
  const before = ticks(server.pid);
  const args = ['-c', '1', 'wrk', '-t1', '-c32', `-d${SECONDS}s`, '-s', POST_LUA, `http://127.0.0.1:${port}/generate`];
  const env = { ...process.env, BENCH_BODY: BODY, BENCH_API_KEY: KEY };
  const r = spawnSync('taskset', args, { env, encoding: 'utf8' });
  const cpuSeconds = (ticks(server.pid) - before) / 100;
  const done = /(\d+) requests in/.exec(r.stdout);
  if (done === null || /Non-2xx/.test(r.stdout)) throw new Error(`wrk: ${r.stdout}${r.stderr}`);
  const requests = Number(done[1]);
  return { perSecond: requests / SECONDS, cpuUs: (cpuSeconds * 1e6) / requests };
}

const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
const a = { file: fileA, port: 18_801, runs: [] };
const b = { file: fileB, port: 18_802, runs: [] };
a.server = await start(a.file, a.port);
b.server = await start(b.file, b.port);
try {
  for (const x of [a, b]) load(x.server, x.port); // warm-up
  const ratios = [];
  for (let round = 0; round < Number(roundsArg); round++) {
    for (const x of round % 2 === 0 ? [a, b] : [b, a]) x.runs.push(load(x.server, x.port));
    ratios.push(a.runs.at(-1).cpuUs / b.runs.at(-1).cpuUs);
  }
  const cpu = (x) => median(x.runs.map((r) => r.cpuUs)).toFixed(1);
  const rate = (x) => median(x.runs.map((r) => r.perSecond)).toFixed(0);
  process.stdout.write(
    `count=${countArg}, ${ratios.length} rounds of ${SECONDS} s: CPU per request A ${cpu(a)} us, B ${cpu(b)} us; ` +
      `A / B median ${median(ratios).toFixed(2)}x (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}); ` +
      `req/s A ${rate(a)}, B ${rate(b)}\n`,
  );
} finally {
  a.server.kill();
  b.server.kill();
}
