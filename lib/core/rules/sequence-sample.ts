/**
 * Exact unranking over F: the strings of the plan's length over the allowed set with no run
 * longer than max-repeating and no sequence longer than max-sequential (required sets not
 * applied; the sampler that uses it rejects a string missing one). The order and the counts
 * are those of sequences.ts: a string is its first character, then moves (a jump, or a whole
 * repeat-, up- or down-run), and K(t, x, kind) counts the ways to finish. At each step the ways
 * to finish are split into consecutive intervals: jumps (by target character), then repeat-runs,
 * up-runs and down-runs (by length); the interval holding the rank is taken and the rest of the
 * rank ranks the completion. Every string of F has one decomposition, so this is a bijection
 * from [0, |F|) onto F (checked exhaustively on small alphabets by the tests).
 * @module
 */
import { chainsOf, runChain, type ChainTable, type SequenceCounter, type SequenceShape } from './sequences.ts';

/** Characters that share a table column have the same K (x and its mirror image in a chain of
 * the same length: up and down swap, the sums do not), so a jump picks a class, then a member. */
interface JumpClass {
  readonly table: ChainTable;
  readonly position: number;
  /** Indices into the allowed codes, ascending. */
  readonly members: readonly number[];
}

export interface SequenceTables {
  readonly length: number;
  readonly maxRun: number;
  readonly maxSequence: number;
  /** totals[t]: the strings of F's kind of length t; J(t) = totals[t + 1]. */
  readonly totals: readonly bigint[];
  /** Per allowed index: its chain's table (free characters share the one-character table),
   * its position there, and its chain's size (1 when free). */
  readonly tableOf: readonly ChainTable[];
  readonly positionOf: Uint8Array;
  readonly sizeOf: Uint8Array;
  readonly classOf: Uint8Array;
  readonly classes: readonly JumpClass[];
}

/** The unranking tables of F for the allowed codes (ascending) of the given shape. */
export function sequenceTables(
  codes: ArrayLike<number>,
  shape: SequenceShape,
  counter: SequenceCounter,
): SequenceTables {
  const { maxRun, maxSequence, length } = counter;
  const totals = counter.totals(shape);
  const jumps = totals.slice(1);
  const bySize = new Map<number, ChainTable>();
  const tableFor = (size: number) => {
    let t = bySize.get(size);
    if (t === undefined) {
      t = runChain(size, maxRun, maxSequence, length, 1n, jumps).table;
      bySize.set(size, t);
    }
    return t;
  };
  const n = codes.length;
  const tableOf = new Array<ChainTable>(n);
  const positionOf = new Uint8Array(n);
  const sizeOf = new Uint8Array(n);
  const classOf = new Uint8Array(n);
  const classIndex = new Map<string, number>();
  const classes: { table: ChainTable; position: number; members: number[] }[] = [];
  for (const [start, chain] of chainsOf(codes)) {
    const size = chain > maxSequence ? chain : 1;
    for (let i = 0; i < chain; i++) {
      const j = start + i;
      const position = size === 1 ? 0 : i;
      tableOf[j] = tableFor(size);
      positionOf[j] = position;
      sizeOf[j] = size;
      const key = `${size}:${Math.min(position, size - 1 - position)}`;
      let c = classIndex.get(key);
      if (c === undefined) {
        c = classes.length;
        classIndex.set(key, c);
        classes.push({ table: tableOf[j], position, members: [] });
      }
      classes[c].members.push(j);
      classOf[j] = c;
    }
  }
  return { length, maxRun, maxSequence, totals, tableOf, positionOf, sizeOf, classOf, classes };
}

const JUMP = 0;
const REPEAT = 1;
const UP = 2;
const DOWN = 3;

