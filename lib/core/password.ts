/**
 * Mode password: the pool rules, the plan (pool + exact entropy, computed once per option set)
 * and generation.
 *
 * The each-class rule is met by redrawing the whole password until every enabled class is
 * present, so the output is uniform over exactly the set V that the entropy counts.
 * Place-one-of-each-then-shuffle is not uniform over V (it over-weights strings with few
 * characters of the small classes) and is not used. Redraws stay cheap: for the default 24
 * characters 1.5 % of drafts are redrawn; the worst valid option set (length 8, three classes
 * cut down to 1 character beside 26 letters) accepts 1 draft in 94 on average, i.e. ~750
 * draws for one password, still well under a millisecond.
 * @module
 */
import { BoundedCache } from './bounded-cache.ts';
import { AMBIGUOUS_CHARACTERS, CHARACTER_CLASSES, type ClassName } from './charsets.ts';
import { passwordBits, planJson, strength, type Entropy, type PlanJson } from './entropy.ts';
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
  readonly pool: readonly string[];
  /** Bit i of classBit[j] is set when pool[j] belongs to enabled class i. */
  readonly classBit: Uint8Array;
  readonly allClasses: number;
  /** UTF-16 code of pool[j] (every pool character is one code unit: the classes are ASCII). */
  readonly codes: Uint16Array;
  readonly entropy: Entropy;
  readonly metadata: PasswordMetadata;
  /** entropy and metadata as JSON, for generateJson. */
  readonly json: PlanJson;
}

const FIELD = 'options.excludedCharacters';

/** The plan for an option set, or the 400 body explaining why no password can be made. */
export function planPassword(o: PasswordOptions): PasswordPlan | ErrorBody {
  const removed = new Set<string>(o.excludedCharacters);
  if (o.avoidAmbiguous) for (const c of AMBIGUOUS_CHARACTERS) removed.add(c);

  const pool: string[] = [];
  const bits: number[] = [];
  const classes: { name: ClassName; size: number }[] = [];
  for (const cls of CHARACTER_CLASSES) {
    if (!o[cls.option]) continue;
    const kept = [...cls.chars].filter((c) => !removed.has(c));
    if (kept.length === 0) {
      return { error: `${FIELD} removes every character of the enabled class ${cls.name}`, status: 400, field: FIELD };
    }
    const bit = 1 << classes.length;
    for (const c of kept) {
      pool.push(c);
      bits.push(bit);
    }
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
  const entropy = strength(passwordBits(classes.map((c) => c.size), o.length));
  const metadata: PasswordMetadata = Object.freeze({
    entropyMode: 'uniform-each-class',
    poolSize: pool.length,
    length: o.length,
    classes: Object.freeze(classes),
  });
  return Object.freeze({
    length: o.length,
    pool: Object.freeze(pool),
    classBit: Uint8Array.from(bits),
    codes: Uint16Array.from(pool, (c) => c.charCodeAt(0)),
    allClasses: (1 << classes.length) - 1,
    entropy,
    metadata,
    json: planJson(entropy, metadata, pool.join('')),
  });
}

/**
 * Plans are pure functions of the options; a bounded cache skips the BigInt work on repeats.
 * Option sets without excluded characters (nearly every request) are keyed by one small
 * integer, so a hit costs no string building.
 */
const PLAN_CACHE_LIMIT = 512;
const planCache = new BoundedCache<string, PasswordPlan | ErrorBody>(PLAN_CACHE_LIMIT);
const plainPlanCache = new BoundedCache<number, PasswordPlan | ErrorBody>(PLAN_CACHE_LIMIT);

export function cachedPlanPassword(o: PasswordOptions): PasswordPlan | ErrorBody {
  if (o.excludedCharacters === '') {
    const key =
      o.length * 32 +
      (o.includeLowercase ? 16 : 0) +
      (o.includeUppercase ? 8 : 0) +
      (o.includeNumbers ? 4 : 0) +
      (o.includeSymbols ? 2 : 0) +
      (o.avoidAmbiguous ? 1 : 0);
    return plainPlanCache.getOrMake(key, o, planPassword);
  }
  const key =
    `${o.length}|${+o.includeLowercase}${+o.includeUppercase}${+o.includeNumbers}` +
    `${+o.includeSymbols}${+o.avoidAmbiguous}|${o.excludedCharacters}`;
  return planCache.getOrMake(key, o, planPassword);
}

export function isPlan(p: PasswordPlan | ErrorBody): p is PasswordPlan {
  return 'pool' in p;
}

/** Scratch for the drawn indices and the character codes: one password at a time (generation
 * never yields), wiped after each, so no per-password allocation and no secret left behind. */
let drawn = new Uint32Array(0);
const scratchChars: number[][] = [];

export function generatePassword(plan: PasswordPlan, random: RandomSource): string {
  const { codes, classBit, allClasses, length } = plan;
  const n = codes.length;
  if (drawn.length < length) drawn = new Uint32Array(length);
  const indices = drawn;
  // A plain array of exactly `length` slots: String.fromCharCode.apply reads all of them.
  let chars = scratchChars[length];
  if (chars === undefined) {
    chars = new Array<number>(length).fill(0);
    scratchChars[length] = chars;
  }
  for (;;) {
    // One uniform draw per character, all of them before the class check, as always.
    random.belowMany(n, length, indices);
    let seen = 0;
    for (let i = 0; i < length; i++) {
      const j = indices[i];
      seen |= classBit[j];
      chars[i] = codes[j];
    }
    if (seen === allClasses) {
      const out = String.fromCharCode.apply(null, chars);
      for (let i = 0; i < length; i++) {
        indices[i] = 0;
        chars[i] = 0;
      }
      return out;
    }
  }
}
