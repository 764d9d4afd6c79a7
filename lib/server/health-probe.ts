/**
 * `credential-generator health`: asks the running service's /health over loopback and exits
 * 0 only for a 200, for container HEALTHCHECKs and supervisors that have no curl. It reads the
 * same PORT, HOST and TLS settings as the server, so one environment serves both.
 *
 * Over TLS the certificate is not verified: the probe checks that this host's server answers,
 * not who it is, and a certificate for a public name never matches 127.0.0.1 anyway.
 * @module
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Config } from './config.ts';

/** The address to probe: a wildcard listener is reached over loopback. */
export function probeHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '::1';
  return host;
}

/** Resolves with null for a 200, else with one line saying what went wrong. */
export function probeHealth(config: Pick<Config, 'host' | 'port' | 'tls'>, timeoutMs = 3_000): Promise<string | null> {
  if (config.port === 0) return Promise.resolve('PORT is 0 (any free port): set the port the server listens on');
  const options = {
    host: probeHost(config.host),
    port: config.port,
    path: '/health',
    method: 'GET',
    agent: false,
    timeout: timeoutMs,
    rejectUnauthorized: false,
  };
  return new Promise((resolve) => {
    const req = (config.tls === null ? httpRequest : httpsRequest)(options, (res) => {
      res.resume();
      resolve(res.statusCode === 200 ? null : `/health answered ${res.statusCode}`);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (error: NodeJS.ErrnoException) => {
      resolve(`/health unreachable (${error.code ?? error.message})`);
    });
    req.end();
  });
}
