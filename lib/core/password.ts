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
 * characters (~190 draws) for one password, still well under a millisecond.
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
  /** The tables the sampler reads, shared by every plan with the same pool. */
  readonly tables: PoolTables;
  /** log2 |V|, unrounded (the entropy floor's figure). */
  readonly bits: number;
  readonly entropy: Entropy;
  readonly metadata: PasswordMetadata;
  /** entropy and metadata as JSON, for generateJson. */
  readonly json: PlanJson;
}

/**
 * What the sampler needs of a pool of N characters. One draw x below N^4 (random.ts, pairsBelow)
 * gives four characters: its base-N^2 digits x / N^2 and x mod N^2 are independent and uniform
 * over [0, N^2), and pair p stands for pool[p / N] followed by pool[p mod N]; so the four
 * characters are x's base-N digits, most significant first, each uniform over the pool.
 */
export interface PoolTables {
  /** N^2, the number of two-character pairs. */
  readonly pairCount: number;
  /**
   * pairs[p]: the two bytes of pair p in memory order in the low 16 bits, and the class bits of
   * both its characters above them, so one load serves both the store and the class check.
   */
  readonly pairs: Uint32Array;
  /** classOfCode[c]: the class bit of the pool character with code c (codes are ASCII). */
  readonly classOfCode: Uint8Array;
}

/** The machine's byte order decides which byte of a 16-bit half comes first in memory. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Exported for tests: the tables of a pool, for either byte order. */
export function buildPoolTables(
  codes: readonly number[],
  classBit: Uint8Array,
  littleEndian: boolean = LITTLE_ENDIAN,
): PoolTables {
  const n = codes.length;
  const pairCount = n * n;
  const pairs = new Uint32Array(pairCount);
  for (let p = 0; p < pairCount; p++) {
    const first = Math.floor(p / n);
    const second = p % n;
    const bytes = littleEndian ? codes[first] | (codes[second] << 8) : (codes[first] << 8) | codes[second];
    pairs[p] = bytes | ((classBit[first] | classBit[second]) << 16);
  }
  const classOfCode = new Uint8Array(128);
  for (let i = 0; i < n; i++) classOfCode[codes[i]] = classBit[i];
  return Object.freeze({ pairCount, pairs, classOfCode });
}

/**
 * Tables are ~29 KB for 85 characters (7,225 pairs of 4 bytes), so plans that differ only in
 * length share them through this memo, keyed by the pool itself; the pool decides the class
 * bits too (every enabled class keeps at least one character). Bounded like the plan caches.
 */
const TABLES_CACHE_LIMIT = 64;
const tablesCache = new BoundedCache<string, PoolTables>(TABLES_CACHE_LIMIT);

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
    const kept = Array.from(cls.chars).filter((c) => !removed.has(c)); // ASCII: one unit each
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
  const exactBits = passwordBits(
    classes.map((c) => c.size),
    o.length,
  );
  const entropy = strength(exactBits);
  const metadata: PasswordMetadata = Object.freeze({
    entropyMode: 'uniform-each-class',
    poolSize: pool.length,
    length: o.length,
    classes: Object.freeze(classes),
  });
  const classBit = Uint8Array.from(bits);
  const codes = pool.map((c) => c.charCodeAt(0));
  /* c8 ignore next 3 -- every class is ASCII; the decoder below relies on it */
  if (codes.some((c) => c > 0x7f)) {
    throw new Error('password pools must be ASCII: characters are decoded one byte each');
  }
  const key = pool.join('');
  return Object.freeze({
    length: o.length,
    pool: Object.freeze(pool),
    classBit,
    allClasses: (1 << classes.length) - 1,
    tables: tablesCache.getOrMake(key, { codes, classBit }, (c) => buildPoolTables(c.codes, c.classBit)),
    bits: exactBits,
    entropy,
    metadata,
    json: planJson(entropy, metadata, key),
  });
}

/**
 * Plans are pure functions of the options; a bounded cache skips the BigInt work on repeats.
 * Option sets without excluded characters (nearly every request) are keyed by one small
 * integer, so a hit costs no string building.
 */
const PLAN_CACHE_LIMIT = 512;
const plainPlanCache = new BoundedCache<number, PasswordPlan | ErrorBody>(PLAN_CACHE_LIMIT);
/** Each excluded-characters set may make its own pool and so its own ~29 KB of tables: 64 of
 * them bound that memory to ~1.9 MB (plain plans share at most 30 pools). */
