/**
 * PROTOTYPE of issue 29's one exact engine; nothing on the service path uses it yet (plan.ts
 * still counts with count.ts and sequences.ts). It is here so that its recurrence is checked
 * against brute force (tests/core/rules/engine.test.ts) and its cost measured on the corpus.
 *
 * Every constraint compiles to one machine over character classes, and one dynamic programme
 * counts it exactly and unranks it. A class is a set of allowed characters that behave alike:
 * the characters of a chain longer than max-sequential (sequences.ts) are each a class of one,
 * with their chain neighbours as the classes a step up or down reaches; every other character
 * is grouped with those of its signature (the required sets holding it). The state after a
 * character is (U, c, m): the required sets still unhit, the character's class, and the move
 * state m, the current run length r (while max-repeating can bind) or the current sequence's
 * length q >= 2 and direction. The next character is one of: the same character (a repeat,
 * r + 1, allowed while r < max-repeating); the chain neighbour above or below (a step, q + 1 in
 * the same direction or 2 in the other, allowed while q <= max-sequential); or any other
 * character (a jump, which starts afresh). So a string is valid exactly when its walk never
 * breaks a limit and ends with U empty, and
 *   N(0, U, c, m) = [U empty],
 *   N(t, U, c, m) = J(t - 1, U) - (the jump terms of the character itself and its neighbours)
 *                   + repeat + step up + step down terms,
 *   J(t, U) = sum over classes c' of |c'| N(t, U minus sig(c'), c', fresh),
 * where "the character itself" is one member of c: the multiplicities depend on the class
 * only, so a class stands for any of its members. The count of valid strings of length L is
 * J(L - 1, all sets). Unranking a uniform integer below it walks the same terms in a fixed
 * order (jumps by class then member, repeat, up, down), taking the one whose interval holds
 * the rank: a bijection from [0, count) onto the valid strings, so the draw is uniform.
 *
 * Cost: L x |U| x classes x move states, about 7 BigInt operations each. On the corpus at each
 * rule's longest length that is a median 4.8 times the work of count.ts and sequences.ts, and
 * over the plan budget for 61 of the 420 accepted rules (fedex.com at 128: 3,290,112 units
 * against 135,680), all of them rules whose chains bind. What remains before it can replace
 * them: whole repeat- and sequence-runs as moves (running sums over t, as sequences.ts does)
 * so the move states do not grow with the limits; one class for the same position of
 * identical chains and of mirrored positions; and counting, as opposed to unranking, by
 * inclusion-exclusion over U with the chain kernels of sequences.ts.
 * @module
 */
import { chainsOf } from './sequences.ts';

export interface EngineSpec {
  /** Allowed UTF-16 codes, ascending. */
  readonly codes: readonly number[];
  /** Required sets, as codes; each must be hit at least once (at most 8). */
  readonly required: readonly (readonly number[])[];
  readonly length: number;
  readonly maxRepeating: number | null;
  readonly maxSequential: number | null;
}

interface CharClass {
  readonly members: readonly number[];
  readonly signature: number;
  /** The class a step up or down reaches, or -1 (free characters do not step). */
  readonly up: number;
  readonly down: number;
}

export interface Machine {
  readonly length: number;
  readonly classes: readonly CharClass[];
  readonly sets: number;
  /** Whether max-repeating can bind; run states r = 1..max-repeating if so, else one. */
  readonly runsLimited: boolean;
  /** Run states, then sequence states q = 2..S per direction. */
  readonly runStates: number;
  readonly sequenceLimit: number;
  readonly moveStates: number;
  /** BigInt operations the count takes: what a budget is checked against before counting. */
  readonly work: number;
}

