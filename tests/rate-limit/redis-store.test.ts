/**
 * The store's wiring and its rarer branches, with a scripted stand-in for the `redis` module
 * (the real server is in the other files of this directory): the client options it asks for
 * (offline queue off, bounded reconnection backoff, TLS with the host name, credentials), what a
 * malformed or odd reply does (never an exception, never a lifted limit), a missing `redis`
 * package (one clear line), and the pure GCRA helpers' argument checks.
 */
/* eslint-disable @typescript-eslint/require-await -- the scripted answers stand in for
   node-redis's async calls: as async functions, a throw becomes a rejection, as it does there. */
/* eslint-disable @typescript-eslint/only-throw-error -- a non-Error rejection is one of the odd
   replies under test. */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { RateLimiter } from '../../lib/rate-limit/token-bucket.ts';
import {
  CHARGE_SHA1,
  chargeArgs,
  decodeGcraReply,
  gcraArgs,
  tokensAt,
  WINDOW_MICROS,
} from '../../lib/rate-limit/gcra.ts';
import { parseRedisConfig } from '../../lib/server/redis-config.ts';
import {
  loadRedis,
  RedisPackageMissingError,
  RedisRateLimitStore,
  type RedisClientLike,
  type RedisStoreOptions,
} from '../../lib/rate-limit/redis-store.ts';
import { StandaloneLink } from '../../lib/rate-limit/redis-links.ts';
import { captureLogger } from '../helpers/log-capture.ts';

