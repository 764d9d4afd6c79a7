/**
 * The program. With no argument (or `serve`) it runs the service: configuration -> key store ->
 * rate limiter -> app -> server -> listen, printing one line with the URL it listens on
 * (always, even with LOG_LEVEL=silent, because with PORT=0 it is the only way to learn the
 * port); SIGTERM/SIGINT drain and exit 0. `keys <command>` manages the key file (see
 * lib/http/key-admin.ts). The same code runs as `node --import tsx server.ts`, as
 * `dist/server.js` and bundled into the single file `dist/credential-generator.mjs`.
 * @module
 */
import { relative, isAbsolute } from 'node:path';
import { createApp } from './lib/http/app.ts';
import { AssetError, loadAssets, projectRoot, readFromEmbedded, readFromProject } from './lib/http/assets.ts';
import { ConfigError, parseConfig, type Config } from './lib/http/config.ts';
import { EMBEDDED_ASSETS } from './lib/http/embedded-assets.ts';
import { runKeysCli } from './lib/http/key-admin.ts';
import { probeHealth } from './lib/http/health-probe.ts';
import { KeyStore, KeyStoreError } from './lib/http/key-store.ts';
import { Logger } from './lib/http/logger.ts';
import { nodeSupport } from './lib/http/node-support.ts';
import { LocalLimits, SharedLimits, type ClientLimits } from './lib/rate-limit/client-limits.ts';
import { RateLimiter } from './lib/rate-limit/token-bucket.ts';
import { createService, listen, setSecureContext, shutdown } from './lib/http/service.ts';
import { CertificateWatcher } from './lib/http/tls.ts';

