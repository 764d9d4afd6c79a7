/**
 * The Fastify peer of the benchmark (bench/fastify-peer.mjs) must do the contract work it is
 * compared on: the key, the limiter, the schema, the headers, the generator. It imports the
 * built dist/, so this runs in `npm run test:integration` (which builds dist/ first), not in
 * `npm test`. Nothing here is timed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { headerSets } from '../../lib/http/headers.ts';
import { contractErrors } from '../helpers/contract.ts';

describe('the Fastify peer (bench/fastify-peer.mjs, over the built dist/)', () => {
  const KEY = 'bench-smoke-key-0123456789';
  let app: { listen(o: object): Promise<string>; close(): Promise<void> };
  let url = '';
  const post = (body: unknown, key: string = KEY): Promise<Response> =>
    fetch(`${url}/generate`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Api-Key': key },
      body: JSON.stringify(body),
    });

  before(async () => {
    // A path computed at run time: the peer is plain JavaScript without types.
    const peer = join(fileURLToPath(import.meta.url), '..', '..', '..', 'bench', 'fastify-peer.mjs');
    const { buildPeer } = (await import(pathToFileURL(peer).href)) as {
      buildPeer: (o: { apiKey: string; rateLimitPerMinute: number }) => Promise<typeof app>;
    };
    app = await buildPeer({ apiKey: KEY, rateLimitPerMinute: 4 });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => app.close());

  it('answers a valid request with a contract body, the service headers and the rate-limit numbers', async () => {
    const reply = await post({ mode: 'passphrase', count: 3 });
    assert.equal(reply.status, 200);
    const body = await reply.json();
    // Its headers and body as openapi.json documents a 200 of POST /generate.
    assert.deepEqual(
      contractErrors({ method: 'POST', path: '/generate', status: 200, headers: reply.headers, body }),
      [],
    );
    assert.equal(body.results.length, 3);
    const fixed = headerSets(false).json;
    for (let i = 0; i < fixed.length; i += 2) assert.equal(reply.headers.get(fixed[i]), fixed[i + 1], fixed[i]);
    assert.equal(reply.headers.get('x-ratelimit-limit'), '4');
    assert.equal(reply.headers.get('x-ratelimit-remaining'), '3');
    assert.equal(reply.headers.get('ratelimit-policy'), '"client";q=4;w=60');
    assert.match(reply.headers.get('ratelimit')!, /^"client";r=3;t=\d+$/);
    assert.match(reply.headers.get('x-request-id')!, /^[A-Za-z0-9_-]{16}$/);
  });

  it('checks the key, validates the schema, and refuses past the limit', async () => {
    assert.equal((await post({ mode: 'password' }, 'not-the-key-0123456789')).status, 401);
    assert.equal((await post({ mode: 'password', count: 0 })).status, 400, 'count below the schema minimum');
    assert.equal((await post({ mode: 'password', colour: 'red' })).status, 400, 'a field the schema does not have');
    const limited = await post({ mode: 'password' });
    assert.equal(limited.status, 429, 'the fifth request of four a minute');
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
  });
});
