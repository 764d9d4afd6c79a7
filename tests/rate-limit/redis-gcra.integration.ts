/**
 * The GCRA script against a real redis-server (tests/helpers/redis-server.ts): the shared bucket
 * keeps the in-process bucket's promises (capacity, Retry-After, refill), stores one TAT per key
 * that expires exactly when the bucket is full again, writes nothing on a refusal, survives a
 * flushed script cache, keeps prefixes and arbitrary keys apart, and two stores (two clients,
 * as two server processes would have) see one bucket.
 *
 * Every time below is Redis's own (the script returns the TIME it used); the claims that need
 * "these calls came within one refill interval" send those calls back to back on one
 * connection (pipelined: the span is Redis running them, not this process's round trips on a
 * busy machine), and still check that precondition on those times, saying so if a stalled
 * machine broke it, rather than assuming it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { blankState, RateLimiter, type RateLimitState } from '../../lib/rate-limit/token-bucket.ts';
import { GCRA_SHA1, gcraState, type GcraReply } from '../../lib/rate-limit/gcra.ts';
import type { RedisRateLimitStore } from '../../lib/rate-limit/redis-store.ts';
import { command, openStore, redisMissing, startRedis, type RedisServer } from '../helpers/redis-server.ts';

const missing = redisMissing();

let redis: RedisServer;
const stores: RedisRateLimitStore[] = [];

async function store(limit: number, prefix = 'gcra:'): Promise<RedisRateLimitStore> {
  const { store: s } = await openStore(redis, { limit, prefix });
  assert.equal(s.isShared, true, 'the store connected to the test Redis');
  stores.push(s);
  return s;
}

/** One script call and its numbers. */
async function call(
  s: RedisRateLimitStore,
  key: string,
  take = true,
): Promise<{ reply: GcraReply; state: RateLimitState }> {
  const reply = await s.evaluate(key, take);
  return { reply, state: gcraState(reply, s.limit) };
}

/** `n` calls sent at once, so they go out back to back on the store's one connection and
 * Redis runs them in that order; resolves with all of them. */
function burst(
  s: RedisRateLimitStore,
  key: string,
  n: number,
  take = true,
): Promise<{ reply: GcraReply; state: RateLimitState }[]> {
  return Promise.all(Array.from({ length: n }, () => call(s, key, take)));
}

function dirty(info: string): number {
  return Number(/rdb_changes_since_last_save:(\d+)/.exec(info)![1]);
}

async function writes(): Promise<number> {
  return dirty(String(await command(redis, 'INFO', 'persistence')));
}

async function calls(name: string): Promise<number> {
  const stats = String(await command(redis, 'INFO', 'commandstats'));
  const m = new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats);
  return m === null ? 0 : Number(m[1]);
}

