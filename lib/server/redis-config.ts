/**
 * The RATE_LIMIT_REDIS_* settings (docs/redis-rate-limit.md). Parsed once at start; a bad value
 * is one error naming the variable. Without any of RATE_LIMIT_REDIS_URL,
 * RATE_LIMIT_REDIS_CLUSTER_NODES and RATE_LIMIT_REDIS_SENTINELS the result is null and nothing
 * about Redis is loaded or contacted; with two of them the start stops.
 *
 * URLs are taken apart here and the client gets host, port, TLS, user, password and database
 * as separate options: the password can then come from a file instead, and no error, log line
 * or start-up message ever needs the URL text, which may hold the password. An error about one
 * entry of a list names its position, never its text.
 * @module
 */
import { resolve } from 'node:path';
import type { RedisEndpoint, RedisTopology } from '../rate-limit/redis-links.ts';
import { octal, readableByOthers, readTrustedFile, serverOwners } from '../files/trusted-file.ts';
import type { RedisRateLimitConfig } from '../rate-limit/redis-store.ts';
import { fail, integer, read, shown, type ConfigWarning, type Env } from './env.ts';
import type { VariableName } from './variables.ts';

export const REDIS_URL_VAR = 'RATE_LIMIT_REDIS_URL';
export const REDIS_CLUSTER_NODES_VAR = 'RATE_LIMIT_REDIS_CLUSTER_NODES';
export const REDIS_SENTINELS_VAR = 'RATE_LIMIT_REDIS_SENTINELS';
export const REDIS_SENTINEL_MASTER_VAR = 'RATE_LIMIT_REDIS_SENTINEL_MASTER';
export const REDIS_PASSWORD_FILE_VAR = 'RATE_LIMIT_REDIS_PASSWORD_FILE';
export const REDIS_PREFIX_VAR = 'RATE_LIMIT_REDIS_PREFIX';
export const REDIS_TIMEOUT_VAR = 'RATE_LIMIT_REDIS_TIMEOUT_MS';

/** The three ways to name the Redis; at most one may be set. */
const TOPOLOGY_VARS = [REDIS_URL_VAR, REDIS_CLUSTER_NODES_VAR, REDIS_SENTINELS_VAR] as const;

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
/** More seed nodes or sentinels than this is a mistake, not a topology. */
export const MAX_REDIS_ENTRIES = 32;
const SENTINEL_PORT = 26_379;

const URL_FORM = 'redis://[user[:password]@]host[:port][/database] or rediss://...';
const ENTRY_FORM = 'host:port, redis://[user[:password]@]host[:port] or rediss://...';

/** What one URL or list entry says. Nothing of it is ever echoed back: any part of it may be,
 * or hide, the password. */
interface Address {
  readonly url: URL;
  readonly port: number;
  readonly database: number;
  readonly username: string | undefined;
  readonly password: string | undefined;
}

/** The URL's parts, checked; every error names `variable`, then `where` ('' for the one URL,
 * 'entry 2 ' for a list's). */
function parseUrl(raw: string, variable: VariableName, where: string, form: string, defaultPort: number): Address {
  const problem = (message: string): never => fail(variable, `${where}${message}`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return problem(`is not a valid URL (expected ${form})`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    problem(`must start with redis:// or rediss:// (expected ${form})`);
  }
  if (url.hostname === '') problem(`must name a host (expected ${form})`);
  if (url.search !== '' || url.hash !== '') problem('must not have a query or a fragment (they would be ignored)');
  const port = url.port === '' ? defaultPort : Number(url.port);
  if (port === 0) problem('must not name port 0');
  let database = 0;
  if (url.pathname !== '' && url.pathname !== '/') {
    const digits = url.pathname.slice(1);
    if (!/^[0-9]{1,9}$/.test(digits)) problem('must have a database number (0 or more) as its path, or no path');
    database = Number(digits);
  }
  try {
    const username = url.username === '' ? undefined : decodeURIComponent(url.username);
    const password = url.password === '' ? undefined : decodeURIComponent(url.password);
    return { url, port, database, username, password };
  } catch {
    return problem('has a malformed %-escape in its user or password');
  }
}

/** WHATWG keeps IPv6 hosts in brackets; the socket wants the bare address. */
const bareHost = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** One entry of a list: `host:port` (or `host`, `[v6]:port`), or a redis:// / rediss:// URL
 * without a database. */
function parseEntry(raw: string, variable: VariableName, index: number, defaultPort: number): Address {
  const where = `entry ${index + 1} `;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    const address = parseUrl(raw, variable, where, ENTRY_FORM, defaultPort);
    if (address.url.pathname !== '' && address.url.pathname !== '/')
      fail(
        variable,
        `${where}must not name a database (${variable === REDIS_SENTINELS_VAR ? 'with Sentinel the master is used with database 0' : 'a cluster has only database 0'})`,
      );
    return address;
  }
  const address = parseUrl(`redis://${raw}`, variable, where, ENTRY_FORM, defaultPort);
  const { url } = address;
  if (url.username !== '' || url.password !== '' || (url.pathname !== '' && url.pathname !== '/') || raw.endsWith('/'))
    fail(variable, `${where}is not ${ENTRY_FORM}`);
  return address;
}

/** A comma-separated list of entries, all with the same scheme and the same credentials
 * (node-redis applies one set to every node it discovers). */
function parseList(variable: VariableName, raw: string, defaultPort: number): Address[] {
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length > MAX_REDIS_ENTRIES) fail(variable, `must have at most ${MAX_REDIS_ENTRIES} entries`);
  const entries = parts.map((part, i) => {
    if (part === '') fail(variable, `entry ${i + 1} is empty (expected ${ENTRY_FORM}, separated by commas)`);
    return parseEntry(part, variable, i, defaultPort);
  });
  const [first] = entries;
  for (const [i, e] of entries.entries()) {
    if (e.url.protocol !== first.url.protocol || e.username !== first.username || e.password !== first.password)
      fail(variable, `entry ${i + 1} differs from entry 1 in scheme, user or password (all must be the same)`);
  }
  return entries;
}

