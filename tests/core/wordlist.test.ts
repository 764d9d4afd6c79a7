import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { EFF_LARGE_WORDLIST } from '../../lib/generated/wordlist.generated.ts';
import { DROPPED_WORDS, WORDLIST } from '../../lib/core/passphrase.ts';

const file = readFileSync(new URL('../../wordlist/eff_large_wordlist.txt', import.meta.url));

describe('wordlist/', () => {
  it('ships the EFF large list byte for byte (SHA-256 pinned)', () => {
    assert.equal(
      createHash('sha256').update(file).digest('hex'),
      'addd35536511597a02fa0a9ff1e5284677b8883b83e986e43f15a3db996b903e',
    );
  });

  it('generated module holds the 7,776 words of the file, in order', () => {
    const words = file
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .map((line) => line.split('\t')[1]);
    assert.equal(words.length, 7776);
    assert.deepEqual([...EFF_LARGE_WORDLIST], words);
    assert.ok(Object.isFrozen(EFF_LARGE_WORDLIST));
  });

  it('samples 7,772 unique lowercase words: the 4 hyphenated ones are dropped', () => {
    assert.equal(WORDLIST.length, 7772);
    assert.deepEqual([...DROPPED_WORDS], ['drop-down', 'felt-tip', 't-shirt', 'yo-yo']);
    assert.equal(new Set(WORDLIST).size, 7772);
    for (const w of WORDLIST) assert.match(w, /^[a-z]{3,9}$/);
    assert.equal(WORDLIST[0], 'abacus');
    assert.equal(WORDLIST[7771], 'zoom');
  });
});
