import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generate } from '../../lib/request/generate.ts';
import { generatePassphrases, isPassphrasePlan, planPassphrase, WORDLIST } from '../../lib/core/passphrase.ts';
import { RANDOM_SEPARATORS, SEPARATORS } from '../../lib/core/charsets.ts';
import { WORD_LISTS, wordsOf } from '../../lib/core/wordlists.ts';
import { log2BigInt } from '../../lib/core/entropy.ts';
import { createRandom } from '../../lib/core/random.ts';
import { scriptedFill, seededRandom } from '../helpers/seeded.ts';

function values(input: unknown, random = seededRandom(42)): string[] {
  const r = generate(input, random);
  assert.equal(r.status, 200);
  return r.status === 200 ? r.body.results.map((x) => x.value) : [];
}

describe('passphrases', () => {
  it('gives the same output for the same seed (vectors, re-pinned for low-bit draws)', () => {
    assert.deepEqual(values({ mode: 'passphrase' }), ['cache-graph-pang-revisable']);
    assert.deepEqual(
      values({
        mode: 'passphrase',
        count: 2,
        options: { wordCount: 6, separator: 'space', capitalize: true, addNumber: true },
      }),
      ['Cache Graph Pang Revisable Strive Bulginess 87', 'Uneasy Paving Sixtyfold Clobber Facecloth Flagman 31'],
    );
  });

  it('draws each word from the low 13 bits of a word (8,192 >= 7,772), redrawing 7,772 and above', () => {
    const random = createRandom(scriptedFill([7772, 2 ** 31 + 3, 8191, 7771, 2 ** 13 + 0, 2 ** 20 + 5]), 6);
    assert.deepEqual(values({ mode: 'passphrase' }, random), [
      `${WORDLIST[3]}-${WORDLIST[7771]}-${WORDLIST[0]}-${WORDLIST[5]}`,
    ]);
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
    for (const v of values({
      mode: 'passphrase',
      count: 20,
      options: { capitalize: true, addNumber: true, separator: 'dot' },
    })) {
      const parts = v.split('.');
      assert.equal(parts.length, 5);
      assert.match(parts[4], /^\d\d$/);
      for (const w of parts.slice(0, 4)) {
        assert.match(w, /^[A-Z][a-z]+$/);
        assert.ok(WORDLIST.includes(w.toLowerCase()));
      }
    }
  });

  it('draws a separator per gap with digit and symbol: seeded vectors (the words are those of the hyphen vector: words first, then gaps, then the number)', () => {
    assert.deepEqual(values({ mode: 'passphrase', count: 2, options: { separator: 'digit' } }), [
      'cache2graph7pang2revisable',
      'sixtyfold4clobber1facecloth3flagman',
    ]);
    assert.deepEqual(
      values({
        mode: 'passphrase',
        count: 2,
        options: { separator: 'symbol', wordCount: 6, capitalize: true, addNumber: true },
      }),
      ['Cache[Graph#Pang-Revisable.Strive%Bulginess+31', 'Acts:Synopses;Visiting,Imagines*Expediter?Backing%70'],
    );
  });

  it('maps the draws directly: words, then one draw below |set| per gap, then the number', () => {
    // words 0, 7771, 1, 2; gaps 9, 0, 3 and 5 (the one before the number); number 7.
    const digits = createRandom(scriptedFill([0, 7771, 1, 2, 9, 0, 3, 5, 7]), 9);
    assert.deepEqual(values({ mode: 'passphrase', options: { separator: 'digit', addNumber: true } }, digits), [
      `${WORDLIST[0]}9${WORDLIST[7771]}0${WORDLIST[1]}3${WORDLIST[2]}507`,
    ]);
    const symbols = createRandom(scriptedFill([5, 6, 7, 8, 22, 0, 11]), 7);
    assert.deepEqual(values({ mode: 'passphrase', options: { separator: 'symbol' } }, symbols), [
      `${WORDLIST[5]}?${WORDLIST[6]}!${WORDLIST[7]}_${WORDLIST[8]}`,
    ]);
  });

  for (const [name, set] of Object.entries(RANDOM_SEPARATORS)) {
    it(`${name}: every gap is one character of ${JSON.stringify(set)}, the words and the number read back; capitalize and addNumber keep working`, () => {
      for (const options of [{ wordCount: 8 }, { wordCount: 5, capitalize: true, addNumber: true }]) {
        const vs = values({ mode: 'passphrase', count: 20, options: { separator: name, ...options } }, seededRandom(3));
        for (const v of vs) {
          const m = /^([A-Za-z]+)((?:[^A-Za-z][A-Za-z]+)*)(?:([^A-Za-z])(\d\d))?$/.exec(v);
          assert.ok(m, v);
          const words = v.slice(0, options.addNumber ? -3 : undefined).split(/[^A-Za-z]/);
          assert.equal(words.length, options.wordCount, v);
          for (const w of words) {
            assert.ok(WORDLIST.includes(w.toLowerCase()), w);
            if (options.capitalize) assert.match(w, /^[A-Z][a-z]+$/);
            else assert.match(w, /^[a-z]+$/);
          }
          const gaps = [...v.slice(0, options.addNumber ? -2 : undefined)].filter((c) => !/[A-Za-z]/.test(c));
          assert.equal(gaps.length, options.wordCount - 1 + (options.addNumber ? 1 : 0), v);
          for (const g of gaps) assert.ok(set.includes(g), `${g} in ${v}`);
        }
      }
    });
  }

  it('digit and symbol entropy is exact: log2(7772^w x |set|^gaps x 100^number), gaps = w - 1, + 1 with the number', () => {
    for (const [name, set] of Object.entries(RANDOM_SEPARATORS)) {
      for (const wordCount of [4, 8]) {
        for (const addNumber of [false, true]) {
          const r = generate({ mode: 'passphrase', options: { separator: name, wordCount, addNumber } });
          assert.equal(r.status, 200);
          if (r.status !== 200) return;
          const gaps = wordCount - 1 + (addNumber ? 1 : 0);
          const count = 7772n ** BigInt(wordCount) * BigInt(set.length) ** BigInt(gaps) * (addNumber ? 100n : 1n);
          assert.equal(
            r.body.entropy.bits,
            Math.round(log2BigInt(count) * 100) / 100,
            `${name} ${wordCount} ${addNumber}`,
          );
          assert.equal(r.body.metadata.entropyMode === 'wordlist' && r.body.metadata.separator, name);
        }
      }
    }
    const fourDigits = generate({ mode: 'passphrase', options: { separator: 'digit' } });
    assert.deepEqual(fourDigits.status === 200 && fourDigits.body.entropy, { bits: 61.66, label: 'Fair', level: 1 });
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
      wordlistId: 'eff-large',
      wordlistSha256: 'addd35536511597a02fa0a9ff1e5284677b8883b83e986e43f15a3db996b903e',
      separator: 'underscore',
      capitalize: false,
      addNumber: true,
    });
    assert.deepEqual(r.body.entropy, { bits: 110.04, label: 'Excellent', level: 4 });
    const d = generate({ mode: 'passphrase' });
    assert.deepEqual(d.status === 200 && d.body.entropy, { bits: 51.7, label: 'Fair', level: 1 });
  });
});