const EXCLUDED_PLAN_CACHE_LIMIT = 64;
const planCache = new BoundedCache<string, PasswordPlan | ErrorBody>(EXCLUDED_PLAN_CACHE_LIMIT);

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

/**
 * Scratch shared by every plan (generation never yields, so one batch at a time): the batch's
 * characters as bytes, with a 32-bit view for the four-character stores.
 */
let bytes = new Uint8Array(4096);
let words = new Uint32Array(bytes.buffer);
/** views[k] = bytes.subarray(0, k), kept: making a view costs as much as decoding 24 bytes. */
let views: Uint8Array[] = [];
/**
 * Pool characters are ASCII, so UTF-8 decoding is one character per byte; TextDecoder turns
 * the batch into one flat string in one call (56 ns for 24 bytes, 103 ns for 480 in Node 20,
 * against 37 / 560 ns for String.fromCharCode.apply). Every browser and Node have it; a bare
 * JavaScript context may not, and gets the slower call (tests/browser/bundle.test.ts runs the
 * bundle in such a context).
 */
const decoder = typeof TextDecoder === 'function' ? new TextDecoder() : null;

function makeRoom(byteCount: number): void {
  if (bytes.length < byteCount) {
    bytes = new Uint8Array(Math.max(byteCount, bytes.length * 2));
    words = new Uint32Array(bytes.buffer);
    views = [];
  }
}

function decode(byteCount: number): string {
  const view = (views[byteCount] ??= bytes.subarray(0, byteCount));
  /* c8 ignore next -- Node has TextDecoder: the other call runs in the bundle test's bare context */
  return decoder !== null ? decoder.decode(view) : String.fromCharCode.apply(null, view as unknown as number[]);
}

/**
 * `count` passwords for the plan, each uniform over the strings that hold every enabled class.
 *
 * Each password is ceil(L / 4) draws below N^4 (four characters each, see PoolTables), drawn in
 * order; when L is not a multiple of 4 the last draw's surplus characters are dropped (its
 * leading digits are uniform on their own). The class check reads only the characters kept,
 * and a password missing a class is redrawn whole, all its draws made again. Passwords are
 * drawn one after another, so the draws are those of `count` calls with count = 1.
 *
 * The batch sits in one byte buffer at a stride of 4 * ceil(L / 4) bytes (32-bit stores must
 * be aligned) and becomes one string; each password is a slice of it.
 *
 * Wiping: the byte buffer is zeroed before returning (random.ts zeroes every word it consumes),
 * so the reused scratch never holds a password after the call. That is all it does: the
 * returned strings, and the batch string they are slices of, stay in the JavaScript heap until
 * the garbage collector reclaims and overwrites them, which no code can force.
 */
export function generatePasswords(plan: PasswordPlan, random: RandomSource, count: number): string[] {
  const { length, allClasses } = plan;
  const { pairCount, pairs, classOfCode } = plan.tables;
  const full = length >> 2;
  const kept = length & 3;
  const groups = kept === 0 ? full : full + 1;
  const stride = groups * 4;
  makeRoom(stride * count);
  for (let slot = 0; slot < count; slot++) {
    const at = slot * groups;
    for (;;) {
      let seen = random.pairsBelow(pairCount, pairs, full, words, at) >>> 16;
      if (kept !== 0) {
        // The last draw: only its first `kept` characters are kept, and only they count.
        random.pairsBelow(pairCount, pairs, 1, words, at + full);
        const first = (at + full) * 4;
        for (let k = 0; k < kept; k++) seen |= classOfCode[bytes[first + k]];
      }
      if (seen === allClasses) break;
    }
  }
  const values = new Array<string>(count);
  if (count === 1) {
    values[0] = decode(length);
  } else {
    const batch = decode(stride * count);
    for (let slot = 0; slot < count; slot++) values[slot] = batch.slice(slot * stride, slot * stride + length);
  }
  words.fill(0, 0, groups * count); // one memset
  return values;
}

/** One password: generatePasswords with count = 1. */
export function generatePassword(plan: PasswordPlan, random: RandomSource): string {
  return generatePasswords(plan, random, 1)[0];
}
