/**
 * Passphrases within a length (lib/core/passphrase-length.ts, lib/core/passphrase.ts):
 * - the counts, checked by enumerating every sequence of small lists against every range;
 * - the unranking, checked as a bijection: every rank of [0, N) gives a different fitting
 *   sequence, and every fitting sequence comes from one rank;
 * - on the real lists, counts checked against closed forms (only the shortest words, every
 *   word, complements) and the entropy they give;
 * - the 400s: minLength above maxLength, no passphrase short or long enough, a gap in the
 *   lengths, each naming its field and the lengths the options make.
 * The distribution of real draws is tested in tests/core/statistics.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { between, drawWithin, lettersOf, wordLengths } from '../../lib/core/passphrase-length.ts';
import { letterRange, planPassphrase, isPassphrasePlan, type PassphrasePlan } from '../../lib/core/passphrase.ts';
import { generate } from '../../lib/request/generate.ts';
import { log2BigInt, passphraseBits } from '../../lib/core/entropy.ts';
import { WORD_LISTS } from '../../lib/core/wordlists.ts';
import type { RandomSource } from '../../lib/core/random.ts';
import type { PassphraseOptions } from '../../lib/request/validate.ts';
import { seededRandom } from '../helpers/seeded.ts';

/** Every sequence of k indices below n, in lexicographic order. */
function* sequences(n: number, k: number): Generator<number[]> {
  if (k === 0) {
    yield [];
    return;
  }
  for (const rest of sequences(n, k - 1)) for (let i = 0; i < n; i++) yield [...rest, i];
}

const lettersIn = (words: readonly string[], seq: readonly number[]) =>
  seq.reduce((sum, i) => sum + lettersOf(words[i]), 0);

/** A source whose one draw (below N <= 2^32) is the given rank: drawWithin then unranks it. */
const rankSource = (rank: number): RandomSource => ({
  below(n) {
    assert.ok(rank < n, `rank ${rank} below ${n}`);
    return rank;
  },
});

/** Small lists: lengths with repeats, a list with a gap in its lengths, a list of one length. */
const SMALL: Record<string, string[]> = {
  mixed: ['a', 'b', 'cc', 'dd', 'ee', 'fff', 'gggg'],
  gap: ['ab', 'cd', 'efgh', 'ij'],
  uniform: ['x', 'y', 'z'],
  accents: ['é', 'ña', 'ü', 'çava', '한국'],
};

describe('counting word sequences by their letters, against enumeration', () => {
  for (const [name, words] of Object.entries(SMALL)) {
    it(`${name}: between(k, lo, hi) is the number of k-word sequences with lo to hi letters, for k 0 to 4 and every range`, () => {
      const table = wordLengths(words, 4);
      let checked = 0;
      for (let k = 0; k <= 4; k++) {
        const totals = [...sequences(words.length, k)].map((seq) => lettersIn(words, seq));
        for (let lo = -2; lo <= 4 * table.longest + 2; lo++) {
          for (let hi = lo - 1; hi <= 4 * table.longest + 2; hi++) {
            const expected = totals.filter((s) => s >= lo && s <= hi).length;
            assert.equal(between(table, k, lo, hi), BigInt(expected), `k ${k}, ${lo} to ${hi}`);
            checked++;
          }
        }
        assert.equal(between(table, k, -Infinity, Infinity), BigInt(words.length) ** BigInt(k));
      }
      process.stdout.write(`passphrase-length: ${name}, ${checked} counts equal to enumeration\n`);
    });
  }

  it('the lengths are code points: a composed accent is one letter, Hangul syllables one each', () => {
    assert.deepEqual(SMALL.accents.map(lettersOf), [1, 2, 1, 4, 2]);
    assert.equal(lettersOf('e\u0301'), 2, 'a decomposed accent is two: the lists are composed to NFC first');
  });
});

describe('the unranking is a bijection between [0, N) and the fitting sequences', () => {
  for (const [name, words] of Object.entries(SMALL)) {
    it(`${name}: every rank gives a different fitting sequence, and all of them come out`, () => {
      const table = wordLengths(words, 4);
      let ranks = 0;
      for (let k = 1; k <= 4; k++) {
        for (const [lo, hi] of [
          [0, Infinity],
          [k, k],
          [k + 1, 2 * k + 1],
          [2 * k, 3 * k],
          [3 * k, Infinity],
        ]) {
          const total = between(table, k, lo, hi);
          const fitting = [...sequences(words.length, k)]
            .filter((seq) => {
              const s = lettersIn(words, seq);
              return s >= lo && s <= hi;
            })
            .map((seq) => seq.join(','));
          assert.equal(total, BigInt(fitting.length));
          const drawn = new Set<string>();
          for (let r = 0; r < fitting.length; r++) {
            drawn.add(drawWithin(table, k, lo, hi, total, rankSource(r)).join(','));
            ranks++;
          }
          assert.equal(drawn.size, fitting.length, `k ${k}, ${lo} to ${hi}: two ranks gave one sequence`);
          assert.deepEqual([...drawn].sort(), [...fitting].sort(), `k ${k}, ${lo} to ${hi}`);
        }
      }
      process.stdout.write(`passphrase-length: ${name}, ${ranks} ranks unranked, each to its own sequence\n`);
    });
  }

  it("a total larger than the table's count is refused, never a passphrase with a word missing", () => {
    const table = wordLengths(SMALL.mixed, 4);
    const total = between(table, 3, 4, 6);
    assert.throws(() => drawWithin(table, 3, 4, 6, total + 1n, rankSource(Number(total))), RangeError);
    assert.equal(drawWithin(table, 3, 4, 6, total, rankSource(Number(total) - 1)).length, 3);
  });
});

