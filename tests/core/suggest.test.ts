/**
 * lib/core/suggest.ts: the nearest known names to a mistyped one (issue 41, typos get help).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { didYouMean, nearestNames } from '../../lib/core/suggest.ts';

const OPTIONS = ['length', 'minNumbers', 'minLowercase', 'firstCharacter', 'lastCharacter', 'maxRepeating'];

describe('nearestNames', () => {
  it('finds the name a typo came from: a swap, a missing letter, case and separators', () => {
    assert.deepEqual(nearestNames('lenght', OPTIONS), ['length']);
    assert.deepEqual(nearestNames('minNumber', OPTIONS), ['minNumbers']);
    assert.deepEqual(nearestNames('first_character', OPTIONS), ['firstCharacter']);
    assert.deepEqual(nearestNames('FIRST-CHARACTER', OPTIONS), ['firstCharacter']);
    assert.deepEqual(nearestNames('wordcount', ['wordCount', 'wordList']), ['wordCount']);
    assert.deepEqual(nearestNames('mdoe', ['mode', 'count', 'options']), ['mode']);
  });

  it('gives every name at the nearest distance, in the order given', () => {
    assert.deepEqual(nearestNames('mxLength', ['minLength', 'maxLength']), ['maxLength']);
    assert.deepEqual(nearestNames('mLength', ['minLength', 'maxLength']), ['minLength', 'maxLength']);
  });

  it('suggests nothing beyond its reach: 2 edits, 1 for four letters or fewer, none for two', () => {
    assert.deepEqual(nearestNames('lngthxx', OPTIONS), [], '3 edits');
    assert.deepEqual(nearestNames('lngh', ['length']), [], '2 edits on a four-letter name');
    assert.deepEqual(nearestNames('cont', ['count']), ['count'], '1 edit on a four-letter name');
    assert.deepEqual(nearestNames('ab', ['abc']), [], 'a two-letter name only folds');
    assert.deepEqual(nearestNames('AB', ['ab']), ['ab']);
    assert.deepEqual(nearestNames('', OPTIONS), []);
    assert.deepEqual(nearestNames('-_', OPTIONS), [], 'nothing left once folded');
  });

  it('leaves out names too long to compare, on either side', () => {
    assert.deepEqual(nearestNames('a'.repeat(65), ['a'.repeat(65)]), []);
    assert.deepEqual(nearestNames('a'.repeat(64), ['a'.repeat(64)]), ['a'.repeat(64)]);
    assert.deepEqual(nearestNames('abcdef', ['abcdef' + 'x'.repeat(60), 'abcdeg']), ['abcdeg']);
  });
});

describe('didYouMean', () => {
  it('words one name, several, or none', () => {
    assert.equal(didYouMean(['length']), 'did you mean length?');
    assert.equal(didYouMean(['minLength', 'maxLength']), 'did you mean minLength or maxLength?');
    assert.equal(didYouMean([]), '');
  });
});
