/**
 * Statistical tests of the generator's output distribution against the exact distribution it
 * must have. Every test states its false-alarm rate: alpha = 1e-6 per `it` (Bonferroni within a
 * test where several statistics are combined), so a correct generator fails a full run of this
 * file (about 25 such checks) with probability below 3e-5. Samples come from the real CSPRNG.
 *
 * Each test is shown to have teeth: the same test function is run on deliberately biased
 * generators and must reject them: `byte % n`, place-one-of-each-then-shuffle and `u16 % 7772`
 * (the classic mistakes), and one mutant per step of the sampler (random.ts, password.ts): a
 * draw that folds a value of n or more back into range instead of redrawing it, a mask one bit
 * short, a draw used for two characters, and a missing class patched in instead of the whole
 * password redrawn. Each test prints its p-values (`statistics:` lines).
 *
 * Independence: characters of one password are not independent under the each-class rule, so
 * pooled per-character counts are used only for single-class pools (i.i.d.); multi-class pools
 * are tested per position (one character per password: independent across passwords) and by the
 * class-count distribution (one statistic per password). Words of a passphrase are i.i.d.
 * without a length bound; within one they are not, and are tested jointly (the last block).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generatePasswords, isPlan, planPassword, type PasswordPlan } from '../../lib/core/password.ts';
import { allClasses, classBits } from '../helpers/pool-classes.ts';
import {
  generatePassphrases,
  isPassphrasePlan,
  planPassphrase,
  WORDLIST,
  type PassphrasePlan,
} from '../../lib/core/passphrase.ts';
import { RANDOM_SEPARATORS } from '../../lib/core/charsets.ts';
import { between, drawWithin, lettersOf, wordLengths, type WordLengths } from '../../lib/core/passphrase-length.ts';
import { defaultRandom, type RandomSource } from '../../lib/core/random.ts';
import { validateRequest, type PassphraseOptions, type PasswordOptions } from '../../lib/request/validate.ts';
import { chiSquareTest } from '../helpers/stats.ts';

const ALPHA = 1e-6;

/** Prints a p-value for the record (the report of a run lists what each test rejected). */
function report(name: string, p: number): number {
  process.stdout.write(`statistics: ${name}, p = ${p.toExponential(2)}\n`);
  return p;
}

function plan(given: Partial<PasswordOptions>): PasswordPlan {
  const r = validateRequest({ mode: 'password', options: given });
  assert.ok(r.ok && r.request.mode === 'password');
  const p = planPassword(r.request.options);
  assert.ok(isPlan(p));
  return p;
}

const classSizes = (p: PasswordPlan) => p.metadata.classes.map((c) => c.size);

