/**
 * Exact counts under `max-repeating` and `max-sequential` together, for one alphabet.
 *
 * A sequence is a block of characters in a row that step by one code in one direction inside
 * one of the ranges 0-9, A-Z, a-z (`abc`, `cba`, `321`); `max-sequential: S` allows blocks of at
 * most S. In an alphabet the characters that can form sequences make chains: maximal runs of
 * consecutive codes inside one range (allowed `abcxy0` has chains `abc`, `xy`, `0`). A chain of
 * at most S characters holds no sequence longer than S, so only chains longer than S constrain;
 * every other character is "free". How many strings an alphabet allows depends only on its
 * shape: the number of free characters and the lengths of its longer chains.
 *
 * The count. Cut a string at the steps between its characters: a step repeats the character,
 * goes up or down one code inside a chain, or jumps (anything else). Group consecutive steps of
 * the same kind into step-runs: a repeat-run of j steps is a run of j + 1 equal characters
 * (j <= R - 1), an up-run or down-run of j steps a sequence of j + 1 (j <= S - 1); a direction
 * change starts a new sequence sharing the turning character (`aba` holds `ab` and `ba`), and a
 * repeat ends one. Every string splits into its first character and a series of moves (a jump,
 * or a whole step-run) in exactly one way, where a step-run is never followed by one of its own
 * kind (else the two would be one). So, with K(t, x, kind) the number of ways to finish t more
 * steps after a move of that kind ended on character x,
 *   K(0, x, .) = 1,
 *   K(t, x, kind) = [kind != repeat] sum_{j=1..min(R-1, t)} K(t - j, x, repeat)
 *                 + [kind != up]     sum_{j=1..min(S-1, t, room above x)} K(t - j, x + j, up)
 *                 + [kind != down]   likewise downwards
 *                 + sum over y not in N[x] of K(t - 1, y, jump),
 * N[x] being x and its chain neighbours. The jump sum is J(t - 1) minus at most three terms,
 * J(t) = sum over all y of K(t, y, jump); the rest stays inside x's chain. A chain's part of J
 * is therefore its response to the series J, linear and the same at every time: with g(t) the
 * chain's sum of K(t, ., jump) when J is all zero (its kernel), the response to J is
 * sum_s g(t - 1 - s) J(s) (an impulse of J at s makes K(s + 1, ., .) = 1, which is the kernel's
 * start one step later). Summing over the chains, G the sum of their kernels,
 *   J = G + z G J,  so  1 + z J = 1 / (1 - z G),
 * and the number of strings of length L is J(L - 1), the coefficient of z^L of 1 / (1 - z G).
 * A kernel costs O(L x chain length) BigInt additions once per chain length; the reciprocal
 * O(L^2 / 2) multiply-adds once per shape.
 * @module
 */

/** The ranges a sequence lives in: digits, upper-case and lower-case letters. */
const RANGES: readonly (readonly [number, number])[] = Object.freeze([
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x61, 0x7a],
] as const);

/** 1, 2 or 3 for a code in 0-9, A-Z, a-z; 0 for any other. */
export function rangeOf(code: number): number {
  for (let i = 0; i < RANGES.length; i++) if (code >= RANGES[i][0] && code <= RANGES[i][1]) return i + 1;
  return 0;
}

/** Whether a code lies in 0-9, A-Z or a-z. Two neighbouring codes that both do lie in the same
 * range, as codes outside them separate the ranges: the samplers' fast check. */
export const isRanged = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

/** True when b may follow a inside a sequence: the next or previous code, in the same range. */
export function isSequenceStep(a: number, b: number): boolean {
  return (b === a + 1 || b === a - 1) && rangeOf(a) !== 0 && rangeOf(a) === rangeOf(b);
}

/** The chains of an alphabet given as ascending codes: [index of its first code, length]. */
export function chainsOf(codes: ArrayLike<number>): [number, number][] {
  const chains: [number, number][] = [];
  for (let i = 0; i < codes.length; i++) {
    const last = chains.length > 0 ? chains[chains.length - 1] : undefined;
    if (last !== undefined && i > 0 && isSequenceStep(codes[i - 1], codes[i]) && codes[i] > codes[i - 1]) last[1]++;
    else chains.push([i, 1]);
  }
  return chains;
}

