/**
 * Statistical tests of the generator's output distribution against the exact distribution it
 * must have. Every test states its false-alarm rate: alpha = 1e-6 per `it` (Bonferroni within a
 * test where several statistics are combined), so a correct generator fails a full run of this
 * file (about 20 such checks) with probability below 3e-5. Samples come from the real CSPRNG.
 *
 * Each test is shown to have teeth: the same test function is run on deliberately biased
 * generators (`byte % n`, place-one-of-each-then-shuffle, `u16 % 7772`) and must reject them.
 * The sampler's own tricks (four characters per 31-bit draw, two pair-table lookups, the last
 * draw cut to the length) get tests aimed at them, each with the mutant it must catch: the
 * 32-bit bound applied to 31-bit draws, one digit used for both halves, a pair table off by one,
 * a class check that counts the characters cut off.
 *
 * Independence: characters of one password are not independent under the each-class rule, so
 * pooled per-character counts are used only for single-class pools (i.i.d.); multi-class pools
 * are tested per position (one character per password: independent across passwords) and by the
 * class-count distribution (one statistic per password). Words of a passphrase are i.i.d.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generatePassword, isPlan, planPassword, type PasswordPlan } from '../../lib/core/password.ts';
import {
  generatePassphrase,
  generatePassphrases,
  planPassphrase,
  RANDOM_SEPARATORS,
  WORDLIST,
} from '../../lib/core/passphrase.ts';
import { defaultRandom, type RandomSource } from '../../lib/core/random.ts';
import { validateRequest, type PasswordOptions } from '../../lib/core/validate.ts';
import { chiSquarePValue, chiSquareTest } from '../helpers/stats.ts';

const ALPHA = 1e-6;

function plan(given: Partial<PasswordOptions>): PasswordPlan {
  const r = validateRequest({ mode: 'password', options: given });
  assert.ok(r.ok && r.request.mode === 'password');
  const p = planPassword(r.request.options);
  assert.ok(isPlan(p));
  return p;
}

const classSizes = (p: PasswordPlan) => p.metadata.classes.map((c) => c.size);

/** The options a plan was made from, as far as the tests use them (no excluded characters). */
function optionsOf(p: PasswordPlan): Partial<PasswordOptions> {
  const names = p.metadata.classes.map((c) => c.name);
  return {
    length: p.length,
    includeLowercase: names.includes('lowercase'),
    includeUppercase: names.includes('uppercase'),
    includeNumbers: names.includes('numbers'),
    includeSymbols: names.includes('symbols'),
  };
}

/** Strings of length L over a pool of N holding >= 1 character of each class in `required`. */
function countCovering(required: number[], N: number, L: number): bigint {
  let sum = 0n;
  for (let s = 0; s < 1 << required.length; s++) {
    let removed = 0;
    let sign = 1n;
    required.forEach((size, i) => {
      if (s & (1 << i)) {
        removed += size;
        sign = -sign;
      }
    });
    sum += sign * BigInt(N - removed) ** BigInt(L);
  }
  return sum;
}

const ratio = (a: bigint, b: bigint) => Number((a * 10n ** 18n) / b) / 1e18;

/** Exact P(a fixed position = c) for each pool character c, under uniform sampling of V. */
function positionProbabilities(p: PasswordPlan): number[] {
  const sizes = classSizes(p);
  const N = p.pool.length;
  const total = countCovering(sizes, N, p.length);
  const perClass = sizes.map((_, j) =>
    ratio(
      countCovering(
        sizes.filter((__, i) => i !== j),
        N,
        p.length - 1,
      ),
      total,
    ),
  );
  return p.pool.map((_, idx) => perClass[Math.log2(p.classBit[idx])]);
}

/** Exact distribution of the number of characters of class `j` in a password from V. */
function classCountProbabilities(p: PasswordPlan, j: number): number[] {
  const sizes = classSizes(p);
  const N = p.pool.length;
  const L = p.length;
  const others = sizes.filter((_, i) => i !== j);
  const total = countCovering(sizes, N, L);
  const probs: number[] = [];
  let binom = 1n;
  for (let k = 0; k <= L; k++) {
    if (k > 0) binom = (binom * BigInt(L - k + 1)) / BigInt(k);
    const ways = k === 0 ? 0n : binom * BigInt(sizes[j]) ** BigInt(k) * countCovering(others, N - sizes[j], L - k);
    probs.push(ratio(ways, total));
  }
  return probs;
}

