/**
 * The benchmark's pure pieces: statistics, the A/B order, the wrk and /proc parsers and the
 * loopback address plan. Nothing here is timed: figures come from `npm run bench`, never from a
 * test. The Fastify peer runs over the built dist/, so its check is an integration file
 * (tests/bench/fastify-peer.integration.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ratiosOf, type MeasuredRun } from '../../bench/http.ts';
import { callgrindTotals } from '../../bench/instructions.ts';
import {
  cpuTicksOfStat,
  formatInterval,
  formatRatio,
  loopbackAddress,
  median,
  medianIntervalRank,
  pairedRatios,
  parseWrk,
  parseWrkDuration,
  roundOrder,
  rssOfStatus,
  startsAfresh,
  summarize,
  summarizeWithInterval,
  targetMet,
} from '../../bench/stats.ts';

describe('bench statistics', () => {
  it('takes the median of odd and even counts and refuses an empty list', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.equal(median([7]), 7);
    assert.throws(() => median([]), RangeError);
  });

  it('summarizes with min and max and does not reorder its input', () => {
    const values = [5, 1, 9, 3];
    assert.deepEqual(summarize(values), { median: 4, min: 1, max: 9, n: 4 });
    assert.deepEqual(values, [5, 1, 9, 3]);
    assert.throws(() => summarize([]), RangeError);
  });

  it('pairs ratios round by round and refuses series of different lengths', () => {
    assert.deepEqual(pairedRatios([10, 20, 30], [5, 40, 30]), [2, 0.5, 1]);
    assert.throws(() => pairedRatios([1], [1, 2]), RangeError);
    // The median of paired ratios is not the ratio of medians: pairing cancels a noisy round.
    const a = [100, 50, 100];
    const b = [50, 25, 100];
    assert.equal(median(pairedRatios(a, b)), 2);
    assert.equal(median(a) / median(b), 2);
  });

  it('alternates the order of the contenders every round', () => {
    assert.deepEqual(roundOrder(['a', 'b', 'c'], 0), ['a', 'b', 'c']);
    assert.deepEqual(roundOrder(['a', 'b', 'c'], 1), ['c', 'b', 'a']);
    assert.deepEqual(roundOrder(['a', 'b'], 2), ['a', 'b']);
    const input = ['x', 'y'];
    roundOrder(input, 1);
    assert.deepEqual(input, ['x', 'y']);
  });

  it('starts every contender afresh after each run of rounds a process, never before the first', () => {
    const fresh = (perProcess: number, rounds: number) =>
      Array.from({ length: rounds }, (_, r) => r).filter((r) => startsAfresh(r, perProcess));
    assert.deepEqual(fresh(2, 10), [2, 4, 6, 8]);
    assert.deepEqual(fresh(3, 10), [3, 6, 9]);
    assert.deepEqual(fresh(1, 3), [1, 2]);
    // As many rounds a process as rounds (a smoke run): one process each.
    assert.deepEqual(fresh(2, 2), []);
  });

  it('adds up callgrind files a thread, the main thread apart, skipping the empty file of the process', () => {
    const file = (name: string, total: number | null) => ({
      name,
      text: `version: 1\ncmd: node\nevents: Ir\n${total === null ? '' : `summary: ${total}\ntotals: ${total}\n`}`,
    });
    const files = [
      file('callgrind.4242', null),
      file('callgrind.4242-01', 900),
      file('callgrind.4242-02', 70),
      file('callgrind.4242-07', 30),
    ];
    assert.deepEqual(callgrindTotals('real', files), { all: 1000, main: 900 });
    // A thread's file without totals: valgrind did not finish, and no figure is made up.
    assert.throws(() => callgrindTotals('real', [...files, file('callgrind.4242-03', null)]), /no totals line/);
    // No main thread's file: refused rather than counted as zero.
    assert.throws(() => callgrindTotals('lean', [file('callgrind.4242-02', 70)]), /no count of the main thread/);
  });

  it('formats ratios and checks targets in both directions', () => {
    assert.equal(formatRatio({ median: 0.734, min: 0.61, max: 1.2, n: 10 }), '0.73x (0.61-1.20)');
    assert.equal(targetMet({ comparison: '>=', bound: 0.7, value: 0.7 }), true);
    assert.equal(targetMet({ comparison: '>=', bound: 0.7, value: 0.69 }), false);
    assert.equal(targetMet({ comparison: '<=', bound: 1.4, value: 1.4 }), true);
    assert.equal(targetMet({ comparison: '<=', bound: 1.4, value: 1.41 }), false);
  });
});

describe('the 95 % interval of a median', () => {
  /** P(Binomial(n, 1/2) < k), exactly, in BigInt. */
  const below = (n: number, k: number): number => {
    let c = 1n;
    let sum = 0n;
    for (let i = 0; i < k; i++) {
      sum += c;
      c = (c * BigInt(n - i)) / BigInt(i + 1);
    }
    return Number(sum) / 2 ** n;
  };

  it('takes the order statistics of the sign test: the widest rank whose tail is at most 2.5 %', () => {
    // The published table (e.g. Conover, Practical Nonparametric Statistics): n -> k.
    const table: Record<number, number> = { 6: 1, 8: 1, 9: 2, 10: 2, 12: 3, 16: 4, 20: 6, 30: 10, 40: 14 };
    for (const [n, k] of Object.entries(table)) assert.equal(medianIntervalRank(Number(n)), k, `n=${n}`);
    for (let n = 6; n <= 60; n++) {
      const k = medianIntervalRank(n);
      assert.ok(below(n, k) <= 0.025, `n=${n}: the interval covers at least 95 %`);
      assert.ok(below(n, k + 1) > 0.025, `n=${n}: one rank further in would not`);
    }
    // Below 6 values even min-max covers less than 95 %: the interval is min-max.
    for (let n = 1; n <= 5; n++) assert.equal(medianIntervalRank(n), 1);
    assert.throws(() => medianIntervalRank(0), RangeError);
  });

  it('gives the interval with the summary, whatever the order of the values', () => {
    const s = summarizeWithInterval([10, 1, 9, 2, 8, 3, 7, 4, 6, 5]);
    assert.deepEqual(s, { median: 5.5, min: 1, max: 10, n: 10, low: 2, high: 9 });
    assert.equal(formatInterval(s), '5.50x (2.00-9.00)');
    assert.deepEqual(summarizeWithInterval([3, 1, 2]), { median: 2, min: 1, max: 3, n: 3, low: 1, high: 3 });
  });
});

