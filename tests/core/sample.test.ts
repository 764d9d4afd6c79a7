/**
 * The draws' working codes: what a draw leaves in memory (docs/security.md) is zeros.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { finish } from '../../lib/core/sample.ts';

describe('finish', () => {
  it('returns the codes as a string and overwrites every one of them with 0', () => {
    const chars = [0x41, 0x62, 0x2d, 0x39, 0x7a];
    assert.equal(finish(chars), 'Ab-9z');
    assert.deepEqual(chars, [0, 0, 0, 0, 0]);
  });
});