type PasswordSource = (p: PasswordPlan) => string;
const realPassword: PasswordSource = (p) => generatePassword(p, defaultRandom);

/** Mutant 1: the classic modulo bias, one byte per character, each-class redraw kept. */
const moduloPassword: PasswordSource = (p) => {
  const bytes = new Uint8Array(p.length);
  for (;;) {
    globalThis.crypto.getRandomValues(bytes);
    let seen = 0;
    let out = '';
    for (const b of bytes) {
      const j = b % p.pool.length;
      seen |= p.classBit[j];
      out += p.pool[j];
    }
    if (seen === p.allClasses) return out;
  }
};

/** Mutant 2: one character of each class placed first, the rest from the pool, then shuffled. */
const placeThenShuffle: PasswordSource = (p) => {
  const chars: string[] = [];
  const classes = p.metadata.classes.length;
  for (let c = 0; c < classes; c++) {
    const members = p.pool.filter((_, i) => p.classBit[i] === 1 << c);
    chars.push(members[defaultRandom.below(members.length)]);
  }
  while (chars.length < p.length) chars.push(p.pool[defaultRandom.below(p.pool.length)]);
  for (let i = chars.length - 1; i > 0; i--) {
    const k = defaultRandom.below(i + 1);
    [chars[i], chars[k]] = [chars[k], chars[i]];
  }
  return chars.join('');
};

function pooledCharacterTest(p: PasswordPlan, source: PasswordSource, passwords: number): number {
  const counts = new Array<number>(p.pool.length).fill(0);
  const index = new Map(p.pool.map((c, i) => [c, i]));
  for (let i = 0; i < passwords; i++) for (const ch of source(p)) counts[index.get(ch)!]++;
  return chiSquareTest(
    counts,
    counts.map(() => 1 / p.pool.length),
  ).p;
}

/** Smallest per-position p-value times the number of positions (Bonferroni). */
function perPositionTest(p: PasswordPlan, source: PasswordSource, passwords: number): number {
  const probs = positionProbabilities(p);
  const index = new Map(p.pool.map((c, i) => [c, i]));
  const counts = Array.from({ length: p.length }, () => new Array<number>(p.pool.length).fill(0));
  for (let i = 0; i < passwords; i++) {
    const v = source(p);
    for (let pos = 0; pos < p.length; pos++) counts[pos][index.get(v[pos])!]++;
  }
  return Math.min(1, p.length * Math.min(...counts.map((c) => chiSquareTest(c, probs).p)));
}

/** Class-count distribution of every class; Bonferroni over classes. */
function classCountTest(p: PasswordPlan, source: PasswordSource, passwords: number): number {
  const classes = p.metadata.classes.length;
  const counts = Array.from({ length: classes }, () => new Array<number>(p.length + 1).fill(0));
  for (let i = 0; i < passwords; i++) {
    const v = source(p);
    const perClass = new Array<number>(classes).fill(0);
    for (const ch of v) perClass[Math.log2(p.classBit[p.pool.indexOf(ch)])]++;
    perClass.forEach((k, c) => counts[c][k]++);
  }
  let minP = 1;
  for (let c = 0; c < classes; c++) minP = Math.min(minP, chiSquareTest(counts[c], classCountProbabilities(p, c)).p);
  return Math.min(1, classes * minP);
}

describe('exact expected distributions (sanity of the oracles)', () => {
  it('position and class-count probabilities each sum to 1', () => {
    for (const p of [plan({ length: 8 }), plan({ length: 12, includeSymbols: true, avoidAmbiguous: true })]) {
      const pos = positionProbabilities(p).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(pos - 1) < 1e-9, String(pos));
      for (let c = 0; c < p.metadata.classes.length; c++) {
        const s = classCountProbabilities(p, c).reduce((a, b) => a + b, 0);
        assert.ok(Math.abs(s - 1) < 1e-9, String(s));
      }
    }
  });
});