describe('passphrases from each of the eleven lists', () => {
  const LISTS = Object.values(WORD_LISTS);

  for (const list of LISTS) {
    it(`${list.id}: every word is reachable, each draw below ${list.words.length} mapping to its word${list.letterCase ? ', capitalised or not' : ''}`, () => {
      for (const capitalize of list.letterCase ? [false, true] : [false]) {
        const plan = planPassphrase({
          wordCount: 4,
          separator: 'hyphen',
          capitalize,
          addNumber: false,
          wordList: list.id,
        });
        assert.ok(isPassphrasePlan(plan));
        // One scripted word per draw: 0, 1, ..., size - 1, in order, 4 to a passphrase.
        const size = list.words.length;
        const draws = Array.from({ length: size }, (_, i) => i);
        const values = generatePassphrases(plan, createRandom(scriptedFill(draws), size), size / 4);
        const seen = values.flatMap((v) => v.split('-'));
        assert.deepEqual(seen, [...wordsOf(list, capitalize)]);
      }
    });
  }

  for (const list of LISTS) {
    it(`${list.id}: metadata names the list and its SHA-256; bits = wordCount x log2(${list.words.length}); output is NFC and reads back into the list's words`, () => {
      const r = generate({
        mode: 'passphrase',
        count: 20,
        options: { wordList: list.id, separator: 'dot', addNumber: true },
      });
      assert.equal(r.status, 200);
      if (r.status !== 200) return;
      const m = r.body.metadata;
      assert.ok(m.entropyMode === 'wordlist');
      assert.deepEqual([m.wordlistId, m.wordlistSha256, m.wordlistSize], [list.id, list.sha256, list.words.length]);
      assert.equal(r.body.entropy.bits, Math.round((4 * Math.log2(list.words.length) + Math.log2(100)) * 100) / 100);
      const words = new Set(list.words);
      for (const { value } of r.body.results) {
        assert.equal(value, value.normalize('NFC'));
        const parts = value.split('.');
        assert.equal(parts.length, 5);
        assert.match(parts[4], /^\d\d$/);
        for (const w of parts.slice(0, 4)) assert.ok(words.has(w), `${w} of ${value}`);
      }
    });
  }

  it('BIP-39 words carry exactly 11 bits: 4 words = 44.00 bits, 8 words with symbols and a number = 146.71 bits', () => {
    const four = generate({ mode: 'passphrase', options: { wordList: 'bip39-english' } });
    assert.deepEqual(four.status === 200 && four.body.entropy, { bits: 44, label: 'Weak', level: 0 });
    const eight = generate({
      mode: 'passphrase',
      options: { wordList: 'bip39-spanish', wordCount: 8, separator: 'symbol', addNumber: true },
    });
    const count = 2048n ** 8n * 23n ** 8n * 100n;
    assert.equal(eight.status === 200 && eight.body.entropy.bits, Math.round(log2BigInt(count) * 100) / 100);
  });

  it('capitalize on a list without letter case is a 400 naming options.capitalize; on the other lists it upper-cases the first letter', () => {
    for (const list of LISTS.filter((l) => !l.letterCase)) {
      assert.deepEqual(generate({ mode: 'passphrase', options: { wordList: list.id, capitalize: true } }).body, {
        error: `options.capitalize: the words of ${list.id} have no letter case`,
        status: 400,
        field: 'options.capitalize',
      });
      assert.equal(generate({ mode: 'passphrase', options: { wordList: list.id, capitalize: false } }).status, 200);
    }
    const r = generate(
      { mode: 'passphrase', options: { wordList: 'bip39-french', capitalize: true } },
      seededRandom(5),
    );
    assert.equal(r.status, 200);
    for (const w of r.status === 200 ? r.body.value.split('-') : []) assert.match(w, /^\p{Lu}\p{Ll}+$/u);
  });

  it('separator space joins Japanese words with U+3000 and every other list with the ASCII space', () => {
    const ja = generate(
      { mode: 'passphrase', options: { wordList: 'bip39-japanese', separator: 'space' } },
      seededRandom(1),
    );
    assert.equal(ja.status === 200 && ja.body.value.split('\u3000').length, 4);
    assert.ok(ja.status === 200 && !ja.body.value.includes(' '));
    const zh = generate({ mode: 'passphrase', options: { wordList: 'bip39-chinese-simplified', separator: 'space' } });
    assert.equal(zh.status === 200 && zh.body.value.split(' ').length, 4);
    assert.equal(zh.status === 200 && [...zh.body.value].length, 7);
  });

  it('gives the same output for the same seed on every list (vectors)', () => {
    const first = (wordList: string) => {
      const r = generate({ mode: 'passphrase', options: { wordList } }, seededRandom(42));
      return r.status === 200 ? r.body.value : '';
    };
    assert.deepEqual(
      LISTS.map((l) => first(l.id)),
      [
        'cache-graph-pang-revisable',
        'genius-injury-coach-pioneer',
        'さんま-せかいかん-かまう-といれ',
        '살림-숙제-단점-이념',
        'gallo-invierno-catorce-orden',
        '普-威-今-哲',
        '普-威-今-哲',
        'exposer-goulot-central-niveau',
        'grado-logica-cirrosi-pomodoro',
        'lokalita-napevno-fotbal-povoz',
        'excesso-gestor-cafezal-nacional',
      ],
    );
  });
});
