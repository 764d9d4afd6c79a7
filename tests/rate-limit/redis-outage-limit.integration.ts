/**
 * A Redis outage never lifts a limit (docs/redis-rate-limit.md, When Redis fails): two real
 * server processes share a real Redis; then Redis is stopped.
 * - A client that had used up its shared bucket stays limited on every instance that saw it
 *   use it up: 0 extra 200s.
 * - A client an instance never saw starts there with one full bucket: exactly the capacity per
 *   such instance, and nothing from an instance that saw it empty its bucket. That is the
 *   bound docs/redis-rate-limit.md and the README state.
 * - The start line names the store and its Redis without credentials; /metrics shows the
 *   state, the switch to the fallback and the calls (promtool checks it where installed).
 *
 * The servers run on clocks the test holds still (tests/helpers/stepped-clock.mjs), so their
 * in-process buckets never refill during the test: every count is exact however slowly the
 * requests arrive. Redis's clock cannot be held still: the burst that empties a shared bucket
 * must reach it within one refill interval (12 s at 5 per minute), checked on this process's
 * clock, and repeated on a fresh client when a busy machine was slower than that.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseExposition, sample } from '../helpers/exposition.ts';
import { post, request, type Reply } from '../helpers/http.ts';
import { prometheusMissing, promtoolCheck } from '../helpers/prometheus.ts';
import { redisMissing, startRedis, type RedisServer } from '../helpers/redis-server.ts';
import { randomApiKey, startServer, type RunningServer } from '../helpers/server.ts';

const missing = redisMissing();
const KEY = randomApiKey();
const PASSWORD = `pw-${randomApiKey()}`;
/** 5 per minute: a shared token comes back every 12 s. */
const LIMIT = 5;
const ATTEMPTS = 5;

let redis: RedisServer;
let a: RunningServer;
let b: RunningServer;
let sources = 0;
const freshSource = (): string => `127.0.7.${++sources}`;

const send = (server: RunningServer, from: string): Promise<Reply> =>
  post(server.url, KEY, { mode: 'password' }, { localAddress: from });
const count200 = (replies: readonly Reply[]): number => replies.filter((r) => r.status === 200).length;

/** Empties `from`'s shared bucket through `through` (each in turn), then has every instance in
 * `seenBy` see the refusal; false if that took longer than one refill interval. */
async function exhaust(from: string, through: readonly RunningServer[], seenBy: readonly RunningServer[]) {
  const started = performance.now();
  const granted = await Promise.all(Array.from({ length: LIMIT }, (_, i) => send(through[i % through.length], from)));
  const refused = await Promise.all(seenBy.map((s) => send(s, from)));
  if (performance.now() - started >= 12_000) return false;
  assert.deepEqual(
    granted.map((r) => r.status),
    granted.map(() => 200),
  );
  assert.deepEqual(
    refused.map((r) => r.status),
    refused.map(() => 429),
    'the shared bucket is empty',
  );
  return true;
}

async function onFreshClient(scenario: (from: string) => Promise<boolean>): Promise<string> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const from = freshSource();
    if (await scenario(from)) return from;
    process.stdout.write(`redis outage: attempt ${attempt} slower than a refill interval, again on a fresh client\n`);
  }
  return assert.fail(`${ATTEMPTS} attempts in a row were slower than 12 s`);
}

