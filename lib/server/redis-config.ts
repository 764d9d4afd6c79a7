/**
 * The RATE_LIMIT_REDIS_* settings (docs/redis-rate-limit.md). Parsed once at start; a bad value
 * is one error naming the variable. Without RATE_LIMIT_REDIS_URL the result is null and nothing
 * about Redis is loaded or contacted.
 *
 * The URL is taken apart here and the client gets host, port, TLS, user, password and database
 * as separate options: the password can then come from a file instead, and no error, log line
 * or start-up message ever needs the URL text, which may hold the password.
 * @module
 */
import { resolve } from 'node:path';
import { octal, readableByOthers, readTrustedFile, serverOwners } from '../files/trusted-file.ts';
import type { RedisRateLimitConfig } from '../rate-limit/redis-store.ts';
import { fail, integer, read, shown, type ConfigWarning, type Env } from './env.ts';

export const REDIS_URL_VAR = 'RATE_LIMIT_REDIS_URL';
export const REDIS_PASSWORD_FILE_VAR = 'RATE_LIMIT_REDIS_PASSWORD_FILE';
export const REDIS_PREFIX_VAR = 'RATE_LIMIT_REDIS_PREFIX';
export const REDIS_TIMEOUT_VAR = 'RATE_LIMIT_REDIS_TIMEOUT_MS';

export const DEFAULT_REDIS_PREFIX = 'cg:rl:';
/**
 * 50 ms: a healthy Redis answers the script in well under 1 ms on a LAN (0.1 to 0.5 ms round
 * trip; p99 measured locally in docs/redis-rate-limit.md), so 50 ms is two orders of magnitude
 * of headroom, yet it bounds what a sick Redis adds to a request to a fraction of a human's
 * noticing. After one timeout the store stops asking Redis until a probe succeeds, so only
 * the requests already in flight pay it.
 */
export const DEFAULT_REDIS_TIMEOUT_MS = 50;
export const MAX_REDIS_TIMEOUT_MS = 5_000;

const URL_FORM = 'redis://[user[:password]@]host[:port][/database] or rediss://...';

/** The URL's parts, checked. Nothing of the URL is echoed back: any part of it may be, or
 * hide, the password. */
function parseUrl(raw: string): {
  url: URL;
  port: number;
  database: number;
  username: string | undefined;
  password: string | undefined;
} {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail(REDIS_URL_VAR, `is not a valid URL (expected ${URL_FORM})`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    fail(REDIS_URL_VAR, `must start with redis:// or rediss:// (expected ${URL_FORM})`);
  }
  if (url.hostname === '') fail(REDIS_URL_VAR, `must name a host (expected ${URL_FORM})`);
  if (url.search !== '' || url.hash !== '')
    fail(REDIS_URL_VAR, 'must not have a query or a fragment (they would be ignored)');
  const port = url.port === '' ? 6379 : Number(url.port);
  if (port === 0) fail(REDIS_URL_VAR, 'must not name port 0');
  let database = 0;
  if (url.pathname !== '' && url.pathname !== '/') {
    const digits = url.pathname.slice(1);
    if (!/^[0-9]{1,9}$/.test(digits))
      fail(REDIS_URL_VAR, 'must have a database number (0 or more) as its path, or no path');
    database = Number(digits);
  }
  try {
    const username = url.username === '' ? undefined : decodeURIComponent(url.username);
    const password = url.password === '' ? undefined : decodeURIComponent(url.password);
    return { url, port, database, username, password };
  } catch {
    return fail(REDIS_URL_VAR, 'has a malformed %-escape in its user or password');
  }
}

export function parseRedisConfig(
  env: Env,
  cwd: string,
  warn: (warning: ConfigWarning) => void = () => undefined,
): RedisRateLimitConfig | null {
  const raw = read(env, REDIS_URL_VAR);
  if (raw === undefined) {
    // A Redis setting without the URL would be silently ignored: say so instead.
    for (const name of [REDIS_PASSWORD_FILE_VAR, REDIS_PREFIX_VAR, REDIS_TIMEOUT_VAR]) {
      if (read(env, name) !== undefined) fail(name, `is set but ${REDIS_URL_VAR} is not`);
    }
    return null;
  }

  const { url, port, database, username, password: urlPassword } = parseUrl(raw);
  let password = urlPassword;

  const passwordFile = read(env, REDIS_PASSWORD_FILE_VAR);
  if (passwordFile !== undefined) {
    if (password !== undefined)
      fail(REDIS_PASSWORD_FILE_VAR, `cannot be used together with a password in ${REDIS_URL_VAR}`);
    password = readPassword(cwd, passwordFile, warn);
  }

  const prefix = read(env, REDIS_PREFIX_VAR) ?? DEFAULT_REDIS_PREFIX;
  if (prefix.length > 64 || !/^[\x21-\x7e]+$/.test(prefix)) {
    fail(REDIS_PREFIX_VAR, `must be 1 to 64 printable ASCII characters without spaces (got ${shown(prefix)})`);
  }

  const timeoutMs = integer(
    env,
    REDIS_TIMEOUT_VAR,
    DEFAULT_REDIS_TIMEOUT_MS,
    1,
    MAX_REDIS_TIMEOUT_MS,
    'milliseconds; ',
  );

  // WHATWG keeps IPv6 hosts in brackets; the socket wants the bare address.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    host,
    port,
    tls: url.protocol === 'rediss:',
    username,
    password,
    database,
    target: `${url.protocol}//${url.hostname}:${port}/${database}`,
    prefix,
    timeoutMs,
  };
}

/** The password file, under the trust rule of lib/files/trusted-file.ts (security review S3):
 * whoever can write it decides which Redis account the limits are kept under. */
function readPassword(cwd: string, file: string, warn: (warning: ConfigWarning) => void): string {
  const path = resolve(cwd, file);
  const found = readTrustedFile(path, serverOwners(), { links: 'resolve' });
  if (found.kind === 'missing') fail(REDIS_PASSWORD_FILE_VAR, `names a file that does not exist (${shown(file)})`);
  if (found.kind === 'refused')
    return fail(REDIS_PASSWORD_FILE_VAR, `names a file that cannot be used: ${shown(file)} ${found.reason}`);
  if (readableByOthers(found.stats))
    warn({
      message: `${REDIS_PASSWORD_FILE_VAR} is readable by other users; chmod o-r it`,
      fields: { file: path, mode: octal(found.stats.mode) },
    });
  // One trailing line break is what `echo secret > file` and editors leave; anything else
  // (an empty file, a second line) is a mistake worth stopping for. The content is never shown.
  const password = found.data.toString('utf8').replace(/\r?\n$/, '');
  if (password === '' || /[\r\n]/.test(password))
    fail(REDIS_PASSWORD_FILE_VAR, `must hold the password on one line (${shown(file)})`);
  return password;
}
