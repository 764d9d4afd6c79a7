/**
 * Mode password: the pool, the plan (pool and exact entropy, made once per option set) and
 * generation.
 *
 * Each character is one draw below the pool size N (random.ts), so a draft is uniform over
 * all N^L strings of the length L. The each-class rule: a draft that misses an enabled class
 * is thrown away whole and a new one drawn, until one holds every class. Every string of V,
 * the strings holding every enabled class, comes with the same chance N^-L per draft, so the
 * draft kept is uniform over V, the set that entropy.ts counts. Placing one character of each
 * class and shuffling is not uniform over V (it over-weights strings with few characters of
 * the small classes) and is not used. Redraws stay cheap: for the default 24 characters 1.5 %
 * of drafts are redrawn; the worst valid option set (length 8, three classes cut down to 1
 * character beside 26 letters) keeps 1 draft in 94 on average, about 750 draws for one
 * password, still well under a millisecond.
 * @module
 */
import { AMBIGUOUS_CHARACTERS, CHARACTER_CLASSES, type ClassName } from './charsets.ts';
import { passwordBits, strength, type Entropy } from './entropy.ts';
import type { RandomSource } from './random.ts';
import type { ErrorBody, PasswordOptions } from './validate.ts';

export interface PasswordMetadata {
  readonly entropyMode: 'uniform-each-class';
  readonly poolSize: number;
  readonly length: number;
  readonly classes: readonly { readonly name: ClassName; readonly size: number }[];
}

export interface PasswordPlan {
  readonly length: number;
  /** The pool's characters, class by class (every class is ASCII: one UTF-16 unit each). */
  readonly pool: string;
  /** classBit[j]: bit i set when pool[j] belongs to the i-th enabled class. */
  readonly classBit: readonly number[];
  /** Every enabled class's bit: what a kept draft has seen. */
  readonly allClasses: number;
  /** log2 |V|, unrounded (the entropy floor's figure). */
  readonly bits: number;
  readonly entropy: Entropy;
  readonly metadata: PasswordMetadata;
}

const FIELD = 'options.excludedCharacters';

/** The plan for an option set, or the 400 body explaining why no password can be made. */
export function planPassword(o: PasswordOptions): PasswordPlan | ErrorBody {
  const removed = new Set<string>(o.excludedCharacters);
  if (o.avoidAmbiguous) for (const c of AMBIGUOUS_CHARACTERS) removed.add(c);

  let pool = '';
  const classBit: number[] = [];
  const classes: { name: ClassName; size: number }[] = [];
  for (const cls of CHARACTER_CLASSES) {
    if (!o[cls.option]) continue;
    const kept = Array.from(cls.chars).filter((c) => !removed.has(c));
    if (kept.length === 0) {
      return { error: `${FIELD} removes every character of the enabled class ${cls.name}`, status: 400, field: FIELD };
    }
    pool += kept.join('');
    for (let i = 0; i < kept.length; i++) classBit.push(1 << classes.length);
    classes.push(Object.freeze({ name: cls.name, size: kept.length }));
  }
  if (classes.length === 0) {
    return {
      error: 'options must enable at least one of includeLowercase, includeUppercase, includeNumbers, includeSymbols',
      status: 400,
      field: 'options',
    };
  }
  if (pool.length < 2) {
    return { error: `${FIELD} leaves fewer than 2 characters in the pool`, status: 400, field: FIELD };
  }
  const bits = passwordBits(
    classes.map((c) => c.size),
    o.length,
  );
  return Object.freeze({
    length: o.length,
    pool,
    classBit, // not frozen: V8 reads a frozen array slower (docs/benchmark.md, The core and the 3 % rule)
    allClasses: (1 << classes.length) - 1,
    bits,
    entropy: strength(bits),
    metadata: Object.freeze({
      entropyMode: 'uniform-each-class',
      poolSize: pool.length,
      length: o.length,
      classes: Object.freeze(classes),
    }),
  });
}

/**
 * The plan store's key for an option set: every option, generated from the schema
 * (spec/build.ts), so no option can be missing from it. Planning (the exact count in BigInt) is
 * a measurable share of a whole request (docs/benchmark.md, The core and the 3 % rule), so the
 * server keeps plans by this key (plan-store.ts).
 */
export { passwordOptionsKey as passwordPlanKey } from '../generated/options.generated.ts';

/** A plan's bytes, at most: its pool and class bits, metadata and the key, with room to spare. */
export const PASSWORD_PLAN_BYTES = 2048;

export function isPlan(p: PasswordPlan | ErrorBody): p is PasswordPlan {
  return 'pool' in p;
}

/**
 * `count` passwords for the plan, each uniform over the strings that hold every enabled class
 * (see above): per password, one draw below N per character, in order, and the whole draft
 * drawn again while a class is missing. The character codes are overwritten once the batch is
 * made; the strings returned stay in the heap until the garbage collector reclaims them, which
 * no code can force (docs/security.md, What stays in memory).
 */
export function generatePasswords(plan: PasswordPlan, random: RandomSource, count: number): string[] {
  const { length, pool, classBit, allClasses } = plan;
  const codes = new Array<number>(length).fill(0);
  const values = new Array<string>(count);
  for (let k = 0; k < count;) {
    let seen = 0;
    for (let i = 0; i < length; i++) {
      const j = random.below(pool.length);
      seen |= classBit[j];
      codes[i] = pool.charCodeAt(j);
    }
    if (seen === allClasses) values[k++] = String.fromCharCode(...codes);
  }
  codes.fill(0);
  return values;
}

/** One password: generatePasswords with count = 1. */
export function generatePassword(plan: PasswordPlan, random: RandomSource): string {
  return generatePasswords(plan, random, 1)[0];
}
