/**
 * The composition root: configuration -> metrics -> key store -> rate limiter -> app -> server ->
 * listen (and the metrics listener, when METRICS_PORT is set).
 * server.ts runs it for the process (and owns the signals, the exit and the "listening on"
 * line); the tests run it in-process, on a free port, with their own environment and log sink.
 *
 * A start that cannot go on (a bad variable, a missing asset, an unusable key file, an invalid
 * policy, a port in
 * use, the redis package missing) rejects with a StartError whose message is the one line
 * the operator sees.
 * @module
 */
import { X509Certificate } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type App } from '../http/app.ts';
import { AssetError, loadAssets, type Asset } from '../http/assets.ts';
import { requestCounts, type RequestCounts } from '../http/outstanding-replies.ts';
import { KeyStore, KeyStoreError } from '../keys/key-store.ts';
import { Logger, type Sink } from '../log/logger.ts';
import { PolicyStore, PolicyStoreError } from '../policies/policy-store.ts';
import { ServiceMetrics } from '../metrics/service-metrics.ts';
import { LocalLimits, SharedLimits, type ClientLimits } from '../rate-limit/client-limits.ts';
import { RateLimiter } from '../rate-limit/token-bucket.ts';
import { buildOf, type Build } from './build-info.ts';
import { parseConfig, type Config } from './config.ts';
import { ConfigError, type Env } from './env.ts';
import { startMetricsListener, type MetricsListener } from './metrics-listener.ts';
import { createService, listen, setSecureContext, shutdown } from './service.ts';
import { CertificateWatcher } from './tls.ts';

/** Why the service could not start, in one line for stderr. */
export class StartError extends Error {
  override readonly name = 'StartError';
}

export interface StartOptions {
  readonly env: Env;
  readonly cwd: string;
  /** Reads a served file (lib/http/assets.ts: from the project, or the single file's copies). */
  readonly readAsset: (file: string) => Buffer | null;
  /** How the operator issues a key, for the "no key configured" hint. */
  readonly keysCommand: string;
  /** Where log lines go; stdout by default. */
  readonly sink?: Sink;
  /** What is running (lib/server/build-info.ts); by default this module's own build. */
  readonly build?: Build;
}

export interface RunningService {
  readonly url: string;
  readonly address: AddressInfo;
  readonly config: Config;
  readonly logger: Logger;
  readonly server: Server;
  readonly build: Build;
  /** Where GET /metrics answers, or null when METRICS_PORT is not set. */
  readonly metricsUrl: string | null;
  /** Drains (lib/server/service.ts shutdown) and closes every watcher and store. Resolves
   * false when the grace period had to cut connections. `onStopAccepting` runs once the
   * listener is closed. */
  stop(onStopAccepting?: () => void): Promise<boolean>;
}

function configOf(env: Env, cwd: string): Config {
  try {
    return parseConfig(env, cwd);
  } catch (error) {
    if (error instanceof ConfigError) throw new StartError(`configuration error: ${error.message}`);
    throw error;
  }
}

function assetsOf(config: Config, read: (file: string) => Buffer | null): Asset[] {
  try {
    return loadAssets(read, { minEntropyBits: config.minEntropyBits });
  } catch (error) {
    if (error instanceof AssetError) throw new StartError(`cannot start: ${error.message}`);
    throw error;
  }
}

function keysOf(config: Config, logger: Logger, keysCommand: string, metrics: ServiceMetrics | null): KeyStore {
  const keys = new KeyStore({
    file: config.keysFile,
    fileExplicit: config.keysFileExplicit,
    envKey: config.apiKey,
    logger,
    onReload: metrics?.keyFileReloaded,
  });
  try {
    keys.start();
  } catch (error) {
    if (error instanceof KeyStoreError) throw new StartError(`configuration error: ${error.message}`);
    throw error;
  }
  if (!keys.configured) {
    // The one misconfiguration that still starts (a key may be issued while it runs), so it is
    // a warning with everything needed to fix it.
    logger.warn('no API key configured: POST /generate answers 503 until a key is issued', {
      keysFile: config.keysFile,
      issue: `${keysCommand} issue --holder NAME --file ${config.keysFile}`,
    });
  }
  return keys;
}

