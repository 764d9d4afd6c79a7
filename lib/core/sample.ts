/**
 * The core's two samplers. Both are uniform over V, the strings of the spec's length that the
 * engine's check accepts (engine.ts, `isValid`), the set whose size the engine counts.
 *
 * Rejection. Each attempt draws every character independently and uniformly from the allowed
 * codes A (one `random.below(|A|)` each), so each of the |A|^L strings has the same chance
 * |A|^-L per attempt; the attempt is kept when valid. Every string of V then has the same
 * chance per attempt and the attempts are independent, so the kept string is uniform over V.
 * An attempt costs L draws; the planners use this sampler only while |V| / |A|^L >= 1/32.
 *
 * Exact. One integer uniform below |V| (uniformBigIntBelow, itself rejection on whole bit
 * strings), mapped to a string by `unrank`, a bijection from [0, |V|) onto V (engine.ts): each
 * string of V is the image of exactly one integer, so it comes with chance 1/|V|.
 * @module
 */
import { isValid, unrank, type Check, type Tables } from './engine.ts';
import type { RandomSource } from './random.ts';
import { uniformBigIntBelow } from './random.ts';

/** `count` strings by rejection (one working array for the batch, overwritten at the end). */
export function drawByRejection(codes: readonly number[], check: Check, random: RandomSource, count: number): string[] {
  const chars = new Array<number>(check.length).fill(0);
  const values = new Array<string>(count);
  for (let k = 0; k < count;) {
    for (let i = 0; i < chars.length; i++) chars[i] = codes[random.below(codes.length)];
    if (isValid(check, chars)) values[k++] = String.fromCharCode(...chars);
  }
  chars.fill(0);
  return values;
}

export function drawExactly(tables: Tables, random: RandomSource): string {
  return finish(unrank(tables, uniformBigIntBelow(tables.count, random)));
}

/** The string, with the working codes overwritten (docs/security.md, What stays in memory). */
function finish(chars: number[]): string {
  const value = String.fromCharCode(...chars);
  chars.fill(0);
  return value;
}