describe('bench parsers', () => {
  const wrkOutput = `Running 3s test @ http://127.0.0.1:40000/generate
  1 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.51ms    1.02ms  31.20ms   91.00%
    Req/Sec    12.90k   500.00    13.50k    70.00%
  Latency Distribution
     50%    2.40ms
     75%    2.70ms
     90%    3.10ms
     99%  812.00us
  38700 requests in 3.00s, 28.10MB read
  Non-2xx or 3xx responses: 3
Requests/sec:  12900.00
Transfer/sec:      9.37MB
`;

  it('reads wrk --latency output', () => {
    assert.deepEqual(parseWrk(wrkOutput), {
      requests: 38700,
      seconds: 3,
      rps: 12900,
      p50: 2.4,
      p99: 0.812,
      errors: 0,
      non2xx: 3,
    });
    const withErrors = wrkOutput.replace(
      '  Non-2xx',
      '  Socket errors: connect 1, read 2, write 0, timeout 4\n  Non-2xx',
    );
    assert.equal(parseWrk(withErrors).errors, 7);
    assert.throws(() => parseWrk('wrk: unable to connect'), /unexpected wrk output/);
  });

  it('converts every wrk duration unit to milliseconds', () => {
    assert.equal(parseWrkDuration('812.00us'), 0.812);
    assert.equal(parseWrkDuration('1.25ms'), 1.25);
    assert.equal(parseWrkDuration('2.10s'), 2100);
    assert.equal(parseWrkDuration('1.00m'), 60_000);
    assert.throws(() => parseWrkDuration('12 parsecs'));
  });

  it('reads utime + stime from /proc/<pid>/stat even when the command name has spaces and parentheses', () => {
    const stat = '4242 (node (a) b) S 1 4242 4242 0 -1 4194560 9000 0 0 0 1234 567 0 0 20 0 11 0 100 1000000 20000';
    assert.equal(cpuTicksOfStat(stat), 1234 + 567);
    assert.throws(() => cpuTicksOfStat('garbage'));
  });

  it('reads VmRSS in bytes', () => {
    assert.equal(rssOfStatus('Name:\tnode\nVmHWM:\t  60000 kB\nVmRSS:\t   51200 kB\n'), 51200 * 1024);
    assert.throws(() => rssOfStatus('Name:\tnode\n'));
  });

  it('hands out distinct loopback addresses outside 127.0.0.0/24, never .0 or .255 hosts', () => {
    const seen = new Set<string>();
    for (let n = 0; n < 50_000; n++) {
      const a = loopbackAddress(n);
      const [p, x, y, z] = a.split('.').map(Number) as [number, number, number, number];
      assert.ok(p === 127 && x >= 1 && x <= 254 && y >= 0 && y <= 255 && z >= 1 && z <= 254, a);
      seen.add(a);
    }
    assert.equal(seen.size, 50_000);
    assert.equal(loopbackAddress(0), '127.1.0.1');
    assert.equal(loopbackAddress(254), '127.1.1.1');
    assert.throws(() => loopbackAddress(-1), RangeError);
    assert.throws(() => loopbackAddress(254 * 256 * 254), RangeError);
  });
});

describe('bench ratios', () => {
  it('pairs every figure of one server with the other, round by round', () => {
    const run = (rps: number, cpu: number): MeasuredRun => ({
      requests: rps,
      seconds: 1,
      rps,
      p50: 1,
      p99: 2,
      errors: 0,
      non2xx: 0,
      cpuUsPerRequest: cpu,
      rssBytes: 100,
    });
    const r = ratiosOf([run(120, 20), run(60, 30)], [run(100, 25), run(60, 30)]);
    assert.equal(r.rps.median, 1.1);
    assert.equal(r.cpuPerRequest.median, 0.9);
    assert.equal(r.rss.median, 1);
    assert.equal(r.rps.low, 1, 'two rounds: the interval is min-max');
    assert.equal(r.rps.high, 1.2);
  });
});