/** The named policies, when POLICIES_FILE is set: every one valid, or the start stops with one
 * line naming the policy and the field. */
function policiesOf(config: Config, logger: Logger, metrics: ServiceMetrics | null): PolicyStore | null {
  if (config.policiesFile === null) return null;
  const policies = new PolicyStore({
    file: config.policiesFile,
    minEntropyBits: config.minEntropyBits,
    logger,
    onReload: metrics?.policyFileReloaded,
  });
  try {
    policies.start();
  } catch (error) {
    if (error instanceof PolicyStoreError) throw new StartError(`configuration error: ${error.message}`);
    throw error;
  }
  return policies;
}

/** The metrics, when METRICS_PORT is set: with a state series for each file watched. */
function metricsOf(config: Config, build: Build): ServiceMetrics | null {
  if (config.metrics === null) return null;
  return new ServiceMetrics(build, { tls: config.tls !== null, policies: config.policiesFile !== null });
}

/** In-process buckets, or buckets shared through Redis with the in-process ones as fallback;
 * one line says which. */
async function limitsOf(config: Config, logger: Logger, metrics: ServiceMetrics | null): Promise<ClientLimits> {
  const limiter: RateLimiter = new RateLimiter({
    perMinute: config.rateLimitPerMinute,
    sweepIntervalMs: config.rateLimitSweepSeconds * 1000,
    // After each sweep at debug level: how many clients the limiter tracks (a count, no addresses).
    onSweep: logger.debugEnabled
      ? (dropped, tracked) => {
          logger.debug('rate limiter sweep', { dropped, tracked, evictions: limiter.evictions });
        }
      : undefined,
  });
  if (config.rateLimitRedis === null) {
    logger.info('rate limit store: in-process (each instance limits on its own)', { store: 'in-process' });
    return new LocalLimits(limiter);
  }
  // Loaded only here: without a Redis configured neither this module nor redis is imported.
  const { RedisPackageMissingError, RedisRateLimitStore } = await import('../rate-limit/redis-store.ts');
  try {
    const store = await RedisRateLimitStore.open({
      config: config.rateLimitRedis,
      limit: config.rateLimitPerMinute,
      fallback: limiter,
      logger,
      onStateChange: metrics?.redisStateChanged,
      onCall: metrics?.redisCall,
    });
    logger.info('rate limit store: Redis (shared between instances, in-process while it is out)', {
      store: 'redis',
      redis: config.rateLimitRedis.target,
      state: store.isShared ? 'shared' : 'fallback',
    });
    return new SharedLimits(store, limiter);
  } catch (error) {
    limiter.close();
    if (error instanceof RedisPackageMissingError) throw new StartError(`configuration error: ${error.message}`);
    throw error;
  }
}

/** The notAfter of the first (leaf) certificate of a PEM chain, Unix seconds; null if unreadable. */
export function certificateExpiry(pem: Buffer): number | null {
  try {
    const ms = Date.parse(new X509Certificate(pem).validTo);
    return Number.isNaN(ms) ? null : ms / 1000;
  } catch {
    return null;
  }
}

function certificatesOf(
  config: Config,
  server: Server,
  logger: Logger,
  metrics: ServiceMetrics | null,
): CertificateWatcher | null {
  if (config.tls === null) return null;
  const expires = (cert: unknown): void => {
    const at = Buffer.isBuffer(cert) ? certificateExpiry(cert) : null;
    if (at !== null) metrics?.certificateExpires(at);
  };
  expires(config.tls.cert);
  return new CertificateWatcher({
    files: config.tls,
    loaded: config.tls,
    logger,
    onReload: metrics?.tlsFilesReloaded,
    install: (o) => {
      setSecureContext(server, o);
      expires(o.cert);
    },
  });
}