/** The characters a jump from j may not land on: j and, in a constraining chain, its neighbours. */
function neighbourhood(s: SequenceTables, j: number): number[] {
  const out = [j];
  if (s.sizeOf[j] > 1) {
    if (s.positionOf[j] > 0) out.push(j - 1);
    if (s.positionOf[j] < s.sizeOf[j] - 1) out.push(j + 1);
  }
  return out;
}

/** The jump target holding `rank` among the characters outside `excluded`, each weighted by
 * K(t, ., jump), in class order then index order; and the rank left within it. */
function jumpTarget(s: SequenceTables, t: number, rank: bigint, excluded: readonly number[]): [number, bigint] {
  let x = rank;
  for (let c = 0; c < s.classes.length; c++) {
    const { table, position, members } = s.classes[c];
    const each = table.jump[t][position];
    let available = members.length;
    for (const e of excluded) if (s.classOf[e] === c) available--;
    const weight = BigInt(available) * each;
    if (x < weight) {
      let index = Number(x / each);
      for (const m of members) {
        if (excluded.includes(m)) continue;
        if (index-- === 0) return [m, x % each];
      }
    }
    x -= weight;
  }
  throw new RangeError('unrankSequences: rank out of range');
}

/** The string of rank `rank` (0 <= rank < totals[length]) as indices into the allowed codes. */
export function unrankSequences(s: SequenceTables, rank: bigint): number[] {
  if (rank < 0n || rank >= s.totals[s.length]) throw new RangeError('unrankSequences: rank out of range');
  const out: number[] = [];
  let t = s.length - 1;
  let [j, x] = jumpTarget(s, t, rank, []);
  out.push(j);
  let kind = JUMP;
  while (t > 0) {
    const table = s.tableOf[j];
    const p = s.positionOf[j];
    const excluded = neighbourhood(s, j);
    let jumps = s.totals[t];
    for (const e of excluded) jumps -= s.tableOf[e].jump[t - 1][s.positionOf[e]];
    if (x < jumps) {
      [j, x] = jumpTarget(s, t - 1, x, excluded);
      out.push(j);
      t -= 1;
      kind = JUMP;
      continue;
    }
    x -= jumps;
    const all = table.jump[t][p];
    const steps = [
      [REPEAT, all - table.repeat[t][p]],
      [UP, all - table.up[t][p]],
      [DOWN, all - table.down[t][p]],
    ] as const;
    const before = t;
    for (const [move, weight] of steps) {
      if (move === kind) continue;
      if (x < weight) {
        const taken = runLength(s, move, t, j, x);
        x = taken[1];
        const step = move === REPEAT ? 0 : move === UP ? 1 : -1;
        for (let i = 1; i <= taken[0]; i++) out.push(j + step * i);
        j += step * taken[0];
        t -= taken[0];
        kind = move;
        break;
      }
      x -= weight;
    }
    /* c8 ignore next -- the moves' weights sum to K(t, j, kind), which the rank is below */
    if (t === before) throw new Error('unrankSequences: move weights do not add up');
  }
  return out;
}

/** The length of the step-run of kind `move` from character j that holds `rank` (runs ordered
 * by length, each weighted by the ways to finish after it), and the rank left. */
function runLength(s: SequenceTables, move: number, t: number, j: number, rank: bigint): [number, bigint] {
  const table = s.tableOf[j];
  const p = s.positionOf[j];
  const room = move === REPEAT ? s.maxRun - 1 : move === UP ? s.sizeOf[j] - 1 - p : p;
  const longest = Math.min(move === REPEAT ? room : Math.min(room, s.maxSequence - 1), t);
  let x = rank;
  for (let i = 1; i <= longest; i++) {
    const w =
      move === REPEAT ? table.repeat[t - i][p] : move === UP ? table.up[t - i][p + i] : table.down[t - i][p - i];
    if (x < w) return [i, x];
    x -= w;
  }
  /* c8 ignore next -- the weights of the runs sum to the interval the caller found the rank in */
  throw new Error('unrankSequences: step-run weights do not add up');
}
