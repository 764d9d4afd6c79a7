/**
 * The limit the project is measured against: the fastest unbiased generator we could write in
 * plain JavaScript on Node's built-ins, doing nothing the contract asks for beyond uniformity
 * (no validation, no each-class rule, no entropy, no wiping of used words). `npm run bench`
 * reports project / limit for each workload.
 *
 * Passwords over a pool of N characters (2 <= N <= 215, one byte each):
 * - Random words come from one `getRandomValues` call per 64 KiB (16,384 words): the call costs
 *   about 1.8 us whatever its size, the bytes about 0.17 ns each (Node 20, bench machine).
 * - Four characters per 32-bit word, of which the low 31 bits v are used: v is accepted below
 *   floor(2^31 / N^4) * N^4, so x = v mod N^4 is uniform over [0, N^4), and its two base-N^2
 *   digits x / N^2 and x mod N^2 are independent and uniform over [0, N^2). Each digit maps
 *   through a table of the N^2 two-character codes (one table per position in the word, so no
 *   shift or byte-order test), and the two codes land as one 32-bit store.
 *   Acceptance: N = 62: 145 * 62^4 / 2^31 = 99.77 %; N = 85: 41 * 85^4 / 2^31 = 99.66 %, the
 *   same as with all 32 bits (290 and 82 multiples of N^4 below 2^32). Why 31 bits: V8 compiles
 *   `uint32 % n` (a value above 2^31 is not an int32) to an x87 `fprem` loop and `int31 % n` to
 *   one integer divide; the 31-bit loop is 2.2x faster for 128 characters and 1.7x for 24
 *   (paired runs, same process).
 * - A length that is not a multiple of 4 ends with single bytes accepted below 256 - 256 mod N
 *   (N = 62: 248 / 256 = 96.9 %), mapped by remainder.
 * - The bytes go into one reusable buffer and become one flat string in one call,
 *   Buffer#latin1Slice: 51 ns for 24 bytes, 83 ns for 480, the fastest measured in Node 20
 *   (TextDecoder on a cached view 56 / 103 ns, String.fromCharCode.apply on a plain array of
 *   codes 37 / 560 ns).
 * - A batch is one stream of i.i.d. characters: one pass, one string, then `count` slices.
 *
 * Passphrases over W words: one word per 31-bit draw v, accepted below 2^31 - 2^31 mod W
 * (W = 7,772: all but 2,328 of 2^31 values), index v mod W; words pre-joined with their
 * separator (one concatenation per word). A 16-bit draw per word through a 65,536-entry table of
 * indices (accepted below 65,536 - 65,536 mod W, 94.87 %) measured the same for 4 words and
 * 1.1x to 1.2x slower for 8 words and for batches, so the simpler draw stays.
 * @module
 */

export type Fill = (buffer: Uint32Array) => void;

/** Makes a function that turns bytes [start, end) of `bytes` into a string, one byte per character. */
export type Latin1 = (bytes: Uint8Array) => (start: number, end: number) => string;

const TWO_31 = 2 ** 31;
const WORDS = 16_384; // 64 KiB, getRandomValues' largest request

export const webCryptoFill: Fill = (buffer) => void globalThis.crypto.getRandomValues(buffer);

export const nodeLatin1: Latin1 = (bytes) => {
  // latin1Slice is Buffer#toString('latin1') without the encoding dispatch; @types/node omits it.
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as Buffer & {
    latin1Slice(start: number, end: number): string;
  };
  return (start, end) => view.latin1Slice(start, end);
};

/** The machine's byte order decides which half of a 32-bit store comes first in memory. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

interface PoolTables {
  readonly n: number;
  readonly n2: number;
  readonly n4: number;
  /** 31-bit draws at or above it are redrawn: floor(2^31 / N^4) * N^4. */
  readonly limit4: number;
  /** Bytes at or above it are redrawn: 256 - 256 mod N. */
  readonly limit1: number;
  readonly codes: Uint8Array;
  /** The two characters pool[p / N], pool[p mod N] of pair p, placed where they go in a 32-bit
   * word when the pair comes first (leading) or second (trailing) in memory. */
  readonly leading: Uint32Array;
  readonly trailing: Uint32Array;
}

