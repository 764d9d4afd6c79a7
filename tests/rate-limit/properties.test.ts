/**
 * Issue 7, limiter properties with a fake monotonic clock (fast-check; seed printed, FUZZ_SEED
 * replays, LIMITER_RUNS scales):
 * - under random arrival schedules no client is ever granted more than capacity + refill over
 *   any window (C + C * w / 60 s), hence never more than 2C in any 60 s;
 * - every state's numbers keep their promises: `remaining` = exactly how many more requests
 *   succeed at that instant; `Retry-After` seconds later one succeeds (and one second less is
 *   not enough); `Reset` seconds later the bucket is full (and one second less it is not);
 * - isolation: other clients' traffic never changes a client's answers (below the cap);
 * - the client key: IPv6 grouped by /56, IPv4-mapped IPv6 folded to IPv4 whatever the spelling,
 *   X-Forwarded-For ignored with TRUST_PROXY_HOPS=0 and only its right-most entry used with 1,
 *   so random left-most values never change the key;
 * - at the hard cap the documented behaviour (docs/deploy.md, Configuration): the least recently seen
 *   bucket is dropped, new clients are still served, memory stays bounded.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { clientAddress, clientKeyOf } from '../../lib/http/client-key.ts';
import { RateLimiter, type RateLimitState } from '../../lib/rate-limit/token-bucket.ts';
import { fuzzSeed, runsFrom } from '../helpers/fuzz-bodies.ts';

const seed = fuzzSeed('limiter properties');
const RUNS = runsFrom('LIMITER_RUNS', 1_000);

type Op = { dt: number; client: number; kind: 'consume' | 'peek' };

const schedule = fc.array(
  fc.record({
    // Bursts (0 ms), steady arrivals, and long pauses.
    dt: fc.oneof(
      fc.constant(0),
      fc.integer({ min: 0, max: 500 }),
      fc.integer({ min: 0, max: 10_000 }),
      fc.integer({ min: 0, max: 120_000 }),
      fc.double({ min: 0, max: 5_000, noNaN: true }),
    ),
    client: fc.integer({ min: 0, max: 3 }),
    kind: fc.constantFrom<'consume' | 'peek'>('consume', 'consume', 'consume', 'peek'),
  }),
  { minLength: 1, maxLength: 120 },
);

function makeLimiter(perMinute: number, start = 5_000, maxClients?: number) {
  const clock = { now: start };
  const rl = new RateLimiter({
    perMinute,
    clock: () => clock.now,
    sweepIntervalMs: 0,
    ...(maxClients === undefined ? {} : { maxClients }),
  });
  return { rl, clock };
}

/** Replays ops on a fresh limiter; returns it, its clock, and every state with its time. */
function replay(perMinute: number, ops: readonly Op[], upto = ops.length) {
  const { rl, clock } = makeLimiter(perMinute);
  const states: { at: number; client: number; kind: Op['kind']; s: RateLimitState }[] = [];
  for (let i = 0; i < upto; i++) {
    const op = ops[i];
    clock.now += op.dt;
    const key = `c${op.client}`;
    states.push({
      at: clock.now,
      client: op.client,
      kind: op.kind,
      s: { ...(op.kind === 'consume' ? rl.consume(key) : rl.peek(key)) },
    });
  }
  return { rl, clock, states };
}

const perMinuteArb = fc.constantFrom(1, 2, 3, 7, 20, 20, 20, 60, 1000);

