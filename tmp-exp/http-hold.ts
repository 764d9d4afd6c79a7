import { connect, type Socket } from 'node:net';
import { procStats, sleep } from '../tests/helpers/hardening-kit.ts';
import { randomApiKey, startServer } from '../tests/helpers/server.ts';
const ONE = 'GET /service-api.js HTTP/1.1\r\nHost: lo\r\n\r\n';
const server = await startServer({ apiKey: randomApiKey(), rateLimitPerMinute: 1e6, logLevel: 'warn' });
await sleep(300);
const base = procStats(server.pid).fds;
const socks: Socket[] = await Promise.all(Array.from({ length: 100 }, () => new Promise<Socket>((res) => {
  const s = connect({ host: '127.0.0.1', port: server.port }); s.pause(); s.on('error', () => undefined);
  s.once('connect', () => s.write(ONE.repeat(32), () => res(s))); s.once('close', () => res(s));
})));
while (procStats(server.pid).fds - base < 100) await sleep(20);
const t0 = performance.now(); let fewest = 1e9; let at = 0;
const trace: string[] = []; let last = 100;
while (performance.now() - t0 < 17_000) { await sleep(100); const f = procStats(server.pid).fds - base; if (f !== last) { trace.push(`${Math.round(performance.now() - t0)}:${f}`); last = f; } if (f < fewest) { fewest = f; at = performance.now() - t0; } }
console.log(trace.join(' '));
console.log('held fewest', fewest, 'at', Math.round(at), 'ms; closed by client side:', socks.filter((s) => s.destroyed || s.readableEnded).length);
for (const s of socks) s.destroy();
await server.stop();
