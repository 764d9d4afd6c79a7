/**
 * Response headers (docs/decisions.md, Headers, logs, home page): the fixed ones are built once per kind of
 * response as flat [name, value, ...] arrays, which res.writeHead takes as is, so the hot path
 * only appends the rate-limit numbers.
 * @module
 */
import type { RateLimitState } from '../rate-limit/token-bucket.ts';

export const HOME_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
export const JSON_CSP = "default-src 'none'; frame-ancestors 'none'";
export const WWW_AUTHENTICATE = 'ApiKey realm="credential-generator", header="X-Api-Key"';
export const JSON_TYPE = 'application/json; charset=utf-8';

/** Every response, whatever it is. */
function common(tls: boolean): string[] {
  const out = [
    'Cache-Control',
    'no-store',
    'X-Content-Type-Options',
    'nosniff',
    'Referrer-Policy',
    'no-referrer',
    'Cross-Origin-Resource-Policy',
    'same-origin',
  ];
  // Browsers ignore HSTS over plain HTTP, and sending it there would only mislead.
  if (tls) out.push('Strict-Transport-Security', 'max-age=31536000');
  return out;
}

export interface HeaderSets {
  /** JSON responses (bodies of the API and errors). */
  readonly json: readonly string[];
  /** The home page's HTML, scripts, styles and images. */
  readonly page: (contentType: string) => string[];
  /** A JSON file offered as a download (the Postman files). */
  readonly download: (filename: string) => string[];
}

export function headerSets(tls: boolean): HeaderSets {
  const base = common(tls);
  return {
    json: [...base, 'Content-Type', JSON_TYPE, 'Content-Security-Policy', JSON_CSP],
    page: (contentType) => [
      ...base,
      'Content-Type',
      contentType,
      'Content-Security-Policy',
      HOME_CSP,
      'Cross-Origin-Opener-Policy',
      'same-origin',
      'X-Frame-Options',
      'DENY',
    ],
    download: (filename) => [
      ...base,
      'Content-Type',
      JSON_TYPE,
      'Content-Security-Policy',
      JSON_CSP,
      'Content-Disposition',
      `attachment; filename="${filename.replace(/["\\\r\n]/g, '_')}"`,
    ],
  };
}

/** The IETF draft's RateLimit value for a bucket's numbers (already as text). */
function rateLimitValue(remaining: string, reset: string): string {
  return `"client";r=${remaining};t=${reset}`;
}

/**
 * The rate-limit fields of every reply, in the order they are written: the de-facto X-RateLimit-*
 * trio (Reset is delta seconds until the bucket is full again, as the contract says "seconds
 * until the count resets"; docs/decisions.md, Rate limit) and the IETF draft's
 * RateLimit-Policy / RateLimit with the same numbers. The one list of their names and values:
 * withRateLimit appends it, HeadTemplate copies it and fills in the numbers.
 */
function rateLimitFields(limit: string, remaining: string, reset: string, policy: string): string[] {
  return [
    'X-RateLimit-Limit',
    limit,
    'X-RateLimit-Remaining',
    remaining,
    'X-RateLimit-Reset',
    reset,
    'RateLimit-Policy',
    policy,
    'RateLimit',
    rateLimitValue(remaining, reset),
  ];
}

/** `base`, then the rate-limit fields, then Retry-After on a 429 only, then `extra`. */
export function withRateLimit(
  base: readonly string[],
  rl: RateLimitState,
  policy: string,
  status: number,
  extra?: readonly string[],
): string[] {
  const out = base.concat(rateLimitFields(String(rl.limit), String(rl.remaining), String(rl.resetSeconds), policy));
  if (status === 429) out.push('Retry-After', String(rl.retryAfterSeconds));
  if (extra !== undefined) for (const item of extra) out.push(item);
  return out;
}

export function policyOf(limit: number): string {
  return `"client";q=${limit};w=60`;
}

/**
 * The head of a reply made from a copy of one array, the values of the reply filled in:
 * `base`, then withRateLimit's fields (no Retry-After, no extra), Content-Length and
 * X-Request-Id, in the order `send` writes them. Copying a packed array and setting five
 * slots costs less than concatenating twenty values onto it (docs/benchmark.md, "The request
 * path against the lean limit").
 */
export class HeadTemplate {
  readonly limit: number;
  private readonly fields: readonly string[];
  /** Where the values to fill in are, found by their fields' names in the copied list. */
  private readonly remainingAt: number;
  private readonly resetAt: number;
  private readonly rateLimitAt: number;
  private readonly lengthAt: number;
  private readonly idAt: number;

  constructor(base: readonly string[], limit: number, policy: string) {
    this.limit = limit;
    const fields = [
      ...base,
      ...rateLimitFields(String(limit), '', '', policy),
      'Content-Length',
      '',
      'X-Request-Id',
      '',
    ];
    const valueOf = (name: string): number => fields.indexOf(name, base.length) + 1;
    this.remainingAt = valueOf('X-RateLimit-Remaining');
    this.resetAt = valueOf('X-RateLimit-Reset');
    this.rateLimitAt = valueOf('RateLimit');
    this.lengthAt = valueOf('Content-Length');
    this.idAt = valueOf('X-Request-Id');
    this.fields = fields;
  }

  /** The head's fields for a reply whose bucket shows `rl` (with this template's limit). */
  fill(rl: RateLimitState, contentLength: number, id: string): string[] {
    const out = this.fields.slice();
    const remaining = String(rl.remaining);
    const reset = String(rl.resetSeconds);
    out[this.remainingAt] = remaining;
    out[this.resetAt] = reset;
    out[this.rateLimitAt] = rateLimitValue(remaining, reset);
    out[this.lengthAt] = String(contentLength);
    out[this.idAt] = id;
    return out;
  }
}
