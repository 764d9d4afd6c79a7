/**
 * Two builds of the single file side by side: the server's CPU time per request of each under
 * the same load, in paired rounds that alternate their order, and the median of the per-round
 * ratios (A / B). For a question `npm run bench` does not ask, as it pairs the server with
 * peers, not with its own past: "how does this build compare with that commit's?". The servers
 * and the load are the HTTP section's (bench/http.ts, `measured`): each server pinned to core
 * 0, the load generator to core 1, loopback only, both stopped by PID at the end.
 *
 *   node --import tsx bench/builds.ts A.mjs B.mjs [count=20] [rounds=10]
 *
 * Build B from another commit in a worktree: git worktree add /tmp/b <commit>, then
 * npm ci && npm run build:dist there.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { MAX_RATE_LIMIT_PER_MINUTE } from '../lib/service/limits.ts';
import { HAS_WRK, measured, ratiosOf, side, type MeasuredRun } from './http.ts';
import { startServer } from './procs.ts';
import { formatRatio, roundOrder } from './stats.ts';

const [fileA, fileB, countArg = '20', roundsArg = '10'] = process.argv.slice(2);
if (fileA === undefined || fileB === undefined) {
  process.stderr.write('usage: node --import tsx bench/builds.ts A.mjs B.mjs [count] [rounds]\n');
  process.exit(2);
}
const count = Number(countArg);
const SECONDS = 3;
const tool = HAS_WRK ? 'wrk' : 'autocannon';
const apiKey = `bench-${randomBytes(16).toString('hex')}`;
const start = (script: string) =>
  startServer({ kind: 'real', script, cpu: 0, apiKey, rateLimitPerMinute: MAX_RATE_LIMIT_PER_MINUTE });
const builds = [
  { server: start(fileA), runs: [] as MeasuredRun[] },
  { server: start(fileB), runs: [] as MeasuredRun[] },
];
try {
  const urls = await Promise.all(builds.map(async (b) => `${await b.server.listening}/generate`));
  const run = (i: number) => measured(tool, builds[i].server, urls[i], apiKey, count, 32, SECONDS);
  for (const i of [0, 1]) await run(i); // warm-up
  for (let round = 0; round < Number(roundsArg); round++)
    for (const i of roundOrder([0, 1], round)) builds[i].runs.push(await run(i));
  const [a, b] = builds.map((x) => side(x.runs));
  const ratio = ratiosOf(builds[0].runs, builds[1].runs).cpuPerRequest;
  process.stdout.write(
    `count=${count}, ${ratio.n} rounds of ${SECONDS} s: CPU per request A ${a.cpuUsPerRequest.median.toFixed(1)} us, ` +
      `B ${b.cpuUsPerRequest.median.toFixed(1)} us; A / B median ${formatRatio(ratio)}; ` +
      `req/s A ${a.rps.median.toFixed(0)}, B ${b.rps.median.toFixed(0)}\n`,
  );
} finally {
  for (const b of builds) await b.server.stop();
}
