/**
 * Composition root: configuration -> key store -> rate limiter -> app -> server -> listen.
 * Prints one line with the URL it listens on (always, even with LOG_LEVEL=silent, because
 * with PORT=0 it is the only way to learn the port); SIGTERM/SIGINT drain and exit 0.
 * @module
 */
import { loadAssets, projectRoot } from './lib/http/assets.ts';
import { createApp } from './lib/http/app.ts';
import { ConfigError, parseConfig } from './lib/http/config.ts';
import { KeyStore, KeyStoreError } from './lib/http/key-store.ts';
import { Logger } from './lib/http/logger.ts';
import { nodeSupport } from './lib/http/node-support.ts';
import { RateLimiter } from './lib/http/rate-limit.ts';
import { createService, listen, shutdown } from './lib/http/service.ts';

function die(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  // Builds with known HTTP parser or TLS vulnerabilities are refused before anything listens.
  const runtime = nodeSupport(process.version, new Date());
  if (!runtime.ok) die(runtime.message);
  let config;
  try {
    config = parseConfig(process.env, process.cwd());
  } catch (error) {
    if (error instanceof ConfigError) die(`configuration error: ${error.message}`);
    throw error;
  }
  const logger = new Logger(config.logLevel);
  // Lines are written once per event-loop turn; whatever is pending goes out on any exit.
  process.on('exit', () => logger.flush());
  const keys = new KeyStore({ file: config.keysFile, fileExplicit: config.keysFileExplicit, envKey: config.apiKey, logger });
  try {
    keys.start();
  } catch (error) {
    if (error instanceof KeyStoreError) die(`configuration error: ${error.message}`);
    throw error;
  }
  const limiter: RateLimiter = new RateLimiter({
    perMinute: config.rateLimitPerMinute,
    // Once a minute at debug level: how many clients the limiter tracks (a count, no addresses).
    onSweep: logger.debugEnabled ? (dropped, tracked) => logger.debug('rate limiter sweep', { dropped, tracked, evictions: limiter.evictions }) : undefined,
  });
  const assets = loadAssets(projectRoot(import.meta.url));
  const app = createApp({ limiter, keys, logger, assets, trustProxyHops: config.trustProxyHops, tls: config.tls !== null });
  const server = createService({ app, logger, tls: config.tls });

  let address;
  try {
    address = await listen(server, config.port, config.host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    die(`cannot listen on ${config.host}:${config.port} (${code}); check PORT and HOST`);
  }
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `${config.tls === null ? 'http' : 'https'}://${host}:${address.port}`;
  if (runtime.warning !== null) logger.warn(runtime.warning);
  logger.flush(); // the start-up lines first, then the one that announces the URL
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: `listening on ${url}`, url })}\n`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second signal means "now".
      process.exit(1);
    }
    stopping = true;
    logger.info('shutting down', { signal });
    void shutdown(server, app).then((clean) => {
      keys.close();
      limiter.close();
      if (!clean) logger.error('shutdown grace period over; open connections were cut');
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`fatal: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
