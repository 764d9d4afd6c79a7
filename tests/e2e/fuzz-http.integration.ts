/**
 * Issue 7, fuzzing over real sockets (fast slice of 5,000 cases; tests/soak/fuzz.soak.ts sends 20,000):
 * fuzzed requests and raw malformed HTTP against the real server process. 0 responses of 5xx,
 * no crash (health after every batch), every error body `{error, status, field?}` matching
 * the status line, well-formed requests' replies valid against openapi.json, and no generated
 * value in the server's output or any file written meanwhile. Seed printed; FUZZ_SEED replays;
 * FUZZ_HTTP_CASES overrides the count.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { runsFrom } from '../helpers/fuzz-bodies.ts';
import { Seen } from '../helpers/hardening-kit.ts';
import { fuzzServer } from '../helpers/http-fuzz.ts';
import { randomApiKey, startServer } from '../helpers/server.ts';

it('survives fuzzed and malformed HTTP over raw sockets: no 5xx, no crash, contract-shaped errors', async () => {
  const key = randomApiKey();
  const seen = new Seen();
  seen.add(key);
  const count = runsFrom('FUZZ_HTTP_CASES', 5_000);
  const server = await startServer({ apiKey: key, rateLimitPerMinute: 1_000_000 });
  let stats;
  try {
    stats = await fuzzServer(server, key, count, seen, { label: 'socket fuzz', batch: 1_000, lanes: 16 });
  } finally {
    assert.equal((await server.stop()).code, 0, 'clean exit after the fuzz');
  }
  process.stdout.write(`socket fuzz: ${JSON.stringify(stats)}\n`);
  assert.equal(stats.cases, count);
  assert.equal(Object.keys(stats.byStatus).filter((s) => Number(s) >= 500).length, 0);
  assert.ok(stats.malformed > count / 4 && stats.wellFormed > count / 4);
  const scanned = seen.assertNowhere([server.output()]);
  process.stdout.write(`socket fuzz leak check: ${JSON.stringify(scanned)}\n`);
});
