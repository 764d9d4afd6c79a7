/**
 * Configuration from environment variables (docs/deploy.md, Configuration). Parsed once at start;
 * a bad value throws a ConfigError naming the variable, and server.ts turns that into one line
 * on stderr and a non-zero exit, so a typo never starts a half-configured service.
 * @module
 */
import { readFileSync, type Stats } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { MAX_MIN_BITS, parseEntropyFloor } from '../request/index.ts';
import { DEFAULT_CONNECTION_CAPS, type ConnectionCaps } from '../http/connection-caps.ts';
import { LOG_LEVELS, type LogLevel } from '../log/logger.ts';
import type { RedisRateLimitConfig } from '../rate-limit/redis-store.ts';
import { DEFAULT_SWEEP_SECONDS } from '../rate-limit/token-bucket.ts';
import { DEFAULT_RATE_LIMIT_PER_MINUTE, MAX_RATE_LIMIT_PER_MINUTE } from '../service/limits.ts';
import { ConfigError, integer, read, shown, type ConfigWarning, type Env } from './env.ts';
import { parseRedisConfig } from './redis-config.ts';
import { keyExposure, pairProblem, readTlsFile, type PemPair, type TlsFiles } from './tls.ts';

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Absolute path of the key store (watched even while it does not exist yet). */
  readonly keysFile: string;
  /** True when API_KEYS_FILE was set explicitly (a missing file is then worth a warning). */
  readonly keysFileExplicit: boolean;
  /** Absolute path of the named policies (POLICIES_FILE), watched; null: none. */
  readonly policiesFile: string | null;
  /** The single plain key from API_KEY, or null. */
  readonly apiKey: string | null;
  readonly rateLimitPerMinute: number;
  /** How often the in-process limiter drops the buckets that have refilled (its sweep). */
  readonly rateLimitSweepSeconds: number;
  /** The service's entropy floor in bits (MIN_ENTROPY_BITS, default 0: none). */
  readonly minEntropyBits: number;
  /** The shared rate limit's Redis, or null for in-process buckets. */
  readonly rateLimitRedis: RedisRateLimitConfig | null;
  readonly trustProxyHops: number;
  /** MAX_CONNECTIONS and MAX_CONNECTIONS_PER_ADDRESS (lib/http/connection-caps.ts). */
  readonly connections: ConnectionCaps;
  /** PEM cert and key, and their paths for renewal, when both TLS variables are set, else
   * null (plain HTTP). */
  readonly tls: (PemPair & TlsFiles) | null;
  readonly logLevel: LogLevel;
  /** Where GET /metrics is served (its own listener, never the public one), or null: off. */
  readonly metrics: { readonly port: number; readonly host: string } | null;
  /** For the log once it exists: secret files other users may read. */
  readonly warnings: readonly ConfigWarning[];
}

/** MIN_ENTROPY_BITS: the floor below which requests are refused (docs/decisions.md, Entropy floor). */
function entropyFloor(env: Env): number {
  const raw = read(env, 'MIN_ENTROPY_BITS');
  if (raw === undefined) return 0;
  const floor = parseEntropyFloor(raw);
  if (floor === null) {
    throw new ConfigError('MIN_ENTROPY_BITS', `must be a number of bits from 0 to ${MAX_MIN_BITS} (got ${shown(raw)})`);
  }
  return floor;
}

/** The highest MAX_CONNECTIONS: every connection is an fd, and the unit's LimitNOFILE and
 * docs/security.md's memory bound are stated for caps far below it. */
export const MAX_CONNECTIONS_LIMIT = 100_000;

/**
 * MAX_CONNECTIONS and MAX_CONNECTIONS_PER_ADDRESS. The per-address cap counts the socket's
 * peer (X-Forwarded-For only arrives after the connection is accepted), which behind a proxy
 * is the proxy: with TRUST_PROXY_HOPS set it defaults to the process-wide cap, and the proxy
 * caps its clients (docs/deploy.md, Connection caps).
 */
