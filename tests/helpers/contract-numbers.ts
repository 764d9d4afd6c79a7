/**
 * The service's promised numbers, written out literally here and nowhere else. The server, the
 * page and the OpenAPI document derive every figure they state from the constants and the
 * request schema, and so do the tests (tests/helpers/limits.ts); this table is what those
 * sources are compared with (tests/spec/contract-numbers.test.ts), so a constant changed by
 * mistake fails a test instead of silently moving every figure that derives from it.
 *
 * Changing a number here is changing the service's promise to its users.
 * @module
 */
export const CONTRACT_NUMBERS = Object.freeze({
  /** 16 KB, read as 16,384 bytes; a larger body gets 413. */
  bodyBytes: 16_384,
  count: { minimum: 1, maximum: 20, default: 1 },
  length: { minimum: 8, maximum: 128, default: 24 },
  wordCount: { minimum: 4, maximum: 8, default: 4 },
  /** Requests per minute per client IP when the operator sets nothing. */
  rateLimitPerMinute: 20,
  /** The EFF large wordlist's 7,776 words without its 4 hyphenated ones. */
  wordlist: { size: 7_772, sourceSize: 7_776 },
});
