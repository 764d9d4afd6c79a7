/**
 * Checks shared by the suites that run two real server processes on one shared Redis
 * (standalone, cluster, Sentinel: tests/rate-limit/redis-*.integration.ts).
 *
 * The bucket refills on Redis's clock, which a test cannot hold still: a claim such as "exactly
 * the capacity passes" needs its requests to reach Redis within one refill interval. So they
 * are sent at once, and the interval is checked on this process's clock, which spans Redis's;
 * an attempt a busy machine made too slow proves nothing either way and is repeated on a fresh
 * bucket (another client), never counted as a pass or a failure.
 */
import assert from 'node:assert/strict';
import type { Reply } from './http.ts';
import { startServer, type RunningServer, type StartOptions } from './server.ts';

/** One POST /generate to `server` as `client` (a source address or an X-Forwarded-For value). */
export type Send = (server: RunningServer, client: string) => Promise<Reply>;

const ATTEMPTS = 10;

/** Two server processes with the same options, started at once. If one fails to start, the
 * other is stopped too (its pipes would keep the test file's process alive) and the failure
 * is thrown. */
export async function startServerPair(options: StartOptions): Promise<RunningServer[]> {
  const started = await Promise.allSettled([0, 1].map(() => startServer(options)));
  const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  for (const s of started) {
    if (s.status === 'rejected') {
      for (const server of servers) await server.stop();
      throw s.reason;
    }
  }
  return servers;
}

/** Runs `scenario` on fresh clients from `fresh` until it completes; it returns false when the
 * machine was too slow for its timing precondition (then nothing it saw is asserted). */
export async function onFreshBucket(
  label: string,
  fresh: () => string,
  scenario: (client: string) => Promise<boolean>,
): Promise<void> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    if (await scenario(fresh())) return;
    process.stdout.write(`${label}: attempt ${attempt} too slow for its precondition, again on a fresh bucket\n`);
  }
  assert.fail(`${ATTEMPTS} attempts in a row were too slow for one refill interval`);
}

export function numbers(r: Reply): { remaining: string; reset: string; retryAfter: string | undefined } {
  return {
    remaining: String(r.headers['x-ratelimit-remaining']),
    reset: String(r.headers['x-ratelimit-reset']),
    retryAfter: r.headers['retry-after'],
  };
}

/**
 * Exactly `limit` POSTs pass across the two servers, alternating, then one more to each is a
 * 429 with the exact Retry-After of an empty bucket, and both servers report the same numbers.
 * False when the burst took a refill interval or more.
 */
export async function exactSharedLimit(
  servers: readonly RunningServer[],
  send: Send,
  client: string,
  limit: number,
): Promise<boolean> {
  const intervalMs = 60_000 / limit;
  const started = performance.now();
  const replies = await Promise.all(Array.from({ length: limit }, (_, i) => send(servers[i % 2], client)));
  const refused = await Promise.all([send(servers[0], client), send(servers[1], client)]);
  if (performance.now() - started >= intervalMs) return false; // a token may have come back
  assert.deepEqual(
    replies.map((r) => r.status),
    replies.map(() => 200),
  );
  // Remaining counts down across both instances: one bucket, not two (which would give every
  // number twice).
  assert.deepEqual(
    replies.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((a, b) => a - b),
    replies.map((_, i) => i),
  );
  assert.deepEqual(
    refused.map((r) => r.status),
    [429, 429],
  );
  // An empty bucket: the next token in one emission interval, rounded up to whole seconds.
  assert.equal(refused[0].headers['retry-after'], String(Math.ceil(intervalMs / 1000)));
  assert.deepEqual(numbers(refused[1]), numbers(refused[0]), 'both instances report the same numbers');
  return true;
}

/** Requests from many clients, `concurrency` at a time, alternating between the servers, until
 * stopped; every status is kept. */
export function steadyLoad(
  servers: readonly RunningServer[],
  send: Send,
  clients: readonly string[],
  concurrency: number,
): { statuses: number[]; stop(): Promise<number[]> } {
  const statuses: number[] = [];
  let running = true;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (running) {
      const i = next++;
      const reply = await send(servers[i % servers.length], clients[i % clients.length]).catch(() => null);
      // A refused connection is no answer at all: counted as a 5xx, since the client got none.
      statuses.push(reply?.status ?? 599);
    }
  };
  const workers = Array.from({ length: concurrency }, worker);
  return {
    statuses,
    async stop() {
      running = false;
      await Promise.all(workers);
      return statuses;
    },
  };
}
