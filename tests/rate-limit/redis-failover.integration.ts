/**
 * Failure is safe: against a real redis-server that is stopped, restarted, stalled (SIGSTOP of
 * its PID), out of memory, or never there, and with a wrong password, the store never rejects,
 * never lifts the limit (each instance falls back to its own bucket), logs one warn line per
 * change of state, and shares the limit again once Redis answers. Two stores stand for two
 * server processes (each with its own client and fallback bucket).
 *
 * Nothing here sleeps to synchronise: each phase waits for a log line or a promise, with a
 * generous timeout.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, describe, it } from 'node:test';
import { setTimeout as delay, setImmediate as turn } from 'node:timers/promises';
import type { RedisRateLimitStore } from '../../lib/rate-limit/redis-store.ts';
import { captureLogger, type CapturedLogger } from '../helpers/log-capture.ts';
import { command, openStore, redisMissing, startRedis, type RedisServer } from '../helpers/redis-server.ts';

const missing = redisMissing();
const DOWN = /Redis unavailable/;
const UP = /Redis answering again/;

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const clean of cleanups.reverse()) await clean();
});

async function server(options?: Parameters<typeof startRedis>[0]): Promise<RedisServer> {
  const redis = await startRedis(options);
  cleanups.push(() => redis.close());
  return redis;
}

async function storeOn(
  redis: Pick<RedisServer, 'url'>,
  limit: number,
  log: CapturedLogger,
  extra: Parameters<typeof openStore>[1] = { limit },
): Promise<RedisRateLimitStore> {
  // openStore's generous per-call budget (2 s) unless a test names one: with the production
  // 50 ms, a Redis that a busy machine schedules late counts as an outage, and a test that
  // counts outages (one warn line each) or expects shared numbers fails on a correct store.
  const { store } = await openStore(redis, { prefix: 'failover:', ...extra, limit, logger: log.logger });
  cleanups.push(() => store.close());
  return store;
}

/** Requests from a few clients in a loop, counting outcomes; every promise must resolve. */
function load(stores: RedisRateLimitStore[]) {
  let running = true;
  const counts = { answered: 0, rejected: 0 };
  const workers = Array.from({ length: 8 }, async (_, w) => {
    while (running) {
      const store = stores[w % stores.length];
      try {
        await store.consume(`load-${w % 3}`);
        counts.answered++;
      } catch {
        counts.rejected++;
      }
      await turn(); // let timers and sockets run between requests
    }
  });
  return {
    counts,
    async stop() {
      running = false;
      await Promise.all(workers);
      return counts;
    },
  };
}

function warnCount(log: CapturedLogger, pattern: RegExp): number {
  return log.lines('warn').filter((line) => pattern.test(String(line.msg))).length;
}

/** `limit` grants then a 429, on a key nobody else used. */
async function assertLimited(store: RedisRateLimitStore, key: string, limit: number): Promise<void> {
  for (let i = 0; i < limit; i++)
    assert.equal((await store.consume(key)).allowed, true, `request ${i + 1} of ${limit}`);
  const refused = await store.consume(key);
  assert.equal(refused.allowed, false, `request ${limit + 1} refused`);
  assert.equal(refused.retryAfterSeconds, Math.ceil(60 / limit));
}