function connectionsOf(env: Env, trustProxyHops: number): ConnectionCaps {
  const total = integer(env, 'MAX_CONNECTIONS', DEFAULT_CONNECTION_CAPS.total, 1, MAX_CONNECTIONS_LIMIT);
  const fallback = trustProxyHops > 0 ? total : Math.min(DEFAULT_CONNECTION_CAPS.perAddress, total);
  const perAddress = integer(env, 'MAX_CONNECTIONS_PER_ADDRESS', fallback, 1, MAX_CONNECTIONS_LIMIT);
  if (perAddress > total) {
    throw new ConfigError(
      'MAX_CONNECTIONS_PER_ADDRESS',
      `must not exceed MAX_CONNECTIONS (${total}) (got ${shown(String(perAddress))})`,
    );
  }
  return { total, perAddress };
}

/** The fds a process needs besides its connections: listeners, the key file's watch, Redis,
 * the log, Node's own (about 25 at idle). */
export const FD_HEADROOM = 128;

/**
 * A warning when the process's fd limit (the soft "Max open files" of /proc/self/limits, as
 * Node has raised it to the hard one) leaves less than FD_HEADROOM beside MAX_CONNECTIONS: the
 * cap would then never be reached, and accepts fail with EMFILE first. Null when it fits, or
 * where there is no /proc (the limit is then the operator's to check).
 */
export function fdLimitWarning(total: number, limits: string | null): ConfigWarning | null {
  const soft = limits === null ? null : /^Max open files\s+(\d+|unlimited)/m.exec(limits)?.[1];
  if (soft === undefined || soft === null || soft === 'unlimited' || Number(soft) >= total + FD_HEADROOM) return null;
  return {
    message: `the fd limit is below MAX_CONNECTIONS + ${FD_HEADROOM}: raise LimitNOFILE (or ulimit -n) or lower MAX_CONNECTIONS`,
    fields: { fdLimit: soft, maxConnections: String(total) },
  };
}

function procLimits(): string | null {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return null;
  }
}

/** RATE_LIMIT_PER_MINUTE and RATE_LIMIT_SWEEP_SECONDS: the in-process limiter's settings. */
function rateLimitOf(env: Env): Pick<Config, 'rateLimitPerMinute' | 'rateLimitSweepSeconds'> {
  return {
    rateLimitPerMinute: integer(
      env,
      'RATE_LIMIT_PER_MINUTE',
      DEFAULT_RATE_LIMIT_PER_MINUTE,
      1,
      MAX_RATE_LIMIT_PER_MINUTE,
    ),
    // Up to the default: a bucket is full at most a minute after its client's last request, so
    // a longer period would only keep full buckets, which carry nothing, longer. From a second:
    // each sweep walks every tracked bucket (up to the cap), and a shorter period buys nothing
    // a client can see.
    rateLimitSweepSeconds: integer(
      env,
      'RATE_LIMIT_SWEEP_SECONDS',
      DEFAULT_SWEEP_SECONDS,
      1,
      DEFAULT_SWEEP_SECONDS,
      'seconds; ',
    ),
  };
}

/** HOST or METRICS_HOST: an address to listen on, loopback unless said otherwise. */
function hostOf(env: Env, name: 'HOST' | 'METRICS_HOST'): string {
  const host = read(env, name) ?? '127.0.0.1';
  if (isIP(host) === 0 && host !== 'localhost') {
    throw new ConfigError(name, `must be an IPv4 or IPv6 address or "localhost" (got ${shown(host)})`);
  }
  return host;
}

/** METRICS_PORT and METRICS_HOST: off unless the port is set, and never the public port. */
function metricsOf(env: Env, port: number): Config['metrics'] {
  if (read(env, 'METRICS_PORT') === undefined) {
    if (read(env, 'METRICS_HOST') !== undefined)
      throw new ConfigError('METRICS_HOST', 'is set but METRICS_PORT is not');
    return null;
  }
  const metricsPort = integer(env, 'METRICS_PORT', 0, 0, 65535);
  if (metricsPort !== 0 && metricsPort === port) {
    throw new ConfigError('METRICS_PORT', `must differ from PORT (the metrics never share the public port)`);
  }
  return { port: metricsPort, host: hostOf(env, 'METRICS_HOST') };
}

