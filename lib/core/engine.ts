/**
 * TEMPORARY API shim (issue 29): the one exact engine's interface, served for now by the
 * prototype in rules/engine.ts, so that the planners can move onto it while the engine itself
 * is generalised (per-set minimums, k of M sets, first and last characters). Replaced in place.
 * @module
 */
import * as proto from './rules/engine.ts';

/** A set the string must hit `min` times (min >= 1), or an optional set (min 0) that counts
 * towards `minSets`. */
export interface RequiredSet {
  readonly codes: readonly number[];
  readonly min: number;
}

export interface EngineSpec {
  /** Allowed UTF-16 codes, ascending, distinct. */
  readonly codes: readonly number[];
  /** At most 8 sets. */
  readonly sets: readonly RequiredSet[];
  /** Of the optional sets (min 0), at least this many hit (default 0). */
  readonly minSets?: number;
  /** The first character's allowed codes (default: all). */
  readonly first?: readonly number[] | null;
  /** The last character's allowed codes (default: all). */
  readonly last?: readonly number[] | null;
  readonly length: number;
  readonly maxRepeating: number | null;
  readonly maxSequential: number | null;
}

export interface Tables {
  readonly spec: EngineSpec;
  /** The exact number of valid strings. */
  readonly count: bigint;
  readonly inner: proto.Tables;
}

function protoSpec(spec: EngineSpec): proto.EngineSpec {
  if (spec.sets.some((s) => s.min !== 1) || (spec.minSets ?? 0) > 0 || spec.first || spec.last)
    throw new Error('engine shim: only sets of min 1 are supported yet');
  return {
    codes: spec.codes,
    required: spec.sets.map((s) => s.codes),
    length: spec.length,
    maxRepeating: spec.maxRepeating,
    maxSequential: spec.maxSequential,
  };
}

/** Work units (BigInt operations) that countTables will do, with no BigInt work done. */
export function price(spec: EngineSpec): number {
  return proto.unrankingOf(proto.compile(protoSpec(spec))).work;
}

/** The exact count and the tables unrank() walks. */
export function countTables(spec: EngineSpec): Tables {
  const m = proto.compile(protoSpec(spec));
  const inner = proto.countMachine(m, proto.unrankingOf(m));
  return { spec, count: inner.count, inner };
}

/** The valid string of rank `rank` (0 <= rank < count), as codes: a bijection onto the valid strings. */
export function unrank(tables: Tables, rank: bigint): number[] {
  return proto.unrankMachine(tables.inner, rank);
}

/** True when b may follow a inside a sequence: the next or previous code, both in 0-9, A-Z or a-z. */
export function isSequenceStep(a: number, b: number): boolean {
  return (b === a + 1 || b === a - 1) && rangeOf(a) !== 0 && rangeOf(a) === rangeOf(b);
}

function rangeOf(c: number): number {
  if (c >= 0x30 && c <= 0x39) return 1;
  if (c >= 0x41 && c <= 0x5a) return 2;
  if (c >= 0x61 && c <= 0x7a) return 3;
  return 0;
}

/**
 * The validity check, the definition the engine counts: every code allowed, each set hit at
 * least its min times, at least minSets optional sets hit, the first and last codes in their
 * sets, no run of one code longer than maxRepeating, no sequence (codes each one step up, or
 * each one step down, inside 0-9, A-Z or a-z) longer than maxSequential.
 */
export function validity(spec: EngineSpec): (codes: ArrayLike<number>) => boolean {
  const allowed = new Set(spec.codes);
  const first = spec.first ? new Set(spec.first) : null;
  const last = spec.last ? new Set(spec.last) : null;
  const sets = spec.sets.map((s) => ({ codes: new Set(s.codes), min: s.min }));
  const minSets = spec.minSets ?? 0;
  const R = spec.maxRepeating ?? Infinity;
  const S = spec.maxSequential ?? Infinity;
  return (codes) => {
    const n = codes.length;
    if (n !== spec.length) return false;
    if (first !== null && !first.has(codes[0])) return false;
    if (last !== null && !last.has(codes[n - 1])) return false;
    let run = 0;
    let sequence = 0;
    let direction = 0;
    for (let i = 0; i < n; i++) {
      const c = codes[i];
      if (!allowed.has(c)) return false;
      const step = i === 0 ? 0 : c - codes[i - 1];
      run = step === 0 && i > 0 ? run + 1 : 1;
      if (i > 0 && isSequenceStep(codes[i - 1], c)) {
        sequence = step === direction ? sequence + 1 : 2;
        direction = step;
      } else {
        sequence = 1;
        direction = 0;
      }
      if (run > R || sequence > S) return false;
    }
    let optionalHit = 0;
    for (const set of sets) {
      let hits = 0;
      for (let i = 0; i < n; i++) if (set.codes.has(codes[i])) hits++;
      if (hits < set.min) return false;
      if (set.min === 0 && hits > 0) optionalHit++;
    }
    return optionalHit >= minSets;
  };
}
