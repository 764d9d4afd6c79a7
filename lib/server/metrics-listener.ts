/**
 * GET /metrics on a listener of its own (docs/deploy.md, Metrics): METRICS_PORT on
 * METRICS_HOST, loopback unless the operator says otherwise, so the figures are never served
 * on the public port, whoever can reach it. Only Prometheus (or a person on the host) asks;
 * there is nothing else on this listener, and no key.
 *
 * In a container it must listen on 0.0.0.0, where anything on the scrape network reaches it,
 * on the event loop the public API shares. So it has the public listener's bounds on a client
 * that pipelines and never reads (security review T3; S1 in docs/security.md): at most
 * LIMITS.maxOutstandingReplies replies outstanding a connection, a reply taken every
 * LIMITS.socketIdleTimeout, the same socket inactivity timeout. And the requests that arrive
 * while a render is under way share it (sharedRender). A render also starts the event-loop
 * figures' window over (lib/metrics/service-metrics.ts): whoever reaches this listener can
 * shorten the window Prometheus sees, as before; no minimum interval, since two scrapes in
 * turn must each see the figures of their moment.
 * @module
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LIMITS, LISTENER_OPTIONS } from '../http/limits.ts';
import { withReplyCap } from '../http/outstanding-replies.ts';
import { pathOf } from '../http/request-checks.ts';
import type { Logger } from '../log/logger.ts';
import { EXPOSITION_CONTENT_TYPE } from '../metrics/registry.ts';

export interface MetricsListener {
  /** e.g. http://127.0.0.1:9464/metrics */
  readonly url: string;
  close(): Promise<void>;
}

const TEXT = 'text/plain; charset=utf-8';

/**
 * `render`, shared by every request that arrives while it is under way: the requests of one
 * read (a pipelined batch, or many connections at once) get one render. A request after it
 * has finished gets a new one, so two scrapes in turn never see the same figures.
 */
export function sharedRender(render: () => Promise<string>): () => Promise<string> {
  let pending: Promise<string> | null = null;
  return () => {
    pending ??= render().finally(() => {
      pending = null;
    });
    return pending;
  };
}

/** Listens, or rejects with the listen error (EADDRINUSE ...). */
export function startMetricsListener(
  host: string,
  port: number,
  render: () => Promise<string>,
  logger: Logger,
): Promise<MetricsListener> {
  const exposition = sharedRender(render);
  const server: Server = createServer(
    LISTENER_OPTIONS,
    withReplyCap((req, res) => {
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
        void exposition().then((text) => {
          answer(200, EXPOSITION_CONTENT_TYPE, text);
        });
      }
    }, logger),
  );
  // Socket inactivity: ends a connection whose client stopped reading its replies (S1).
  server.timeout = LIMITS.socketIdleTimeout;
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
