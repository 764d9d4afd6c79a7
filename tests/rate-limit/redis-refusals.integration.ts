/**
 * T2 (docs/security.md): with RATE_LIMIT_REDIS_URL, a refusal this instance can decide from its
 * own view costs no Redis call, and what an instance granted while Redis was out is charged to
 * Redis when it is shared again. Script calls are counted by the real redis-server itself
 * (`INFO commandstats`: EVALSHA and EVAL), against real server processes.
 *
 * Before the fix every POST /generate ran the script, so 100 keyless POSTs from one address
 * (the no-key bucket is empty after the limit) cost 100 calls; and the grants of the in-process
 * fallback were never written back, so another instance granted the same client a full bucket
 * again after the outage.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CHARGE_SCRIPT, chargeArgs, GCRA_SCRIPT, gcraArgs, WINDOW_MICROS } from '../../lib/rate-limit/gcra.ts';
import { redisKey } from '../../lib/rate-limit/redis-keys.ts';
import { post, type Reply } from '../helpers/http.ts';
import { command, redisMissing, scriptCallsFor, startRedis, type RedisServer } from '../helpers/redis-server.ts';
import { randomApiKey, startServer, type RunningServer } from '../helpers/server.ts';

const missing = redisMissing();
const KEY = randomApiKey();

const statuses = (replies: readonly Reply[]): number[] => replies.map((r) => r.status);

describe('T2: refusals this instance can decide cost no Redis call', { skip: missing ?? false }, () => {
  /** 20 a minute, the default: a token comes back every 3 s. */
  const LIMIT = 20;
  let redis: RedisServer;
  let server: RunningServer;

  before(async () => {
    redis = await startRedis();
    server = await startServer({
      apiKey: KEY,
      rateLimitPerMinute: LIMIT,
      env: {
        RATE_LIMIT_REDIS_URL: redis.url,
        RATE_LIMIT_REDIS_PREFIX: 'test:t2:',
        // Generous: a busy machine must not turn this into a test of the fallback, where no
        // call reaches Redis at all.
        RATE_LIMIT_REDIS_TIMEOUT_MS: '5000',
      },
    });
  });

  after(async () => {
    await server?.stop();
    await redis?.close();
  });

  it('T2: 100 keyless POSTs from one address cost fewer than 50 script calls; a keyed POST that takes a token costs exactly one', async () => {
    const from = '127.0.21.1';
    const replies: Reply[] = [];
    const keyless = await scriptCallsFor(redis, async () => {
      for (let i = 0; i < 100; i++)
        replies.push(await post(server.url, null, { mode: 'password' }, { localAddress: from }));
    });
    const keyed: Reply[] = [];
    const keyedCalls = await scriptCallsFor(redis, async () => {
      keyed.push(await post(server.url, KEY, { mode: 'password' }, { localAddress: from }));
    });
    process.stdout.write(`T2 script calls: 100 keyless POSTs ${keyless}, 1 keyed POST ${keyedCalls}\n`);
    // The no-key bucket gives 401s while it has tokens, then 429s (a token may come back in
    // between on a slow machine: a 401 then, and one more call).
    assert.deepEqual(statuses(replies.slice(0, LIMIT)), Array<number>(LIMIT).fill(401));
    assert.ok(
      replies.slice(LIMIT).every((r) => r.status === 429 || r.status === 401),
      String(statuses(replies)),
    );
    assert.ok(keyless < 50, `script calls for 100 keyless POSTs: ${keyless}`);
    // Each refusal carries the numbers this instance saw: Retry-After at most one interval.
    const last = replies.at(-1)!;
    if (last.status === 429) {
      assert.equal(last.headers['x-ratelimit-remaining'], '0');
      assert.ok(Number(last.headers['retry-after']) >= 1 && Number(last.headers['retry-after']) <= 3);
    }
    // The client's own bucket is untouched by its keyless attempts: the keyed POST is granted,
    // and it costs exactly one call.
    assert.deepEqual(statuses(keyed), [200]);
    assert.equal(keyed[0].headers['x-ratelimit-remaining'], String(LIMIT - 1));
    assert.equal(keyedCalls, 1, 'script calls for one keyed POST');
  });
});

