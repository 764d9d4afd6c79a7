/**
 * GET /metrics on a listener of its own (docs/deploy.md, Metrics): METRICS_PORT on
 * METRICS_HOST, loopback unless the operator says otherwise, so the figures are never served
 * on the public port, whoever can reach it. Only Prometheus (or a person on the host) asks;
 * there is nothing else on this listener, and no key.
 * @module
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LIMITS } from '../http/limits.ts';
import { pathOf } from '../http/request-checks.ts';
import { EXPOSITION_CONTENT_TYPE } from '../metrics/registry.ts';

export interface MetricsListener {
  /** e.g. http://127.0.0.1:9464/metrics */
  readonly url: string;
  close(): Promise<void>;
}

const TEXT = 'text/plain; charset=utf-8';

/** Listens, or rejects with the listen error (EADDRINUSE ...). */
export function startMetricsListener(
  host: string,
  port: number,
  render: () => Promise<string>,
): Promise<MetricsListener> {
  const server: Server = createServer(
    {
      headersTimeout: LIMITS.headersTimeout,
      requestTimeout: LIMITS.requestTimeout,
      keepAliveTimeout: LIMITS.keepAliveTimeout,
      connectionsCheckingInterval: LIMITS.connectionsCheckingInterval,
      maxHeaderSize: LIMITS.maxHeaderSize,
    },
    (req, res) => {
      const answer = (status: number, type: string, body: string, extra: string[] = []): void => {
        res.writeHead(status, [
          'Content-Type',
          type,
          'Content-Length',
          String(Buffer.byteLength(body)),
          'Cache-Control',
          'no-store',
          'X-Content-Type-Options',
          'nosniff',
          ...extra,
        ]);
        res.end(body);
      };
      if (pathOf(req.url ?? '') !== '/metrics') {
        answer(404, TEXT, 'not found: the metrics are at /metrics\n');
      } else if (req.method !== 'GET' && req.method !== 'HEAD') {
        answer(405, TEXT, 'method not allowed\n', ['Allow', 'GET, HEAD']);
      } else {
        void render().then((text) => {
          answer(200, EXPOSITION_CONTENT_TYPE, text);
        });
      }
    },
  );
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({
        url: `http://${shown}:${address.port}/metrics`,
        close: () =>
          new Promise((done) => {
            server.close(() => {
              done();
            });
            server.closeAllConnections();
          }),
      });
    });
  });
}