/** The plan of these passphrase options (defaults filled), or its 400. */
const planOrRefusal = (given: Partial<PassphraseOptions>) =>
  planPassphrase({
    wordCount: 4,
    separator: 'hyphen',
    capitalize: false,
    addNumber: false,
    wordList: 'eff-large',
    ...given,
  });

/** The plan of these passphrase options (defaults filled), which must be accepted. */
function plan(given: Partial<PassphraseOptions>): PassphrasePlan {
  const p = planOrRefusal(given);
  if (!isPassphrasePlan(p)) assert.fail(JSON.stringify(p));
  return p;
}

describe('bounded plans on the real lists: exact counts and bits', () => {
  const eff = WORD_LISTS['eff-large'];
  const byLetters = (list: typeof eff, l: number) => BigInt(list.words.filter((w) => lettersOf(w) === l).length);

  it('eff-large, 4 words, at most 15 characters: only 3-letter words fit, (3-letter words)^4 of them', () => {
    const p = plan({ maxLength: 15 });
    assert.equal(p.letters?.sequences, byLetters(eff, 3) ** 4n);
    assert.equal(p.bits, log2BigInt(byLetters(eff, 3) ** 4n));
  });

  it('exactly the longest and exactly the shortest: (longest words)^k and (shortest words)^k, for every list', () => {
    for (const list of Object.values(WORD_LISTS)) {
      const lengths = list.words.map(lettersOf);
      const [short, long] = [Math.min(...lengths), Math.max(...lengths)];
      for (const wordCount of [4, 8]) {
        for (const l of [short, long]) {
          const total = wordCount * l + wordCount - 1 + 3;
          const p = plan({ wordList: list.id, wordCount, addNumber: true, minLength: total, maxLength: total });
          assert.equal(p.letters?.sequences, byLetters(list, l) ** BigInt(wordCount), `${list.id} ${wordCount} ${l}`);
        }
      }
    }
  });

  it('a bound every passphrase meets counts them all: the bits without a bound, for every list', () => {
    for (const list of Object.values(WORD_LISTS)) {
      const p = plan({ wordList: list.id, wordCount: 8, maxLength: 128, separator: 'digit' });
      assert.equal(p.letters?.sequences, BigInt(list.words.length) ** 8n);
      const free = plan({ wordList: list.id, wordCount: 8, separator: 'digit' });
      assert.ok(Math.abs(p.bits - free.bits) < 1e-9, `${list.id}: ${p.bits} and ${free.bits}`);
      assert.deepEqual(p.entropy, free.entropy);
    }
  });

  it('at most m and at least m + 1 split every passphrase in two (eff-large and bip39-french, 4 to 8 words)', () => {
    /** The fitting word sequences, or 0 when the bound leaves none (a 400 naming the bound). */
    const fitting = (given: Partial<PassphraseOptions>): bigint => {
      const p = planOrRefusal(given);
      if (isPassphrasePlan(p)) return p.letters?.sequences ?? -1n;
      assert.match(p.field ?? '', /^options\.(min|max)Length$/);
      return 0n;
    };
    for (const wordList of ['eff-large', 'bip39-french'] as const) {
      for (let wordCount = 4; wordCount <= 8; wordCount++) {
        const all = BigInt(WORD_LISTS[wordList].words.length) ** BigInt(wordCount);
        for (let m = wordCount * 3 + wordCount - 2; m <= wordCount * 10 + wordCount - 1; m++) {
          const below = fitting({ wordList, wordCount, maxLength: m });
          const above = fitting({ wordList, wordCount, minLength: m + 1 });
          assert.equal(below + above, all, `${wordList} ${wordCount} ${m}`);
        }
      }
    }
  });

  it('the bits are log2 of words x gaps x number, all exact: a drawn separator and a number on top of a bound', () => {
    const words = plan({ maxLength: 24 }).letters?.sequences ?? 0n;
    // With addNumber the number and its gap take 3 more characters: the same words fit in 27.
    const p = plan({ maxLength: 27, separator: 'symbol', addNumber: true });
    assert.equal(p.letters?.sequences, words);
    assert.equal(p.bits, log2BigInt(words * 23n ** 4n * 100n));
    assert.ok(p.bits < passphraseBits(7772, 4, true, 23));
  });

  it('the metadata echoes the bounds given, and only those', () => {
    assert.equal(plan({ maxLength: 20 }).metadata.maxLength, 20);
    assert.equal('minLength' in plan({ maxLength: 20 }).metadata, false);
    const both = plan({ minLength: 18, maxLength: 20 }).metadata;
    assert.deepEqual([both.minLength, both.maxLength], [18, 20]);
    assert.equal('maxLength' in plan({}).metadata, false);
  });
});

