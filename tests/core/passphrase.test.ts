import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generate } from '../../lib/core/generate.ts';
import { SEPARATORS, WORDLIST } from '../../lib/core/passphrase.ts';
import { createRandom } from '../../lib/core/random.ts';
import { scriptedFill, seededRandom } from '../helpers/seeded.ts';

function values(input: unknown, random = seededRandom(42)): string[] {
  const r = generate(input, random);
  assert.equal(r.status, 200);
  return r.status === 200 ? r.body.results.map((x) => x.value) : [];
}

describe('passphrases', () => {
  it('gives the same output for the same seed (vectors, re-pinned for 31-bit draws)', () => {
    assert.deepEqual(values({ mode: 'passphrase' }), ['protozoan-casino-vacate-wing']);
    assert.deepEqual(values({ mode: 'passphrase', count: 2, options: { wordCount: 6, separator: 'space', capitalize: true, addNumber: true } }), [
      'Protozoan Casino Vacate Wing Crawfish Anger 47',
      'Bundle Serpent Brush Eclair Reawake Mobster 37',
    ]);
  });

  it('draws each word from the low 31 bits of a word, below 2^31 - 2^31 mod 7772', () => {
    const limit = 2 ** 31 - (2 ** 31 % 7772);
    const random = createRandom(scriptedFill([limit, 2 ** 31 + 3, limit - 1, 2 ** 31 - 1, 0, 7772 + 5]), 6);
    assert.deepEqual(values({ mode: 'passphrase' }, random), [`${WORDLIST[3]}-${WORDLIST[7771]}-${WORDLIST[0]}-${WORDLIST[5]}`]);
  });

  it('gives a batch the draws of one passphrase after another, with or without the number', () => {
    for (const options of [{ wordCount: 5 }, { wordCount: 4, addNumber: true, capitalize: true }]) {
      const single = seededRandom(9);
      const expected = Array.from({ length: 20 }, () => values({ mode: 'passphrase', options }, single)[0]);
      assert.deepEqual(values({ mode: 'passphrase', count: 20, options }, seededRandom(9)), expected);
    }
  });

  it('maps draws to list indices directly: words 0, 7771, 1, 2 and number 7', () => {
    const random = createRandom(scriptedFill([0, 7771, 1, 2, 7]), 5);
    assert.deepEqual(values({ mode: 'passphrase', options: { addNumber: true } }, random), [
      `${WORDLIST[0]}-${WORDLIST[7771]}-${WORDLIST[1]}-${WORDLIST[2]}-07`,
    ]);
    assert.equal(WORDLIST[0], 'abacus');
  });

  for (const [name, sep] of Object.entries(SEPARATORS)) {
    it(`joins ${name} with ${JSON.stringify(sep)} and keeps words lowercase without capitalize`, () => {
      for (const v of values({ mode: 'passphrase', count: 20, options: { separator: name, wordCount: 8 } })) {
        const words = v.split(sep);
        assert.equal(words.length, 8);
        for (const w of words) assert.ok(WORDLIST.includes(w), w);
      }
    });
  }

  it('capitalises the first letter of every word and appends separator + two digits', () => {
    for (const v of values({ mode: 'passphrase', count: 20, options: { capitalize: true, addNumber: true, separator: 'dot' } })) {
      const parts = v.split('.');
      assert.equal(parts.length, 5);
      assert.match(parts[4], /^\d\d$/);
      for (const w of parts.slice(0, 4)) {
        assert.match(w, /^[A-Z][a-z]+$/);
        assert.ok(WORDLIST.includes(w.toLowerCase()));
      }
    }
  });

  it('reports wordlist metadata and exact entropy', () => {
    const r = generate({ mode: 'passphrase', options: { wordCount: 8, addNumber: true, separator: 'underscore' } });
    assert.equal(r.status, 200);
    if (r.status !== 200) return;
    assert.deepEqual(r.body.metadata, {
      entropyMode: 'wordlist',
      wordCount: 8,
      wordlistSize: 7772,
      wordlist: 'EFF large wordlist',
      separator: 'underscore',
      capitalize: false,
      addNumber: true,
    });
    assert.deepEqual(r.body.entropy, { bits: 110.04, label: 'Excellent', level: 4 });
    const d = generate({ mode: 'passphrase' });
    assert.deepEqual(d.status === 200 && d.body.entropy, { bits: 51.7, label: 'Fair', level: 1 });
  });
});
