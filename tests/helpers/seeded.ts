/**
 * A deterministic FillRandom for exact test vectors: sfc32 (Chris Doty-Humphrey's Small Fast
 * Counting generator), seeded from one 32-bit integer. Test-only: never a source of secrets.
 */
import { createRandom, type FillRandom, type RandomSource } from '../../lib/core/random.ts';

export function seededFill(seed: number): FillRandom {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const nextWord = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t;
  };
  for (let i = 0; i < 15; i++) nextWord(); // mix the seed in
  return (buffer) => {
    for (let i = 0; i < buffer.length; i++) buffer[i] = nextWord();
  };
}

export function seededRandom(seed: number): RandomSource {
  return createRandom(seededFill(seed));
}

/** A source that returns the given 32-bit words in order, then fails loudly. */
export function scriptedFill(words: readonly number[]): FillRandom & { calls: number } {
  let i = 0;
  const fill = ((buffer: Uint32Array) => {
    fill.calls++;
    for (let j = 0; j < buffer.length; j++) {
      if (i >= words.length) throw new Error('scripted source exhausted');
      buffer[j] = words[i++];
    }
  }) as FillRandom & { calls: number };
  fill.calls = 0;
  return fill;
}