const endpointOf = (a: Address): RedisEndpoint => ({ host: bareHost(a.url), port: a.port });
const listed = (entries: readonly Address[]): string => entries.map((e) => `${e.url.hostname}:${e.port}`).join(',');

/** The one topology variable that is set, or null; two or more stop the start. */
function topologyVariable(env: Env): (typeof TOPOLOGY_VARS)[number] | null {
  const set = TOPOLOGY_VARS.filter((name) => read(env, name) !== undefined);
  if (set.length > 1) fail(set[1], `cannot be set together with ${set[0]}: set one of ${TOPOLOGY_VARS.join(', ')}`);
  if (read(env, REDIS_SENTINEL_MASTER_VAR) !== undefined && set[0] !== REDIS_SENTINELS_VAR)
    fail(REDIS_SENTINEL_MASTER_VAR, `is set but ${REDIS_SENTINELS_VAR} is not`);
  return set[0] ?? null;
}

/** Where the buckets live, the credentials of the nodes that hold them, and the log's name for
 * it (scheme, hosts and ports, never credentials). */
type Located = RedisTopology & {
  readonly tls: boolean;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly target: string;
};

function standalone(raw: string): Located {
  const { url, port, database, username, password } = parseUrl(raw, REDIS_URL_VAR, '', URL_FORM, 6379);
  return {
    mode: 'standalone',
    host: bareHost(url),
    port,
    database,
    tls: url.protocol === 'rediss:',
    username,
    password,
    target: `${url.protocol}//${url.hostname}:${port}/${database}`,
  };
}

function cluster(raw: string): Located {
  const entries = parseList(REDIS_CLUSTER_NODES_VAR, raw, 6379);
  const { url, username, password } = entries[0];
  return {
    mode: 'cluster',
    nodes: entries.map(endpointOf),
    tls: url.protocol === 'rediss:',
    username,
    password,
    target: `${url.protocol}//${listed(entries)} (cluster)`,
  };
}

/** The sentinels' own user and password come from their entries; the data nodes' password, from
 * the password file (lib/rate-limit/redis-links.ts). */
function sentinel(env: Env, raw: string): Located {
  const entries = parseList(REDIS_SENTINELS_VAR, raw, SENTINEL_PORT);
  const masterName = read(env, REDIS_SENTINEL_MASTER_VAR);
  if (masterName === undefined) return fail(REDIS_SENTINEL_MASTER_VAR, `must be set with ${REDIS_SENTINELS_VAR}`);
  if (masterName.length > 128 || !/^[\x21-\x7e]+$/.test(masterName))
    fail(
      REDIS_SENTINEL_MASTER_VAR,
      `must be 1 to 128 printable ASCII characters without spaces (got ${shown(masterName)})`,
    );
  const { url, username, password } = entries[0];
  return {
    mode: 'sentinel',
    sentinels: entries.map(endpointOf),
    masterName,
    sentinelUsername: username,
    sentinelPassword: password,
    tls: url.protocol === 'rediss:',
    username: undefined,
    password: undefined,
    target: `${url.protocol}//${listed(entries)} (sentinel, master ${masterName})`,
  };
}

function locate(env: Env, variable: (typeof TOPOLOGY_VARS)[number], raw: string): Located {
  if (variable === REDIS_CLUSTER_NODES_VAR) return cluster(raw);
  if (variable === REDIS_SENTINELS_VAR) return sentinel(env, raw);
  return standalone(raw);
}

export function parseRedisConfig(
  env: Env,
  cwd: string,
  warn: (warning: ConfigWarning) => void = () => undefined,
): RedisRateLimitConfig | null {
  const variable = topologyVariable(env);
  if (variable === null) {
    // A Redis setting without a Redis would be silently ignored: say so instead.
    for (const name of [REDIS_PASSWORD_FILE_VAR, REDIS_PREFIX_VAR, REDIS_TIMEOUT_VAR] as const) {
      if (read(env, name) !== undefined) fail(name, `is set but none of ${TOPOLOGY_VARS.join(', ')} is`);
    }
    return null;
  }

  const located = locate(env, variable, read(env, variable) as string);
  let password = located.password;

  const passwordFile = read(env, REDIS_PASSWORD_FILE_VAR);
  if (passwordFile !== undefined) {
    if (password !== undefined) fail(REDIS_PASSWORD_FILE_VAR, `cannot be used together with a password in ${variable}`);
    password = readPassword(cwd, passwordFile, warn);
  }

  const prefix = read(env, REDIS_PREFIX_VAR) ?? DEFAULT_REDIS_PREFIX;
  // No braces: a brace in the prefix would move the hash tag out of the client part
  // (lib/rate-limit/redis-keys.ts) and put every key of a cluster in one slot.
  if (prefix.length > 64 || !/^[\x21-\x7a\x7c\x7e]+$/.test(prefix)) {
    fail(
      REDIS_PREFIX_VAR,
      `must be 1 to 64 printable ASCII characters without spaces or braces (got ${shown(prefix)})`,
    );
  }

  const timeoutMs = integer(
    env,
    REDIS_TIMEOUT_VAR,
    DEFAULT_REDIS_TIMEOUT_MS,
    1,
    MAX_REDIS_TIMEOUT_MS,
    'milliseconds; ',
  );

  return { ...located, password, setting: variable, prefix, timeoutMs };
}

/** The password file, under the trust rule of lib/files/trusted-file.ts (docs/security.md, Files):
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