describe('rate limiter under random schedules (fake monotonic clock)', () => {
  it('never grants more than capacity + refill over any window', () => {
    let windows = 0;
    fc.assert(
      fc.property(perMinuteArb, schedule, (perMinute, ops) => {
        const { states } = replay(perMinute, ops);
        const rate = perMinute / 60_000;
        for (let c = 0; c < 4; c++) {
          const grants = states.filter((x) => x.client === c && x.kind === 'consume' && x.s.allowed).map((x) => x.at);
          for (let i = 0; i < grants.length; i++) {
            for (let j = i; j < grants.length; j++) {
              windows++;
              const n = j - i + 1;
              const w = grants[j] - grants[i];
              assert.ok(n <= perMinute + rate * w + 1e-6, `${n} grants in ${w} ms with capacity ${perMinute}`);
              if (w <= 60_000) assert.ok(n <= 2 * perMinute);
            }
          }
        }
      }),
      { seed, numRuns: RUNS },
    );
    process.stdout.write(`limiter: ${windows} windows checked over ${RUNS} schedules\n`);
  });

  it('headers keep their promises: remaining, Retry-After and Reset are exact', () => {
    fc.assert(
      fc.property(perMinuteArb, schedule, fc.nat(), (perMinute, ops, pick) => {
        const at = 1 + (pick % ops.length);
        const { rl, clock, states } = replay(perMinute, ops, at);
        const last = states[states.length - 1];
        const key = `c${last.client}`;
        const s = rl.peek(key);
        // Shape.
        assert.equal(s.limit, perMinute);
        assert.ok(Number.isInteger(s.remaining) && s.remaining >= 0 && s.remaining <= perMinute);
        assert.ok(Number.isInteger(s.resetSeconds) && s.resetSeconds >= 0 && s.resetSeconds <= 60);
        assert.equal(s.allowed, s.remaining >= 1);
        assert.equal(s.retryAfterSeconds === 0, s.remaining >= 1);
        if (s.remaining === perMinute) assert.equal(s.resetSeconds, 0);
        if (!last.s.allowed) {
          assert.equal(last.kind === 'consume' ? last.s.remaining : 0, 0);
          assert.ok(last.s.retryAfterSeconds >= 1, 'a refusal names a wait of at least 1 s');
          assert.ok(last.s.retryAfterSeconds <= last.s.resetSeconds, 'Retry-After never later than Reset');
        }
        // remaining: exactly that many more succeed now, the next one is refused.
        {
          const fork = replay(perMinute, ops, at);
          for (let i = 0; i < s.remaining; i++)
            assert.equal(fork.rl.consume(key).allowed, true, `request ${i + 1} of ${s.remaining} remaining`);
          assert.equal(fork.rl.consume(key).allowed, false, 'one more than remaining is refused');
        }
        // Retry-After: after that many seconds one succeeds; a second less is too early.
        if (s.retryAfterSeconds > 0) {
          const early = replay(perMinute, ops, at);
          early.clock.now = clock.now + (s.retryAfterSeconds - 1) * 1000;
          assert.equal(early.rl.peek(key).allowed, false, 'Retry-After - 1 s is too early');
          const ok = replay(perMinute, ops, at);
          ok.clock.now = clock.now + s.retryAfterSeconds * 1000;
          assert.equal(ok.rl.consume(key).allowed, true, 'after Retry-After seconds a request succeeds');
        }
        // Reset: full after that many seconds, not full a second before.
        if (s.resetSeconds > 0) {
          const early = replay(perMinute, ops, at);
          early.clock.now = clock.now + (s.resetSeconds - 1) * 1000;
          assert.ok(early.rl.peek(key).remaining < perMinute, 'not full a second before Reset');
        }
        const full = replay(perMinute, ops, at);
        full.clock.now = clock.now + s.resetSeconds * 1000;
        assert.equal(full.rl.peek(key).remaining, perMinute, 'full after Reset seconds');
      }),
      { seed, numRuns: RUNS },
    );
  });

  it("isolates clients: other clients' traffic never changes one client's answers", () => {
    fc.assert(
      fc.property(perMinuteArb, schedule, (perMinute, ops) => {
        const mixed = replay(perMinute, ops)
          .states.filter((x) => x.client === 0)
          .map((x) => x.s);
        // The same timeline with only client 0's requests (others' time still passes).
        const alone: RateLimitState[] = [];
        const { rl, clock } = makeLimiter(perMinute);
        for (const op of ops) {
          clock.now += op.dt;
          if (op.client === 0) alone.push({ ...(op.kind === 'consume' ? rl.consume('c0') : rl.peek('c0')) });
        }
        assert.deepEqual(mixed, alone);
      }),
      { seed, numRuns: RUNS },
    );
  });

  it('refills on the monotonic clock only: a wall-clock jump changes nothing', () => {
    const { rl } = makeLimiter(20);
    for (let i = 0; i < 20; i++) rl.consume('a');
    const realNow = Date.now;
    try {
      Date.now = () => realNow() + 3_600_000; // an hour ahead
      assert.equal(rl.consume('a').allowed, false);
    } finally {
      Date.now = realNow;
    }
  });
});

