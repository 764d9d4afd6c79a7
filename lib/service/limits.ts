/**
 * The service's published numbers: limits that are not option rules (those live in
 * spec/generate-request.schema.json) but that the server, `describe()` and the docs must agree
 * on (docs/api.md, Request body and connections and Rate limit). They are facts about the
 * service, not about generation, so they live outside the generator core; browser-safe, as
 * `describe()` runs in the page too.
 * @module
 */

/** 16 KB read as 16,384 bytes (docs/decisions.md, HTTP). */
export const BODY_LIMIT_BYTES = 16_384;

/** Token-bucket capacity and refill per 60 s (docs/decisions.md, Rate limit). */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 20;

/** Highest RATE_LIMIT_PER_MINUTE the server accepts (benchmarks raise the limit this far);
 * the OpenAPI document's rate-limit header bounds use the same number. */
export const MAX_RATE_LIMIT_PER_MINUTE = 1_000_000_000;
