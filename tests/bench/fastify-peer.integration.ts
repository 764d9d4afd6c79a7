/**
 * The Fastify peer of the benchmark (bench/fastify-peer.mjs) is what a user would build, and it
 * must still do the work it is compared on: the key, the limiter and its headers, the request
 * schema validated once by Fastify's own ajv (no coercion, unknown fields refused), the
 * generator with every class present, a contract body served no-store. Nothing here is timed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { validatorAt, type GenerateReply } from '../helpers/contract.ts';

describe('the Fastify peer (bench/fastify-peer.mjs)', () => {
  const KEY = 'bench-smoke-key-0123456789';
  let app: { listen(o: object): Promise<string>; close(): Promise<void> };
  let url = '';
  const post = (body: unknown, key: string = KEY): Promise<Response> =>
    fetch(`${url}/generate`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Api-Key': key },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  before(async () => {
    // A path computed at run time: the peer is plain JavaScript without types.
    const peer = join(fileURLToPath(import.meta.url), '..', '..', '..', 'bench', 'fastify-peer.mjs');
    const { buildPeer } = (await import(pathToFileURL(peer).href)) as {
      buildPeer: (o: { apiKey: string; rateLimitPerMinute: number }) => Promise<typeof app>;
    };
    app = await buildPeer({ apiKey: KEY, rateLimitPerMinute: 8 });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => app.close());

  it('answers a valid request with a contract body, no-store and the rate-limit numbers', async () => {
    const reply = await post({ mode: 'password', count: 3, options: { length: 12 } });
    assert.equal(reply.status, 200);
    const body: GenerateReply = await reply.json();
    const isResponse = validatorAt('/components/schemas/GenerateResponse');
    const valid = isResponse(body); // not as a type guard: it would narrow body to unknown
    assert.ok(valid, JSON.stringify(isResponse.errors));
    assert.equal(body.results.length, 3);
    for (const { value } of body.results) {
      assert.equal(value.length, 12);
      for (const set of [/[a-z]/, /[A-Z]/, /[0-9]/]) assert.match(value, set);
    }
    assert.equal(reply.headers.get('cache-control'), 'no-store');
    assert.equal(reply.headers.get('x-ratelimit-limit'), '8');
    assert.equal(reply.headers.get('x-ratelimit-remaining'), '7');
    // Symbols: generate-password's own set, every password with one.
    const symbols = await (
      await post({ mode: 'password', count: 3, options: { length: 8, includeSymbols: true } })
    ).json();
    for (const { value } of symbols.results as { value: string }[]) assert.match(value, /[^a-zA-Z0-9]/);
  });

  it('checks the key, validates the schema once without coercion, and refuses past the limit', async () => {
    assert.equal((await post({ mode: 'password' }, 'not-the-key-0123456789')).status, 401);
    assert.equal((await post({ mode: 'password', count: 0 })).status, 400, 'count below the schema minimum');
    assert.equal((await post({ mode: 'password', colour: 'red' })).status, 400, 'a field the schema does not have');
    assert.equal((await post({ mode: 'password', options: { length: '24' } })).status, 400, 'no coercion');
    assert.equal((await post({ mode: 'passphrase' })).status, 400, 'not offered by generate-password');
    let limited = await post({ mode: 'password' });
    for (let i = 0; i < 10 && limited.status !== 429; i++) limited = await post({ mode: 'password' });
    assert.equal(limited.status, 429, 'past eight a minute');
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
  });
});