describe('password characters (alpha = 1e-6 per test)', () => {
  const singleClassPools: [string, Partial<PasswordOptions>][] = [
    ['a-z (26)', { includeUppercase: false, includeNumbers: false, length: 16 }],
    ['0-9 (10)', { includeLowercase: false, includeUppercase: false, length: 16 }],
    [
      'symbols (23)',
      { includeLowercase: false, includeUppercase: false, includeNumbers: false, includeSymbols: true, length: 16 },
    ],
    [
      'A-Z without ambiguous and QXZ (20)',
      { includeLowercase: false, includeNumbers: false, avoidAmbiguous: true, excludedCharacters: 'QXZ', length: 16 },
    ],
  ];
  for (const [name, given] of singleClassPools) {
    it(`pooled per-character chi-square is uniform for ${name}`, () => {
      assert.ok(pooledCharacterTest(plan(given), realPassword, 4000) > ALPHA);
    });
  }

  const multiClassPools: [string, Partial<PasswordOptions>][] = [
    ['default a-z A-Z 0-9, length 8', { length: 8 }],
    ['default a-z A-Z 0-9, length 9 (one character of the last draw)', { length: 9 }],
    ['all four classes (85), length 10', { length: 10, includeSymbols: true }],
    ['avoidAmbiguous + symbols (76), length 11', { length: 11, includeSymbols: true, avoidAmbiguous: true }],
  ];
  for (const [name, given] of multiClassPools) {
    it(`per-position chi-square against the exact each-class distribution, ${name} (Bonferroni over positions)`, () => {
      assert.ok(perPositionTest(plan(given), realPassword, 20000) > ALPHA);
    });
  }

  it('class-count distribution matches uniform-over-V, lengths 8 to 12 (Bonferroni over classes and lengths)', () => {
    assert.ok(classCountTest(plan({ length: 8 }), realPassword, 20000) > ALPHA / 5);
    assert.ok(classCountTest(plan({ length: 9 }), realPassword, 20000) > ALPHA / 5);
    assert.ok(classCountTest(plan({ length: 10 }), realPassword, 20000) > ALPHA / 5);
    assert.ok(classCountTest(plan({ length: 11, includeSymbols: true }), realPassword, 20000) > ALPHA / 5);
    assert.ok(classCountTest(plan({ length: 12, includeSymbols: true }), realPassword, 20000) > ALPHA / 5);
  });
});

describe('the tests have teeth: biased generators are rejected', () => {
  it('byte % n fails the pooled character test (a-z: 22 letters get 10/256, 4 get 9/256)', () => {
    assert.ok(
      pooledCharacterTest(plan({ includeUppercase: false, includeNumbers: false, length: 16 }), moduloPassword, 4000) <
        ALPHA,
    );
  });
  it('byte % n fails the per-position test (default pool: 8 characters get 5/256, 54 get 4/256)', () => {
    assert.ok(perPositionTest(plan({ length: 8 }), moduloPassword, 20000) < ALPHA);
  });
  it('place-then-shuffle fails the class-count test', () => {
    assert.ok(classCountTest(plan({ length: 8 }), placeThenShuffle, 20000) < ALPHA);
  });
});