/** The plan of passphrase options (the list defaults to eff-large), which must be accepted. */
function passphrasePlan(given: Omit<PassphraseOptions, 'wordList'> & Partial<PassphraseOptions>): PassphrasePlan {
  const p = planPassphrase({ wordList: 'eff-large', ...given });
  if (!isPassphrasePlan(p)) assert.fail(JSON.stringify(p));
  return p;
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
  return [...p.pool].map((_, idx) => perClass[Math.log2(classBits(p)[idx])]);
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
const realPassword: PasswordSource = (p) => generatePasswords(p, defaultRandom, 1)[0];

/** Mutant: the classic modulo bias, one byte per character, each-class redraw kept. */
const moduloPassword: PasswordSource = (p) => {
  const bytes = new Uint8Array(p.length);
  for (;;) {
    globalThis.crypto.getRandomValues(bytes);
    let seen = 0;
    let out = '';
    for (const b of bytes) {
      const j = b % p.pool.length;
      seen |= classBits(p)[j];
      out += p.pool[j];
    }
    if (seen === allClasses(p)) return out;
  }
};

/** Mutant: one character of each class placed first, the rest from the pool, then shuffled. */
const placeThenShuffle: PasswordSource = (p) => {
  const chars: string[] = [];
  const classes = p.metadata.classes.length;
  for (let c = 0; c < classes; c++) {
    const members = [...p.pool].filter((_, i) => classBits(p)[i] === 1 << c);
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
  for (let i = 0; i < passwords; i++) for (const ch of source(p)) counts[p.pool.indexOf(ch)]++;
  return chiSquareTest(
    counts,
    counts.map(() => 1 / p.pool.length),
  ).p;
}

/** Smallest per-position p-value times the number of positions (Bonferroni). */
function perPositionTest(p: PasswordPlan, source: PasswordSource, passwords: number): number {
  const probs = positionProbabilities(p);
  const counts = Array.from({ length: p.length }, () => new Array<number>(p.pool.length).fill(0));
  for (let i = 0; i < passwords; i++) {
    const v = source(p);
    for (let pos = 0; pos < p.length; pos++) counts[pos][p.pool.indexOf(v[pos])]++;
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
    for (const ch of v) perClass[Math.log2(classBits(p)[p.pool.indexOf(ch)])]++;
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
      assert.ok(report(`pooled characters, ${name}`, pooledCharacterTest(plan(given), realPassword, 16_000)) > ALPHA);
    });
  }

  const multiClassPools: [string, Partial<PasswordOptions>][] = [
    ['default a-z A-Z 0-9, length 8', { length: 8 }],
    ['default a-z A-Z 0-9, length 9', { length: 9 }],
    ['all four classes (85), length 10', { length: 10, includeSymbols: true }],
    ['avoidAmbiguous + symbols (76), length 11', { length: 11, includeSymbols: true, avoidAmbiguous: true }],
  ];
  for (const [name, given] of multiClassPools) {
    it(`per-position chi-square against the exact each-class distribution, ${name} (Bonferroni over positions)`, () => {
      assert.ok(report(`per position, ${name}`, perPositionTest(plan(given), realPassword, 20000)) > ALPHA);
    });
  }

  it('class-count distribution matches uniform-over-V, lengths 8 to 12 (Bonferroni over classes and lengths)', () => {
    for (const given of [
      { length: 8 },
      { length: 9 },
      { length: 10 },
      { length: 11, includeSymbols: true },
      { length: 12, includeSymbols: true },
    ]) {
      const p = classCountTest(plan(given), realPassword, 20000);
      assert.ok(report(`class counts, ${JSON.stringify(given)}`, p) > ALPHA / 5);
    }
  });
});

describe('the tests have teeth: biased generators are rejected', () => {
  it('byte % n fails the pooled character test (a-z: 22 letters get 10/256, 4 get 9/256)', () => {
    const p = pooledCharacterTest(
      plan({ includeUppercase: false, includeNumbers: false, length: 16 }),
      moduloPassword,
      16_000,
    );
    assert.ok(report('mutant byte % n, pooled characters (a-z)', p) < ALPHA);
  });
  it('byte % n fails the per-position test (default pool: 8 characters get 5/256, 54 get 4/256)', () => {
    const p = perPositionTest(plan({ length: 8 }), moduloPassword, 20000);
    assert.ok(report('mutant byte % n, per position (default pool, length 8)', p) < ALPHA);
  });
  it('place-then-shuffle fails the class-count test', () => {
    const p = classCountTest(plan({ length: 8 }), placeThenShuffle, 20000);
    assert.ok(report('mutant place-then-shuffle, class counts (length 8)', p) < ALPHA);
  });
});

