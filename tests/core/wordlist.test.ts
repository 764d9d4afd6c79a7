/**
 * The eleven word lists of `options.wordList`: each vendored file is the one pinned (its
 * SHA-256, and for BIP-39 the SHA256SUMS shipped with the lists), the generated module holds
 * its words composed to NFC, and the properties the exact entropy rests on hold for every list
 * (lib/core/wordlists.ts, lib/core/entropy.ts passphraseBits):
 * - the words drawn from are distinct after NFC, and after capitalize;
 * - no word holds a character a separator can put in a gap, so a passphrase reads back one way;
 * - no word composes with a gap character on either side, so joining NFC words with separators
 *   gives an NFC string and the reading-back holds of the string sent;
 * - every word is one UTF-16 unit per code point, so a length in code points is also what an
 *   HTML maxlength counts;
 * - capitalize keeps each word's length, and a list without letter case is one where it would
 *   change nothing.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { VENDORED_WORDLISTS } from '../../lib/generated/wordlist.generated.ts';
import { DROPPED_WORDS, WORDLIST } from '../../lib/core/passphrase.ts';
import { capitalized, WORD_LISTS, wordsOf } from '../../lib/core/wordlists.ts';
import { GAP_CHARACTERS } from '../../lib/core/charsets.ts';
import { requestSchema } from '../../lib/generated/schema.generated.ts';

const root = new URL('../../', import.meta.url);
const fileOf = (path: string) => readFileSync(new URL(path, root));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The pins, written here by hand from the sources (wordlist/README.md). */
const PINNED: Record<string, string> = {
  'eff-large': 'addd35536511597a02fa0a9ff1e5284677b8883b83e986e43f15a3db996b903e',
  'bip39-chinese-simplified': '5c5942792bd8340cb8b27cd592f1015edf56a8c5b26276ee18a482428e7c5726',
  'bip39-chinese-traditional': '417b26b3d8500a4ae3d59717d7011952db6fc2fb84b807f3f94ac734e89c1b5f',
  'bip39-czech': '7e80e161c3e93d9554c2efb78d4e3cebf8fc727e9c52e03b83b94406bdcc95fc',
  'bip39-english': '2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda',
  'bip39-french': 'ebc3959ab7801a1df6bac4fa7d970652f1df76b683cd2f4003c941c63d517e59',
  'bip39-italian': 'd392c49fdb700a24cd1fceb237c1f65dcc128f6b34a8aacb58b59384b5c648c2',
  'bip39-japanese': '2eed0aef492291e061633d7ad8117f1a2b03eb80a29d0e4e3117ac2528d05ffd',
  'bip39-korean': '9e95f86c167de88f450f0aaf89e87f6624a57f973c67b516e338e8e8b8897f60',
  'bip39-portuguese': '2685e9c194c82ae67e10ba59d9ea5345a23dc093e92276fc5361f6667d79cd3f',
  'bip39-spanish': '46846a5a0139d1e3cb77293e521c2865f7bcdb82c44e8d0a06a2cd0ecba48c0b',
};

const LISTS = Object.values(WORD_LISTS);
const CASELESS = ['bip39-japanese', 'bip39-korean', 'bip39-chinese-simplified', 'bip39-chinese-traditional'];

/** The words of a file as shipped: the EFF file's second column, a BIP-39 file's lines. */
function fileWords(path: string): string[] {
  const lines = fileOf(path).toString('utf8').trimEnd().split('\n');
  return path.endsWith('eff_large_wordlist.txt') ? lines.map((line) => line.split('\t')[1]) : lines;
}

