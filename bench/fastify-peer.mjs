// The peer users would pick: a Fastify 5 server doing the same contract work as the service's
// POST /generate, measured beside it in the same run (bench/http.ts). The same work means:
// the body read to the same 16 KB cap and parsed, the key checked as the service checks it
// (SHA-256, then timingSafeEqual on the digests), a token bucket per client address
// (@fastify/rate-limit, in memory, with its X-RateLimit-* headers; the IETF draft's
// RateLimit-Policy and RateLimit added from the same numbers), the request schema
// (spec/generate-request.schema.json) validated by ajv, an unbiased generator (this project's
// `generate()`, from the built request layer), the service's fixed response headers and a
// request id, and with LOG_LEVEL=info one JSON log line per request, as the service writes. It
// is a benchmark contender, not a second implementation of the contract: its 400 and 401 bodies
// are Fastify's or minimal. `generate()` validates its input again (it does not trust its
// caller), a second validation the peer pays for and the service does not.
//
//   API_KEY=... RATE_LIMIT_PER_MINUTE=1000000000 LOG_LEVEL=silent PORT=0 node bench/fastify-peer.mjs
//
// Prints the same listening line as server.ts, with the URL, and exits 0 on SIGTERM/SIGINT.
// Needs dist/ (npm run build:dist): the peer runs the same built JavaScript as the service.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import rateLimit from '@fastify/rate-limit';
import Ajv2020 from 'ajv/dist/2020.js';
import Fastify, { LogController } from 'fastify';
import { createRandom } from '../dist/lib/core/index.js';
import { generate } from '../dist/lib/request/index.js';
import { headerSets, policyOf } from '../dist/lib/http/headers.js';
import { PlanMemo } from '../dist/lib/http/plan-memo.js';
import { newRequestId } from '../dist/lib/http/request-id.js';
import { BODY_LIMIT_BYTES } from '../dist/lib/service/limits.js';

const SCHEMA = JSON.parse(readFileSync(new URL('../spec/generate-request.schema.json', import.meta.url), 'utf8'));

/** The service's fixed headers of a JSON reply, as one object. */
function fixedHeaders() {
  const flat = headerSets(false).json;
  const out = {};
  for (let i = 0; i < flat.length; i += 2) out[flat[i]] = flat[i + 1];
  return out;
}

const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest();

/**
 * The peer as a Fastify instance, not yet listening.
 * @param {{ apiKey: string, rateLimitPerMinute?: number, logLevel?: string }} options
 */
export async function buildPeer({ apiKey, rateLimitPerMinute = 20, logLevel = 'silent' }) {
  const digest = sha256(apiKey);
  const random = createRandom();
  // Plans through the server's own memo, as the server makes them: the same generator work.
  const settings = { plans: new PlanMemo() };
  const headers = fixedHeaders();
  const policy = policyOf(rateLimitPerMinute);
  const ajv = new Ajv2020({ strict: false });
  const app = Fastify({
    logger: logLevel === 'silent' ? false : { level: logLevel },
    // Its own two lines per request off: one line per request is written below, as the service does.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: () => newRequestId(),
  });
  app.setValidatorCompiler(({ schema }) => ajv.compile(schema));
  await app.register(rateLimit, { max: rateLimitPerMinute, timeWindow: 60_000 });
  // After the limiter (its hooks are the route's onRequest, and every onRequest hook runs
  // before any preParsing one), as the service answers 429 before 401; before the body is read.
  app.addHook('preParsing', (request, reply, payload, done) => {
    const presented = request.headers['x-api-key'];
    if (typeof presented === 'string' && timingSafeEqual(sha256(presented), digest)) return done(null, payload);
    reply.code(401).headers(headers).send({ error: 'missing or invalid API key', status: 401 });
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const remaining = reply.getHeader('x-ratelimit-remaining');
    const reset = reply.getHeader('x-ratelimit-reset');
    reply.header('RateLimit-Policy', policy);
    reply.header('RateLimit', `"client";r=${remaining};t=${reset}`);
    reply.header('X-Request-Id', request.id);
    done(null, payload);
  });
  if (logLevel !== 'silent') {
    app.addHook('onResponse', (request, reply, done) => {
      request.log.info(
        { method: request.method, route: '/generate', status: reply.statusCode, ms: reply.elapsedTime },
        'request',
      );
      done();
    });
  }
  app.post('/generate', { schema: { body: SCHEMA } }, (request, reply) => {
    const outcome = generate(request.body, random, settings);
    reply.code(outcome.status).headers(headers).send(outcome.body);
  });
  return app;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const app = await buildPeer({
    apiKey: process.env.API_KEY ?? '',
    rateLimitPerMinute: Number(process.env.RATE_LIMIT_PER_MINUTE ?? 20),
    logLevel: process.env.LOG_LEVEL ?? 'silent',
  });
  await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
  const { address, port, family } = app.server.address();
  const url = `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`;
  process.stdout.write(
    `${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: `listening on ${url}`, url })}\n`,
  );
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.on(signal, () => {
      app.close().then(() => process.exit(0));
      app.server.closeAllConnections();
    });
  }
}