function die(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/** How the operator started this program, for usage texts and hints: `npm run keys --`,
 * `npm start --`, or `node <path as short as it can be said from here>`. */
function invokedAs(): string {
  const script = process.env.npm_lifecycle_event;
  if (script === 'start') return 'npm start --';
  if (script !== undefined && script !== '') return `npm run ${script} --`;
  const file = process.argv[1] ?? 'server.js';
  const shown = relative(process.cwd(), file);
  return `node ${shown !== '' && !shown.startsWith('..') && !isAbsolute(shown) ? shown : file}`;
}

/** The `keys` word after the program, unless npm already ran the `keys` script. */
function keysCommand(): string {
  return process.env.npm_lifecycle_event === 'keys' ? invokedAs() : `${invokedAs()} keys`;
}

function usage(): string {
  const program = invokedAs();
  return `usage: ${program} [serve]            run the service (configured by environment variables)
       ${program} keys <command>     manage API keys (${program} keys --help)
       ${program} health             exit 0 if the service configured here answers /health
`;
}

function configOrDie(): Config {
  try {
    return parseConfig(process.env, process.cwd());
  } catch (error) {
    if (error instanceof ConfigError) die(`configuration error: ${error.message}`);
    throw error;
  }
}

async function serve(): Promise<void> {
  // Builds with known HTTP parser or TLS vulnerabilities are refused before anything listens.
  const runtime = nodeSupport(process.version, new Date());
  if (!runtime.ok) die(runtime.message);
  const config = configOrDie();
  const logger = new Logger(config.logLevel);
  // Lines are written once per event-loop turn; whatever is pending goes out on any exit.
  process.on('exit', () => logger.flush());

  let assets;
  try {
    assets = loadAssets(EMBEDDED_ASSETS !== null ? readFromEmbedded(EMBEDDED_ASSETS) : readFromProject(projectRoot(import.meta.url)));
  } catch (error) {
    if (error instanceof AssetError) die(`cannot start: ${error.message}`);
    throw error;
  }

  const keys = new KeyStore({ file: config.keysFile, fileExplicit: config.keysFileExplicit, envKey: config.apiKey, logger });
  try {
    keys.start();
  } catch (error) {
    if (error instanceof KeyStoreError) die(`configuration error: ${error.message}`);
    throw error;
  }
  if (!keys.configured) {
    // The one misconfiguration that still starts (a key may be issued while it runs), so it is
    // a warning with everything needed to fix it.
    logger.warn('no API key configured: POST /generate answers 503 until a key is issued', {
      keysFile: config.keysFile,
      issue: `${keysCommand()} issue --holder NAME --file ${config.keysFile}`,
    });
  }
  const limiter: RateLimiter = new RateLimiter({
    perMinute: config.rateLimitPerMinute,
    // Once a minute at debug level: how many clients the limiter tracks (a count, no addresses).
    onSweep: logger.debugEnabled ? (dropped, tracked) => logger.debug('rate limiter sweep', { dropped, tracked, evictions: limiter.evictions }) : undefined,
  });
  let limits: ClientLimits;
  if (config.rateLimitRedis === null) {
    limits = new LocalLimits(limiter);
  } else {
    // Loaded only here: without RATE_LIMIT_REDIS_URL the redis package is never imported.
    const { RedisPackageMissingError, RedisRateLimitStore } = await import('./lib/rate-limit/redis-store.ts');
    try {
      const store = await RedisRateLimitStore.open({ config: config.rateLimitRedis, limit: config.rateLimitPerMinute, fallback: limiter, logger });
      limits = new SharedLimits(store, limiter);
    } catch (error) {
      if (error instanceof RedisPackageMissingError) die(`configuration error: ${error.message}`);
      throw error;
    }
  }
  const app = createApp({ limits, keys, logger, assets, trustProxyHops: config.trustProxyHops, tls: config.tls !== null });
  const server = createService({ app, logger, tls: config.tls });

  // Signal handlers go in before the URL is announced: whoever reads that line may signal at
  // once, and a SIGTERM that arrives before node has a handler kills the process outright.
  let stopping = false;
  let certificates: CertificateWatcher | null = null;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second signal means "now".
      process.exit(1);
    }
    stopping = true;
    const closing = shutdown(server, app, undefined, () => logger.info('shutting down', { signal, accepting: false }));
    void closing.then((clean) => {
      keys.close();
      certificates?.close();
      void limits.close().finally(() => {
        if (!clean) logger.error('shutdown grace period over; open connections were cut');
        process.exit(0);
      });
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  let address;
  try {
    address = await listen(server, config.port, config.host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    die(`cannot listen on ${config.host}:${config.port} (${code}); check PORT and HOST`);
  }
  if (config.tls !== null) {
    certificates = new CertificateWatcher({ files: config.tls, loaded: config.tls, logger, install: (options) => setSecureContext(server, options) });
    certificates.start();
  }
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `${config.tls === null ? 'http' : 'https'}://${host}:${address.port}`;
  if (runtime.warning !== null) logger.warn(runtime.warning);
  logger.flush(); // the start-up lines first, then the one that announces the URL
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: `listening on ${url}`, url })}\n`);
}

const [command, ...rest] = process.argv.slice(2);
switch (command) {
  case undefined:
  case 'serve':
    if (rest.length > 0) {
      process.stderr.write(`unexpected argument ${JSON.stringify(rest[0])}\n${usage()}`);
      process.exitCode = 2;
      break;
    }
    serve().catch((error: unknown) => {
      process.stderr.write(`fatal: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
    break;
  case 'keys':
    process.exitCode = runKeysCli(rest, {
      env: process.env,
      cwd: process.cwd(),
      stdout: (text) => void process.stdout.write(text),
      stderr: (text) => void process.stderr.write(text),
      program: keysCommand(),
    });
    break;
  case 'health':
    void probeHealth(configOrDie()).then((problem) => {
      if (problem !== null) process.stderr.write(`unhealthy: ${problem}\n`);
      process.exitCode = problem === null ? 0 : 1;
    });
    break;
  case 'help':
  case '--help':
  case '-h':
    process.stdout.write(usage());
    break;
  default:
    process.stderr.write(`unknown command ${JSON.stringify(command)}\n${usage()}`);
    process.exitCode = 2;
}