describe('wordlist/: the vendored files', () => {
  it('are the eleven lists of the schema, in its order', () => {
    assert.deepEqual(
      LISTS.map((l) => l.id),
      requestSchema.$defs.PassphraseOptions.properties.wordList.enum,
    );
    assert.deepEqual(Object.keys(PINNED).sort(), LISTS.map((l) => l.id).sort());
  });

  for (const list of LISTS) {
    it(`${list.id}: ${list.file} has the pinned SHA-256, which the generated module and the metadata carry`, () => {
      const digest = sha256(fileOf(list.file));
      assert.equal(digest, PINNED[list.id]);
      assert.equal(VENDORED_WORDLISTS[list.id].sha256, digest);
      assert.equal(list.sha256, digest);
    });
  }

  it('the BIP-39 files match the SHA256SUMS shipped with them, line for line', () => {
    const sums = fileOf('wordlist/bip39/SHA256SUMS').toString('utf8').trimEnd().split('\n');
    assert.equal(sums.length, 10);
    for (const line of sums) {
      const [digest, name] = line.split('  ');
      assert.equal(sha256(fileOf(`wordlist/bip39/${name}`)), digest, name);
    }
  });

  it('the MIT licence text and the source commit ship with the BIP-39 lists', () => {
    assert.match(fileOf('wordlist/bip39/LICENSE').toString('utf8'), /^MIT License$/m);
    assert.match(
      fileOf('wordlist/README.md').toString('utf8'),
      /bitcoin\/bips at commit\s+`7fe0b034ec967b52a5a28276419117326df93263`/,
    );
  });

  for (const list of LISTS) {
    it(`${list.id}: the generated module holds the file's words in order, composed to NFC`, () => {
      const words = fileWords(list.file);
      assert.equal(words.length, list.sourceSize);
      assert.deepEqual(
        [...VENDORED_WORDLISTS[list.id].words],
        words.map((w) => w.normalize('NFC')),
      );
      assert.ok(Object.isFrozen(VENDORED_WORDLISTS[list.id].words));
    });
  }

  it('the BIP-39 files are stored NFKD, as BIP-39 normalises (so composing them is a real step)', () => {
    for (const list of LISTS.filter((l) => l.id !== 'eff-large')) {
      for (const w of fileWords(list.file)) assert.equal(w, w.normalize('NFKD'), list.id);
    }
    const korean = fileWords(WORD_LISTS['bip39-korean'].file);
    assert.ok(
      korean.every((w) => w !== w.normalize('NFC')),
      'every Korean word is stored as jamo',
    );
  });
});

describe('the words drawn from', () => {
  it('eff-large: 7,772 lowercase words, the 4 hyphenated ones left out', () => {
    assert.equal(WORDLIST.length, 7772);
    assert.deepEqual([...DROPPED_WORDS], ['drop-down', 'felt-tip', 't-shirt', 'yo-yo']);
    for (const w of WORDLIST) assert.match(w, /^[a-z]{3,9}$/);
    assert.equal(WORDLIST[0], 'abacus');
    assert.equal(WORDLIST[7771], 'zoom');
  });

  it('every BIP-39 list: all 2,048 words, none left out', () => {
    for (const list of LISTS.filter((l) => l.id !== 'eff-large')) {
      assert.equal(list.words.length, 2048, list.id);
      assert.deepEqual(list.excludedWords, [], list.id);
    }
  });

  for (const list of LISTS) {
    it(`${list.id}: distinct, no gap character, one UTF-16 unit per code point, nothing composing across a gap`, () => {
      assert.equal(new Set(list.words).size, list.words.length);
      for (const w of list.words) {
        assert.equal(w, w.normalize('NFC'));
        assert.ok(w.length > 0);
        assert.equal([...w].length, w.length, `${w} has a character outside the BMP`);
        for (const c of GAP_CHARACTERS) {
          assert.ok(!w.includes(c), `${w} holds ${JSON.stringify(c)}`);
          const joined = `${c}${w}${c}`;
          assert.equal(joined.normalize('NFC'), joined, `${JSON.stringify(c)} composes with ${w}`);
        }
      }
    });
  }

  it('the gap characters are the separators, U+3000, the digits and the symbols, each one code point', () => {
    assert.equal(GAP_CHARACTERS, '-_. \u30000123456789!@#$%^&*()-_=+[]{};:,.?');
    for (const c of GAP_CHARACTERS) assert.equal(c.normalize('NFC'), c);
  });

  for (const list of LISTS.filter((l) => l.letterCase)) {
    it(`${list.id}: capitalize keeps the words distinct, NFC and of the same length, and holds no gap character`, () => {
      const upper = wordsOf(list, true);
      assert.equal(new Set(upper).size, list.words.length);
      upper.forEach((u, i) => {
        const w = list.words[i];
        assert.equal(u, u.normalize('NFC'));
        assert.equal([...u].length, [...w].length);
        assert.notEqual(u, w, `${w} has no upper-case first letter`);
        assert.equal(u.slice(1), w.slice(1));
        for (const c of GAP_CHARACTERS) assert.equal(`${c}${u}${c}`.normalize('NFC'), `${c}${u}${c}`);
      });
      assert.equal(wordsOf(list, true), upper, 'made once');
      assert.ok(Object.isFrozen(upper), 'a frozen table');
    });
  }

  it('the lists without letter case are exactly the Chinese, Japanese and Korean ones, where capitalize changes no word', () => {
    assert.deepEqual(
      LISTS.filter((l) => !l.letterCase)
        .map((l) => l.id)
        .sort(),
      [...CASELESS].sort(),
    );
    for (const id of CASELESS) {
      const list = WORD_LISTS[id as keyof typeof WORD_LISTS];
      for (const w of list.words) assert.equal(capitalized(w), w);
    }
  });

  it('separator space is U+3000 for Japanese, the ASCII space for every other list', () => {
    for (const list of LISTS) assert.equal(list.space, list.id === 'bip39-japanese' ? '\u3000' : ' ', list.id);
  });
});
