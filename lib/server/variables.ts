/**
 * Every environment variable the service reads, each with its meaning in one line: the one
 * table `--help` prints, the README's configuration table repeats (tests/spec/variables.test.ts
 * holds the two equal) and the configuration's readers are typed by (env.ts takes only a
 * VariableName), so a variable cannot be read without being listed here. docs/deploy.md,
 * Configuration, has each one's limits in full.
 * @module
 */

export const VARIABLES = Object.freeze([
  { name: 'PORT', meaning: 'port to listen on, 0 to 65535 (default 8080; 0: a free port)' },
  { name: 'HOST', meaning: 'address to listen on (default 127.0.0.1; 0.0.0.0 or :: for every interface)' },
  { name: 'API_KEYS_FILE', meaning: 'the key file, digests only (default keys.json here; watched)' },
  { name: 'API_KEY', meaning: "one plain key, beside the key file's (16 to 256 printable characters)" },
  { name: 'RATE_LIMIT_PER_MINUTE', meaning: 'requests per minute per client (default 20)' },
  { name: 'RATE_LIMIT_SWEEP_SECONDS', meaning: 'drop refilled buckets this often, 1 to 60 s (default 60)' },
  { name: 'MIN_ENTROPY_BITS', meaning: 'the entropy floor, 0 to 256 bits (default 0: none)' },
  { name: 'POLICIES_FILE', meaning: "the operator's named policies (default none; watched)" },
  { name: 'RATE_LIMIT_REDIS_URL', meaning: 'share the rate limit through one Redis (redis:// or rediss://)' },
  { name: 'RATE_LIMIT_REDIS_CLUSTER_NODES', meaning: 'share it through a Redis Cluster (host:port,...)' },
  { name: 'RATE_LIMIT_REDIS_SENTINELS', meaning: 'share it through Redis behind Sentinel (host:port,...)' },
  { name: 'RATE_LIMIT_REDIS_SENTINEL_MASTER', meaning: 'the master name the Sentinels know' },
  { name: 'RATE_LIMIT_REDIS_PASSWORD_FILE', meaning: 'a file holding the Redis password' },
  { name: 'RATE_LIMIT_REDIS_PREFIX', meaning: 'prefix of the rate limit keys in Redis (default cg:rl:)' },
  { name: 'RATE_LIMIT_REDIS_TIMEOUT_MS', meaning: 'wait for Redis, then limit in process (default 50)' },
  { name: 'TRUST_PROXY_HOPS', meaning: 'reverse proxies in front, 0 to 10 (default 0: none)' },
  { name: 'MAX_CONNECTIONS', meaning: 'open connections in all (default 500)' },
  {
    name: 'MAX_CONNECTIONS_PER_ADDRESS',
    meaning: 'open connections of one address (default 64; behind a proxy, MAX_CONNECTIONS)',
  },
  { name: 'TLS_CERT_FILE', meaning: 'PEM certificate (chain): with TLS_KEY_FILE, serve HTTPS' },
  { name: 'TLS_KEY_FILE', meaning: 'PEM private key of TLS_CERT_FILE' },
  { name: 'LOG_LEVEL', meaning: 'silent, error, warn, info (default) or debug' },
  { name: 'METRICS_PORT', meaning: 'serve GET /metrics on a listener of its own at this port (default: off)' },
  { name: 'METRICS_HOST', meaning: "the metrics listener's address (default 127.0.0.1)" },
] as const);

export type VariableName = (typeof VARIABLES)[number]['name'];

/** The table as `--help` prints it: one variable a line, the meanings in one column. */
export function variablesHelp(): string {
  const width = Math.max(...VARIABLES.map((v) => v.name.length));
  return VARIABLES.map((v) => `  ${v.name.padEnd(width)}  ${v.meaning}\n`).join('');
}
