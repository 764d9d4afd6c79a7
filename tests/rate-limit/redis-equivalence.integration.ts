/**
 * The shared bucket and the in-process bucket give the same decisions and the same header
 * numbers for the same arrival schedules (fast-check; seed printed, FUZZ_SEED replays,
 * REDIS_EQUIVALENCE_RUNS scales).
 *
 * Each schedule runs for real against a private redis-server: first client 0's bucket is
 * drained by pipelined bursts (one connection, as a busy instance would send them) until one
 * call is refused, then 0 to 5 more, then steps separated by random pauses of up to 2.5 emission intervals, each step one to four calls
 * (consume or peek, three clients) in flight together. The script returns the Redis TIME it
 * used; an in-process `RateLimiter` is then driven with the same calls in the same order, its
 * injectable clock set to that Redis time (as milliseconds since the schedule's first call,
 * which keeps the doubles small). Every reply must be identical, field by field: no tolerance.
 * None is needed because Redis time enters both buckets as the same number; the pauses only
 * shape the schedule, they never decide the expected answer.
 *
 * Limits 60, 600 and 6,000 per minute have whole-microsecond emission intervals; 7,000 has
 * T = 8571 + 3/7 us and exercises the remainder arithmetic.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import fc from 'fast-check';
import { RateLimiter, type RateLimitState } from '../../lib/rate-limit/token-bucket.ts';
import { gcraState, type GcraReply } from '../../lib/rate-limit/gcra.ts';
import type { RedisRateLimitStore } from '../../lib/rate-limit/redis-store.ts';
import { fuzzSeed, runsFrom } from '../helpers/fuzz-bodies.ts';
import { openStore, redisMissing, startRedis, type RedisServer } from '../helpers/redis-server.ts';

const missing = redisMissing();
const RUNS = runsFrom('REDIS_EQUIVALENCE_RUNS', 8);
const LIMITS = [60, 600, 6000, 7000] as const;

type Op = { client: number; take: boolean };

// Mostly client 0, the drained one, where the refusals and the boundaries are.
const opArb = fc.record({ client: fc.constantFrom(0, 0, 0, 0, 1, 2), take: fc.constantFrom(true, true, true, false) });
const stepArb = fc.record({
  // Pause before the step, in emission intervals (0: back to back).
  pauseFraction: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 2.5, noNaN: true })),
  ops: fc.array(opArb, { minLength: 1, maxLength: 4 }),
});

let redis: RedisServer;
const stores = new Map<number, RedisRateLimitStore>();

describe('shared bucket = in-process bucket, same schedules', { skip: missing ?? false }, () => {
  before(async () => {
    redis = await startRedis();
    for (const limit of LIMITS) {
      const { store } = await openStore(redis, { limit, prefix: 'equiv:', timeoutMs: 5_000 });
      stores.set(limit, store);
    }
  });
  after(async () => {
    for (const store of stores.values()) await store.close();
    await redis?.close();
  });

  it('identical decisions and header numbers for random arrival schedules', async () => {
    const seed = fuzzSeed('redis equivalence');
    let run = 0;
    const seen = { calls: 0, granted: 0, refused: 0, looks: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...LIMITS),
        fc.integer({ min: 0, max: 5 }),
        fc.array(stepArb, { minLength: 20, maxLength: 60 }),
        async (limit, overshoot, steps) => {
          run++;
          const store = stores.get(limit)!;
          const keyOf = (client: number): string => `run${run}-${seed}:c${client}`;
          const intervalMs = 60_000 / limit;
          // Cap pauses so every schedule ends within about a second and a half.
          const pauseCap = Math.min(2.5 * intervalMs, 50);

          const sent: { op: Op; reply: Promise<GcraReply> }[] = [];
          const send = (op: Op): void => {
            sent.push({ op, reply: store.evaluate(keyOf(op.client), op.take) });
          };
          // Drain client 0: pipelined chunks until one is refused (a burst of `limit` calls
          // takes long enough at 6,000 per minute for a dozen tokens to come back meanwhile).
          for (let drained = false; !drained;) {
            const from = sent.length;
            const size = from === 0 ? limit : Math.min(limit, 50);
            for (let i = 0; i < size; i++) send({ client: 0, take: true });
            drained = (await Promise.all(sent.slice(from).map((s) => s.reply))).some((r) => !r.granted);
          }
          for (let i = 0; i < overshoot; i++) send({ client: 0, take: true });
          for (const step of steps) {
            await Promise.all(sent.map((s) => s.reply)); // the previous step has landed
            const pause = Math.min(step.pauseFraction * intervalMs, pauseCap);
            if (pause > 0) await delay(pause);
            for (const op of step.ops) send(op);
          }
          const replies = await Promise.all(sent.map((s) => s.reply));

          // The in-process bucket, driven by the times Redis used, in the order Redis ran them
          // (one connection: send order).
          const base = replies[0].nowMicros;
          let clockMs = 0;
          const local = new RateLimiter({ perMinute: limit, clock: () => clockMs, sweepIntervalMs: 0 });
          let previous = base;
          replies.forEach((reply, i) => {
            const { op } = sent[i];
            assert.ok(reply.nowMicros >= previous, 'Redis ran the calls in the order they were sent');
            previous = reply.nowMicros;
            clockMs = (reply.nowMicros - base) / 1000;
            const key = keyOf(op.client);
            const expected: RateLimitState = { ...(op.take ? local.consume(key) : local.peek(key)) };
            const actual = gcraState(reply, limit);
            assert.deepEqual(
              actual,
              expected,
              `call ${i + 1} (${op.take ? 'consume' : 'peek'}, client ${op.client}) at +${clockMs} ms, limit ${limit}`,
            );
            seen.calls++;
            if (!op.take) seen.looks++;
            else if (actual.allowed) seen.granted++;
            else seen.refused++;
          });
        },
      ),
      // No shrinking: a schedule runs in real time, so a replay is never the same run; the
      // failing call is named in full in the assertion message instead.
      { seed, numRuns: RUNS, endOnFailure: true },
    );
    process.stdout.write(
      `redis equivalence: ${RUNS} schedules, ${seen.calls} calls compared (${seen.granted} granted, ${seen.refused} refused, ${seen.looks} looks)\n`,
    );
    // Not vacuous: both decisions were reached and compared.
    assert.ok(seen.refused > 0 && seen.granted > 0);
  });
});
