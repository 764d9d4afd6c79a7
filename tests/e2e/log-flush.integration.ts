/**
 * The request log is written in batches (16 KB, or 100 ms after a batch's first line): a stop
 * must not lose the lines still waiting. Requests answered just before SIGTERM each have their
 * line in the output once the process has exited.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { randomApiKey, startServer } from '../helpers/server.ts';
import { post } from '../helpers/http.ts';

it('every request answered before SIGTERM has its log line after the exit (the pending batch is flushed)', async () => {
  const key = randomApiKey();
  const server = await startServer({ apiKey: key, rateLimitPerMinute: 100_000, logLevel: 'info' });
  const count = 12;
  const replies = await Promise.all(Array.from({ length: count }, () => post(server.url, key, { mode: 'passphrase' })));
  assert.deepEqual(
    replies.map((r) => r.status),
    Array.from({ length: count }, () => 200),
  );
  // At once, well inside the 100 ms batch window: the lines are still pending when the signal
  // arrives (unless the machine stalled for 100 ms, which makes this pass without testing the
  // flush, never fail).
  const status = await server.stop();
  assert.deepEqual(status, { code: 0, signal: null });
  const lines = server
    .output()
    .split('\n')
    .filter((l) => l.includes('"route":"/generate"') && l.includes('"status":200'));
  assert.equal(lines.length, count, server.output());
  for (const l of lines) assert.doesNotMatch(l, new RegExp(key), 'no key in the log');
});