describe('bounded passphrases as generated', () => {
  it('have a length within the bounds, in code points of the NFC output, for every list (seeded, 200 each)', () => {
    for (const list of Object.values(WORD_LISTS)) {
      for (const options of [
        { maxLength: 24, separator: 'space' },
        { minLength: 30, maxLength: 34, addNumber: true, separator: 'symbol' },
        { minLength: 40, wordCount: 6 },
      ]) {
        const given = { wordList: list.id, ...options };
        const r = generate({ mode: 'passphrase', count: 20, options: given }, seededRandom(7));
        if (r.status !== 200) {
          // Some lists cannot make some of these: then the 400 names a bound.
          assert.match(r.body.field ?? '', /^options\.(min|max)Length$/, JSON.stringify(r.body));
          continue;
        }
        for (const { value } of r.body.results) {
          assert.equal(value, value.normalize('NFC'));
          const n = [...value].length;
          assert.ok(n >= (given.minLength ?? 0) && n <= (given.maxLength ?? 128), `${list.id}: ${value} (${n})`);
        }
      }
    }
  });

  it('draw the words first (one rank), then the gaps, then the number: seeded vectors', () => {
    const values = (input: unknown) => {
      const r = generate(input, seededRandom(42));
      assert.equal(r.status, 200);
      return r.status === 200 ? r.body.results.map((x) => x.value) : [];
    };
    assert.deepEqual(values({ mode: 'passphrase', count: 2, options: { maxLength: 20 } }), [
      'alarm-angler-lid-mug',
      'bubble-wiry-zit-iron',
    ]);
    assert.deepEqual(
      values({ mode: 'passphrase', options: { wordList: 'bip39-japanese', separator: 'space', maxLength: 16 } }),
      ['むせん\u3000でんち\u3000とそう\u3000つめたい'],
    );
  });
});

describe('passphrases that cannot fit: a 400 naming the bound, with the lengths the options make', () => {
  const refused = (options: object) => generate({ mode: 'passphrase', options }).body;

  it('minLength above maxLength names minLength', () => {
    assert.deepEqual(refused({ minLength: 21, maxLength: 20 }), {
      error: 'options.minLength 21 is above options.maxLength 20',
      status: 400,
      field: 'options.minLength',
    });
  });

  it('a maxLength below the shortest passphrase names maxLength and says which lengths the options make', () => {
    assert.deepEqual(refused({ maxLength: 14 }), {
      error: 'options.maxLength 14 is below the shortest passphrase: these options make 15 to 39 characters',
      status: 400,
      field: 'options.maxLength',
    });
    assert.deepEqual(refused({ wordList: 'bip39-chinese-traditional', maxLength: 6 }), {
      error: 'options.maxLength 6 is below the shortest passphrase: these options make 7 characters',
      status: 400,
      field: 'options.maxLength',
    });
    // The shortest it names fits.
    assert.equal(generate({ mode: 'passphrase', options: { maxLength: 15 } }).status, 200);
  });

  it('a minLength above the longest passphrase names minLength; the longest it names fits', () => {
    assert.deepEqual(refused({ wordCount: 8, addNumber: true, minLength: 83 }), {
      error: 'options.minLength 83 is above the longest passphrase: these options make 34 to 82 characters',
      status: 400,
      field: 'options.minLength',
    });
    assert.equal(
      generate({ mode: 'passphrase', options: { wordCount: 8, addNumber: true, minLength: 82 } }).status,
      200,
    );
  });

  it('a range inside the lengths made but between two of them names minLength (a list with a gap in its word lengths)', () => {
    const table = wordLengths(SMALL.gap, 8);
    const options = {
      wordCount: 1,
      separator: 'hyphen',
      capitalize: false,
      addNumber: false,
      wordList: 'eff-large',
    } as const;
    assert.deepEqual(letterRange({ ...options, minLength: 3, maxLength: 3 }, table), {
      error:
        'options.minLength: no passphrase of these options has 3 characters; these options make 2 to 4 characters, not every length between',
      status: 400,
      field: 'options.minLength',
    });
    assert.equal(between(table, 1, 3, 3), 0n);
    assert.equal(between(table, 2, 4, 8), 16n, 'two words: 9 of 4 letters, 6 of 6, 1 of 8');
  });

  it('the refusals come before the entropy floor, which applies to the bounded bits', () => {
    const short = generate({ mode: 'passphrase', minBits: 100, options: { maxLength: 12 } });
    assert.equal(short.status === 400 && short.body.field, 'options.maxLength');
    const r = generate({ mode: 'passphrase', minBits: 40, options: { maxLength: 16 } });
    assert.equal(r.status, 400);
    if (r.status === 400)
      assert.match(r.body.error, /^minBits: these options give 30\.\d\d bits, below the requested minimum of 40 bits$/);
  });
});
