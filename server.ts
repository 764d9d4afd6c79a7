/**
 * The program. With no argument (or `serve`) it runs the service: configuration -> key store ->
 * rate limiter -> app -> server -> listen, printing one line with the URL it listens on
 * (always, even with LOG_LEVEL=silent, because with PORT=0 it is the only way to learn the
 * port); SIGTERM/SIGINT drain and exit 0. `keys <command>` manages the key file (see
 * lib/keys/key-admin.ts). The same code runs as `node --import tsx server.ts`, as
 * `dist/server.js` and bundled into the single file `dist/credential-generator.mjs`.
 * @module
 */
import { relative, isAbsolute } from 'node:path';
import type { Server } from 'node:http';
import { createApp, type App } from './lib/http/app.ts';
import {
  AssetError,
  loadAssets,
  projectRoot,
  readFromEmbedded,
  readFromProject,
  type Asset,
} from './lib/http/assets.ts';
import { ConfigError, parseConfig, type Config } from './lib/http/config.ts';
import { EMBEDDED_ASSETS } from './lib/http/embedded-assets.ts';
import { runKeysCli } from './lib/keys/key-admin.ts';
import { probeHealth } from './lib/http/health-probe.ts';
import { KeyStore, KeyStoreError } from './lib/keys/key-store.ts';
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

/** Runs a start-up step; an error it is known to raise stops the start with one line. */
function orDie<T>(step: () => T, known: (error: unknown) => string | null): T {
  try {
    return step();
  } catch (error) {
    const line = known(error);
    if (line !== null) die(line);
    throw error;
  }
}

function configOrDie(): Config {
  return orDie(
    () => parseConfig(process.env, process.cwd()),
    (e) => (e instanceof ConfigError ? `configuration error: ${e.message}` : null),
  );
}

function assetsOrDie(config: Config): Asset[] {
  return orDie(
    () =>
      loadAssets(
        EMBEDDED_ASSETS !== null ? readFromEmbedded(EMBEDDED_ASSETS) : readFromProject(projectRoot(import.meta.url)),
        { minEntropyBits: config.minEntropyBits },
      ),
    (e) => (e instanceof AssetError ? `cannot start: ${e.message}` : null),
  );
}

function keysOrDie(config: Config, logger: Logger): KeyStore {
  const keys = new KeyStore({
    file: config.keysFile,
    fileExplicit: config.keysFileExplicit,
    envKey: config.apiKey,
    logger,
  });
  orDie(
    () => {
      keys.start();
    },
    (e) => (e instanceof KeyStoreError ? `configuration error: ${e.message}` : null),
  );
  if (!keys.configured) {
    // The one misconfiguration that still starts (a key may be issued while it runs), so it is
    // a warning with everything needed to fix it.
    logger.warn('no API key configured: POST /generate answers 503 until a key is issued', {
      keysFile: config.keysFile,
      issue: `${keysCommand()} issue --holder NAME --file ${config.keysFile}`,
    });
  }
  return keys;
}

/** In-process buckets, or buckets shared through Redis with the in-process ones as fallback. */
async function openLimits(config: Config, logger: Logger): Promise<ClientLimits> {
  const limiter: RateLimiter = new RateLimiter({
    perMinute: config.rateLimitPerMinute,
    // Once a minute at debug level: how many clients the limiter tracks (a count, no addresses).
    onSweep: logger.debugEnabled
      ? (dropped, tracked) => {
          logger.debug('rate limiter sweep', { dropped, tracked, evictions: limiter.evictions });
        }
      : undefined,
  });
  if (config.rateLimitRedis === null) return new LocalLimits(limiter);
  // Loaded only here: without RATE_LIMIT_REDIS_URL neither this module nor redis is imported.
  const { RedisPackageMissingError, RedisRateLimitStore } = await import('./lib/rate-limit/redis-store.ts');
  try {
    const store = await RedisRateLimitStore.open({
      config: config.rateLimitRedis,
      limit: config.rateLimitPerMinute,
      fallback: limiter,
      logger,
    });
    return new SharedLimits(store, limiter);
  } catch (error) {
    if (error instanceof RedisPackageMissingError) die(`configuration error: ${error.message}`);
    throw error;
  }
}

/** SIGTERM/SIGINT drain and exit 0 (lib/http/service.ts, shutdown); a second signal exits 1. */
function stopOnSignals(server: Server, app: App, logger: Logger, closers: (() => unknown)[]): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(1);
    stopping = true;
    const closing = shutdown(server, app, undefined, () => {
      logger.info('shutting down', { signal, accepting: false });
    });
    void closing.then(async (clean) => {
      for (const close of closers) await close();
      if (!clean) logger.error('shutdown grace period over; open connections were cut');
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function serve(): Promise<void> {
  // Builds with known HTTP parser or TLS vulnerabilities are refused before anything listens.
  const runtime = nodeSupport(process.version, new Date());
  if (!runtime.ok) die(runtime.message);
  const config = configOrDie();
  const logger = new Logger(config.logLevel);
  // Request lines are written in batches (lib/http/logger.ts); whatever is pending goes out on any exit.
  process.on('exit', () => {
    logger.flush();
  });
  const assets = assetsOrDie(config);
  const keys = keysOrDie(config, logger);
  const limits = await openLimits(config, logger);
  const app = createApp({
    limits,
    keys,
    logger,
    assets,
    trustProxyHops: config.trustProxyHops,
    tls: config.tls !== null,
    minEntropyBits: config.minEntropyBits,
  });
  const server = createService({ app, logger, tls: config.tls });
  const certificates =
    config.tls === null
      ? null
      : new CertificateWatcher({
          files: config.tls,
          loaded: config.tls,
          logger,
          install: (o) => {
            setSecureContext(server, o);
          },
        });
  // Before the URL is announced: whoever reads that line may signal at once, and a SIGTERM
  // that arrives before node has a handler kills the process outright.
  stopOnSignals(server, app, logger, [
    () => {
      keys.close();
    },
    () => certificates?.close(),
    () => limits.close(),
  ]);

  const address = await listen(server, config.port, config.host).catch((error: unknown) =>
    die(
      `cannot listen on ${config.host}:${config.port} (${(error as NodeJS.ErrnoException).code ?? 'error'}); check PORT and HOST`,
    ),
  );
  certificates?.start();
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `${config.tls === null ? 'http' : 'https'}://${host}:${address.port}`;
  if (runtime.warning !== null) logger.warn(runtime.warning);
  logger.flush(); // the start-up lines first, then the one that announces the URL
  process.stdout.write(
    `${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: `listening on ${url}`, url })}\n`,
  );
}

const command = process.argv.at(2);
const rest = process.argv.slice(3);
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
