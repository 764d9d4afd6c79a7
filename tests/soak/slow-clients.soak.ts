/**
 * Issue 7, slow clients (soak): 200 slow-header sockets (one header byte every 500 ms) and 20
 * slow-body sockets (one body byte a second) at once, against the real server with its
 * production limits (headersTimeout 5 s, requestTimeout 10 s, checked every 500 ms). Each
 * slow-header socket must be cut with a 408 within 6 s, each slow body within 11 s, while a
 * normal client keeps generating (its latencies before and during the attack are reported).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { slowClients } from '../helpers/chaos.ts';
import { Seen } from '../helpers/hardening-kit.ts';
import { randomApiKey, startServer } from '../helpers/server.ts';

it('200 slow-header sockets cut within 6 s, slow bodies within 11 s, a normal client unaffected', async () => {
  const key = randomApiKey();
  const seen = new Seen();
  seen.add(key);
  const server = await startServer({ apiKey: key, rateLimitPerMinute: 1_000_000 });
  try {
    const f = await slowClients(server, key, seen, { headers: 200, bodies: 20 });
    process.stdout.write(`slow clients: ${JSON.stringify(f)}\n`);
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
  const scanned = seen.assertNowhere([server.output()]);
  process.stdout.write(`slow clients leak check: ${JSON.stringify(scanned)}\n`);
});
