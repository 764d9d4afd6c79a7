/**
 * Passwords to a site's rules, drawn separators and the entropy floor, over real sockets
 * against real server processes: the hand vectors over HTTP, a rule whose passwords need JSON
 * escapes, and a server started with MIN_ENTROPY_BITS (its GET /generate, its home page's
 * `<meta>`, and its 400s, from the service's floor and from a request's minBits).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { describe as describeOptions } from '../../lib/service/describe.ts';
import { readRule, violation } from '../helpers/rules-checker.ts';
import { randomApiKey, startServer, type RunningServer } from '../helpers/server.ts';
import { assertCommonHeaders, Ledger, post, request } from '../helpers/http.ts';

const KEY = randomApiKey();
const ledger = new Ledger();
ledger.add(KEY);

interface Body {
  value: string;
  entropy: { bits: number; label: string; level: number };
  metadata: Record<string, unknown>;
  results: { value: string }[];
}

const FOUR_CLASSES = 'required: upper; required: lower; required: digit; required: special';

describe('a server without a floor', () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({ apiKey: KEY, rateLimitPerMinute: 1000 });
  });
  after(async () => {
    const { code } = await server.stop();
    assert.equal(code, 0);
    ledger.assertAbsentFrom(server.output());
  });

  async function generated(body: unknown): Promise<Body> {
    const r = await post(server.url, KEY, body);
    assert.equal(r.status, 200, r.text);
    assertCommonHeaders(r);
    ledger.addGenerated(r.json);
    return r.json as Body;
  }

  it('the hand vectors over HTTP: 104.83 bits (length 16, one of each of 4 classes of ascii-printable) and 119.04 bits', async () => {
    const four = await generated({ mode: 'password', options: { length: 16, passwordRules: FOUR_CLASSES } });
    assert.deepEqual(four.entropy, { bits: 104.83, label: 'Excellent', level: 4 });
    assert.equal(four.metadata.entropyMode, 'uniform-rules');
    assert.equal(violation(readRule(FOUR_CLASSES), four.value), null);
    const letters = await generated({
      mode: 'password',
      options: { length: 20, passwordRules: 'required: lower, upper; required: digit' },
    });
    assert.deepEqual(letters.entropy, { bits: 119.04, label: 'Excellent', level: 4 });
    assert.match(letters.value, /^[A-Za-z0-9]{20}$/);
  });

  it('max-repeating, max-sequential and max-consecutive over HTTP: exact counts, the echo of what was applied, the refusal', async () => {
    // 110 strings: walks of 7 steps on the path 2-0-3-1 (no repeat, no neighbours side by side).
    const walks = await generated({
      mode: 'password',
      count: 5,
      options: { length: 8, passwordRules: 'allowed: [0123]; max-repeating: 1; max-sequential: 1' },
    });
    assert.equal(walks.entropy.bits, Math.round(Math.log2(110) * 100) / 100);
    assert.equal(walks.metadata.passwordRules, 'max-repeating: 1; max-sequential: 1; allowed: [0123];');
    for (const { value } of walks.results) assert.doesNotMatch(value, /(.)\1|01|12|23|10|21|32/, value);
    // The alias sets both: a..h each required in 8 characters, no neighbours side by side.
    const text = [...'abcdefgh'].map((c) => `required: [${c}]`).join('; ') + '; max-consecutive: 1';
    const perms = await generated({ mode: 'password', options: { length: 8, passwordRules: text } });
    assert.equal(perms.entropy.bits, Math.round(Math.log2(5242) * 100) / 100);
    assert.match(String(perms.metadata.passwordRules), /^max-repeating: 1; max-sequential: 1; required: \[a\];/);
    assert.equal(violation(readRule(text), perms.value), null, perms.value);
    const refused = await post(server.url, KEY, {
      mode: 'password',
      options: { passwordRules: 'required: [b]; allowed: [abc]; max-consecutive: 1' },
    });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.json, {
      error:
        'options.passwordRules: no password of length 24 satisfies the rule: max-sequential 1 keeps neighbours such as "ab" or "21" apart, and the allowed characters leave no other way',
      status: 400,
      field: 'options.passwordRules',
    });
  });

  it('sends passwords holding " and \\ as valid JSON, each satisfying the rule', async () => {
    const text = 'required: ["]; required: [\\]; allowed: [ab]';
    const body = await generated({ mode: 'password', count: 20, options: { passwordRules: text, length: 12 } });
    for (const { value } of body.results) assert.equal(violation(readRule(text), value), null, value);
  });

  it('draws digit and symbol separators, and publishes no floor', async () => {
    const digits = await generated({ mode: 'passphrase', options: { separator: 'digit', addNumber: true } });
    assert.match(digits.value, /^[a-z]+(\d[a-z]+){3}\d\d\d$/);
    assert.deepEqual(digits.entropy, { bits: 71.63, label: 'Strong', level: 2 });
    const symbols = await generated({ mode: 'passphrase', options: { separator: 'symbol', wordCount: 5 } });
    assert.match(symbols.value, /^[a-z]+([!@#$%^&*()\-_=+[\]{};:,.?][a-z]+){4}$/);
    const d = await request(server.url, '/generate');
    assert.equal((d.json as { limits: { minEntropyBits: number } }).limits.minEntropyBits, 0);
  });
});

describe('a server started with MIN_ENTROPY_BITS=60', () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({ apiKey: KEY, rateLimitPerMinute: 1000, env: { MIN_ENTROPY_BITS: '60' } });
  });
  after(async () => {
    const { code } = await server.stop();
    assert.equal(code, 0);
    ledger.assertAbsentFrom(server.output());
  });

  it('publishes its floor at GET /generate', async () => {
    const r = await request(server.url, '/generate');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, describeOptions({ rateLimitPerMinute: 1000, minEntropyBits: 60 }));
  });

  it('writes its floor into the home page it serves (at / and /index.html)', async () => {
    for (const path of ['/', '/index.html']) {
      const r = await request(server.url, path);
      assert.equal(r.status, 200);
      assert.match(r.text, /<meta name="min-entropy-bits" content="60">/);
      assert.doesNotMatch(r.text, /content="0">/);
    }
  });

  it('refuses options below it with a 400 naming minBits and both figures, and serves those at or above it', async () => {
    const low = await post(server.url, KEY, { mode: 'passphrase' });
    assert.equal(low.status, 400);
    assertCommonHeaders(low);
    assert.deepEqual(low.json, {
      error: 'this service requires at least 60 bits; these options give 51.70 bits',
      status: 400,
      field: 'minBits',
    });
    const ok = await post(server.url, KEY, { mode: 'passphrase', options: { wordCount: 5 } });
    assert.equal(ok.status, 200);
    ledger.addGenerated(ok.json);
    const rule = await post(server.url, KEY, {
      mode: 'password',
      options: { passwordRules: 'minlength: 8; maxlength: 8; allowed: lower' },
    });
    assert.deepEqual(rule.json, {
      error: 'this service requires at least 60 bits; these options give 37.60 bits',
      status: 400,
      field: 'minBits',
    });
  });

  it("names the request's minBits when it asks for more than the service", async () => {
    const r = await post(server.url, KEY, { mode: 'passphrase', minBits: 70, options: { wordCount: 5 } });
    assert.deepEqual(r.json, {
      error: 'minBits: these options give 64.62 bits, below the requested minimum of 70 bits',
      status: 400,
      field: 'minBits',
    });
  });
});