/** What a count depends on: the free characters and the chains longer than the limit. */
export interface SequenceShape {
  readonly free: number;
  /** [chain length, how many chains of that length], by length. */
  readonly kept: readonly (readonly [number, number])[];
  readonly key: string;
}

/** The shape of an alphabet under max-sequential S, or null when S cannot bind (no chain is
 * longer than S). */
export function sequenceShape(codes: ArrayLike<number>, maxSequence: number): SequenceShape | null {
  let free = 0;
  const kept = new Map<number, number>();
  for (const [, length] of chainsOf(codes)) {
    if (length <= maxSequence) free += length;
    else kept.set(length, (kept.get(length) ?? 0) + 1);
  }
  if (kept.size === 0) return null;
  const sorted = [...kept].sort((a, b) => a[0] - b[0]);
  return { free, kept: sorted, key: `${free}|${sorted.map(([l, m]) => `${l}x${m}`).join(',')}` };
}

/** One chain's K(t, x, kind) for every t < length and position x, by kind. */
export interface ChainTable {
  readonly jump: readonly (readonly bigint[])[];
  readonly repeat: readonly (readonly bigint[])[];
  readonly up: readonly (readonly bigint[])[];
  readonly down: readonly (readonly bigint[])[];
}

interface ChainRun {
  /** sum over x of K(t, x, jump), t = 0..length-1. */
  readonly sums: bigint[];
  readonly table: ChainTable;
}

/** Row t of a table, or null before time 0. */
const rowAt = (rows: readonly (readonly bigint[])[], t: number) => (t >= 0 ? rows[t] : null);

/**
 * The recurrence of the module comment over one chain of `size` characters (size 1: a free
 * character), t = 0..length-1. `totals[t]` is J(t), read for t <= length - 2; K(0) = `start`.
 * With start 1 and J all zero the sums are the chain's kernel. Each step-run sum is one
 * subtraction of running sums: over t for repeats, along the diagonals (t - 1, x + 1) and
 * (t - 1, x - 1) for up- and down-runs.
 */
export function runChain(
  size: number,
  maxRun: number,
  maxSequence: number,
  length: number,
  start: bigint,
  totals: readonly bigint[],
): ChainRun {
  const table = { jump: [] as bigint[][], repeat: [] as bigint[][], up: [] as bigint[][], down: [] as bigint[][] };
  const running = { repeat: [] as bigint[][], up: [] as bigint[][], down: [] as bigint[][] };
  const sums: bigint[] = [];
  for (let t = 0; t < length; t++) {
    const jump = new Array<bigint>(size);
    const repeat = new Array<bigint>(size);
    const up = new Array<bigint>(size);
    const down = new Array<bigint>(size);
    if (t === 0) {
      jump.fill(start);
      repeat.fill(start);
      up.fill(start);
      down.fill(start);
    } else {
      fillMoves(t, jump, repeat, up, down);
      mirror(jump, repeat, up, down);
    }
    let sum = 0n;
    for (let x = 0; x < size; x++) sum += jump[x];
    table.jump.push(jump);
    table.repeat.push(repeat);
    table.up.push(up);
    table.down.push(down);
    // A limit of 1 allows no step-run of that kind: its running sums are never read.
    if (maxRun > 1) running.repeat.push(accumulate(repeat, rowAt(running.repeat, t - 1), 0));
    if (maxSequence > 1 && size > 1) {
      running.up.push(accumulate(up, rowAt(running.up, t - 1), 1));
      running.down.push(accumulate(down, rowAt(running.down, t - 1), -1));
    }
    sums.push(sum);
  }
  return { sums, table };

  /** K(t, x, kind) for every x: the four kinds from the repeat-, up-, down-run and jump parts. */
  function fillMoves(t: number, jump: bigint[], repeat: bigint[], up: bigint[], down: bigint[]): void {
    const mr = Math.min(maxRun - 1, t);
    const runs = mr > 0 ? running.repeat[t - 1] : [];
    const runsBefore = mr > 0 ? rowAt(running.repeat, t - 1 - mr) : null;
    const sequences = maxSequence > 1 && size > 1;
    const ups = sequences ? running.up[t - 1] : [];
    const downs = sequences ? running.down[t - 1] : [];
    const jumps = table.jump[t - 1];
    const total = totals[t - 1];
    // The chain is its own mirror image (x to size - 1 - x, up and down swapped), and so are
    // its rows: the first half is computed, the rest copied by mirror().
    for (let x = 0; x < (size + 1) >> 1; x++) {
      const r = mr > 0 ? runs[x] - (runsBefore === null ? 0n : runsBefore[x]) : 0n;
      const mu = Math.min(maxSequence - 1, t, size - 1 - x);
      let u = 0n;
      if (mu > 0) {
        const before = rowAt(running.up, t - 1 - mu);
        u = ups[x + 1] - (before === null || x + 1 + mu >= size ? 0n : before[x + 1 + mu]);
      }
      const md = Math.min(maxSequence - 1, t, x);
      let d = 0n;
      if (md > 0) {
        const before = rowAt(running.down, t - 1 - md);
        d = downs[x - 1] - (before === null || x - 1 - md < 0 ? 0n : before[x - 1 - md]);
      }
      let j = total - jumps[x];
      if (x > 0) j -= jumps[x - 1];
      if (x < size - 1) j -= jumps[x + 1];
      const all = r + u + d + j;
      jump[x] = all;
      repeat[x] = all - r;
      up[x] = all - u;
      down[x] = all - d;
    }
  }
}