describe('the sampler tricks (alpha = 1e-6 per test), each with the mutant it must reject', () => {
  /** The largest pool, 85: the fewest multiples of N^4 below 2^31 (41), so the largest bias
   * should the bound be wrong. */
  const m = 85 * 85;
  const quad = m * m;
  const identity = Uint32Array.from({ length: m }, (_, i) => i);

  /** Draws below 85^4 made by pairsBelow, rebuilt from the two table entries of each word. */
  function draws(source: RandomSource, count: number): Float64Array {
    const out = new Uint32Array(4096);
    const halves = new Uint16Array(out.buffer);
    const x = new Float64Array(count);
    for (let done = 0; done < count; done += 4096) {
      const k = Math.min(4096, count - done);
      source.pairsBelow(m, identity, k, out, 0);
      for (let i = 0; i < k; i++) x[done + i] = halves[2 * i] * m + halves[2 * i + 1];
    }
    return x;
  }

  /**
   * Without rejection, x = v mod 85^4 for v uniform over [0, 2^31) puts 42 preimages, not 41,
   * on each x below r = 2^31 mod 85^4 = 7,258,023: the share of draws below r becomes
   * 42 r / 2^31 = 0.14195 instead of r / 85^4 = 0.13904. Two-sided z test on 1.5 million draws
   * (the mutant's expected z is 10).
   */
  function lowShareTest(source: RandomSource): number {
    const r = 2 ** 31 % quad;
    assert.equal(r, 7_258_023);
    const n = 1_500_000;
    let low = 0;
    for (const x of draws(source, n)) if (x < r) low++;
    const p = r / quad;
    const z = (low - n * p) / Math.sqrt(n * p * (1 - p));
    return chiSquarePValue(z * z, 1);
  }

  /** Joint distribution of two positions of a single-class pool (a-z, i.i.d. characters):
   * chi-square over the 676 pairs, 100,000 passwords. */
  function jointTest(p: PasswordPlan, source: PasswordSource, a: number, b: number): number {
    const n = p.pool.length;
    const counts = new Array<number>(n * n).fill(0);
    const index = new Map(p.pool.map((c, i) => [c, i]));
    for (let i = 0; i < 100_000; i++) {
      const v = source(p);
      counts[index.get(v[a])! * n + index.get(v[b])!]++;
    }
    return chiSquareTest(
      counts,
      counts.map(() => 1 / (n * n)),
    ).p;
  }

  /** Mutant: the 32-bit bound applied to 31-bit draws, i.e. no rejection at all. */
  const unbounded: RandomSource = {
    below: (n) => defaultRandom.below(n),
    belowMany(n, count, out) {
      const words = globalThis.crypto.getRandomValues(new Uint32Array(count));
      for (let i = 0; i < count; i++) out[i] = (words[i] & 0x7fffffff) % n;
    },
    pairsBelow(mm, table, count, out, at) {
      const words = globalThis.crypto.getRandomValues(new Uint32Array(count));
      const halves = new Uint16Array(out.buffer, out.byteOffset);
      let flags = 0;
      for (let i = 0; i < count; i++) {
        const x = (words[i] & 0x7fffffff) % (mm * mm);
        const first = table[Math.floor(x / mm)];
        const second = table[x % mm];
        halves[2 * (at + i)] = first & 0xffff;
        halves[2 * (at + i) + 1] = second & 0xffff;
        flags |= first | second;
      }
      return flags;
    },
  };

  /** Mutant: the high digit used for both halves of a draw (the low one lost). */
  const oneDigit: RandomSource = {
    below: (n) => defaultRandom.below(n),
    belowMany: (n, count, out) => defaultRandom.belowMany(n, count, out),
    pairsBelow(mm, table, count, out, at) {
      const flags = defaultRandom.pairsBelow(mm, table, count, out, at);
      const halves = new Uint16Array(out.buffer, out.byteOffset);
      for (let i = at; i < at + count; i++) halves[2 * i + 1] = halves[2 * i];
      return flags;
    },
  };

  /** Mutant: a pair table off by one, pair p = k N + j standing for pool[k], pool[j + 1] (the
   * last one clamped to pool[N - 1]): the first character of the pool never comes second. */
  function offByOne(p: PasswordPlan): PasswordPlan {
    const n = p.pool.length;
    const { pairs } = p.tables;
    const shifted = pairs.map((_, q) => pairs[Math.floor(q / n) * n + Math.min((q % n) + 1, n - 1)]);
    return { ...p, tables: { ...p.tables, pairs: shifted } };
  }

  /** Mutant: the class check counts the whole last draw, the characters cut off included. */
  const roundedPlans = new Map<PasswordPlan, PasswordPlan>();
  const countsCutOff: PasswordSource = (p) => {
    let rounded = roundedPlans.get(p);
    if (rounded === undefined) {
      rounded = plan({ ...optionsOf(p), length: Math.ceil(p.length / 4) * 4 });
      roundedPlans.set(p, rounded);
    }
    return generatePassword(rounded, defaultRandom).slice(0, p.length);
  };

  const lower = () => plan({ includeUppercase: false, includeNumbers: false, length: 8 });

  it('draws below N^4 are uniform: the share below 2^31 mod N^4 (N = 85) is r / N^4', () => {
    assert.ok(lowShareTest(defaultRandom) > ALPHA);
  });
  it('teeth: without the bound (the 32-bit bound on 31-bit draws) the share is rejected', () => {
    assert.ok(lowShareTest(unbounded) < ALPHA);
  });

  it('the two halves of a draw are independent: joint chi-square of positions (0, 1) and (0, 2), a-z', () => {
    assert.ok(jointTest(lower(), realPassword, 0, 1) > ALPHA / 2);
    assert.ok(jointTest(lower(), realPassword, 0, 2) > ALPHA / 2);
  });
  it('teeth: one digit for both halves fails the (0, 2) joint test', () => {
    assert.ok(jointTest(lower(), (p) => generatePassword(p, oneDigit), 0, 2) < ALPHA);
  });
  it('teeth: a pair table off by one fails the per-position test', () => {
    assert.ok(perPositionTest(offByOne(plan({ length: 8 })), realPassword, 20000) < ALPHA);
  });

  it('teeth: a class check that counts the cut-off characters fails the class-count test (lengths 9, 10, 11)', () => {
    for (const length of [9, 10, 11])
      assert.ok(classCountTest(plan({ length }), countsCutOff, 20000) < ALPHA, `length ${length}`);
  });
});