describe('the sampler, step by step (alpha = 1e-6 per test), each step with the mutant it must reject', () => {
  /** A source whose draws go through `change`, given the real source and n. */
  const mutated = (change: (n: number) => number): RandomSource => ({ below: change });

  /** Draws below n: chi-square of 200,000 draws against uniform. */
  function drawTest(source: RandomSource, n: number): number {
    const counts = new Array<number>(n).fill(0);
    for (let i = 0; i < 200_000; i++) counts[source.below(n)]++;
    return chiSquareTest(
      counts,
      counts.map(() => 1 / n),
    ).p;
  }

  /** Mutant: a value of n or more folded back into range (v - n) instead of redrawn. */
  const folded = mutated((n) => {
    const bits = n === 1 ? 0 : 32 - Math.clz32(n - 1);
    const v = defaultRandom.below(2 ** bits);
    return v < n ? v : v - n;
  });

  /** Mutant: a mask one bit short, so the top half of [0, n) never comes. */
  const shortMask = mutated((n) => {
    const bits = 32 - Math.clz32(n - 1);
    return defaultRandom.below(2 ** (bits - 1));
  });

  /** Mutant: every other draw repeats the one before it (one draw used for two characters). */
  let last = -1;
  const reused = mutated((n) => {
    if (last >= 0 && last < n) {
      const v = last;
      last = -1;
      return v;
    }
    last = defaultRandom.below(n);
    return last;
  });

  it('one draw is uniform below n, where the low-bit mask rejects most (n = 65 of 128) and for 85 and 7,772 (Bonferroni over the 3)', () => {
    const ps = [65, 85, 7772].map((n) => report(`draws below ${n}`, drawTest(defaultRandom, n)));
    assert.ok(Math.min(...ps) * 3 > ALPHA);
  });
  it('teeth: folding instead of redrawing, and a mask one bit short, fail the draw test (n = 85)', () => {
    assert.ok(report('mutant folded, draws below 85', drawTest(folded, 85)) < ALPHA);
    assert.ok(report('mutant mask one bit short, draws below 85', drawTest(shortMask, 85)) < ALPHA);
  });
  it('teeth: folding fails the pooled character test through the password generator (a-z: a-f twice as likely)', () => {
    const lower = plan({ includeUppercase: false, includeNumbers: false, length: 16 });
    const p = pooledCharacterTest(lower, (q) => generatePasswords(q, folded, 1)[0], 16_000);
    assert.ok(report('mutant folded, pooled characters (a-z)', p) < ALPHA);
  });

  /** Joint distribution of two positions of a single-class pool (a-z, i.i.d. characters):
   * chi-square over the 676 pairs, 100,000 passwords. */
  function jointTest(p: PasswordPlan, source: PasswordSource, a: number, b: number): number {
    const n = p.pool.length;
    const counts = new Array<number>(n * n).fill(0);
    for (let i = 0; i < 100_000; i++) {
      const v = source(p);
      counts[p.pool.indexOf(v[a]) * n + p.pool.indexOf(v[b])]++;
    }
    return chiSquareTest(
      counts,
      counts.map(() => 1 / (n * n)),
    ).p;
  }
  const lower = () => plan({ includeUppercase: false, includeNumbers: false, length: 8 });

  it('neighbouring characters are independent: joint chi-square of positions (0, 1) and (6, 7), a-z (Bonferroni over the 2)', () => {
    const ps = [
      report('joint positions (0, 1), a-z', jointTest(lower(), realPassword, 0, 1)),
      report('joint positions (6, 7), a-z', jointTest(lower(), realPassword, 6, 7)),
    ];
    assert.ok(Math.min(...ps) * 2 > ALPHA);
  });
  it('teeth: a draw used for two characters fails the joint test of positions (0, 1)', () => {
    last = -1;
    const p = jointTest(lower(), (q) => generatePasswords(q, reused, 1)[0], 0, 1);
    assert.ok(report('mutant draw used twice, joint positions (0, 1)', p) < ALPHA);
  });

  /** Mutant: each character drawn from the pool, and a class the draft misses patched in (one
   * random position overwritten by a random character of that class) instead of a redraw. */
  const patched: PasswordSource = (p) => {
    const chars = Array.from({ length: p.length }, () => p.pool[defaultRandom.below(p.pool.length)]);
    p.metadata.classes.forEach((_, c) => {
      const members = [...p.pool].filter((_, i) => classBits(p)[i] === 1 << c);
      if (!chars.some((ch) => members.includes(ch)))
        chars[defaultRandom.below(chars.length)] = members[defaultRandom.below(members.length)];
    });
    return chars.join('');
  };
  it('teeth: patching a missing class in fails the class-count test (default pool, length 8)', () => {
    const p = classCountTest(plan({ length: 8 }), patched, 20000);
    assert.ok(report('mutant missing class patched in, class counts (length 8)', p) < ALPHA);
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
    const p = passphrasePlan({ wordCount: 8, separator: 'space', capitalize: false, addNumber: false });
    const queue: number[] = [];
    const draw = () => {
      if (queue.length === 0)
        for (const w of generatePassphrases(p, defaultRandom, 1)[0].split(' ')) queue.push(wordIndex.get(w)!);
      return queue.pop()!;
    };
    assert.ok(report('passphrase word indices', wordTest(draw)) > ALPHA);
  });

  it('the two-digit number is uniform over 00-99 (chi-square, 40,000 numbers)', () => {
    const p = passphrasePlan({ wordCount: 4, separator: 'dot', capitalize: false, addNumber: true });
    const counts = new Array<number>(100).fill(0);
    for (let i = 0; i < 40_000; i++) counts[Number(generatePassphrases(p, defaultRandom, 1)[0].split('.')[4])]++;
    const pValue = chiSquareTest(
      counts,
      counts.map(() => 0.01),
    ).p;
    assert.ok(report('passphrase number 00-99', pValue) > ALPHA);
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
    assert.ok(report('mutant u16 % 7772, word indices', wordTest(biased)) < ALPHA);
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
    const plan = passphrasePlan({ wordCount: WORDS, separator, capitalize: false, addNumber: true });
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

/**
 * Passphrases within a length (options.minLength / maxLength): every word sequence whose
 * letters fit must be equally likely, and no other can come. Two settings, each a chi-square
 * goodness-of-fit against the exact distribution a uniform sampler has (alpha = 1e-6 per test):
 * - a small list where every fitting sequence is a cell of its own (6 words of 1 to 4 letters,
 *   3 words with 5 to 7 letters in all): the full joint distribution, 100,000 draws;
 * - the real path on the EFF list (4 words in at most 20 characters, through planPassphrase and
 *   generatePassphrases): the distribution of each position's word length against its exact
 *   probability from the counts (Bonferroni over the 4 positions), and the total length, from
 *   40,000 passphrases.
 * Teeth: two samplers that are not uniform over the fitting sequences must be rejected: one
 * that picks each word's length uniformly among the lengths that can still fit, then a word of
 * that length (per-word length-biased); one that draws the words independently and, when they
 * do not fit, redraws the last word among those that fit after the others (truncation). And one
 * that is uniform by another route, independent draws rejected until they fit, must pass: the
 * test rejects non-uniformity, not a different way of drawing.
 */
describe('passphrases within a length: uniform over exactly the sequences that fit (alpha = 1e-6 per test)', () => {
  type Sampler = (table: WordLengths, k: number, lo: number, hi: number, total: bigint) => number[];
  const exact: Sampler = (table, k, lo, hi, total) => drawWithin(table, k, lo, hi, total, defaultRandom);

  const sizeOf = (table: WordLengths) => table.groups.reduce((n, g) => n + g.words.length, 0);

  /** Whether `rest` more words can fill [lo, hi], remembered: between() is exact BigInt counting,
   * and the eff-large teeth test below asks the same few questions 40,000 times. */
  const completes = new Map<WordLengths, Map<string, boolean>>();
  const canComplete = (table: WordLengths, rest: number, lo: number, hi: number): boolean => {
    let memo = completes.get(table);
    if (memo === undefined) completes.set(table, (memo = new Map()));
    const key = `${rest},${lo},${hi}`;
    let yes = memo.get(key);
    if (yes === undefined) memo.set(key, (yes = between(table, rest, lo, hi) > 0n));
    return yes;
  };

  /** Mutant: each word's length uniform among those that leave a completion, then a word of it. */
  const lengthBiased: Sampler = (table, k, lo, hi) => {
    const picked: number[] = [];
    for (let rest = k - 1; rest >= 0; rest--) {
      const open = table.groups.filter((g) => canComplete(table, rest, lo - g.length, hi - g.length));
      const g = open[defaultRandom.below(open.length)];
      picked.push(g.words[defaultRandom.below(g.words.length)]);
      lo -= g.length;
      hi -= g.length;
    }
    return picked;
  };

  /** Mutant: independent words; when they do not fit, the last one redrawn among those that fit. */
  const everyWord = new Map<WordLengths, { w: number; l: number }[]>();
  const truncated: Sampler = (table, k, lo, hi) => {
    let all = everyWord.get(table);
    if (all === undefined)
      everyWord.set(table, (all = table.groups.flatMap((g) => g.words.map((w) => ({ w, l: g.length })))));
    for (;;) {
      const picked = Array.from({ length: k - 1 }, () => all[defaultRandom.below(all.length)]);
      const used = picked.reduce((s, x) => s + x.l, 0);
      // A word uniform among those that fit, found by its index across the fitting groups
      // (not by copying them into one array per draw, most of this file's CPU before).
      const fits = table.groups.filter((g) => used + g.length >= lo && used + g.length <= hi);
      const count = fits.reduce((n, g) => n + g.words.length, 0);
      if (count === 0) continue;
      let i = defaultRandom.below(count);
      const group = fits.find((g) => (i < g.words.length ? true : ((i -= g.words.length), false)))!;
      return [...picked.map((x) => x.w), group.words[i]];
    }
  };

  /** Uniform by another route: independent words, the whole sequence redrawn until it fits. */
  const rejection: Sampler = (table, k, lo, hi) => {
    const length = new Map(table.groups.flatMap((g) => g.words.map((w) => [w, g.length] as const)));
    const n = sizeOf(table);
    for (;;) {
      const picked = Array.from({ length: k }, () => defaultRandom.below(n));
      const s = picked.reduce((sum, i) => sum + (length.get(i) ?? 0), 0);
      if (s >= lo && s <= hi) return picked;
    }
  };

  const SMALL = ['a', 'b', 'cc', 'dd', 'eee', 'ffff'];
  const small = wordLengths(SMALL, 3);
  const [K, LO, HI] = [3, 5, 7];
  const TOTAL = between(small, K, LO, HI);

  /** Chi-square of 100,000 draws over every fitting sequence, each with probability 1 / N. */
  function jointTest(sampler: Sampler): number {
    const cells = new Map<string, number>();
    for (let a = 0; a < SMALL.length; a++)
      for (let b = 0; b < SMALL.length; b++)
        for (let c = 0; c < SMALL.length; c++) {
          const s = lettersOf(SMALL[a]) + lettersOf(SMALL[b]) + lettersOf(SMALL[c]);
          if (s >= LO && s <= HI) cells.set(`${a},${b},${c}`, 0);
        }
    assert.equal(BigInt(cells.size), TOTAL);
    let outside = 0;
    for (let i = 0; i < 100_000; i++) {
      const key = sampler(small, K, LO, HI, TOTAL).join(',');
      const seen = cells.get(key);
      if (seen === undefined) outside++;
      else cells.set(key, seen + 1);
    }
    // A sequence that does not fit is a cell of probability 0: any count there fails the test.
    const counts = [...cells.values(), outside];
    return chiSquareTest(counts, [...cells.values()].map(() => 1 / cells.size).concat(0)).p;
  }

  it(`small list: the ${String(TOTAL)} fitting sequences are equally likely (joint chi-square, 100,000 draws)`, () => {
    assert.ok(report(`within a length, small list joint (${String(TOTAL)} cells)`, jointTest(exact)) > ALPHA);
  });
  it('small list: uniform by rejection also passes (the test does not reject a correct sampler)', () => {
    assert.ok(report('within a length, small list joint, rejection sampler', jointTest(rejection)) > ALPHA);
  });
  it('teeth, small list: per-word length-biased choice and truncation are rejected', () => {
    assert.ok(report('mutant length-biased, small list joint', jointTest(lengthBiased)) < ALPHA);
    assert.ok(report('mutant truncation, small list joint', jointTest(truncated)) < ALPHA);
  });

  /** The real path: 4 EFF words in at most 20 characters (17 letters). */
  const real = passphrasePlan({
    wordCount: 4,
    separator: 'hyphen',
    capitalize: false,
    addNumber: false,
    maxLength: 20,
  });
  const range = real.letters!;
  const SAMPLES = 40_000;
  // The mutants are far off: at 2,000 draws each gave p < 1e-300 (printed as 0) in 3 runs of 3,
  // against alpha = 1e-6, and the statistic grows with the draws; 5,000 keeps that margin at an
  // eighth of the CPU of 40,000 (the truncation mutant redraws most of its sequences).
  const TEETH_SAMPLES = 5_000;

  /** Word lengths per position and the total, of passphrases from `draw`. */
  function lengthsOf(
    draw: () => number[],
    samples: number,
  ): { positions: Map<number, number>[]; totals: Map<number, number> } {
    const positions = Array.from({ length: 4 }, () => new Map<number, number>());
    const totals = new Map<number, number>();
    const letters = new Map(range.table.groups.flatMap((g) => g.words.map((w) => [w, g.length] as const)));
    for (let i = 0; i < samples; i++) {
      const seq = draw();
      let total = 0;
      seq.forEach((w, k) => {
        const l = letters.get(w) ?? -1;
        total += l;
        positions[k].set(l, (positions[k].get(l) ?? 0) + 1);
      });
      totals.set(total, (totals.get(total) ?? 0) + 1);
    }
    return { positions, totals };
  }

  /** Exact: P(the word at any one position has l letters) = c(l) x between(3, lo - l, hi - l) / N
   * (the count is the same for every position); P(s letters in all) = W(4, s) / N. */
  function realTest(draw: () => number[], samples = SAMPLES): number {
    const { table, lo, hi, sequences } = range;
    const ratio = (a: bigint) => Number((a * 10n ** 15n) / sequences) / 1e15;
    const lengths = table.groups.map((g) => g.length);
    const positionP = table.groups.map((g) =>
      ratio(BigInt(g.words.length) * between(table, 3, lo - g.length, hi - g.length)),
    );
    const observed = lengthsOf(draw, samples);
    const ps = observed.positions.map(
      (counts) =>
        chiSquareTest(
          lengths.map((l) => counts.get(l) ?? 0),
          positionP,
        ).p,
    );
    const sums = Array.from({ length: hi + 1 }, (_, s) => s);
    ps.push(
      chiSquareTest(
        sums.map((s) => observed.totals.get(s) ?? 0),
        sums.map((s) => ratio(between(table, 4, s, s))),
      ).p,
    );
    // Five statistics: Bonferroni, so the test's alpha stays 1e-6.
    return Math.min(1, Math.min(...ps) * ps.length);
  }

  it('eff-large, 4 words in at most 20 characters, through the generator: word lengths per position and the total length match the exact counts', () => {
    const index = new Map(WORDLIST.map((w, i) => [w, i]));
    const queue: number[][] = [];
    const draw = () => {
      if (queue.length === 0)
        for (const v of generatePassphrases(real, defaultRandom, 20))
          queue.push(v.split('-').map((w) => index.get(w)!));
      return queue.pop()!;
    };
    assert.ok(report('within a length, eff-large 4 words <= 20 characters', realTest(draw)) > ALPHA);
  });
  it('teeth, eff-large: per-word length-biased choice and truncation are rejected', () => {
    const { table, lo, hi, sequences } = range;
    assert.ok(
      report(
        'mutant length-biased, eff-large',
        realTest(() => lengthBiased(table, 4, lo, hi, sequences), TEETH_SAMPLES),
      ) < ALPHA,
    );
    assert.ok(
      report(
        'mutant truncation, eff-large',
        realTest(() => truncated(table, 4, lo, hi, sequences), TEETH_SAMPLES),
      ) < ALPHA,
    );
  });
});