describe('a Redis outage never lifts a limit', { skip: missing ?? false, timeout: 300_000 }, () => {
  before(async () => {
    redis = await startRedis({ password: PASSWORD });
    const env = {
      RATE_LIMIT_REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${redis.port}`,
      RATE_LIMIT_REDIS_PREFIX: 'outage-test:',
      // A busy machine must not turn a slow answer into a fallback before the outage.
      RATE_LIMIT_REDIS_TIMEOUT_MS: '5000',
      METRICS_PORT: '0',
    };
    const started = await Promise.allSettled(
      [0, 1].map(() => startServer({ apiKey: KEY, rateLimitPerMinute: LIMIT, steppedClock: true, env })),
    );
    const [first, second] = started.map((s) => (s.status === 'fulfilled' ? s.value : undefined));
    if (first !== undefined) a = first;
    if (second !== undefined) b = second;
    for (const s of started) if (s.status === 'rejected') throw s.reason;
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.close();
  });

  it('names the shared store and its Redis at start, without the password', () => {
    for (const s of [a, b]) {
      const line = s
        .output()
        .split('\n')
        .find((l) => l.includes('"msg":"rate limit store:'));
      assert.ok(line !== undefined, s.output());
      const parsed = JSON.parse(line) as Record<string, unknown>;
      assert.deepEqual(
        [parsed.store, parsed.redis, parsed.state],
        ['redis', `redis://127.0.0.1:${redis.port}/0`, 'shared'],
      );
      assert.ok(!s.output().includes(PASSWORD));
    }
  });

  it('an exhausted client stays limited when Redis stops: 0 extra 200s; an unseen one gets one bucket per instance', async () => {
    // X emptied its bucket through both instances; Z through A only (B never saw Z).
    const x = await onFreshClient((from) => exhaust(from, [a, b], [a, b]));
    const z = await onFreshClient((from) => exhaust(from, [a], [a]));
    const y = freshSource(); // never seen by either
    await redis.stop();

    const xReplies: Reply[] = [];
    for (let i = 0; i < 20; i++) xReplies.push(await send(i % 2 === 0 ? a : b, x));
    assert.equal(count200(xReplies), 0, 'not one extra 200 for the client that had used up its limit');
    assert.ok(
      xReplies.every((r) => r.status === 429),
      'all 429s',
    );
    for (const s of [a, b]) await s.waitForOutput(/"msg":"rate limit: Redis unavailable/);

    const zFromA: Reply[] = [];
    const zFromB: Reply[] = [];
    for (let i = 0; i < 2 * LIMIT; i++) {
      zFromA.push(await send(a, z));
      zFromB.push(await send(b, z));
    }
    assert.equal(count200(zFromA), 0, 'A saw Z use up its bucket: nothing more');
    assert.equal(count200(zFromB), LIMIT, 'B never saw Z: one full bucket there, then 429s');

    const yReplies: Reply[] = [];
    for (let i = 0; i < 3 * LIMIT; i++) yReplies.push(await send(i % 2 === 0 ? a : b, y));
    assert.equal(count200(yReplies), 2 * LIMIT, 'never seen: at most one full bucket per instance');
    assert.deepEqual(
      yReplies.slice(-LIMIT).map((r) => r.status),
      Array<number>(LIMIT).fill(429),
    );
  });

  it('shows the fallback in /ready and /metrics, in a form promtool accepts', async () => {
    const ready = await request(a.url, '/ready');
    assert.deepEqual([ready.status, ready.json], [200, { status: 'ready', rateLimitStore: 'fallback' }]);
    const text = (await request(a.metricsUrl!, '/metrics')).text;
    const families = parseExposition(text);
    const state = (s: string) => sample(families, 'credential_generator_rate_limit_store_state', { state: s });
    assert.deepEqual(['in-process', 'shared', 'fallback'].map(state), [0, 0, 1]);
    assert.equal(sample(families, 'credential_generator_rate_limit_redis_fallbacks_total'), 1);
    const calls = 'credential_generator_rate_limit_redis_call_duration_seconds_count';
    // (A call fails only when Redis goes while it is under way; here the lost connection was
    // seen first, and no call was made after it.)
    assert.ok(sample(families, calls, { outcome: 'ok' })! >= LIMIT, 'the shared decisions');
    assert.ok(!text.includes(PASSWORD) && !text.includes('127.0.7.'));
    if (prometheusMissing() === null) assert.deepEqual(promtoolCheck(text), { status: 0, output: '' });
  });
});