/** GET /metrics on its own listener, figures read at each scrape. */
async function metricsListenerOf(
  config: Config,
  metrics: ServiceMetrics | null,
  server: Server,
  limits: ClientLimits,
  logger: Logger,
): Promise<MetricsListener | null> {
  if (config.metrics === null || metrics === null) return null;
  const { host, port } = config.metrics;
  const render = async (): Promise<string> => {
    await metrics.measureLag();
    return new Promise((resolve) => {
      server.getConnections((error, count) => {
        resolve(metrics.render({ openConnections: error === null ? count : 0, storeState: limits.state }));
      });
    });
  };
  try {
    return await startMetricsListener(host, port, render, logger);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new StartError(
      `cannot listen on ${host}:${port} for the metrics (${code}); check METRICS_PORT and METRICS_HOST`,
    );
  }
}

export async function startService(options: StartOptions): Promise<RunningService> {
  const config = configOf(options.env, options.cwd);
  const logger = new Logger(config.logLevel, options.sink);
  for (const warning of config.warnings) logger.warn(warning.message, warning.fields);
  const assets = assetsOf(config, options.readAsset);
  const build = options.build ?? buildOf(import.meta.url);
  const metrics = metricsOf(config, build);
  const keys = keysOf(config, logger, options.keysCommand, metrics);
  let policies: PolicyStore | null;
  try {
    policies = policiesOf(config, logger, metrics);
  } catch (error) {
    keys.close();
    metrics?.close();
    throw error;
  }
  const limits = await limitsOf(config, logger, metrics).catch((error: unknown) => {
    keys.close();
    policies?.close();
    metrics?.close();
    throw error;
  });
  const app: App = createApp({
    limits,
    keys,
    logger,
    assets,
    trustProxyHops: config.trustProxyHops,
    tls: config.tls !== null,
    minEntropyBits: config.minEntropyBits,
    policies: policies ?? undefined,
    build,
    metrics: metrics ?? undefined,
  });
  const requests = requestCounts();
  const server = createService({
    app,
    logger,
    requests,
    tls: config.tls,
    connections: config.connections,
    slots: {
      onRefused: metrics?.connectionRefused,
      onEvicted: metrics?.connectionEvicted,
      peersAreClients: config.trustProxyHops === 0,
    },
  });
  const certificates = certificatesOf(config, server, logger, metrics);
  let metricsListener: MetricsListener | null = null;
  const closeAll = async (): Promise<void> => {
    keys.close();
    policies?.close();
    certificates?.close();
    await metricsListener?.close();
    metrics?.close();
    await limits.close();
  };
  const address = await listen(server, config.port, config.host).catch(async (error: unknown) => {
    await closeAll();
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new StartError(`cannot listen on ${config.host}:${config.port} (${code}); check PORT and HOST`);
  });
  metricsListener = await metricsListenerOf(config, metrics, server, limits, logger).catch(async (error: unknown) => {
    await new Promise((done) => server.close(done));
    await closeAll();
    throw error;
  });
  certificates?.start();
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `${config.tls === null ? 'http' : 'https'}://${host}:${address.port}`,
    address,
    config,
    logger,
    server,
    build,
    metricsUrl: metricsListener?.url ?? null,
    stop: stopperOf(server, app, requests, logger, closeAll),
  };
}

/** The service's stop: drain, then one line saying what the drain did, then close the rest. */
function stopperOf(
  server: Server,
  app: App,
  requests: RequestCounts,
  logger: Logger,
  closeAll: () => Promise<void>,
): RunningService['stop'] {
  return async (onStopAccepting) => {
    const started = performance.now();
    requests.draining = true;
    const clean = await shutdown(server, app, undefined, onStopAccepting);
    const ms = Math.round(performance.now() - started);
    if (!clean) logger.error('shutdown grace period over; open connections were cut');
    // The last line of every stop: what the drain did (tests/server/shutdown-summary.test.ts).
    logger.info('shutdown complete', { drained: requests.drained, cut: requests.inFlight, ms });
    await closeAll();
    return clean;
  };
}
