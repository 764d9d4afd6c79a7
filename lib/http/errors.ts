/**
 * The HTTP edge's own error bodies (`{error, status}`, README, Errors). Schema errors come from
 * the core's generate(); these are the ones only the edge can detect. One table, so the README,
 * the tests and the OpenAPI examples can quote the exact texts.
 * @module
 */
import type { ErrorBody } from '../core/index.ts';
import { BODY_LIMIT_BYTES } from '../service/limits.ts';

export const ERRORS = {
  badContentType: { error: 'Content-Type must be application/json', status: 400 },
  duplicateContentType: { error: 'Content-Type must be sent once', status: 400 },
  badJson: { error: 'request body must be valid JSON', status: 400 },
  badEncoding: { error: 'request body must be UTF-8', status: 400 },
  unauthorized: { error: 'missing or invalid API key', status: 401 },
  notFound: { error: 'not found', status: 404 },
  methodNotAllowed: { error: 'method not allowed', status: 405 },
  requestTimeout: { error: 'request timeout', status: 408 },
  tooLarge: { error: `request body larger than ${BODY_LIMIT_BYTES} bytes`, status: 413 },
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

export type ErrorName = keyof typeof ERRORS;

/** The errors written raw, on a socket node:http has let go of, with their status lines. */
export const STATUS_TEXT = {
  headersTooLarge: 'Request Header Fields Too Large',
  requestTimeout: 'Request Timeout',
  badRequest: 'Bad Request',
  upgradeRefused: 'Bad Request',
} as const satisfies Partial<Record<ErrorName, string>>;

export type RawErrorName = keyof typeof STATUS_TEXT;