describe(
  'Redis failures fall back to in-process limiting, never lift the limit',
  { skip: missing ?? false, timeout: 120_000 },
  () => {
    it('Redis stopped under load: no rejection, limits per process, one warn line each; restarted: shared again within seconds', async () => {
      const redis = await server();
      const logA = captureLogger();
      const logB = captureLogger();
      const a = await storeOn(redis, 20, logA);
      const b = await storeOn(redis, 20, logB);
      const traffic = load([a, b]);

      // Shared: what A takes, B sees.
      await a.consume('before');
      assert.equal((await b.consume('before')).remaining, 18);

      const stopped = redis.pid;
      await redis.stop();
      await Promise.all([logA.waitFor(DOWN), logB.waitFor(DOWN)]);
      assert.equal(a.isShared, false);
      // Per process: each store's own bucket, each still exactly the limit.
      await assertLimited(a, 'during', 20);
      await assertLimited(b, 'during', 20);
      const duringOutage = traffic.counts.answered;

      await redis.start();
      assert.notEqual(redis.pid, stopped);
      const restartedAt = performance.now();
      await Promise.all([logA.waitFor(UP, 30_000), logB.waitFor(UP, 30_000)]);
      const resumeMs = performance.now() - restartedAt;
      process.stdout.write(`redis failover: shared limiting resumed ${resumeMs.toFixed(0)} ms after the restart\n`);

      // Shared again (the restarted Redis is empty): A's grants are B's numbers.
      await a.consume('after');
      await a.consume('after');
      assert.equal((await b.consume('after')).remaining, 17);
      await assertLimited(b, 'after-limit', 20);
      assert.equal((await a.consume('after-limit')).allowed, false, 'B emptied the shared bucket, A sees it');

      const counts = await traffic.stop();
      assert.equal(counts.rejected, 0, 'no request ever rejected');
      assert.ok(duringOutage > 0 && counts.answered > duringOutage, 'load ran before, during and after the outage');
      for (const log of [logA, logB]) {
        assert.equal(warnCount(log, DOWN), 1, `one line for going down:\n${log.text()}`);
        assert.equal(warnCount(log, UP), 1, 'one line for coming back');
        assert.equal(log.lines('warn').length, 2);
      }
    });

    it('a stalled Redis (SIGSTOP) hits the 50 ms per-call timeout and falls back without queueing requests; SIGCONT: shared again', async () => {
      const redis = await server();
      const log = captureLogger();
      // The production per-call budget (50 ms): this test exercises the real default.
      const store = await storeOn(redis, 20, log, { limit: 20, timeoutMs: 50 });
      // Its start-up probe had 50 ms too, and a Redis that a busy machine schedules late is an
      // outage by that budget: should that have happened, the stall starts once it is over.
      while (!store.isShared) await log.waitFor(UP, undefined, log.text().length);
      const mark = log.text().length;
      const warned = (pattern: RegExp): string[] =>
        log
          .text()
          .slice(mark)
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .filter((l) => l.level === 'warn' && pattern.test(String(l.msg)))
          .map((l) => (typeof l.reason === 'string' ? l.reason : ''));
      const before = Number(
        /cmdstat_evalsha:calls=(\d+)/.exec(String(await command(redis, 'INFO', 'commandstats')))?.[1] ?? 0,
      );

      redis.pause();
      const first = await store.consume('stalled'); // waits for the timeout, then the fallback
      assert.equal(first.allowed, true);
      assert.equal(first.remaining, 19);
      assert.equal(store.isShared, false);
      await log.waitFor(DOWN, undefined, mark);
      assert.match(warned(DOWN)[0] ?? '', /no answer within 50 ms/);
      // Still stalled: the fallback answers everything itself and enforces the limit.
      for (let i = 0; i < 19; i++) assert.equal((await store.consume('stalled')).allowed, true);
      for (let i = 0; i < 100; i++) assert.equal((await store.consume('stalled')).allowed, false);

      redis.resume();
      await log.waitFor(UP, undefined, mark);
      assert.equal(store.isShared, true);
      // Redis ran the first request and the probes, not the 119 answered in-process.
      const after = Number(
        /cmdstat_evalsha:calls=(\d+)/.exec(String(await command(redis, 'INFO', 'commandstats')))![1],
      );
      assert.ok(after - before < 20, `${after - before} script calls reached Redis during the stall`);
      assert.equal(warned(DOWN).length, 1);
      assert.equal(warned(UP).length, 1);
    });

    it('a Redis that answers errors (out of memory) falls back, and the probe waits until it accepts writes again', async () => {
      const redis = await server();
      const log = captureLogger();
      const store = await storeOn(redis, 5, log);
      await command(redis, 'CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
      await command(redis, 'CONFIG', 'SET', 'maxmemory', '1');
      const state = await store.consume('oom-client');
      assert.equal(state.allowed, true);
      assert.equal(store.isShared, false);
      await log.waitFor(DOWN);
      assert.match(String(log.lines('warn')[0]?.reason), /OOM/);
      await assertLimited(store, 'oom-limited', 5);
      // Keep requests coming until at least three probes have been refused by Redis: a probe
      // that only checked the connection would have switched back (and logged) by then.
      const refusedScripts = async (): Promise<number> => {
        const stats = String(await command(redis, 'INFO', 'commandstats'));
        return [...stats.matchAll(/cmdstat_eval(?:sha)?:.*?(?:rejected_calls=(\d+)).*?failed_calls=(\d+)/g)].reduce(
          (n, m) => n + Number(m[1]) + Number(m[2]),
          0,
        );
      };
      const refusedBefore = await refusedScripts();
      while ((await refusedScripts()) < refusedBefore + 3) {
        await store.consume('oom-traffic');
        await delay(10); // pacing only: the loop ends on the observed count
      }
      assert.equal(store.isShared, false);
      await command(redis, 'CONFIG', 'SET', 'maxmemory', '0');
      await log.waitFor(UP);
      assert.equal((await store.consume('oom-after')).remaining, 4);
      assert.equal(await command(redis, 'EXISTS', 'failover:{oom-after}'), 1, 'answered by Redis');
      assert.equal(warnCount(log, DOWN), 1, `no flapping while writes failed:\n${log.text()}`);
      assert.equal(warnCount(log, UP), 1);
    });

    it('Redis not there at start-up: open() returns on the fallback with one line; once Redis starts, shared', async () => {
      const placeholder = await server(); // only to learn a port that is free again once stopped
      const port = placeholder.port;
      await placeholder.close();
      const log = captureLogger();
      const store = await storeOn({ url: `redis://127.0.0.1:${port}` }, 10, log, { limit: 10, connectWaitMs: 300 });
      assert.equal(store.isShared, false);
      await log.waitFor(DOWN);
      assert.equal((await store.consume('early')).remaining, 9, 'answered in-process');

      const redis = await server({ port });
      await log.waitFor(UP);
      assert.equal((await store.consume('late')).remaining, 9);
      assert.equal(await command(redis, 'EXISTS', 'failover:{late}'), 1, 'answered by Redis');
      assert.equal(log.lines('warn').length, 2);
    });

    it('a wrong password falls back with the reason and never logs a password; the password file connects', async () => {
      const password = 'correct-horse-battery-staple-0123';
      const redis = await server({ password });
      const url = `redis://127.0.0.1:${redis.port}`;
      const log = captureLogger();
      // The reason is logged if the refusal comes within connectWaitMs, else "not reachable":
      // the default 2 s, not a 500 ms a busy machine can take for a local connect and AUTH.
      const wrong = await storeOn({ url: `redis://:wrong-password-4567@127.0.0.1:${redis.port}` }, 10, log, {
        limit: 10,
      });
      assert.equal(wrong.isShared, false);
      await log.waitFor(DOWN);
      assert.match(String(log.lines('warn')[0]?.reason), /WRONGPASS|NOAUTH|invalid/i);
      assert.equal((await wrong.consume('x')).remaining, 9);
      await wrong.close();

      const dir = mkdtempSync(join(tmpdir(), 'cg-redis-pw-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      writeFileSync(join(dir, 'redis-password'), `${password}\n`, { mode: 0o600 });
      const good = await storeOn({ url }, 10, log, {
        limit: 10,
        env: { RATE_LIMIT_REDIS_PASSWORD_FILE: join(dir, 'redis-password') },
      });
      assert.equal(good.isShared, true);
      assert.equal((await good.consume('y')).remaining, 9);
      assert.equal(await command(redis, 'EXISTS', 'failover:{y}'), 1);
      assert.ok(
        !log.text().includes('wrong-password-4567') && !log.text().includes(password),
        'no password in any log line',
      );
    });

    it('close() returns at once even with Redis stalled; afterwards requests are still answered (in-process)', async () => {
      const redis = await server();
      const log = captureLogger();
      const store = await storeOn(redis, 3, log);
      await store.consume('closing');
      redis.pause();
      const pending = store.consume('closing'); // in flight when the store closes
      await store.close();
      const state = await pending;
      assert.equal(state.limit, 3);
      assert.equal((await store.consume('after-close')).remaining, 2);
      assert.equal(store.isShared, false);
      redis.resume();
      assert.equal(log.lines('warn').length, 0, 'closing is no outage');
    });
  },
);