/** Fills the second half of a row from the first: the mirror image of position x is
 * size - 1 - x, with the same jump and repeat counts and up and down swapped. */
function mirror(jump: bigint[], repeat: bigint[], up: bigint[], down: bigint[]): void {
  const size = jump.length;
  for (let x = 0; x < size >> 1; x++) {
    const y = size - 1 - x;
    jump[y] = jump[x];
    repeat[y] = repeat[x];
    up[y] = down[x];
    down[y] = up[x];
  }
}

/** row[x] plus the previous running row at x + shift (0 outside the chain or before time 0). */
function accumulate(row: readonly bigint[], previous: readonly bigint[] | null, shift: number): bigint[] {
  const out = new Array<bigint>(row.length);
  for (let x = 0; x < row.length; x++) {
    const y = x + shift;
    out[x] = previous === null || y < 0 || y >= row.length ? row[x] : row[x] + previous[y];
  }
  return out;
}

/**
 * Counts of strings under one (max-repeating, max-sequential, length), for any number of
 * alphabet shapes: the chain kernels are made once per chain length, the totals once per shape.
 * `maxRun` and `maxSequence` are the effective limits (at most the length, at least 1).
 */
export class SequenceCounter {
  readonly maxRun: number;
  readonly maxSequence: number;
  readonly length: number;
  private readonly kernels = new Map<number, readonly bigint[]>();
  private readonly counts = new Map<string, bigint>();
  private readonly zeros: readonly bigint[];

  constructor(maxRun: number, maxSequence: number, length: number) {
    this.maxRun = maxRun;
    this.maxSequence = maxSequence;
    this.length = length;
    this.zeros = new Array<bigint>(length).fill(0n);
  }

  private kernel(size: number): readonly bigint[] {
    let g = this.kernels.get(size);
    if (g === undefined) {
      g = runChain(size, this.maxRun, this.maxSequence, this.length, 1n, this.zeros).sums;
      this.kernels.set(size, g);
    }
    return g;
  }

  /** c[t] = the number of strings of length t over the shape, t = 0..length: the series
   * 1 / (1 - z G) of the module comment. */
  totals(shape: SequenceShape): bigint[] {
    const L = this.length;
    const G = new Array<bigint>(L).fill(0n);
    for (const [size, many] of [[1, shape.free] as const, ...shape.kept]) {
      if (many === 0) continue;
      const g = this.kernel(size);
      const m = BigInt(many);
      for (let t = 0; t < L; t++) G[t] += m * g[t];
    }
    const c: bigint[] = [1n];
    for (let t = 1; t <= L; t++) {
      let v = 0n;
      for (let j = 0; j < t; j++) v += G[j] * c[t - 1 - j];
      c.push(v);
    }
    return c;
  }

  /** The number of strings of the full length over the shape (memoised by shape). */
  count(shape: SequenceShape): bigint {
    let n = this.counts.get(shape.key);
    if (n === undefined) {
      n = this.totals(shape)[this.length];
      this.counts.set(shape.key, n);
    }
    return n;
  }
}