/** Answers commands with `answer`; connects at once. */
class ScriptedClient extends EventEmitter implements RedisClientLike {
  isReady = false;
  destroyed = 0;
  readonly sent: string[][] = [];
  private readonly answer: (args: string[]) => Promise<unknown>;
  constructor(answer: (args: string[]) => Promise<unknown>) {
    super();
    this.answer = answer;
  }
  async connect(): Promise<unknown> {
    this.isReady = true;
    this.emit('ready');
    return this;
  }
  sendCommand(args: string[]): Promise<unknown> {
    this.sent.push(args);
    this.emit('sent');
    return this.answer(args);
  }
  /** Resolves once `n` commands have been sent in all (an observable event, not a sleep). */
  waitForSent(n: number, timeoutMs = 15_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${this.sent.length} of ${n} commands sent`)), timeoutMs);
      const check = (): void => {
        if (this.sent.length < n) return;
        clearTimeout(timer);
        this.off('sent', check);
        resolve();
      };
      this.on('sent', check);
      check();
    });
  }
  destroy(): void {
    this.destroyed++;
    this.isReady = false;
  }
}

/** A well-formed grant: TAT = now + one interval. */
function grant(limit: number, now = 1_800_000_000_000_000): unknown[] {
  const [, q, r] = gcraArgs(limit).map(Number);
  return [1, now + q, r, now, 0];
}

async function open(
  url: string,
  answer: (args: string[]) => Promise<unknown>,
  limit = 10,
  observers: Pick<RedisStoreOptions, 'onStateChange' | 'onCall'> = {},
  fallback = new RateLimiter({ perMinute: limit, sweepIntervalMs: 0 }),
) {
  let options: Record<string, unknown> | undefined;
  const client = new ScriptedClient(answer);
  const log = captureLogger('warn');
  const store = await RedisRateLimitStore.open({
    config: parseRedisConfig({ RATE_LIMIT_REDIS_URL: url }, process.cwd())!,
    limit,
    fallback,
    logger: log.logger,
    connectWaitMs: 200,
    ...observers,
    importRedis: async () => ({
      createClient(o: Record<string, unknown>) {
        options = o;
        return client;
      },
    }),
  });
  return { store, client, log, options: options! };
}

describe('Redis store wiring (scripted client)', () => {
  it('asks node-redis for no offline queue, bounded jittered backoff, TLS with the host name, the credentials', async () => {
    const { store, options } = await open('rediss://svc:pw@cache.example:6380/2', async (args) =>
      grant(10, args.length),
    );
    const socket = options.socket as Record<string, unknown> & { reconnectStrategy: (n: number) => number };
    assert.equal(options.disableOfflineQueue, true);
    assert.equal(socket.host, 'cache.example');
    assert.equal(socket.port, 6380);
    assert.equal(socket.tls, true);
    assert.equal(socket.servername, 'cache.example');
    assert.equal(options.username, 'svc');
    assert.equal(options.password, 'pw');
    assert.equal(options.database, 2);
    assert.equal('url' in options, false, 'the URL text (with its password) is not handed over');
    for (const [retries, low, high] of [
      [0, 50, 55],
      [1, 100, 110],
      [5, 1600, 1760],
      [6, 2000, 2200],
      [1000, 2000, 2200],
    ] as const) {
      const delay = socket.reconnectStrategy(retries);
      assert.ok(delay >= low && delay < Math.max(high, low + 1), `retry ${retries}: ${delay} ms`);
    }
    await store.close();
  });

  it('plain redis:// gets no TLS options and no credentials', async () => {
    const { store, options } = await open('redis://cache.example', async () => grant(10));
    const socket = options.socket as Record<string, unknown>;
    assert.equal(socket.tls, false);
    assert.equal('servername' in socket, false);
    assert.equal('username' in options, false);
    assert.equal('password' in options, false);
    await store.close();
  });

  it('mirrors each shared answer into this instance: view shows it, and the fallback keeps an empty client out', async () => {
    const now = 1_800_000_000_000_000;
    let failing = false;
    const { store, client, log } = await open(
      'redis://h',
      async (args) => {
        if (failing) throw new Error('ECONNRESET');
        const keys = args.slice(2, 2 + Number(args[2]) + 1);
        // The gated call for "gated" is refused by its empty gate; every other call empties its bucket.
        if (keys.includes('cg:rl:{gate}')) return [0, now + WINDOW_MICROS, 0, now, 1];
        return [1, now + WINDOW_MICROS, 0, now, 0];
      },
      10,
    );
    assert.equal(store.view('c').remaining, 10, 'nothing seen yet: a full bucket');
    assert.equal((await store.consume('c')).remaining, 0);
    assert.equal(store.view('c').remaining, 0, 'the shared answer is this instance view');
    assert.equal((await store.consume('gated', 'gate')).allowed, false);
    assert.equal(store.view('gate').remaining, 0, 'a refusal by the gate is mirrored onto the gate');
    assert.equal(store.view('gated').remaining, 10, 'and not onto the bucket it guarded');
    failing = true;
    const during = await store.consume('c');
    assert.equal(store.isShared, false);
    assert.equal(during.allowed, false, 'a client out of shared tokens stays out when Redis goes away');
    assert.equal((await store.consume('gated', 'gate')).allowed, false, 'the gate holds in the fallback too');
    assert.equal((await store.consume('fresh')).remaining, 9, 'an unseen client: one full bucket here');
    await log.waitFor(/Redis unavailable/);
    failing = false;
    await log.waitFor(/Redis answering again/);
    assert.equal(store.isShared, true);
    assert.ok(client.sent.length > 5);
    await store.close();
  });

  it('a malformed reply or an odd rejection falls back (limited in-process) with one line, never throws', async () => {
    const replies: unknown[] = [[1, 2], 'OK', [1, 1.5, 0, 0, 0], [1, 2 ** 60, 0, 0, 0], [1, 2, 3, 4]];
    const odd = [Object.assign(new Error(''), { code: 'ECONNREFUSED' }), 'a string', new Error('x'.repeat(300))];
    for (const reply of replies) {
      let calls = 0;
      // The probe at start-up succeeds; the request after it gets the odd reply.
      const { store, log } = await open('redis://h', async () => (calls++ === 0 ? grant(10) : reply));
      assert.equal(store.isShared, true);
      const state = await store.consume('k');
      assert.equal(state.remaining, 9, 'answered by the fallback bucket');
      assert.equal(store.isShared, false);
      await log.waitFor(/Redis unavailable/);
      assert.match(String(log.lines('warn')[0].reason), /unexpected reply/);
      await store.close();
    }
    for (const error of odd) {
      let calls = 0;
      const { store, log } = await open('redis://h', async () => {
        if (calls++ === 0) return grant(10);
        throw error;
      });
      assert.equal((await store.consume('k')).remaining, 9, 'answered by the fallback bucket');
      await log.waitFor(/Redis unavailable/);
      const reason = String(log.lines('warn')[0].reason);
      assert.ok(reason.length <= 140 && reason.length > 0, reason);
      if (typeof error === 'string') assert.equal(reason, 'unknown error');
      await store.close();
    }
  });

  it('a probe that never succeeds keeps it on the fallback, quietly; close() stops probing and drops the client', async () => {
    const { store, client, log } = await open('redis://h', async () => {
      throw new Error('LOADING Redis is loading the dataset in memory');
    });
    assert.equal(store.isShared, false);
    await log.waitFor(/Redis unavailable/);
    // Wait for three more probes (each sends one EVALSHA), all refused, still one line.
    await client.waitForSent(4);
    assert.equal(log.lines('warn').length, 1);
    await store.close();
    await store.close();
    assert.equal(client.destroyed, 1, 'closed once');
    const sent = client.sent.length;
    client.emit('ready'); // a late event after close probes nothing
    client.emit('error', new Error('late'));
    assert.equal(client.sent.length, sent);
    assert.equal((await store.consume('k')).remaining, 9);
  });

  it('tells its observers each switch, as logged, and each call with its duration and outcome', async () => {
    let failing = false;
    const switches: boolean[] = [];
    const calls: [number, boolean][] = [];
    const { store, log } = await open(
      'redis://h',
      async () => {
        if (failing) throw new Error('ECONNRESET');
        return grant(10);
      },
      10,
      { onStateChange: (shared) => switches.push(shared), onCall: (seconds, ok) => calls.push([seconds, ok]) },
    );
    assert.deepEqual(switches, [true], 'the first probe at start-up succeeded');
    await store.consume('k');
    failing = true;
    await store.consume('k');
    await log.waitFor(/Redis unavailable/);
    assert.deepEqual(switches, [true, false]);
    failing = false;
    await log.waitFor(/Redis answering again/);
    assert.deepEqual(switches, [true, false, true], 'one call per warn line, and the first switch to shared');
    assert.deepEqual(
      calls.slice(0, 3).map(([, ok]) => ok),
      [true, true, false],
      'probe, request, failed request',
    );
    assert.ok(
      calls.every(([seconds]) => seconds >= 0 && seconds < 60),
      'durations in seconds',
    );
    assert.equal(calls.at(-1)?.[1], true, 'the probe that switched back');
    await store.close();
  });

  it('refuses a fallback bucket with another limit', () => {
    const client = new ScriptedClient(async () => grant(5));
    assert.throws(
      () =>
        new RedisRateLimitStore(new StandaloneLink(client), {
          config: parseRedisConfig({ RATE_LIMIT_REDIS_URL: 'redis://h' }, process.cwd())!,
          limit: 5,
          fallback: new RateLimiter({ perMinute: 6, sweepIntervalMs: 0 }),
          logger: captureLogger().logger,
        }),
      /same limit/,
    );
  });
});

describe('the redis package', () => {
  it('missing: one clear line naming the setting, the package and the command', async () => {
    const notFound = Object.assign(new Error("Cannot find package 'redis' imported from /srv/app.mjs"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await assert.rejects(
      loadRedis(() => Promise.reject(notFound)),
      (error: unknown) => {
        assert.ok(error instanceof RedisPackageMissingError);
        assert.equal(
          error.message,
          'RATE_LIMIT_REDIS_URL is set but the redis package is not installed: run npm install --save-exact redis@6.3.1 next to the server',
        );
        assert.ok(!error.message.includes('\n'));
        return true;
      },
    );
    // Any other failure is not disguised as a missing package.
    const broken = new SyntaxError('Unexpected token');
    await assert.rejects(
      loadRedis(() => Promise.reject(broken)),
      (error: unknown) => error === broken,
    );
  });

  it('the pinned devDependency is the version the message names', async () => {
    const { REDIS_PACKAGE_VERSION } = await import('../../lib/rate-limit/redis-store.ts');
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as {
      devDependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional: boolean }>;
    };
    assert.equal(pkg.devDependencies.redis, REDIS_PACKAGE_VERSION);
    assert.equal(pkg.peerDependenciesMeta.redis?.optional, true);
    assert.ok(pkg.peerDependencies.redis !== undefined);
  });
});

describe('GCRA helpers', () => {
  it('splits the emission interval into whole microseconds and a remainder in 1/C us', () => {
    assert.deepEqual(gcraArgs(1), ['1', '60000000', '0']);
    assert.deepEqual(gcraArgs(7), ['7', '8571428', '4']);
    assert.deepEqual(gcraArgs(6000), ['6000', '10000', '0']);
    assert.deepEqual(gcraArgs(7000), ['7000', '8571', '3000']);
    assert.deepEqual(gcraArgs(1_000_000_000), ['1000000000', '0', '60000000']);
    for (const limit of [0, -1, 1.5, 1e9 + 1, Number.NaN])
      assert.throws(() => gcraArgs(limit), RangeError, String(limit));
    for (const limit of [1, 7, 20, 6000, 7000, 123_457, 1e9]) {
      const [, q, r] = gcraArgs(limit).map(Number);
      assert.equal(q * limit + r, WINDOW_MICROS, `q * C + r = 60 s for ${limit}`);
      assert.ok(r >= 0 && r < limit);
    }
  });

  it('decodes only five safe integers', () => {
    assert.deepEqual(decodeGcraReply([0, 5, 1, 4, 1]), {
      granted: false,
      tatMicros: 5,
      tatRemainder: 1,
      nowMicros: 4,
      byGate: true,
    });
    for (const bad of [
      null,
      'x',
      [],
      [1, 2, 3],
      [1, 2, 3, 4],
      [1, 2, 3, 4, 5, 6],
      ['1', 2, 3, 4, 0],
      [1, 2, 3, 4, '0'],
      [1, 2, 3, Number.MAX_SAFE_INTEGER + 2, 0],
    ]) {
      assert.throws(() => decodeGcraReply(bad), TypeError, JSON.stringify(bad));
    }
  });

  it('splits n * T exactly for the charge-back, even where n * r passes 2^53', () => {
    assert.deepEqual(chargeArgs(20, 3, 9_000_000), ['20', '9000000', '0', '9000000']);
    // 7 per minute: T = 8571428 + 4/7 us, 3 T = 25714285 + 5/7 us.
    assert.deepEqual(chargeArgs(7, 3, 0.5), ['7', '25714285', '5', '1']);
    // 1e9 per minute: 1e9 intervals are exactly one window.
    assert.deepEqual(chargeArgs(1e9, 1e9, -1), ['1000000000', String(WINDOW_MICROS), '0', '0']);
    assert.deepEqual(chargeArgs(999_999_937, 999_999_936, 0)[1], String(WINDOW_MICROS - 1));
  });

  it('counts tokens from the TAT: full at or before now, C - (TAT - now) / T after', () => {
    const now = 1_800_000_000_000_000;
    assert.equal(tokensAt({ granted: true, tatMicros: now, tatRemainder: 0, nowMicros: now, byGate: false }, 20), 20);
    assert.equal(
      tokensAt({ granted: true, tatMicros: now - 5, tatRemainder: 0, nowMicros: now, byGate: false }, 20),
      20,
    );
    assert.equal(
      tokensAt({ granted: true, tatMicros: now + 3_000_000, tatRemainder: 0, nowMicros: now, byGate: false }, 20),
      19,
    );
    assert.equal(
      tokensAt({ granted: true, tatMicros: now + 60_000_000, tatRemainder: 0, nowMicros: now, byGate: false }, 20),
      0,
    );
    // 7 per minute: 3 intervals = 25714285 + 5/7 us.
    assert.equal(
      tokensAt({ granted: true, tatMicros: now + 25_714_285, tatRemainder: 5, nowMicros: now, byGate: false }, 7),
      4,
    );
  });
});

/** Resolves once `done()` holds, checked after each turn of the event loop (15 s at most). */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 15_000;
  while (!done()) {
    if (performance.now() > deadline) assert.fail(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The charge-back calls a client was sent: [bucket key, n * T whole us, remainder, ahead us]. */
function charges(client: ScriptedClient): string[][] {
  return client.sent.filter((args) => args[1] === CHARGE_SHA1).map((args) => [args[3], ...args.slice(5)]);
}

describe('T2: the fallback grants are charged to Redis when it is back (scripted client)', () => {
  const now = 1_800_000_000_000_000;
  /** A Redis that is down while `down.is`, answers a charge with `charged` (the TAT it sets, us
   * ahead of now) and every other call with a grant. */
  function scripted(down: { is: boolean }, charged: (args: string[]) => Promise<number> | number = () => 0) {
    return async (args: string[]): Promise<unknown> => {
      if (down.is) throw new Error('ECONNRESET');
      if (args[1] === CHARGE_SHA1) return [1, now + (await charged(args)), 0, now, 0];
      return grant(10, now);
    };
  }

  it('T2: charges each bucket once with its grants and this instance view, before it switches back', async () => {
    const down = { is: true };
    let clock = 0;
    const fallback = new RateLimiter({ perMinute: 10, clock: () => clock, sweepIntervalMs: 0 });
    const { store, client, log } = await open(
      'redis://h',
      scripted(down, () => 4 * 6_000_000),
      10,
      {},
      fallback,
    );
    assert.equal(store.isShared, false);
    for (let i = 0; i < 3; i++) assert.equal((await store.consume('x')).allowed, true);
    await store.consume('y', 'gate');
    await store.consume('y', 'gate');
    fallback.mirror('gate', 0);
    assert.equal((await store.consume('z', 'gate')).allowed, false, 'a refusal is owed nothing');
    assert.equal(store.owedBuckets, 2);
    clock += 6_000; // one token of x back here: x holds 8 of 10
    down.is = false;
    client.emit('ready');
    await log.waitFor(/Redis answering again/);
    assert.deepEqual(charges(client), [
      ['cg:rl:{x}', '18000000', '0', '12000000'],
      ['cg:rl:{y}', '12000000', '0', '6000000'],
    ]);
    assert.equal(store.owedBuckets, 0);
    assert.equal(store.view('x').remaining, 6, 'each answer is this instance view from then on');
    await store.close();
  });

  it('T2: the count starts again once the bucket has refilled here; a refilled bucket is not charged', async () => {
    const down = { is: true };
    let clock = 0;
    const fallback = new RateLimiter({ perMinute: 10, clock: () => clock, sweepIntervalMs: 0 });
    const { store, client, log } = await open('redis://h', scripted(down), 10, {}, fallback);
    await store.consume('x');
    await store.consume('x');
    await store.consume('gone');
    clock += 60_000; // both full again here
    await store.consume('x');
    down.is = false;
    client.emit('ready');
    await log.waitFor(/Redis answering again/);
    assert.deepEqual(charges(client), [['cg:rl:{x}', '6000000', '0', '6000000']]);
    assert.equal(store.view('x').remaining, 10, 'Redis answered a full bucket: mirrored');
    await store.close();
  });

  it('T2: a failed charge keeps that bucket owed and the store on its fallback; a later probe charges it', async () => {
    const down = { is: true };
    let refuse = true;
    const fallback = new RateLimiter({ perMinute: 10, clock: () => 0, sweepIntervalMs: 0 });
    const { store, client, log } = await open(
      'redis://h',
      scripted(down, (args) => {
        if (refuse && args[3] === 'cg:rl:{a}')
          throw new Error('READONLY You cannot write against a read only replica.');
        return 0;
      }),
      10,
      {},
      fallback,
    );
    for (const key of ['a', 'b', 'a']) await store.consume(key);
    down.is = false;
    client.emit('ready');
    await until(() => charges(client).length >= 2 && store.owedBuckets === 1, 'one failed charge');
    assert.equal(store.isShared, false);
    refuse = false;
    await log.waitFor(/Redis answering again/);
    const sent = charges(client);
    assert.deepEqual(
      sent.filter(([key]) => key === 'cg:rl:{b}'),
      [['cg:rl:{b}', '6000000', '0', '6000000']],
      'b was charged once: it is not owed again when a fails',
    );
    assert.deepEqual(sent.at(-1), ['cg:rl:{a}', '12000000', '0', '12000000']);
    assert.equal(store.owedBuckets, 0);
    await store.close();
  });

  it('T2: grants made while it charges are charged by the next round, and the rest after the switch', async () => {
    const down = { is: true };
    let granted = 0;
    const ref: { store?: RedisRateLimitStore } = {};
    const { store, client, log } = await open(
      'redis://h',
      scripted(down, async () => {
        // Still on its fallback: each charge meets one more fresh client's grant.
        if (granted < 20) await ref.store!.consume(`late-${granted++}`);
        return 0;
      }),
    );
    ref.store = store;
    await store.consume('first');
    down.is = false;
    client.emit('ready');
    await log.waitFor(/Redis answering again/);
    await until(() => charges(client).length >= 9 && store.owedBuckets === 0, 'the charge after the switch');
    assert.equal(store.isShared, true);
    // 8 rounds before the switch (one bucket each), then one more after it; the grants asked
    // for during that last round are shared decisions, owed nothing.
    assert.equal(charges(client).length, 9);
    assert.equal(store.owedBuckets, 0);
    await store.close();
  });

  it('T2: a charge after the switch that fails sends the store back to its fallback, still owed', async () => {
    const down = { is: true };
    let calls = 0;
    const ref: { store?: RedisRateLimitStore } = {};
    const { store, client, log } = await open(
      'redis://h',
      scripted(down, async () => {
        calls++;
        if (calls <= 8) await ref.store!.consume(`late-${calls}`);
        if (calls === 9) throw new Error('ECONNRESET');
        return 0;
      }),
    );
    ref.store = store;
    await store.consume('first');
    down.is = false;
    client.emit('ready');
    await log.waitFor(/Redis answering again[^]*Redis unavailable/);
    assert.equal(store.owedBuckets, 1, 'the bucket whose charge failed');
    await store.close();
    assert.equal(store.owedBuckets, 0, 'close() forgets what is owed');
  });

  it('T2: what is owed is bounded by the fallback cap: the oldest bucket goes uncharged', async () => {
    const down = { is: true };
    const fallback = new RateLimiter({ perMinute: 10, maxClients: 2, sweepIntervalMs: 0 });
    const { store, client, log } = await open('redis://h', scripted(down), 10, {}, fallback);
    for (const key of ['a', 'b', 'c']) await store.consume(key);
    assert.equal(store.owedBuckets, 2);
    down.is = false;
    client.emit('ready');
    await log.waitFor(/Redis answering again/);
    assert.deepEqual(
      charges(client).map(([key]) => key),
      ['cg:rl:{b}', 'cg:rl:{c}'],
    );
    await store.close();
  });
});