/** The machine of a spec: its classes and state space, and the work of counting it. */
export function compile(spec: EngineSpec): Machine {
  const { codes, required, length } = spec;
  const signature = (code: number) => required.reduce((s, set, i) => (set.includes(code) ? s | (1 << i) : s), 0);
  // A sequence is never longer than the string: a limit of the length or more cannot bind.
  const limit = spec.maxSequential !== null && spec.maxSequential < length ? spec.maxSequential : Infinity;
  const chained = new Set<number>();
  for (const [start, size] of chainsOf(codes)) if (size > limit) for (let i = 0; i < size; i++) chained.add(start + i);
  const classes: { members: number[]; signature: number; up: number; down: number }[] = [];
  const bySignature = new Map<number, number>();
  const classOf = new Array<number>(codes.length);
  codes.forEach((code, j) => {
    const sig = signature(code);
    let c = chained.has(j) ? undefined : bySignature.get(sig);
    if (c === undefined) {
      c = classes.push({ members: [], signature: sig, up: -1, down: -1 }) - 1;
      if (!chained.has(j)) bySignature.set(sig, c);
    }
    classes[c].members.push(code);
    classOf[j] = c;
  });
  codes.forEach((code, j) => {
    if (!chained.has(j)) return;
    if (j + 1 < codes.length && chained.has(j + 1) && codes[j + 1] === code + 1)
      classes[classOf[j]].up = classOf[j + 1];
    if (j > 0 && chained.has(j - 1) && codes[j - 1] === code - 1) classes[classOf[j]].down = classOf[j - 1];
  });
  const runsLimited = spec.maxRepeating !== null && spec.maxRepeating < length;
  const runStates = spec.maxRepeating !== null && runsLimited ? spec.maxRepeating : 1;
  const sequenceLimit = chained.size > 0 ? limit : 1;
  const moveStates = runStates + 2 * (sequenceLimit - 1);
  const sets = 2 ** required.length;
  const states = sets * classes.length;
  const work = length * (2 * states + 7 * states * moveStates);
  return { length, classes, sets, runsLimited, runStates, sequenceLimit, moveStates, work };
}

/** N(t) for t = 0..length-1, flat by ((U x classes) + c) x moveStates + m, and the count. */
export interface Tables {
  readonly machine: Machine;
  readonly rows: readonly (readonly bigint[])[];
  /** jumps[t][U] = J(t, U). */
  readonly jumps: readonly (readonly bigint[])[];
  readonly count: bigint;
}

const index = (m: Machine, u: number, c: number, move: number) => (u * m.classes.length + c) * m.moveStates + move;

/** The move state after a repeat from `move` (or -1 when not allowed). */
function afterRepeat(m: Machine, move: number): number {
  if (!m.runsLimited) return 0; // unlimited repeats: nothing to track
  const run = move < m.runStates ? move + 1 : 1; // a sequence state ends in a run of 1
  return run < m.runStates ? run : -1;
}

/** The move state after a step in direction `dir` (+1 up, -1 down) from `move`, or -1. */
function afterStep(m: Machine, move: number, dir: number): number {
  const q = move >= m.runStates ? 2 + ((move - m.runStates) % (m.sequenceLimit - 1)) : 1;
  const same = move >= m.runStates && (move - m.runStates < m.sequenceLimit - 1 ? 1 : -1) === dir;
  const next = same ? q + 1 : 2;
  if (next > m.sequenceLimit) return -1;
  return m.runStates + (dir > 0 ? 0 : m.sequenceLimit - 1) + next - 2;
}

/** The terms of N(t, u, c, move) in unranking order after the jumps: [kind, class, move, U]. */
function steps(m: Machine, u: number, c: number, move: number): [number, number, number][] {
  const out: [number, number, number][] = [];
  const repeat = afterRepeat(m, move);
  if (repeat >= 0) out.push([c, repeat, u]);
  const cls = m.classes[c];
  for (const [target, dir] of [
    [cls.up, 1],
    [cls.down, -1],
  ] as const) {
    if (target < 0) continue;
    const next = afterStep(m, move, dir);
    if (next >= 0) out.push([target, next, u & ~m.classes[target].signature]);
  }
  return out;
}