function poolTables(pool: string): PoolTables {
  const n = pool.length;
  // N^4 must stay below 2^31: 215^4 = 2,136,750,625.
  if (n < 2 || n > 215) throw new RangeError('the pool must hold 2 to 215 characters');
  const codes = Uint8Array.from(pool, (c) => {
    const code = c.charCodeAt(0);
    if (code > 255) throw new RangeError('pool characters must be one byte each');
    return code;
  });
  const n2 = n * n;
  const n4 = n2 * n2;
  const leading = new Uint32Array(n2);
  const trailing = new Uint32Array(n2);
  for (let p = 0; p < n2; p++) {
    const first = codes[Math.floor(p / n)];
    const second = codes[p % n];
    const bytes = LITTLE_ENDIAN ? first | (second << 8) : (first << 8) | second;
    leading[p] = LITTLE_ENDIAN ? bytes : bytes << 16;
    trailing[p] = LITTLE_ENDIAN ? bytes << 16 : bytes;
  }
  return { n, n2, n4, limit4: Math.floor(TWO_31 / n4) * n4, limit1: 256 - (256 % n), codes, leading, trailing };
}

export interface Reference {
  /** One password of `length` characters drawn uniformly from `pool`. */
  password(pool: string, length: number): string;
  /** `count` such passwords: one stream of characters, one string, `count` slices. */
  passwords(pool: string, length: number, count: number): string[];
  /** One passphrase of `wordCount` words drawn uniformly from `words`, joined by `separator`. */
  passphrase(words: readonly string[], wordCount: number, separator: string): string;
  /** `count` such passphrases. */
  passphrases(words: readonly string[], wordCount: number, separator: string, count: number): string[];
}

export function createReference(fill: Fill = webCryptoFill, latin1: Latin1 = nodeLatin1): Reference {
  const random = new Uint32Array(WORDS);
  const randomBytes = new Uint8Array(random.buffer);
  let next = WORDS; // index of the next unread word; WORDS = empty
  let out = new Uint8Array(0);
  let out32 = new Uint32Array(0);
  let decode = latin1(out);
  let lastPool = '';
  let tables: PoolTables | null = null;
  let lastWords: readonly string[] | null = null;
  let lastSeparator = '';
  let joined: string[] = [];

  function room(bytes: number): void {
    if (out.length >= bytes) return;
    out = new Uint8Array(Math.max(4096, 2 ** Math.ceil(Math.log2(bytes))));
    out32 = new Uint32Array(out.buffer);
    decode = latin1(out);
  }

  /** Writes `total` uniform characters of the pool to out[0 .. total). */
  function characters(t: PoolTables, total: number): void {
    const { n2, n4, limit4, limit1, leading, trailing, codes, n } = t;
    const groups = total >> 2;
    // Locals: V8 re-reads (and re-checks) a closure's variables on every use.
    const words = out32;
    const draws = random;
    for (let g = 0; g < groups;) {
      if (next === WORDS) {
        fill(random);
        next = 0;
      }
      // No call inside the inner loop, so V8 keeps its state in registers.
      let i = next;
      const end = Math.min(WORDS, i + groups - g);
      for (; i < end; i++) {
        const v = draws[i] & 0x7fffffff;
        if (v < limit4) {
          const x = v % n4;
          const high = (x / n2) | 0;
          words[g++] = leading[high] | trailing[x - high * n2];
        }
      }
      next = i;
    }
    // The tail: the bytes of the next words, one per character; a word's unused bytes are dropped.
    for (let i = groups << 2; i < total;) {
      if (next === WORDS) {
        fill(random);
        next = 0;
      }
      const base = next++ << 2;
      for (let k = 0; k < 4 && i < total; k++) {
        const b = randomBytes[base + k];
        if (b < limit1) out[i++] = codes[b % n]!;
      }
    }
  }

  function tablesOf(pool: string): PoolTables {
    if (pool !== lastPool || tables === null) {
      tables = poolTables(pool);
      lastPool = pool;
    }
    return tables;
  }

  function passphrase(words: readonly string[], wordCount: number, separator: string): string {
    if (words !== lastWords || separator !== lastSeparator) {
      joined = words.map((w) => w + separator);
      lastWords = words;
      lastSeparator = separator;
    }
    const w = words.length;
    const limit = TWO_31 - (TWO_31 % w);
    let value = '';
    for (let k = 0; k < wordCount;) {
      if (next === WORDS) {
        fill(random);
        next = 0;
      }
      const v = random[next++] & 0x7fffffff;
      // The last word goes without its separator.
      if (v < limit) value += ++k === wordCount ? words[v % w] : joined[v % w];
    }
    return value;
  }

  return {
    password(pool, length) {
      room(length + 4);
      characters(tablesOf(pool), length);
      return decode(0, length);
    },
    passwords(pool, length, count) {
      const total = length * count;
      room(total + 4);
      characters(tablesOf(pool), total);
      const all = decode(0, total);
      const values = new Array<string>(count);
      for (let i = 0; i < count; i++) values[i] = all.slice(i * length, i * length + length);
      return values;
    },
    passphrase,
    passphrases(words, wordCount, separator, count) {
      const values = new Array<string>(count);
      for (let c = 0; c < count; c++) values[c] = passphrase(words, wordCount, separator);
      return values;
    },
  };
}
