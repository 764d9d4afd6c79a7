/**
 * Exact distributions of a password drawn uniformly from the strings a rule allows, computed
 * for the statistical tests without lib/core/rules: a plain dynamic programme over the
 * explicit state (required sets hit so far, last character, length of its run, direction and
 * length of the sequence it ends), on the rule as tests/helpers/rules-checker.ts reads it.
 * Exponential in nothing but slow in everything (states x characters per position): for
 * test-sized rules only.
 */
import type { CheckerRule } from './rules-checker.ts';

export interface OracleInput {
  readonly allowed: string;
  readonly required: readonly string[];
  /** Longest run allowed (>= length means unlimited). */
  readonly maxRun: number;
  /** Longest sequence allowed (>= length means unlimited). */
  readonly maxSequence: number;
  readonly length: number;
}

/** Where a character sits in 0-9, A-Z or a-z: [range, index], or null. */
const RANGES = ['0123456789', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'];
function placeOf(c: string): [number, number] | null {
  for (let r = 0; r < RANGES.length; r++) if (RANGES[r].includes(c)) return [r, RANGES[r].indexOf(c)];
  return null;
}

export function oracleInput(rule: CheckerRule, length: number): OracleInput {
  return {
    allowed: [...rule.allowed].sort().join(''),
    required: rule.required.map((s) => [...s].join('')),
    maxRun: Math.min(rule.maxRepeating, length),
    maxSequence: Math.min(rule.maxSequential, length),
    length,
  };
}

interface Machine {
  readonly n: number;
  readonly full: number;
  readonly signature: number[];
  /** Whether runs or sequences matter (else every state has last = -1, run = 0). */
  readonly tracksRuns: boolean;
  readonly maxRun: number;
  readonly maxSequence: number;
  /** step[a][b]: +1 or -1 when character b follows a as a sequence step, else 0. */
  readonly step: number[][];
  readonly length: number;
}

function machineOf(o: OracleInput): Machine {
  const signature = [...o.allowed].map((c) =>
    o.required.reduce((sig, set, i) => (set.includes(c) ? sig | (1 << i) : sig), 0),
  );
  return {
    n: o.allowed.length,
    full: (1 << o.required.length) - 1,
    signature,
    tracksRuns: o.maxRun < o.length || o.maxSequence < o.length,
    maxRun: o.maxRun,
    maxSequence: o.maxSequence,
    step: [...o.allowed].map((a) =>
      [...o.allowed].map((b) => {
        const pa = placeOf(a);
        const pb = placeOf(b);
        return pa !== null && pb !== null && pa[0] === pb[0] && Math.abs(pa[1] - pb[1]) === 1 ? pb[1] - pa[1] : 0;
      }),
    ),
    length: o.length,
  };
}

// A state is (hit mask, last character index or -1, run length, sequence direction, sequence
// length), packed into a string key.
type State = [mask: number, last: number, run: number, direction: number, sequence: number];
const key = (s: State) => s.join(',');
const unkey = (k: string) => k.split(',').map(Number) as State;
const START: State = [0, -1, 0, 0, 0];

/** The state after appending character c, or null when that breaks the run or sequence limit. */
function step(m: Machine, [mask, last, run, direction, sequence]: State, c: number): State | null {
  const hit = mask | m.signature[c];
  if (!m.tracksRuns) return [hit, -1, 0, 0, 0];
  if (c === last) return run + 1 > m.maxRun ? null : [hit, c, run + 1, 0, 1];
  const d = last < 0 ? 0 : m.step[last][c];
  if (d === 0) return [hit, c, 1, 0, 1];
  const length = d === direction ? sequence + 1 : 2;
  return length > m.maxSequence ? null : [hit, c, 1, d, length];
}

function forward(m: Machine): Map<string, bigint>[] {
  const layers = [new Map([[key(START), 1n]])];
  for (let i = 0; i < m.length; i++) {
    const next = new Map<string, bigint>();
    for (const [k, ways] of layers[i]) {
      for (let c = 0; c < m.n; c++) {
        const s = step(m, unkey(k), c);
        if (s !== null) next.set(key(s), (next.get(key(s)) ?? 0n) + ways);
      }
    }
    layers.push(next);
  }
  return layers;
}

/** Completions from each state reachable after i characters. */
function backward(m: Machine, layers: Map<string, bigint>[]): Map<string, bigint>[] {
  const out: Map<string, bigint>[] = new Array(m.length + 1);
  out[m.length] = new Map([...layers[m.length].keys()].map((k) => [k, unkey(k)[0] === m.full ? 1n : 0n]));
  for (let i = m.length - 1; i >= 0; i--) {
    const here = new Map<string, bigint>();
    for (const k of layers[i].keys()) {
      let ways = 0n;
      for (let c = 0; c < m.n; c++) {
        const s = step(m, unkey(k), c);
        if (s !== null) ways += out[i + 1].get(key(s)) ?? 0n;
      }
      here.set(k, ways);
    }
    out[i] = here;
  }
  return out;
}

export function oracleCount(o: OracleInput): bigint {
  const m = machineOf(o);
  let total = 0n;
  for (const [k, ways] of forward(m)[m.length]) if (unkey(k)[0] === m.full) total += ways;
  return total;
}

const ratio = (a: bigint, b: bigint) => Number((a * 10n ** 18n) / b) / 1e18;

/** P(position i holds allowed[c]) for every i and c. */
export function positionDistribution(o: OracleInput): number[][] {
  const m = machineOf(o);
  const layers = forward(m);
  const completions = backward(m, layers);
  const total = completions[0].get(key(START))!;
  const out: number[][] = [];
  for (let i = 0; i < m.length; i++) {
    const counts = new Array<bigint>(m.n).fill(0n);
    for (const [k, ways] of layers[i]) {
      for (let c = 0; c < m.n; c++) {
        const s = step(m, unkey(k), c);
        if (s !== null) counts[c] += ways * (completions[i + 1].get(key(s)) ?? 0n);
      }
    }
    out.push(counts.map((x) => ratio(x, total)));
  }
  return out;
}

/** P(a password holds exactly j characters of `members`) for j = 0..length. */
export function classCountDistribution(o: OracleInput, members: string): number[] {
  const m = machineOf(o);
  const inClass = [...o.allowed].map((c) => members.includes(c));
  // Forward over (state, j).
  let layer = new Map([[`${key(START)}|0`, 1n]]);
  for (let i = 0; i < m.length; i++) {
    const next = new Map<string, bigint>();
    for (const [k, ways] of layer) {
      const [sk, jText] = k.split('|');
      for (let c = 0; c < m.n; c++) {
        const s = step(m, unkey(sk), c);
        if (s === null) continue;
        const nk = `${key(s)}|${Number(jText) + (inClass[c] ? 1 : 0)}`;
        next.set(nk, (next.get(nk) ?? 0n) + ways);
      }
    }
    layer = next;
  }
  const byCount = new Array<bigint>(m.length + 1).fill(0n);
  let total = 0n;
  for (const [k, ways] of layer) {
    const [sk, jText] = k.split('|');
    if (unkey(sk)[0] !== m.full) continue;
    byCount[Number(jText)] += ways;
    total += ways;
  }
  return byCount.map((x) => ratio(x, total));
}