describe('passphrase words and numbers (alpha = 1e-6 per test)', () => {
  const WORDS = 400_000;
  const wordIndex = new Map(WORDLIST.map((w, i) => [w, i]));
  const wordTest = (draw: () => number) => {
    const counts = new Array<number>(WORDLIST.length).fill(0);
    for (let i = 0; i < WORDS; i++) counts[draw()]++;
    return chiSquareTest(
      counts,
      counts.map(() => 1 / WORDLIST.length),
    ).p;
  };

  it('word indices are uniform over the 7,772 words (chi-square, 400,000 words)', () => {
    const p = planPassphrase({ wordCount: 8, separator: 'space', capitalize: false, addNumber: false });
    const queue: number[] = [];
    const draw = () => {
      if (queue.length === 0)
        for (const w of generatePassphrase(p, defaultRandom).split(' ')) queue.push(wordIndex.get(w)!);
      return queue.pop()!;
    };
    assert.ok(wordTest(draw) > ALPHA);
  });

  it('the two-digit number is uniform over 00-99 (chi-square, 40,000 numbers)', () => {
    const p = planPassphrase({ wordCount: 4, separator: 'dot', capitalize: false, addNumber: true });
    const counts = new Array<number>(100).fill(0);
    for (let i = 0; i < 40_000; i++) counts[Number(generatePassphrase(p, defaultRandom).split('.')[4])]++;
    assert.ok(
      chiSquareTest(
        counts,
        counts.map(() => 0.01),
      ).p > ALPHA,
    );
  });

  it('teeth: u16 % 7772 (3,360 words get 9/65536, the rest 8/65536) is rejected', () => {
    const u16 = new Uint16Array(32_768);
    let next = u16.length;
    const biased = () => {
      if (next === u16.length) {
        globalThis.crypto.getRandomValues(u16);
        next = 0;
      }
      return u16[next++] % WORDLIST.length;
    };
    assert.ok(wordTest(biased) < ALPHA);
  });
});

/**
 * Separators drawn per gap (digit, symbol): each gap must be uniform over its set, independent
 * of the other gaps and of the words. Samples: 20,000 passphrases of 4 words with addNumber
 * (4 gaps each), through the real generator and the real CSPRNG. Three statistics, each a
 * chi-square goodness-of-fit against the exact distribution a correct generator has:
 * - per gap: its character, uniform over the set (Bonferroni over the 4 gaps);
 * - gap pairs: (gap 1, gap 2) and (gap 1, gap before the number) against the product of
 *   uniform marginals, |set|^2 cells (Bonferroni over the 2 pairs);
 * - gaps and words: (gap 1, index of word 1 mod 10) against 1/|set| x P(index mod 10), the
 *   exact share of each residue among the 7,772 words.
 * Alpha = 1e-6 per test (the three combined by Bonferroni). Teeth: one separator reused for every gap fails the pair test, a set
 * with one character twice as likely fails the per-gap test, and a separator derived from the
 * word before it fails the word test, each run here on real passphrases so that only the
 * separators differ.
 */
