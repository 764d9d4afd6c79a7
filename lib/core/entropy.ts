/**
 * Exact entropy of what the generator really does (docs/decisions.md, Entropy and strength): bits is
 * log2 of the number of equally likely outputs for the options, never a guess from the output.
 * @module
 */

export interface StrengthLevel {
  readonly level: 0 | 1 | 2 | 3 | 4;
  readonly label: 'Weak' | 'Fair' | 'Strong' | 'Very strong' | 'Excellent';
  /** Inclusive lower bound in bits. */
  readonly minBits: number;
  /** Exclusive upper bound in bits; null for the top level. */
  readonly maxBits: number | null;
}

/** Half-open intervals on the unrounded bits. */
export const STRENGTH_LEVELS: readonly StrengthLevel[] = Object.freeze([
  Object.freeze({ level: 0, label: 'Weak', minBits: 0, maxBits: 50 }),
  Object.freeze({ level: 1, label: 'Fair', minBits: 50, maxBits: 64 }),
  Object.freeze({ level: 2, label: 'Strong', minBits: 64, maxBits: 80 }),
  Object.freeze({ level: 3, label: 'Very strong', minBits: 80, maxBits: 100 }),
  Object.freeze({ level: 4, label: 'Excellent', minBits: 100, maxBits: null }),
] as const);

export interface Entropy {
  readonly bits: number;
  readonly label: StrengthLevel['label'];
  readonly level: StrengthLevel['level'];
}

/** Label from the unrounded figure; `bits` rounded to 2 decimals for the response. */
export function strength(bits: number): Entropy {
  if (!Number.isFinite(bits) || bits < 0) throw new RangeError(`strength: bits must be finite and >= 0, got ${bits}`);
  let chosen = STRENGTH_LEVELS[0];
  for (const s of STRENGTH_LEVELS) if (bits >= s.minBits) chosen = s;
  return Object.freeze({ bits: Math.round(bits * 100) / 100, label: chosen.label, level: chosen.level });
}

/** log2 of a positive BigInt, to double precision (uses the top 53 bits). */
export function log2BigInt(x: bigint): number {
  if (x <= 0n) throw new RangeError('log2BigInt: x must be positive');
  const hex = x.toString(16);
  const bitLength = 4 * (hex.length - 1) + Math.floor(Math.log2(parseInt(hex[0], 16))) + 1;
  const shift = Math.max(0, bitLength - 53);
  return Math.log2(Number(x >> BigInt(shift))) + shift;
}

/**
 * wordCount uniform words of `listSize`, a uniform 00-99 if asked, and log2(separatorChoices) per
 * gap (wordCount - 1, one more with the number; 1 choice for a fixed separator). Exact: the number
 * is the last two characters, every other gap character splits two distinct words (no word holds
 * one, wordlists.ts) and joining composes nothing, so every choice gives a different string.
 */
export function passphraseBits(
  listSize: number,
  wordCount: number,
  addNumber: boolean,
  separatorChoices: number = 1,
): number {
  const gaps = wordCount - 1 + (addNumber ? 1 : 0);
  return (
    wordCount * Math.log2(listSize) + (addNumber ? Math.log2(100) : 0) + Math.max(0, gaps) * Math.log2(separatorChoices)
  );
}
