/**
 * The definition the engine counts (docs/engine.md, (E1)) as a check on one string: what rejection
 * keeps. tests/core/engine.test.ts holds it against an independent judge and the engine's count.
 * @module
 */
import { isSequenceStep, popcount, type EngineSpec } from './engine.ts';

/** A spec as data for `isValid`. */
export interface Check {
  readonly length: number;
  /** By code: the code's set bits, and ALLOWED when it is allowed. */
  readonly sig: Int32Array;
  /** By code: 1 when it may come first (last); null: any may. */
  readonly first: Uint8Array | null;
  readonly last: Uint8Array | null;
  readonly mins: readonly number[];
  /** Each set's maximum, or -1 (none). */
  readonly maxes: readonly number[];
  /** The sets of min 1 or more; those whose hits are counted (min 2 or more, or a maximum); min 0. */
  readonly mandatory: number;
  readonly counted: number;
  readonly optional: number;
  readonly minSets: number;
  readonly maxRun: number;
  readonly maxSequence: number;
}

const ALLOWED = 1 << 30;

export function checkOf(spec: EngineSpec): Check {
  const top = Math.max(...spec.codes) + 1;
  const sig = new Int32Array(top);
  for (const code of spec.codes) sig[code] = ALLOWED;
  spec.sets.forEach((set, i) => {
    for (const code of set.codes) if (code < top) sig[code] |= 1 << i;
  });
  const table = (codes: readonly number[] | null | undefined) => {
    if (codes === null || codes === undefined) return null;
    const t = new Uint8Array(top);
    for (const code of codes) if (code < top) t[code] = 1;
    return t;
  };
  const maxes = spec.sets.map((set) => set.max ?? -1);
  const bits = (pick: (i: number) => boolean) => spec.sets.reduce((m, _, i) => (pick(i) ? m | (1 << i) : m), 0);
  return {
    length: spec.length,
    sig,
    first: table(spec.first),
    last: table(spec.last),
    mins: spec.sets.map((set) => set.min),
    maxes,
    mandatory: bits((i) => spec.sets[i].min >= 1),
    counted: bits((i) => spec.sets[i].min >= 2 || maxes[i] >= 0),
    optional: bits((i) => spec.sets[i].min === 0),
    minSets: spec.minSets ?? 0,
    maxRun: spec.maxRepeating ?? spec.length,
    maxSequence: spec.maxSequential ?? spec.length,
  };
}

/** (E1) The length, the codes, first and last, each set's minimum and maximum, minSets, and no run
 * or sequence over its limit. */
export function isValid(c: Check, codes: ArrayLike<number>): boolean {
  const n = codes.length;
  if (n !== c.length) return false;
  if (c.first !== null && c.first[codes[0]] !== 1) return false;
  if (c.last !== null && c.last[codes[n - 1]] !== 1) return false;
  const limited = c.maxRun < n || c.maxSequence < n;
  const { sig } = c;
  let seen = 0;
  let run = 0;
  let sequence = 0;
  let direction = 0;
  for (let i = 0; i < n; i++) {
    const code = codes[i];
    const s = code < sig.length ? sig[code] : 0;
    if ((s & ALLOWED) === 0) return false;
    seen |= s;
    if (!limited) continue;
    const previous = i > 0 ? codes[i - 1] : -1;
    run = code === previous ? run + 1 : 1;
    if (i > 0 && isSequenceStep(previous, code)) {
      sequence = code - previous === direction ? sequence + 1 : 2;
      direction = code - previous;
    } else {
      sequence = 1;
      direction = 0;
    }
    if (run > c.maxRun || sequence > c.maxSequence) return false;
  }
  if ((seen & c.mandatory) !== c.mandatory) return false;
  if (c.counted !== 0) {
    for (let i = 0; i < c.mins.length; i++) {
      if (((c.counted >> i) & 1) === 0) continue;
      const h = hits(c, codes, i);
      if (h < c.mins[i] || (c.maxes[i] >= 0 && h > c.maxes[i])) return false;
    }
  }
  return c.minSets === 0 || popcount(seen & c.optional) >= c.minSets;
}

function hits(c: Check, codes: ArrayLike<number>, set: number): number {
  let h = 0;
  for (let i = 0; i < codes.length; i++) if ((c.sig[codes[i]] >> set) & 1) h++;
  return h;
}