export function parseConfig(env: Env, cwd: string): Config {
  const warnings: ConfigWarning[] = [];
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = hostOf(env, 'HOST');

  const explicitFile = read(env, 'API_KEYS_FILE');
  // The default is watched even when absent, so the first `npm run keys -- issue` is picked up
  // by a running server; "if present" only decides whether its absence is worth a warning.
  const keysFile = resolve(cwd, explicitFile ?? 'keys.json');

  const policies = read(env, 'POLICIES_FILE');
  const policiesFile = policies === undefined ? null : resolve(cwd, policies);

  const apiKey = read(env, 'API_KEY') ?? null;
  if (apiKey !== null && (apiKey.length < 16 || apiKey.length > 256 || !/^[\x21-\x7e]+$/.test(apiKey))) {
    // Never echo the value: it is a secret.
    throw new ConfigError('API_KEY', 'must be 16 to 256 printable ASCII characters without spaces');
  }

  const { rateLimitPerMinute, rateLimitSweepSeconds } = rateLimitOf(env);
  const trustProxyHops = integer(env, 'TRUST_PROXY_HOPS', 0, 0, 10);
  const minEntropyBits = entropyFloor(env);
  const connections = connectionsOf(env, trustProxyHops);
  const fdWarning = fdLimitWarning(connections.total, procLimits());
  if (fdWarning !== null) warnings.push(fdWarning);

  const certFile = read(env, 'TLS_CERT_FILE');
  const keyFile = read(env, 'TLS_KEY_FILE');
  let tls: Config['tls'] = null;
  if ((certFile === undefined) !== (keyFile === undefined)) {
    const missing = certFile === undefined ? 'TLS_CERT_FILE' : 'TLS_KEY_FILE';
    throw new ConfigError(
      missing,
      'must be set together with ' + (missing === 'TLS_CERT_FILE' ? 'TLS_KEY_FILE' : 'TLS_CERT_FILE'),
    );
  }
  if (certFile !== undefined && keyFile !== undefined) {
    const cert = readPem(cwd, 'TLS_CERT_FILE', certFile);
    const key = readPem(cwd, 'TLS_KEY_FILE', keyFile);
    tls = { certFile: resolve(cwd, certFile), keyFile: resolve(cwd, keyFile), cert: cert.pem, key: key.pem };
    const problem = pairProblem(tls);
    if (problem !== null)
      throw new ConfigError('TLS_KEY_FILE', `and TLS_CERT_FILE do not make a usable pair (${problem})`);
    const exposure = keyExposure(tls.keyFile, key.stats);
    if (exposure !== null) warnings.push(exposure);
  }

  const level = read(env, 'LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')} (got ${shown(level)})`);
  }

  return {
    port,
    host,
    keysFile,
    keysFileExplicit: explicitFile !== undefined,
    policiesFile,
    apiKey,
    rateLimitPerMinute,
    rateLimitSweepSeconds,
    minEntropyBits,
    rateLimitRedis: parseRedisConfig(env, cwd, (warning) => warnings.push(warning)),
    trustProxyHops,
    connections,
    tls,
    logLevel: level as LogLevel,
    metrics: metricsOf(env, port),
    warnings,
  };
}

/** A TLS file under the trust rule (lib/files/trusted-file.ts): whoever can write it decides who the server is. */
function readPem(cwd: string, name: 'TLS_CERT_FILE' | 'TLS_KEY_FILE', file: string): { pem: Buffer; stats: Stats } {
  const read = readTlsFile(resolve(cwd, file));
  if (read.kind === 'missing') throw new ConfigError(name, `names a file that does not exist (${shown(file)})`);
  if (read.kind === 'refused')
    throw new ConfigError(name, `names a file that cannot be used: ${shown(file)} ${read.reason}`);
  if (!read.data.includes('-----BEGIN ')) throw new ConfigError(name, `is not a PEM file (${shown(file)})`);
  return { pem: read.data, stats: read.stats };
}
