/**
 * The HTTP edge's own error bodies (`{error, status}`, README, Errors). Schema errors come from
 * the core's generate(); these are the ones only the edge can detect. One table, so the README,
 * the tests and the OpenAPI examples can quote the exact texts.
 * @module
 */
import type { ErrorBody } from '../request/index.ts';
import { BODY_LIMIT_BYTES } from '../service/limits.ts';

export const ERRORS = {
  badContentType: { error: 'Content-Type must be application/json', status: 400 },
  // A JSON media type with another charset: saying "must be application/json" would be wrong
  // (it was), so the answer names what is refused. The charset itself is not echoed.
  badCharset: { error: 'Content-Type charset is not supported: send the JSON as UTF-8', status: 400 },
  duplicateContentType: { error: 'Content-Type must be sent once', status: 400 },
  badJson: { error: 'request body must be valid JSON', status: 400 },
  badEncoding: { error: 'request body must be UTF-8', status: 400 },
  unauthorized: { error: 'missing or invalid API key', status: 401 },
  // The same 401 for a request that sent Authorization and no X-Api-Key: the hint depends on
  // which headers are present, never on a key's validity (docs/decisions.md, Keys).
  unauthorizedBearer: {
    error: 'missing or invalid API key: send the key in the X-Api-Key header, not Authorization',
    status: 401,
  },
  notFound: { error: 'not found', status: 404 },
  methodNotAllowed: { error: 'method not allowed', status: 405 },
  requestTimeout: { error: 'request timeout', status: 408 },
  tooLarge: { error: `request body larger than ${BODY_LIMIT_BYTES} bytes`, status: 413 },
  expectationFailed: { error: 'expectation failed', status: 417 },
  headersTooLarge: { error: 'request header fields too large', status: 431 },
  badRequest: { error: 'bad request', status: 400 },
  upgradeRefused: { error: 'protocol upgrade not supported', status: 400 },
  plainHttpOnTls: { error: 'this port speaks HTTPS: use https://, not http://', status: 400 },
  internal: { error: 'internal error', status: 500 },
  noKeyConfigured: { error: 'no API key configured on the server', status: 503 },
} as const satisfies Record<string, ErrorBody>;

/** Pre-serialised once: these bodies never change. */
export const ERROR_JSON: { readonly [K in keyof typeof ERRORS]: string } = Object.fromEntries(
  Object.entries(ERRORS).map(([name, body]) => [name, JSON.stringify(body)]),
) as { [K in keyof typeof ERRORS]: string };

export type ErrorName = keyof typeof ERRORS;

/** The 429's body: the message gives the wait in whole seconds, the same figure as its
 * Retry-After header (delta seconds, rounded up, until one token). */
export function rateLimitedBody(retryAfterSeconds: number): ErrorBody {
  const unit = retryAfterSeconds === 1 ? 'second' : 'seconds';
  return { error: `rate limit exceeded: retry after ${String(retryAfterSeconds)} ${unit}`, status: 429 };
}

/** The 400 for a body that is not JSON: the position of the first error (1-based line and
 * column, in characters), never the text around it, which may carry a secret. */
export function badJsonBody(line: number, column: number): ErrorBody {
  return {
    error: `request body must be valid JSON: error at line ${String(line)}, column ${String(column)}`,
    status: 400,
  };
}

/** The 400 for a member name given twice in one object: parsers disagree on which wins. It
 * names the member only by a plain, short path (json-text.ts pathOf); otherwise it says a name
 * is given twice, with `field` the plain start of the path, if any. */
export function duplicateMemberBody(path: string, unnamed = false): ErrorBody {
  if (!unnamed && path !== '')
    return { error: `${path} is given more than once in the request body`, status: 400, field: path };
  const error = 'a member name is given twice in the request body';
  return path === '' ? { error, status: 400 } : { error, status: 400, field: path };
}

/** The errors written raw, on a socket node:http has let go of, with their status lines. */
export const STATUS_TEXT = {
  headersTooLarge: 'Request Header Fields Too Large',
  requestTimeout: 'Request Timeout',
  badRequest: 'Bad Request',
  upgradeRefused: 'Bad Request',
  plainHttpOnTls: 'Bad Request',
} as const satisfies Partial<Record<ErrorName, string>>;

export type RawErrorName = keyof typeof STATUS_TEXT;
