/**
 * The fallback exact sampler: unranking over exactly the valid set V, with the required sets,
 * max-repeating and max-sequential all in its state, character by character (no grouping). It
 * is the recurrence of sequences.ts with one more index, U, the required sets still unhit:
 * W(t, U, j, kind) counts the ways to finish t more steps after a move of that kind ended on
 * allowed character j,
 *   W(0, U, j, .) = [U empty],
 *   W(t, U, j, kind) = [kind != repeat] sum_i W(t - i, U, j, repeat)
 *                    + [kind != up] sum_i W(t - i, U minus the sets of j+1..j+i, j + i, up)
 *                    + [kind != down] likewise downwards
 *                    + sum over z not in N[j] of W(t - 1, U minus the sets of z, z, jump).
 * Its table has length x 2^k x |A| x 4 entries, so the plan uses it only where both other
 * exact samplers keep fewer than 1 draw in 32 and the table is small (fullSamplerCost): in a
 * search of millions of random rules that only happened for three neighbouring characters
 * with the middle one required under max-sequential 1, which allows a single password.
 * @module
 */
import { chainsOf } from './sequences.ts';

const JUMP = 0;
const REPEAT = 1;
const UP = 2;
const DOWN = 3;

export interface FullTables {
  readonly length: number;
  readonly k: number;
  readonly n: number;
  readonly maxRun: number;
  readonly maxSequence: number;
  readonly signatures: Uint8Array;
  /** Per allowed index: its position in a constraining chain and the chain's size (1: free). */
  readonly positionOf: Uint8Array;
  readonly sizeOf: Uint8Array;
  /** W, flat: index (((t * 2^k) + U) * n + j) * 4 + kind. */
  readonly w: bigint[];
  /** The number of valid strings: sum over j of W(L - 1, all minus j's sets, j, jump). */
  readonly count: bigint;
}

/** What building the table takes: its entries, and about how many BigInt operations fill
 * them (the plan's bounds on using this sampler). */
export function fullSamplerCost(n: number, k: number, limits: FullLimits): { entries: number; operations: number } {
  const { maxRun, maxSequence, length } = limits;
  const states = length * 2 ** k * n;
  return {
    entries: states * 4,
    operations: states * (n + Math.min(maxRun, length) + 2 * Math.min(maxSequence, 26) + 4),
  };
}

export interface FullLimits {
  readonly maxRun: number;
  readonly maxSequence: number;
  readonly length: number;
}

/** The characters a jump from j may not land on: j and, in a constraining chain, its neighbours. */
function excludedFrom(f: Pick<FullTables, 'positionOf' | 'sizeOf'>, j: number): number[] {
  const out = [j];
  if (f.sizeOf[j] > 1) {
    if (f.positionOf[j] > 0) out.push(j - 1);
    if (f.positionOf[j] < f.sizeOf[j] - 1) out.push(j + 1);
  }
  return out;
}

export function fullTables(
  codes: ArrayLike<number>,
  signatures: Uint8Array,
  k: number,
  limits: FullLimits,
): FullTables {
  const { maxRun, maxSequence, length } = limits;
  const n = codes.length;
  const positionOf = new Uint8Array(n);
  const sizeOf = new Uint8Array(n).fill(1);
  for (const [start, size] of chainsOf(codes)) {
    if (size <= maxSequence) continue;
    for (let i = 0; i < size; i++) {
      positionOf[start + i] = i;
      sizeOf[start + i] = size;
    }
  }
  const f = { length, k, n, maxRun, maxSequence, signatures, positionOf, sizeOf };
  const w = new Array<bigint>(length * 2 ** k * n * 4).fill(0n);
  for (let t = 0; t < length; t++) for (let u = 0; u < 2 ** k; u++) fillRow(f, w, t, u);
  const all = 2 ** k - 1;
  let count = 0n;
  for (let j = 0; j < n; j++) count += w[at(f, length - 1, all & ~signatures[j], j, JUMP)];
  return { ...f, w, count };
}

const at = (f: Pick<FullTables, 'k' | 'n'>, t: number, u: number, j: number, kind: number) =>
  ((t * 2 ** f.k + u) * f.n + j) * 4 + kind;

type Shape = Omit<FullTables, 'w' | 'count'>;

