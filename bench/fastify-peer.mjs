// What a user would build: the POST /generate a Node developer would write with Fastify 5 and
// npm packages, measured beside the service in the same rounds (bench/http.ts). Written as the
// packages' documentation shows, with one validation per request:
//   - Fastify's logger (pino) at LOG_LEVEL, its default two lines per request at info
//     ("incoming request", "request completed");
//   - @fastify/rate-limit per client address (its X-RateLimit-* headers, Retry-After on 429);
//   - the API key: SHA-256 of X-Api-Key compared with the configured digest by timingSafeEqual,
//     in an onRequest hook after the limiter's;
//   - the body to Fastify's 16 KB bodyLimit, parsed by Fastify's JSON parser, and validated by
//     Fastify's own ajv against spec/generate-request.schema.json, set up as the contract asks
//     (no type coercion, unknown fields refused rather than removed, defaults applied by the
//     handler: ajv ignores those under oneOf; `$schema` and `$id` left
//     out and ajv's `next` vocabulary added, as Fastify's ajv is the draft-07 class);
//   - the passwords from generate-password (`strict`: every class at least once, drawn again
//     until it is there; its own symbol set), the entropy as length x log2(pool size), as such a server would
//     compute it, and the contract's body with Cache-Control: no-store, serialized by Fastify.
// Only mode password with the options generate-password offers is served (passphrases, rules
// and policies are a 400). A benchmark contender, not a second implementation of the contract.
//
//   API_KEY=... RATE_LIMIT_PER_MINUTE=1000000000 LOG_LEVEL=info PORT=0 node bench/fastify-peer.mjs
//
// Prints the same listening line as server.ts, with the URL, and exits 0 on SIGTERM/SIGINT.
import { createHash, timingSafeEqual } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import rateLimit from '@fastify/rate-limit';
import Fastify from 'fastify';
import nextVocabulary from 'ajv/dist/vocabularies/next.js';
import generator from 'generate-password';
import { exitOnSignals, printListening } from './listening.mjs';
import { PASSWORD_DEFAULTS, REQUEST_SCHEMA } from './password-defaults.mjs';

const { $schema, $id, ...SCHEMA } = REQUEST_SCHEMA;
void $schema;
void $id;

const SETS = {
  lowercase: 'abcdefghijklmnopqrstuvwxyz',
  uppercase: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  numbers: '0123456789',
  // generate-password's own set: given as a string, a set with ']' breaks the regular
  // expression its `strict` check builds from it, and the check then never passes.
  symbols: '!@#$%^&*()+_-=}{[]|:;"/?.><,`~',
};
const AMBIGUOUS = '0O1Il5S8B';
const SUPPORTED = new Set(Object.keys(PASSWORD_DEFAULTS));

function strength(bits) {
  if (bits >= 100) return { label: 'Excellent', level: 4 };
  if (bits >= 80) return { label: 'Very strong', level: 3 };
  if (bits >= 64) return { label: 'Strong', level: 2 };
  if (bits >= 50) return { label: 'Fair', level: 1 };
  return { label: 'Weak', level: 0 };
}

function addNextVocabulary(ajv) {
  ajv.addVocabulary(nextVocabulary.default ?? nextVocabulary);
}

const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest();

/**
 * The peer as a Fastify instance, not yet listening.
 * @param {{ apiKey: string, rateLimitPerMinute?: number, logLevel?: string }} options
 */
export async function buildPeer({ apiKey, rateLimitPerMinute = 20, logLevel = 'silent' }) {
  const digest = sha256(apiKey);
  const app = Fastify({
    logger: logLevel === 'silent' ? false : { level: logLevel },
    bodyLimit: 16 * 1024,
    // The schema's dependentSchemas is a keyword of ajv's `next` vocabulary, which the draft-07
    // class takes as a plugin.
    ajv: {
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false },
      plugins: [addNextVocabulary],
    },
  });
  await app.register(rateLimit, { max: rateLimitPerMinute, timeWindow: 60_000 });
  app.addHook('onRequest', async (request, reply) => {
    const presented = request.headers['x-api-key'];
    if (typeof presented !== 'string' || !timingSafeEqual(sha256(presented), digest)) {
      reply.code(401).header('Cache-Control', 'no-store');
      return reply.send({ error: 'missing or invalid API key', status: 401 });
    }
  });
  app.post('/generate', { schema: { body: SCHEMA } }, async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    const { mode, count = 1, options = {} } = request.body;
    const unsupported = Object.keys(options).find((name) => !SUPPORTED.has(name));
    if (mode !== 'password' || unsupported !== undefined || request.body.policy !== undefined) {
      reply.code(400);
      return { error: 'only mode password with its basic options is offered', status: 400 };
    }
    const o = { ...PASSWORD_DEFAULTS, ...options };
    const exclude = o.excludedCharacters + (o.avoidAmbiguous ? AMBIGUOUS : '');
    const classes = [];
    for (const [name, option] of [
      ['lowercase', o.includeLowercase],
      ['uppercase', o.includeUppercase],
      ['numbers', o.includeNumbers],
      ['symbols', o.includeSymbols],
    ]) {
      if (!option) continue;
      const size = [...SETS[name]].filter((c) => !exclude.includes(c)).length;
      if (size === 0) {
        reply.code(400);
        return {
          error: `options.excludedCharacters leaves no ${name}`,
          status: 400,
          field: 'options.excludedCharacters',
        };
      }
      classes.push({ name, size });
    }
    if (classes.length === 0) {
      reply.code(400);
      return { error: 'options must include at least one character class', status: 400, field: 'options' };
    }
    const values = generator.generateMultiple(count, {
      length: o.length,
      lowercase: o.includeLowercase,
      uppercase: o.includeUppercase,
      numbers: o.includeNumbers,
      symbols: o.includeSymbols,
      exclude,
      strict: true,
    });
    const poolSize = classes.reduce((sum, c) => sum + c.size, 0);
    const bits = o.length * Math.log2(poolSize);
    const entropy = { bits: Math.round(bits * 100) / 100, ...strength(bits) };
    const metadata = { entropyMode: 'uniform-each-class', poolSize, length: o.length, classes };
    const results = values.map((value) => ({ value, entropy, metadata }));
    return { mode, count, value: values[0], entropy, metadata, results };
  });
  return app;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const app = await buildPeer({
    apiKey: process.env.API_KEY ?? '',
    rateLimitPerMinute: Number(process.env.RATE_LIMIT_PER_MINUTE ?? 20),
    logLevel: process.env.LOG_LEVEL ?? 'info',
  });
  await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
  printListening(app.server.address());
  exitOnSignals(() => {
    const closed = app.close();
    app.server.closeAllConnections();
    return closed;
  });
}