/** The classes a jump from class c may not land on once: the character itself and its chain
 * neighbours (each one member of its class). */
function excluded(m: Machine, c: number): number[] {
  const cls = m.classes[c];
  return [c, ...(cls.up >= 0 ? [cls.up] : []), ...(cls.down >= 0 ? [cls.down] : [])];
}

export function countMachine(m: Machine): Tables {
  const C = m.classes.length;
  const rows: bigint[][] = [];
  const jumps: bigint[][] = [];
  for (let t = 0; t < m.length; t++) {
    const row = new Array<bigint>(m.sets * C * m.moveStates);
    for (let u = 0; u < m.sets; u++) {
      for (let c = 0; c < C; c++) {
        for (let move = 0; move < m.moveStates; move++) {
          if (t === 0) {
            row[index(m, u, c, move)] = u === 0 ? 1n : 0n;
            continue;
          }
          const prev = rows[t - 1];
          const fresh = (k: number) => prev[index(m, u & ~m.classes[k].signature, k, 0)];
          let n = jumps[t - 1][u];
          for (const k of excluded(m, c)) n -= fresh(k);
          for (const [k, next, v] of steps(m, u, c, move)) n += prev[index(m, v, k, next)];
          row[index(m, u, c, move)] = n;
        }
      }
    }
    rows.push(row);
    const j = new Array<bigint>(m.sets);
    for (let u = 0; u < m.sets; u++) {
      let sum = 0n;
      for (let c = 0; c < C; c++)
        sum += BigInt(m.classes[c].members.length) * row[index(m, u & ~m.classes[c].signature, c, 0)];
      j[u] = sum;
    }
    jumps.push(j);
  }
  return { machine: m, rows, jumps, count: jumps[m.length - 1][m.sets - 1] };
}

/** The valid string of rank `rank` (0 <= rank < count), as codes. */
export function unrankMachine(tables: Tables, rank: bigint): number[] {
  const { machine: m, rows } = tables;
  if (rank < 0n || rank >= tables.count) throw new RangeError('unrankMachine: rank out of range');
  const out: number[] = [];
  let x = rank;
  let u = m.sets - 1;
  let c = -1;
  let move = 0;
  for (let t = m.length - 1; t >= 0; t--) {
    const row = rows[t];
    // Jumps first: by class, then by member, skipping the character itself and its neighbours.
    const last = out.length > 0 ? out[out.length - 1] : -1;
    let taken = false;
    for (let k = 0; k < m.classes.length && !taken; k++) {
      const cls = m.classes[k];
      const members = cls.members.filter((code) => c < 0 || !isNeighbour(m, c, k, code, last));
      const each = row[index(m, u & ~cls.signature, k, 0)];
      const weight = BigInt(members.length) * each;
      if (x < weight) {
        out.push(members[Number(x / each)]);
        x %= each;
        u &= ~cls.signature;
        c = k;
        move = 0;
        taken = true;
      } else x -= weight;
    }
    if (taken) continue;
    for (const [k, next, v] of steps(m, u, c, move)) {
      const weight = row[index(m, v, k, next)];
      if (x < weight) {
        out.push(k === c ? last : m.classes[k].members[0]);
        u = v;
        c = k;
        move = next;
        taken = true;
        break;
      }
      x -= weight;
    }
    /* c8 ignore next -- the terms' weights sum to N(t + 1, u, c, move), which the rank is below */
    if (!taken) throw new Error('unrankMachine: weights do not add up');
  }
  return out;
}

/** Whether `code` in class k is the previous character or a chain neighbour of it (those are
 * repeats and steps, not jumps). */
function isNeighbour(m: Machine, c: number, k: number, code: number, last: number): boolean {
  if (code === last) return true;
  const cls = m.classes[c];
  return (k === cls.up && code === last + 1) || (k === cls.down && code === last - 1);
}