describe('GCRA script on a real Redis', { skip: missing ?? false }, () => {
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    for (const s of stores) await s.close();
    await redis?.close();
  });

  it('allows exactly the capacity, then 429 with the exact Retry-After; Retry-After seconds later exactly one more', async () => {
    const s = await store(60); // one token per second
    const key = '198.51.100.7';
    const calls = await burst(s, key, 61);
    const grants = calls.slice(0, 60);
    const refused = calls[60];
    const span = refused.reply.nowMicros - calls[0].reply.nowMicros;
    assert.ok(
      span < 1_000_000,
      `precondition: 61 calls within one refill interval of Redis time (took ${span} us; machine stalled?)`,
    );
    grants.forEach((g, i) => {
      assert.equal(g.state.allowed, true, `request ${i + 1} of 60`);
      assert.equal(g.state.remaining, 59 - i);
      assert.equal(g.state.limit, 60);
    });
    assert.equal(refused.state.allowed, false);
    assert.equal(refused.state.remaining, 0);
    assert.equal(refused.state.retryAfterSeconds, 1);
    assert.equal(refused.state.resetSeconds, 60);

    // Wait (by polling, each answer stamped with Redis time) until a token is back: a look and
    // two takes at a time, back to back. A refused take writes nothing, so polling with takes
    // changes nothing until one is granted.
    const t0 = refused.reply.nowMicros;
    for (;;) {
      const [seen, one, next] = await Promise.all([call(s, key, false), call(s, key), call(s, key)]);
      if (!one.state.allowed) {
        assert.ok(
          one.reply.nowMicros < t0 + refused.state.retryAfterSeconds * 1_000_000,
          'still refused after Retry-After seconds',
        );
        await delay(20); // pacing only: the loop ends on the answers
        continue;
      }
      assert.ok(
        next.reply.nowMicros - seen.reply.nowMicros < 1_000_000,
        'precondition: the three calls came within one refill interval',
      );
      // The look came first: it saw the token, or (the token due between the two) none.
      assert.equal(seen.state.remaining, seen.state.allowed ? 1 : 0, 'exactly one token came back');
      assert.equal(one.state.remaining, 0);
      assert.equal(next.state.allowed, false, 'and only one');
      assert.equal(next.state.retryAfterSeconds, 1);
      break;
    }
  });

  it('stores one TAT per key as "<us>:<remainder>:<limit>" that expires exactly when the bucket is full again', async () => {
    const s = await store(7); // T = 8571428 + 4/7 us: the remainder path
    const key = 'ttl-client';
    const { reply, state } = (await burst(s, key, 3))[2];
    assert.equal(await command(redis, 'GET', `gcra:{${key}}`), `${reply.tatMicros}:${reply.tatRemainder}:7`);
    assert.ok(reply.tatRemainder > 0 && reply.tatRemainder < 7);
    const expireMs = Number(await command(redis, 'PEXPIRETIME', `gcra:{${key}}`));
    assert.equal(
      expireMs,
      Math.ceil((reply.tatMicros + 1) / 1000),
      'expires at the TAT, rounded up to the millisecond',
    );
    // That instant is the time to full, the Reset header's figure (seconds, rounded up).
    const toFullMicros = expireMs * 1000 - reply.nowMicros;
    assert.equal(state.resetSeconds, Math.ceil(toFullMicros / 1e6 - 1e-9));
    assert.ok(
      toFullMicros > 3 * (60e6 / 7) - 1_000_000 && toFullMicros <= 3 * (60e6 / 7) + 1000,
      `three tokens missing: ${toFullMicros} us to full`,
    );
    // A look writes nothing: same value, same expiry.
    await call(s, key, false);
    assert.equal(Number(await command(redis, 'PEXPIRETIME', `gcra:{${key}}`)), expireMs);
  });

  it("writes nothing for a refusal or a look: value, expiry and the server's write counter unchanged", async () => {
    const s = await store(2);
    const key = 'denied-client';
    const before0 = await writes();
    await call(s, key);
    // The counter does see the script's writes (SET + PEXPIREAT), so the check below can fail.
    assert.equal(await writes(), before0 + 2);
    await call(s, key);
    const value = await command(redis, 'GET', `gcra:{${key}}`);
    const expiry = await command(redis, 'PEXPIRETIME', `gcra:{${key}}`);
    const before1 = await writes();
    for (let i = 0; i < 5; i++) {
      assert.equal((await call(s, key)).state.allowed, false);
      await call(s, key, false);
    }
    assert.equal(await writes(), before1, 'no write for 5 refusals and 5 looks');
    assert.equal(await command(redis, 'GET', `gcra:{${key}}`), value);
    assert.equal(await command(redis, 'PEXPIRETIME', `gcra:{${key}}`), expiry);
    // A look at an unknown client creates nothing either.
    await call(s, 'never-seen', false);
    assert.equal(await command(redis, 'EXISTS', 'gcra:{never-seen}'), 0);
  });

  it('recovers from NOSCRIPT (SCRIPT FLUSH) by sending the script again, then uses EVALSHA', async () => {
    // 3 per minute: a token every 20 s, so the admin commands in between cannot let one back.
    const s = await store(3);
    const key = 'noscript-client';
    assert.equal((await call(s, key)).state.remaining, 2);
    await command(redis, 'SCRIPT', 'FLUSH');
    assert.deepEqual(await command(redis, 'SCRIPT', 'EXISTS', GCRA_SHA1), [0]);
    const evalBefore = await calls('eval');
    const shaBefore = await calls('evalsha');
    assert.equal((await s.consume(key)).remaining, 1, 'the request after the flush is answered by Redis');
    assert.equal(s.isShared, true, 'NOSCRIPT is no outage');
    assert.equal(await calls('eval'), evalBefore + 1, 'one EVAL reloaded it');
    assert.deepEqual(await command(redis, 'SCRIPT', 'EXISTS', GCRA_SHA1), [1]);
    assert.equal((await s.consume(key)).remaining, 0);
    assert.equal(await calls('eval'), evalBefore + 1, 'then EVALSHA again');
    assert.ok((await calls('evalsha')) >= shaBefore + 2);
  });

  it('keeps prefixes apart: two deployments on one Redis never share a bucket', async () => {
    const a = await store(3, 'deploy-a:');
    const b = await store(3, 'deploy-b:');
    const key = '203.0.113.50';
    for (let i = 0; i < 3; i++) await a.consume(key);
    assert.equal((await a.consume(key)).allowed, false);
    const fromB = await b.consume(key);
    assert.equal(fromB.allowed, true);
    assert.equal(fromB.remaining, 2);
    assert.equal(await command(redis, 'EXISTS', `deploy-a:{${key}}`), 1);
    assert.equal(await command(redis, 'EXISTS', `deploy-b:{${key}}`), 1);
    assert.equal(await command(redis, 'EXISTS', key), 0);
  });

  it('takes any client key string: IPv6 /56 prefixes, a separately prefixed bucket, odd characters', async () => {
    const s = await store(5, 'keys:');
    const keys = [
      '2001:db8:abcd:1200::/56',
      '203.0.113.9',
      'auth:203.0.113.9',
      'auth-fail|2001:db8::/56',
      'with space',
      'new\nline',
      'ü😀',
      'x'.repeat(300),
      '*',
      '{hash}tag',
    ];
    for (const key of keys) {
      const state = await s.consume(key);
      assert.equal(state.remaining, 4, `a fresh bucket for ${JSON.stringify(key)}`);
    }
    for (const key of keys) assert.equal(await command(redis, 'EXISTS', `keys:{${key}}`), 1, JSON.stringify(key));
    assert.equal(s.view('203.0.113.9').remaining, 4, 'the prefixed bucket did not touch the plain one');
  });

  it('two stores (two clients, as two instances) share one bucket: exactly the capacity between them, then 429; their numbers agree', async () => {
    const a = await store(20, 'shared:');
    const b = await store(20, 'shared:');
    const key = '192.0.2.44';
    // 11 calls through each store, all at once: the two connections' calls interleave in an
    // order nobody chose, so the proof of one bucket is the set of numbers: 20 grants whose
    // remaining counts are 19 down to 0, each once (two buckets would repeat them), and two
    // refusals. All within a second of Redis time, so no token came back meanwhile.
    const replies = await Promise.all(Array.from({ length: 22 }, (_, i) => (i % 2 === 0 ? a : b).evaluate(key, true)));
    const times = replies.map((r) => r.nowMicros);
    assert.ok(
      Math.max(...times) - Math.min(...times) < 1_000_000,
      'precondition: 22 calls within one second of Redis time',
    );
    const states: RateLimitState[] = replies.map((r) => gcraState(r, 20));
    const granted = states.filter((st) => st.allowed);
    assert.deepEqual(
      granted.map((st) => st.remaining).sort((x, y) => x - y),
      Array.from({ length: 20 }, (_, i) => i),
    );
    const refused = states.filter((st) => !st.allowed);
    assert.equal(refused.length, 2);
    for (const st of refused) {
      assert.equal(st.remaining, 0);
      assert.equal(st.retryAfterSeconds, 3, 'one token every 3 s');
    }
    // Both stores read the one stored TAT, and derive the same numbers from it: b's at a's
    // look's time are a's (a look at the same instant cannot be arranged across connections).
    const [ra, rb] = await Promise.all([a.evaluate(key, false), b.evaluate(key, false)]);
    assert.deepEqual([ra.tatMicros, ra.tatRemainder], [rb.tatMicros, rb.tatRemainder]);
    assert.deepEqual(gcraState({ ...rb, nowMicros: ra.nowMicros }, b.limit), gcraState(ra, a.limit));
    assert.equal(a.limit, b.limit);
  });

  it('reads a TAT written under another limit in whole microseconds rounded up, never with the wrong denominator', async () => {
    const seven = await store(7, 'change:');
    const sixty = await store(60, 'change:');
    const key = 'limit-changed';
    let r7!: GcraReply;
    for (let i = 0; i < 3; i++) r7 = await seven.evaluate(key, true);
    assert.ok(r7.tatRemainder > 0);
    const r60 = await sixty.evaluate(key, true);
    // T at 60/min is exactly 1e6 us (remainder 0): the new TAT is the old one rounded up + 1 s.
    assert.equal(r60.tatMicros, r7.tatMicros + 1 + 1_000_000);
    assert.equal(r60.tatRemainder, 0);
    assert.equal(await command(redis, 'GET', `change:{${key}}`), `${r60.tatMicros}:0:60`);
  });

  it('treats a TAT more than a window ahead (Redis clock stepped back) and values that are not its own as a full bucket', async () => {
    const s = await store(60, 'odd:');
    const now = (await s.evaluate('probe-time', false)).nowMicros;
    await command(redis, 'SET', 'odd:{ahead}', `${now + 120_000_000}:0:60`);
    await command(redis, 'SET', 'odd:{text}', 'not a tat');
    await command(redis, 'HSET', 'odd:{hash}', 'f', 'v');
    for (const key of ['ahead', 'text', 'hash']) {
      const state = await s.consume(key);
      assert.equal(state.allowed, true, key);
      assert.equal(state.remaining, 59, key);
      assert.match(String(await command(redis, 'GET', `odd:{${key}}`)), /^\d+:0:60$/, `${key} overwritten by a TAT`);
    }
  });

  it("stays exact at the largest limit (1e9 per minute: T = 0.06 us, below a double's step at today's epoch)", async () => {
    const s = await store(1_000_000_000, 'max:');
    const now = (await s.evaluate('max-client', false)).nowMicros;
    // A TAT 20 s ahead (3.3e8 of the 1e9 tokens missing, inside the 60 s window), so ten
    // grants in a row each add exactly T, however slowly a busy machine sends them.
    const start = now + 20_000_000;
    await command(redis, 'SET', 'max:{max-client}', `${start}:0:1000000000`);
    let reply!: GcraReply;
    for (let i = 0; i < 10; i++) reply = await s.evaluate('max-client', true);
    assert.ok(reply.nowMicros < start, 'precondition: the ten calls came within 20 s');
    // 10 x 0.06 us = 0.6 us: no whole microsecond yet, 6e8 in units of 1e-9 us. A TAT kept as
    // one double (step 0.25 us here) would have gained 0 or 0.25 us per grant instead.
    assert.equal(reply.tatMicros, start);
    assert.equal(reply.tatRemainder, 600_000_000);
    assert.equal(await command(redis, 'GET', 'max:{max-client}'), `${start}:600000000:1000000000`);
    for (let i = 0; i < 10; i++) reply = await s.evaluate('max-client', true);
    assert.equal(reply.tatMicros, start + 1, 'twenty grants: 1.2 us');
    assert.equal(reply.tatRemainder, 200_000_000);
  });

  it('gives in-process numbers for a TAT at or before now (a full bucket)', async () => {
    const s = await store(20, 'full:');
    const look = await call(s, 'nobody', false);
    assert.deepEqual(look.state, new RateLimiter({ perMinute: 20, sweepIntervalMs: 0 }).peek('nobody', blankState()));
  });
});
