/**
 * The HTTP edge's own error bodies (CONTRACT.md 2.5 and 7). Schema errors come from the core's
 * generate(); these are the ones only the edge can detect. One table, so the README, the
 * tests and the OpenAPI examples can quote the exact texts.
 * @module
 */
export interface ErrorBody {
  error: string;
  status: number;
  field?: string;
}

export const ERRORS = {
  badContentType: { error: 'Content-Type must be application/json', status: 400 },
  duplicateContentType: { error: 'Content-Type must be sent once', status: 400 },
  badJson: { error: 'request body must be valid JSON', status: 400 },
  badEncoding: { error: 'request body must be UTF-8', status: 400 },
  unauthorized: { error: 'missing or invalid API key', status: 401 },
  notFound: { error: 'not found', status: 404 },
  methodNotAllowed: { error: 'method not allowed', status: 405 },
  requestTimeout: { error: 'request timeout', status: 408 },
  tooLarge: { error: 'request body larger than 16384 bytes', status: 413 },
  expectationFailed: { error: 'expectation failed', status: 417 },
  headersTooLarge: { error: 'request header fields too large', status: 431 },
  badRequest: { error: 'bad request', status: 400 },
  upgradeRefused: { error: 'protocol upgrade not supported', status: 400 },
  rateLimited: { error: 'rate limit exceeded', status: 429 },
  internal: { error: 'internal error', status: 500 },
  noKeyConfigured: { error: 'no API key configured on the server', status: 503 },
} as const satisfies Record<string, ErrorBody>;

/** Pre-serialised once: these bodies never change. */
export const ERROR_JSON: { readonly [K in keyof typeof ERRORS]: string } = Object.fromEntries(
  Object.entries(ERRORS).map(([name, body]) => [name, JSON.stringify(body)]),
) as { [K in keyof typeof ERRORS]: string };