describe('passphrase separators drawn per gap (alpha = 1e-6 per test)', () => {
  const SAMPLES = 20_000;
  const WORDS = 4;
  const wordIndex = new Map(WORDLIST.map((w, i) => [w, i]));
  interface Parsed {
    words: number[];
    gaps: string[];
  }

  /** Words (as list indices) and gaps (the characters between them, then the one before the number). */
  function parse(v: string): Parsed {
    const words: number[] = [];
    const gaps: string[] = [];
    let word = '';
    for (const c of v.slice(0, -2)) {
      if (/[a-z]/.test(c)) word += c;
      else {
        words.push(wordIndex.get(word)!);
        gaps.push(c);
        word = '';
      }
    }
    return { words, gaps };
  }

  function sample(separator: 'digit' | 'symbol'): Parsed[] {
    const plan = planPassphrase({ wordCount: WORDS, separator, capitalize: false, addNumber: true });
    const out: Parsed[] = [];
    while (out.length < SAMPLES) for (const v of generatePassphrases(plan, defaultRandom, 20)) out.push(parse(v));
    return out;
  }

  function perGapTest(set: string, samples: Parsed[]): number {
    const ps = Array.from({ length: WORDS }, (_, k) => {
      const counts = new Array<number>(set.length).fill(0);
      for (const s of samples) counts[set.indexOf(s.gaps[k])]++;
      return chiSquareTest(
        counts,
        counts.map(() => 1 / set.length),
      ).p;
    });
    return Math.min(1, Math.min(...ps) * WORDS);
  }

  function pairTest(set: string, samples: Parsed[]): number {
    const n = set.length;
    const ps = [1, WORDS - 1].map((k) => {
      const counts = new Array<number>(n * n).fill(0);
      for (const s of samples) counts[set.indexOf(s.gaps[0]) * n + set.indexOf(s.gaps[k])]++;
      return chiSquareTest(
        counts,
        counts.map(() => 1 / (n * n)),
      ).p;
    });
    return Math.min(1, Math.min(...ps) * 2);
  }

  function wordTest(set: string, samples: Parsed[]): number {
    const n = set.length;
    const residue = new Array<number>(10).fill(0);
    for (let i = 0; i < WORDLIST.length; i++) residue[i % 10]++;
    const counts = new Array<number>(n * 10).fill(0);
    for (const s of samples) counts[set.indexOf(s.gaps[0]) * 10 + (s.words[0] % 10)]++;
    return chiSquareTest(
      counts,
      counts.map((_, cell) => (1 / n) * (residue[cell % 10] / WORDLIST.length)),
    ).p;
  }

  const cache = new Map<string, Parsed[]>();
  const real = (separator: 'digit' | 'symbol') => {
    if (!cache.has(separator)) cache.set(separator, sample(separator));
    return cache.get(separator)!;
  };

  for (const separator of ['digit', 'symbol'] as const) {
    const set = RANDOM_SEPARATORS[separator];
    it(`${separator}: each gap is uniform over its ${set.length} characters, independent of the other gaps and of the words`, () => {
      const ps = [perGapTest(set, real(separator)), pairTest(set, real(separator)), wordTest(set, real(separator))];
      process.stdout.write(
        `separator statistics: ${separator}, per-gap p = ${ps[0].toFixed(3)}, pairs p = ${ps[1].toFixed(3)}, words p = ${ps[2].toFixed(3)}\n`,
      );
      // Three statistics in one test: Bonferroni, so the test's alpha stays 1e-6.
      assert.ok(Math.min(...ps) * ps.length > ALPHA);
    });
  }

  it('teeth: one separator reused for every gap fails the pair test (digit and symbol)', () => {
    for (const separator of ['digit', 'symbol'] as const) {
      const reused = real(separator).map((s) => ({ words: s.words, gaps: s.gaps.map(() => s.gaps[0]) }));
      assert.ok(perGapTest(RANDOM_SEPARATORS[separator], reused) > ALPHA, 'each gap alone still looks uniform');
      const p = pairTest(RANDOM_SEPARATORS[separator], reused);
      process.stdout.write(
        `separator statistics: ${separator}, one separator reused, pair test p = ${p.toExponential(2)}\n`,
      );
      assert.ok(p < ALPHA);
    }
  });

  it('teeth: a set with one character twice as likely fails the per-gap test (digit and symbol)', () => {
    for (const separator of ['digit', 'symbol'] as const) {
      const set = RANDOM_SEPARATORS[separator];
      const biased = set + set[0];
      const skewed = real(separator).map((s) => ({
        words: s.words,
        gaps: s.gaps.map(() => biased[defaultRandom.below(biased.length)]),
      }));
      const p = perGapTest(set, skewed);
      process.stdout.write(
        `separator statistics: ${separator}, one character twice as likely, per-gap test p = ${p.toExponential(2)}\n`,
      );
      assert.ok(p < ALPHA);
    }
  });

  it('teeth: a digit derived from the word before it fails the word test', () => {
    const set = RANDOM_SEPARATORS.digit;
    const derived = real('digit').map((s) => ({
      words: s.words,
      gaps: s.gaps.map((g, k) => (k === 0 ? set[s.words[0] % 10] : g)),
    }));
    const p = wordTest(set, derived);
    process.stdout.write(`separator statistics: digit derived from the word, word test p = ${p.toExponential(2)}\n`);
    assert.ok(p < ALPHA);
  });
});