/** W(t, u, ., .) for every character, from the rows before it. */
function fillRow(f: Shape, w: bigint[], t: number, u: number): void {
  let jumps = 0n;
  if (t > 0) for (let z = 0; z < f.n; z++) jumps += w[at(f, t - 1, u & ~f.signatures[z], z, JUMP)];
  for (let j = 0; j < f.n; j++) {
    if (t === 0) {
      for (let kind = 0; kind < 4; kind++) w[at(f, 0, u, j, kind)] = u === 0 ? 1n : 0n;
      continue;
    }
    const parts = moves(f, w, t, u, j);
    let jump = jumps;
    for (const z of excludedFrom(f, j)) jump -= w[at(f, t - 1, u & ~f.signatures[z], z, JUMP)];
    const total = parts[REPEAT] + parts[UP] + parts[DOWN] + jump;
    w[at(f, t, u, j, JUMP)] = total;
    for (const kind of [REPEAT, UP, DOWN]) w[at(f, t, u, j, kind)] = total - parts[kind];
  }
}

/** The repeat-, up- and down-run parts of W(t, u, j, jump), by kind (index 0 unused). */
function moves(f: Shape, w: readonly bigint[], t: number, u: number, j: number): bigint[] {
  const parts = [0n, 0n, 0n, 0n];
  for (let i = 1; i <= Math.min(f.maxRun - 1, t); i++) parts[REPEAT] += w[at(f, t - i, u, j, REPEAT)];
  for (const [kind, step] of [
    [UP, 1],
    [DOWN, -1],
  ] as const) {
    const room = f.sizeOf[j] === 1 ? 0 : step > 0 ? f.sizeOf[j] - 1 - f.positionOf[j] : f.positionOf[j];
    let left = u;
    for (let i = 1; i <= Math.min(f.maxSequence - 1, t, room); i++) {
      left &= ~f.signatures[j + step * i];
      parts[kind] += w[at(f, t - i, left, j + step * i, kind)];
    }
  }
  return parts;
}

/** The valid string of rank `rank` (0 <= rank < count), as indices into the allowed codes. */
export function unrankFull(f: FullTables, rank: bigint): number[] {
  if (rank < 0n || rank >= f.count) throw new RangeError('unrankFull: rank out of range');
  const out: number[] = [];
  let x = rank;
  let t = f.length - 1;
  let u = 2 ** f.k - 1;
  let j = 0;
  for (; ; j++) {
    const weight = f.w[at(f, t, u & ~f.signatures[j], j, JUMP)];
    if (x < weight) break;
    x -= weight;
  }
  u &= ~f.signatures[j];
  out.push(j);
  let kind = JUMP;
  while (t > 0) {
    const move = nextMove(f, t, u, j, kind, x);
    x = move.rank;
    for (const c of move.characters) {
      out.push(c);
      u &= ~f.signatures[c];
    }
    j = out[out.length - 1];
    t -= move.characters.length;
    kind = move.kind;
  }
  return out;
}

interface Move {
  readonly kind: number;
  readonly characters: number[];
  readonly rank: bigint;
}

/** The move holding `rank` among the ways to finish from (t, u, j, kind), in the order jumps
 * (by target), repeat-runs, up-runs, down-runs (by length). */
function nextMove(f: FullTables, t: number, u: number, j: number, kind: number, rank: bigint): Move {
  let x = rank;
  const excluded = excludedFrom(f, j);
  for (let z = 0; z < f.n; z++) {
    if (excluded.includes(z)) continue;
    const weight = f.w[at(f, t - 1, u & ~f.signatures[z], z, JUMP)];
    if (x < weight) return { kind: JUMP, characters: [z], rank: x };
    x -= weight;
  }
  for (const [move, step] of [
    [REPEAT, 0],
    [UP, 1],
    [DOWN, -1],
  ] as const) {
    if (move === kind) continue;
    const room =
      move === REPEAT
        ? f.maxRun - 1
        : f.sizeOf[j] === 1
          ? 0
          : step > 0
            ? f.sizeOf[j] - 1 - f.positionOf[j]
            : f.positionOf[j];
    const longest = Math.min(move === REPEAT ? room : Math.min(room, f.maxSequence - 1), t);
    let left = u;
    for (let i = 1; i <= longest; i++) {
      left &= ~f.signatures[j + step * i];
      const weight = f.w[at(f, t - i, left, j + step * i, move)];
      if (x < weight)
        return { kind: move, characters: Array.from({ length: i }, (_, m) => j + step * (m + 1)), rank: x };
      x -= weight;
    }
  }
  /* c8 ignore next -- the moves' weights sum to W(t, u, j, kind), which the rank is below */
  throw new Error('unrankFull: move weights do not add up');
}