describe(
  'T2: what an instance grants while Redis is out is charged to Redis when it is back',
  {
    skip: missing ?? false,
    timeout: 300_000,
  },
  () => {
    /** 3 a minute: a shared token comes back every 20 s, so a scenario that runs within that
     * sees no refill (checked on this process's clock, and repeated on a fresh client if not). */
    const LIMIT = 3;
    const REFILL_MS = 60_000 / LIMIT;
    const PREFIX = 'test:t2b:';
    let redis: RedisServer;
    let a: RunningServer;
    let b: RunningServer;
    let sources = 0;

    before(async () => {
      redis = await startRedis();
      const env = (timeoutMs: number) => ({
        RATE_LIMIT_REDIS_URL: redis.url,
        RATE_LIMIT_REDIS_PREFIX: PREFIX,
        RATE_LIMIT_REDIS_TIMEOUT_MS: String(timeoutMs),
      });
      // A notices the paused Redis after 1 s; B is only asked while Redis answers.
      [a, b] = await Promise.all([
        startServer({ apiKey: KEY, rateLimitPerMinute: LIMIT, env: env(1_000) }),
        startServer({ apiKey: KEY, rateLimitPerMinute: LIMIT, env: env(5_000) }),
      ]);
    });

    after(async () => {
      redis?.resume();
      await Promise.all([a?.stop(), b?.stop()]);
      await redis?.close();
    });

    /** Tokens of a client's own bucket in Redis now, by the stored TAT and Redis's clock. */
    async function sharedTokens(client: string): Promise<number> {
      const stored = (await command(redis, 'GET', redisKey(PREFIX, client))) as string | null;
      if (stored === null) return LIMIT;
      const [time] = [(await command(redis, 'TIME')) as [string, string]];
      const now = Number(time[0]) * 1e6 + Number(time[1]);
      const [tat, rest] = stored.split(':').map(Number);
      const [, q] = gcraArgs(LIMIT).map(Number);
      return Math.min(LIMIT, LIMIT - (tat + rest / LIMIT - now) / q);
    }

    it('T2: the grants of A fallback are charged on reconnection: B then refuses the client, 0 extra 200s', async () => {
      for (let attempt = 1; ; attempt++) {
        const x = `127.0.22.${++sources}`;
        const y = `127.0.23.${sources}`;
        const started = performance.now();
        const first = await post(a.url, KEY, { mode: 'password' }, { localAddress: x });
        assert.equal(first.status, 200, 'one token taken through Redis');

        const mark = a.output().length;
        redis.pause();
        // Another client's POST meets the stalled Redis: A switches to its fallback.
        await post(a.url, null, { mode: 'password' }, { localAddress: y });
        await a.waitForOutput(/"msg":"rate limit: Redis unavailable/, 30_000, mark);
        const during: Reply[] = [];
        for (let i = 0; i < LIMIT; i++) during.push(await post(a.url, KEY, { mode: 'password' }, { localAddress: x }));
        const back = a.output().length;
        redis.resume();
        await a.waitForOutput(/"msg":"rate limit: Redis answering again/, 30_000, back);

        const afterwards = await post(b.url, KEY, { mode: 'password' }, { localAddress: x });
        const tokens = await sharedTokens(x);
        const elapsed = performance.now() - started;
        process.stdout.write(
          `T2 outage: A granted ${statuses(during).filter((s) => s === 200).length} in fallback; ` +
            `then B answered ${afterwards.status}, Redis holds ${tokens.toFixed(2)} tokens (${Math.round(elapsed)} ms)\n`,
        );
        if (elapsed >= REFILL_MS) {
          assert.ok(attempt < 4, 'four attempts in a row took longer than a refill interval');
          continue;
        }
        // A saw 2 tokens left in Redis: 2 grants on its own, then a 429.
        assert.deepEqual(statuses(during), [200, 200, 429]);
        assert.ok(tokens < 1, `Redis holds ${tokens} tokens for the client`);
        assert.equal(afterwards.status, 429, 'B, which never saw the client, refuses it from Redis');
        assert.equal(afterwards.headers['x-ratelimit-remaining'], '0');
        return;
      }
    });
  },
);

describe('T2: the charge-back script on a real Redis', { skip: missing ?? false }, () => {
  let redis: RedisServer;
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await redis?.close();
  });

  const time = async (): Promise<number> => {
    const [s, us] = (await command(redis, 'TIME')) as [string, string];
    return Number(s) * 1e6 + Number(us);
  };
  /** Runs CHARGE_SCRIPT on `key`: the TAT it leaves (a, b) and the Redis time it used. */
  async function charge(key: string, limit: number, grants: number, ahead: number) {
    const reply = (await command(
      redis,
      'EVAL',
      CHARGE_SCRIPT,
      '1',
      key,
      ...chargeArgs(limit, grants, ahead),
    )) as number[];
    assert.equal(reply[0], 1);
    assert.equal(reply[4], 0);
    return { a: reply[1], b: reply[2], now: reply[3] };
  }

  it('T2: sets max(stored + n T, now + ahead), capped at an empty bucket, and expires it then', async () => {
    // Nothing stored: this instance's own view.
    let r = await charge('t2:a', 20, 4, 12_000_000);
    assert.deepEqual([r.a - r.now, r.b], [12_000_000, 0]);
    assert.equal(await command(redis, 'GET', 't2:a'), `${r.a}:0:20`);
    const pttl = Number(await command(redis, 'PTTL', 't2:a'));
    assert.ok(pttl > 11_900 && pttl <= 12_001, `PTTL ${pttl}`);

    // A stored TAT (other instances' grants) plus n intervals, when that is further.
    const stored = (await time()) + 10_000_000;
    await command(redis, 'SET', 't2:b', `${stored}:3:7`);
    r = await charge('t2:b', 7, 3, 1_000_000);
    // 3 T at 7 a minute = 25714285 + 5/7 us; 3/7 + 5/7 carries one whole microsecond.
    assert.deepEqual([r.a, r.b], [stored + 25_714_286, 1]);
    assert.equal(await command(redis, 'GET', 't2:b'), `${r.a}:1:7`);

    // Stored under another limit (a rolling change): read as whole microseconds rounded up.
    await command(redis, 'SET', 't2:c', `${stored}:5:7`);
    r = await charge('t2:c', 20, 1, 0);
    assert.deepEqual([r.a, r.b], [stored + 1 + 3_000_000, 0]);

    // Never past an empty bucket: the GCRA script would read that as a clock step back.
    await command(redis, 'SET', 't2:d', `${(await time()) + 55_000_000}:0:20`);
    r = await charge('t2:d', 20, 20, 0);
    assert.deepEqual([r.a - r.now, r.b], [WINDOW_MICROS, 0]);
    const [, q, rem] = gcraArgs(20);
    const refused = (await command(redis, 'EVAL', GCRA_SCRIPT, '1', 't2:d', '20', q, rem, '1')) as number[];
    assert.equal(refused[0], 0, 'the charged bucket is empty for the GCRA script');

    // A TAT from a clock step back, or a value that is not ours: only this instance's view counts.
    await command(redis, 'SET', 't2:e', `${(await time()) + 3 * WINDOW_MICROS}:0:20`);
    r = await charge('t2:e', 20, 2, 5_000_000);
    assert.equal(r.a - r.now, 5_000_000);
    await command(redis, 'SET', 't2:f', 'not a bucket');
    r = await charge('t2:f', 20, 2, 5_000_000);
    assert.equal(r.a - r.now, 5_000_000);

    // Nothing ahead of now: nothing written.
    r = await charge('t2:g', 20, 1, 0);
    assert.deepEqual([r.a, r.b], [r.now, 0]);
    assert.equal(await command(redis, 'EXISTS', 't2:g'), 0);
  });
});