describe('hard cap on tracked clients (documented: the least recently seen bucket is dropped)', () => {
  it('keeps at most maxClients buckets, serves every new client, and forgets the oldest first', () => {
    const cap = 1_000;
    const { rl, clock } = makeLimiter(20, 5_000, cap);
    // Client "old" spends its whole bucket, then 1,000 distinct clients arrive within a second.
    for (let i = 0; i < 20; i++) rl.consume('old');
    assert.equal(rl.consume('old').allowed, false);
    for (let i = 0; i < cap; i++) {
      clock.now += 1;
      assert.equal(rl.consume(`new${i}`).allowed, true, 'a new client is served at the cap');
      assert.ok(rl.size <= cap);
    }
    assert.equal(rl.size, cap);
    assert.equal(rl.evictions, 1, 'one bucket that was not yet full was dropped');
    // Documented price: the evicted client starts over with a full bucket.
    assert.equal(rl.consume('old').remaining, 19);
    // The most recently seen clients kept their state.
    assert.equal(rl.peek(`new${cap - 1}`).remaining, 19);
  });

  it('reports each timed sweep (the debug line the memory soak reads)', async () => {
    const calls: [number, number][] = [];
    const rl = new RateLimiter({
      perMinute: 6_000_000,
      sweepIntervalMs: 20,
      onSweep: (dropped, tracked) => calls.push([dropped, tracked]),
    });
    rl.consume('a');
    rl.consume('b');
    await new Promise((r) => setTimeout(r, 120));
    rl.close();
    assert.ok(calls.length >= 1);
    assert.deepEqual(
      calls.reduce((sum, [d]) => sum + d, 0),
      2,
      'both refilled buckets swept',
    );
    assert.equal(calls[calls.length - 1][1], 0);
  });

  it('50,000 clients: tracked while active, all dropped once refilled (sweep), heap bounded', () => {
    // A full GC before each reading, so garbage does not count (c8's instrumentation makes plenty).
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const { rl, clock } = makeLimiter(20);
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    for (let i = 0; i < 50_000; i++) rl.consume(`127.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    assert.equal(rl.size, 50_000);
    gc();
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    clock.now += 2_999;
    assert.equal(rl.sweep(), 0, 'not yet refilled: nothing dropped');
    clock.now += 1;
    assert.equal(rl.sweep(), 50_000);
    assert.equal(rl.size, 0);
    process.stdout.write(`limiter: 50,000 tracked clients took ${(heapGrowth / 1e6).toFixed(1)} MB of heap\n`);
    assert.ok(heapGrowth < 20e6, `heap growth ${heapGrowth} bytes`);
  });
});

// --- client keys ---------------------------------------------------------------------------

const hextet = fc.integer({ min: 0, max: 0xffff });
const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'));
const ipv6Groups = fc.array(hextet, { minLength: 8, maxLength: 8 });

/** Several spellings of the same IPv6 address: full, zero-padded, upper case, :: compressed. */
function spell(groups: number[], style: number): string {
  const hex = groups.map((g) => g.toString(16));
  switch (style % 4) {
    case 0:
      return hex.join(':');
    case 1:
      return groups
        .map((g) => g.toString(16).padStart(4, '0'))
        .join(':')
        .toUpperCase();
    case 2: {
      // Compress the longest run of zeros (if any) to ::.
      let best = -1;
      let bestLen = 0;
      for (let i = 0; i < 8;) {
        let j = i;
        while (j < 8 && groups[j] === 0) j++;
        if (j - i > bestLen) {
          best = i;
          bestLen = j - i;
        }
        i = j === i ? i + 1 : j;
      }
      if (bestLen < 2) return hex.join(':');
      return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
    }
    default:
      return `${hex.join(':')}%eth0`;
  }
}

/** The ranges not grouped by /56: IPv4-mapped, NAT64 (64:ff9b::/96), 6to4, Teredo, link-local. */
function notByPrefix(g: readonly number[]): boolean {
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  return (
    (zeros(0, 5) && g[5] === 0xffff) ||
    (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) ||
    g[0] === 0x2002 ||
    (g[0] === 0x2001 && g[1] === 0) ||
    (g[0] & 0xffc0) === 0xfe80
  );
}

describe('client key', () => {
  it('groups IPv6 by /56: same first 56 bits, same key; different, different key', () => {
    fc.assert(
      fc.property(ipv6Groups, ipv6Groups, fc.nat(3), fc.nat(3), (a, b, sa, sb) => {
        fc.pre(!notByPrefix(a));
        // b shares a's /56 prefix (first 3.5 hextets), anything after.
        const sameNet = [a[0], a[1], a[2], (a[3] & 0xff00) | (b[3] & 0xff), b[4], b[5], b[6], b[7]];
        fc.pre(!notByPrefix(sameNet));
        assert.equal(clientKeyOf(spell(a, sa)), clientKeyOf(spell(sameNet, sb)));
        assert.match(clientKeyOf(spell(a, sa)), /::\/56$/);
        const differs = a[0] !== b[0] || a[1] !== b[1] || a[2] !== b[2] || (a[3] & 0xff00) !== (b[3] & 0xff00);
        fc.pre(!notByPrefix(b));
        assert.equal(clientKeyOf(spell(a, sa)) === clientKeyOf(spell(b, sb)), !differs);
      }),
      { seed, numRuns: RUNS * 10 },
    );
  });

  it('folds IPv4-mapped IPv6 to IPv4 whatever the spelling', () => {
    fc.assert(
      fc.property(ipv4, fc.nat(4), (v4, style) => {
        const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
        const hi = ((a << 8) | b).toString(16);
        const lo = ((c << 8) | d).toString(16);
        const spellings = [
          `::ffff:${v4}`,
          `::FFFF:${v4}`,
          `0:0:0:0:0:ffff:${v4}`,
          `::ffff:${hi}:${lo}`,
          `0000:0000:0000:0000:0000:FFFF:${hi.padStart(4, '0')}:${lo.padStart(4, '0')}`,
        ];
        assert.equal(clientKeyOf(spellings[style]), v4);
        assert.equal(clientKeyOf(v4), v4);
      }),
      { seed, numRuns: RUNS * 10 },
    );
  });

  it('folds NAT64, 6to4 and Teredo to the IPv4 address they carry, and keeps link-local per address', () => {
    fc.assert(
      fc.property(ipv4, ipv6Groups, fc.nat(3), (v4, rest, style) => {
        const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
        const hi = (a << 8) | b;
        const lo = (c << 8) | d;
        const forms = [
          [0x64, 0xff9b, 0, 0, 0, 0, hi, lo],
          [0x2002, hi, lo, rest[3], rest[4], rest[5], rest[6], rest[7]],
          [0x2001, 0, rest[2], rest[3], rest[4], rest[5], hi ^ 0xffff, lo ^ 0xffff],
        ];
        for (const form of forms) assert.equal(clientKeyOf(spell(form, style)), v4, spell(form, style));
        const local = [0xfe80 | (rest[0] & 0x3f), 0, 0, 0, rest[4], rest[5], rest[6], rest[7]];
        const other = [...local.slice(0, 7), local[7] ^ 1];
        assert.notEqual(
          clientKeyOf(spell(local, style)),
          clientKeyOf(spell(other, style)),
          'two link-local hosts, two buckets',
        );
        assert.equal(clientKeyOf(spell(local, 0)), clientKeyOf(spell(local, 1)), 'link-local: whatever the spelling');
      }),
      { seed, numRuns: RUNS * 10 },
    );
  });

  const xffEntry = fc.oneof(
    ipv4,
    ipv6Groups.map((g) => spell(g, 0)),
    fc.string({ maxLength: 20 }),
    fc.constantFrom('unknown', '', ' ', '1.2.3.4, 5.6.7.8', '::1', '127.0.0.1'),
  );
  const peer = fc.oneof(ipv4, fc.constantFrom('::1', '::ffff:127.0.0.1'));

  it('ignores X-Forwarded-For entirely with TRUST_PROXY_HOPS=0', () => {
    fc.assert(
      fc.property(peer, fc.array(xffEntry, { maxLength: 6 }), fc.boolean(), (socket, entries, asArray) => {
        const header = asArray ? entries : entries.join(', ');
        assert.equal(clientKeyOf(clientAddress(socket, header, 0)), clientKeyOf(socket));
      }),
      { seed, numRuns: RUNS * 10 },
    );
  });

  it('with TRUST_PROXY_HOPS=1 uses the right-most entry: random left-most values never change the key', () => {
    fc.assert(
      fc.property(
        peer,
        fc.array(xffEntry, { maxLength: 6 }),
        fc.array(xffEntry, { maxLength: 6 }),
        ipv4,
        (socket, left1, left2, appended) => {
          // The proxy appends the address it saw; everything to its left is client-written.
          const k1 = clientKeyOf(clientAddress(socket, [...left1, appended].join(', '), 1));
          const k2 = clientKeyOf(clientAddress(socket, [...left2, appended].join(','), 1));
          assert.equal(k1, appended);
          assert.equal(k2, appended);
          // A client-written header alone, with no proxy entry, cannot pick a bucket either: the
          // right-most entry then is whatever the client wrote last, so the test is that an
          // unparseable one falls back to the peer.
          const garbage = clientKeyOf(clientAddress(socket, `${left1.join(',')},not-an-ip`, 1));
          assert.equal(garbage, clientKeyOf(socket));
        },
      ),
      { seed, numRuns: RUNS * 10 },
    );
  });
});
