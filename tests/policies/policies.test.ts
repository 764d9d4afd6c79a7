/**
 * Named policies (issue 30): the file's checks and exact bits at load, the request path (each
 * 400, metadata.policy, the reply of a policy equal to that of its options sent directly), the
 * watched store (a bad rewrite keeps the last good set and says why), the `policies check` CLI,
 * and the server: GET /generate, /ready, POST /generate and the home page.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate, plannedEntropy } from '../../lib/request/index.ts';
import { firstFailure, judgePolicies, policySetOf, summaries } from '../../lib/policies/policies.ts';
import { loadPolicies, PolicyStore, PolicyStoreError } from '../../lib/policies/policy-store.ts';
import { runPoliciesCli } from '../../lib/policies/policy-admin.ts';
import { withPolicies } from '../../lib/http/assets.ts';
import { seededRandom } from '../helpers/seeded.ts';
import { captureLogger } from '../helpers/log-capture.ts';
import { startInProcess } from '../helpers/in-process.ts';
import { randomApiKey } from '../helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-policies-unit-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});
let files = 0;
/** A policies file in the test's private directory (mode 0600, as an operator would leave it). */
function policiesFile(content: unknown): string {
  const file = join(dir, `policies-${files++}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content), { mode: 0o600 });
  return file;
}

const GOOD = {
  policies: {
    'db-root': { mode: 'password', options: { length: 32, includeSymbols: true }, description: 'Database root' },
    wifi: { mode: 'passphrase', options: { wordCount: 6, separator: 'space' }, minBits: 64 },
    'legacy.site': { mode: 'password', options: { passwordRules: 'minlength: 8; maxlength: 12; required: digit' } },
  },
};

/** The verdict of one policy of a file holding only it. */
function verdictOf(policy: unknown, floor = 0) {
  const v = judgePolicies(JSON.stringify({ policies: { p: policy } }), floor);
  assert.ok(v.ok);
  return v.verdicts[0];
}

describe('policies: checks at load, with exact bits', () => {
  it('loads valid policies with the bits a request sending their options gets', () => {
    const v = judgePolicies(JSON.stringify(GOOD), 0);
    assert.equal(firstFailure(v), null);
    const set = policySetOf(v);
    assert.deepEqual([...set.keys()], ['db-root', 'wifi', 'legacy.site']);
    for (const p of set.values()) {
      const direct = generate({ mode: p.mode, options: p.options, minBits: p.minBits }, seededRandom(1));
      assert.equal(direct.status, 200);
      if (direct.status === 200) assert.deepEqual(p.entropy, direct.body.entropy);
      const planned = plannedEntropy({ mode: p.mode, options: p.options, minBits: p.minBits });
      assert.ok(planned.ok && planned.bits === p.bits);
    }
    // Known figures: 6 EFF words, 6 x log2(7772).
    assert.equal(set.get('wifi')!.bits, 6 * Math.log2(7772));
    assert.equal(set.get('db-root')!.description, 'Database root');
    assert.equal(set.get('wifi')!.description, null);
    assert.deepEqual(summaries(set)[1], {
      name: 'wifi',
      mode: 'passphrase',
      description: null,
      entropy: set.get('wifi')!.entropy,
    });
  });

  it('loads deploy/policies.example.json whole, the password constraints of db-password included', () => {
    const text = readFileSync(new URL('../../deploy/policies.example.json', import.meta.url), 'utf8');
    const v = judgePolicies(text, 0);
    assert.equal(firstFailure(v), null);
    const set = policySetOf(v);
    assert.deepEqual([...set.keys()], ['db-root', 'db-password', 'legacy-erp', 'wifi-guest']);
    assert.deepEqual(set.get('db-password')!.options, {
      length: 20,
      includeSymbols: true,
      minNumbers: 2,
      minSymbols: 2,
      firstCharacter: ['lowercase', 'uppercase'],
      maxRepeating: 2,
    });
  });

  it('names the field of each kind of invalid policy, and why', () => {
    const cases: [unknown, string, RegExp][] = [
      [{}, 'mode', /mode is required/],
      [{ mode: 'pin' }, 'mode', /must be one of "password", "passphrase"/],
      [{ mode: 'password', extra: 1 }, 'extra', /not a field of a policy/],
      [{ mode: 'password', options: 'x' }, 'options', /must be an object/],
      [{ mode: 'password', description: 5 }, 'description', /must be a string/],
      [{ mode: 'password', options: { length: 3 } }, 'options.length', /between 8 and 128/],
      [{ mode: 'passphrase', options: { length: 20 } }, 'options.length', /not an option of mode passphrase/],
      [{ mode: 'password', minBits: 300 }, 'minBits', /between 0 and 256/],
      // Satisfiability: no class left, a class emptied by exclusions, a rule nothing meets.
      [
        { mode: 'password', options: { includeLowercase: false, includeUppercase: false, includeNumbers: false } },
        'options',
        /enable at least one/,
      ],
      [
        {
          mode: 'password',
          options: { includeUppercase: false, includeLowercase: false, excludedCharacters: '0123456789' },
        },
        'options.excludedCharacters',
        /numbers/,
      ],
      [{ mode: 'password', options: { passwordRules: 'minlength: 200' } }, 'options.passwordRules', /./],
      [{ mode: 'passphrase', options: { maxLength: 10 } }, 'options.maxLength', /./],
      // The password constraints (issue 30), between option values and against the schema.
      [{ mode: 'password', options: { minSymbols: 2 } }, 'options.minSymbols', /set options\.includeSymbols to true/],
      [
        { mode: 'password', options: { length: 12, minNumbers: 6, minUppercase: 6 } },
        'options.minNumbers',
        /minimums to 13/,
      ],
      [{ mode: 'password', options: { minClasses: 4 } }, 'options.minClasses', /includes 3 classes/],
      [{ mode: 'password', options: { firstCharacter: ['letters'] } }, 'options.firstCharacter', /non-empty list/],
      [
        { mode: 'password', options: { passwordRules: 'minlength: 12', maxRepeating: 2 } },
        'options.maxRepeating',
        /cannot be combined with options\.passwordRules/,
      ],
      // Its own floor.
      [{ mode: 'passphrase', minBits: 60 }, 'minBits', /51\.70 bits, below the requested minimum of 60/],
    ];
    for (const [policy, field, words] of cases) {
      const v = verdictOf(policy);
      assert.equal(v.ok, false, JSON.stringify(policy));
      if (!v.ok) {
        assert.equal(v.field, field, JSON.stringify(policy));
        assert.match(v.error, words, JSON.stringify(policy));
      }
    }
  });

  it("holds every policy to the operator's floor (MIN_ENTROPY_BITS), exactly at the bits", () => {
    const fourWords = 4 * Math.log2(7772);
    const atFloor = verdictOf({ mode: 'passphrase' }, fourWords);
    assert.equal(atFloor.ok, true);
    const above = verdictOf({ mode: 'passphrase' }, 52);
    assert.equal(above.ok, false);
    if (!above.ok) {
      assert.equal(above.field, 'minBits');
      assert.match(above.error, /^this service requires at least 52 bits; these options give 51\.70 bits$/);
    }
  });

  it('refuses a bad name, and a file whose own level is wrong, in one line', () => {
    const bad = judgePolicies(JSON.stringify({ policies: { 'Bad Name': { mode: 'password' } } }), 0);
    assert.ok(bad.ok);
    assert.equal(bad.verdicts[0].ok, false);
    assert.equal(
      firstFailure(bad),
      'policy "Bad Name", field name: a policy name is 1 to 64 of a-z, 0-9, ".", "_", "-", the first a letter or digit',
    );
    const long = 'a'.repeat(65);
    assert.match(
      firstFailure(judgePolicies(JSON.stringify({ policies: { [long]: { mode: 'password' } } }), 0))!,
      /field name/,
    );
    assert.match(
      firstFailure(judgePolicies(JSON.stringify({ policies: { ['a'.repeat(64)]: { mode: 'password' } } }), 0)) ?? 'ok',
      /^ok$/,
    );
    const table: [string, RegExp][] = [
      ['{', /^is not JSON/],
      ['[]', /must hold a JSON object/],
      ['{}', /^policies is required$/],
      ['{"policies": 3}', /^policies must be a number|^policies must be an object/],
      ['{"policies": {}, "x": 1}', /^x is not a field of the policies file/],
      [
        JSON.stringify({
          policies: Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`p${i}`, { mode: 'password' }])),
        }),
        /more than 256/,
      ],
    ];
    for (const [text, words] of table) {
      const v = judgePolicies(text, 0);
      assert.equal(v.ok, false, text.slice(0, 40));
      assert.match(firstFailure(v)!, words, text.slice(0, 40));
    }
    assert.equal(firstFailure(judgePolicies('{"policies": {}}', 0)), null, 'an empty set is valid');
  });

  it('reports the first invalid policy naming the policy and the field', () => {
    const v = judgePolicies(
      JSON.stringify({ policies: { good: { mode: 'password' }, bad: { mode: 'password', options: { length: 7 } } } }),
      0,
    );
    assert.equal(firstFailure(v), 'policy "bad", field options.length: options.length must be between 8 and 128');
    assert.deepEqual([...policySetOf(v).keys()], ['good']);
  });
});

describe('policies: the request path', () => {
  const set = policySetOf(judgePolicies(JSON.stringify(GOOD), 0));
  const settings = { policies: set };

  it('answers exactly what the same options sent directly get, plus metadata.policy (seeded)', () => {
    for (const p of set.values()) {
      for (const count of [1, 3]) {
        const named = generate({ mode: p.mode, policy: p.name, count }, seededRandom(42), settings);
        const direct = generate({ mode: p.mode, options: p.options, minBits: p.minBits, count }, seededRandom(42));
        assert.equal(named.status, 200);
        assert.equal(direct.status, 200);
        if (named.status !== 200 || direct.status !== 200) continue;
        const withPolicy = { ...direct.body.metadata, policy: p.name };
        assert.deepEqual(named.body, {
          ...direct.body,
          metadata: withPolicy,
          results: direct.body.results.map((r) => ({ ...r, metadata: withPolicy })),
        });
        assert.equal(named.body.metadata.policy, p.name);
      }
    }
    // A direct request carries no policy.
    const plain = generate({ mode: 'password' }, seededRandom(1), settings);
    assert.ok(plain.status === 200 && !('policy' in plain.body.metadata));
  });

  it('is a 400 naming the field: another mode, options or minBits beside it, an unknown name, a bad name', () => {
    const table: [unknown, string, RegExp][] = [
      [{ mode: 'passphrase', policy: 'db-root' }, 'mode', /^mode: that policy is of mode password$/],
      [{ mode: 'password', policy: 'db-root', options: {} }, 'options', /^options cannot be combined with policy$/],
      [{ mode: 'password', policy: 'db-root', minBits: 10 }, 'minBits', /^minBits cannot be combined with policy$/],
      [{ mode: 'password', policy: 'nope' }, 'policy', /^policy: no policy of that name/],
      [{ mode: 'password', policy: 'Nope!' }, 'policy', /^policy must be a policy name/],
      [{ mode: 'password', policy: 7 }, 'policy', /^policy must be a string$/],
    ];
    for (const [input, field, words] of table) {
      const out = generate(input, seededRandom(1), settings);
      assert.equal(out.status, 400, JSON.stringify(input));
      if (out.status === 400) {
        assert.equal(out.body.field, field, JSON.stringify(input));
        assert.match(out.body.error, words, JSON.stringify(input));
        assert.ok(!out.body.error.includes('nope'), 'the name is not echoed');
      }
    }
  });

  it('without policies configured, a request naming one is a 400 on policy that says so', () => {
    for (const settings of [{}, { policies: null }]) {
      const out = generate({ mode: 'password', policy: 'db-root' }, seededRandom(1), settings);
      assert.equal(out.status, 400);
      if (out.status === 400) {
        assert.equal(out.body.field, 'policy');
        assert.match(out.body.error, /no policies configured/);
      }
    }
  });

  it("a policy stored without a check is still held to the request's rules and the service floor", () => {
    const raw = new Map([['x', { mode: 'password' as const, options: { length: 4 } }]]);
    const out = generate({ mode: 'password', policy: 'x' }, seededRandom(1), { policies: raw });
    assert.ok(out.status === 400 && out.body.field === 'options.length');
    const floor = generate({ mode: 'passphrase', policy: 'wifi' }, seededRandom(1), {
      policies: set,
      minEntropyBits: 100,
    });
    assert.ok(floor.status === 400 && floor.body.field === 'minBits');
  });
});

describe('policies: the watched file', () => {
  it('refuses to start without the file, with an untrusted one, or with an invalid policy (one line)', () => {
    const { logger } = captureLogger();
    const missing = new PolicyStore({ file: join(dir, 'absent.json'), minEntropyBits: 0, logger });
    assert.throws(
      () => missing.start(),
      (e: Error) => e instanceof PolicyStoreError && /does not exist$/.test(e.message),
    );
    const open = policiesFile(GOOD);
    chmodSync(open, 0o666);
    assert.throws(
      () => new PolicyStore({ file: open, minEntropyBits: 0, logger }).start(),
      /writable by group or others/,
    );
    const link = join(dir, 'link.json');
    symlinkSync(policiesFile(GOOD), link);
    assert.equal(loadPolicies(link, 0).ok, false);
    const bad = policiesFile({ policies: { ok: { mode: 'password' }, weak: { mode: 'passphrase' } } });
    assert.throws(
      () => new PolicyStore({ file: bad, minEntropyBits: 60, logger }).start(),
      (e: Error) =>
        e.message ===
          `POLICIES_FILE ${bad} policy "weak", field minBits: this service requires at least 60 bits; these options give 51.70 bits` &&
        !e.message.includes('\n'),
    );
  });

  it('reloads a good rewrite, keeps the last good set on a bad one and says why, then recovers', async () => {
    const log = captureLogger('info');
    const file = policiesFile(GOOD);
    const outcomes: string[] = [];
    const store = new PolicyStore({
      file,
      minEntropyBits: 0,
      logger: log.logger,
      pollMs: 20,
      onReload: (outcome) => outcomes.push(outcome),
    });
    store.start();
    try {
      assert.deepEqual(store.status(), { state: 'loaded', count: 3 });
      const before = store.list();
      // A good rewrite (write-then-rename, as an operator's tooling would).
      const next = policiesFile({ policies: { only: { mode: 'passphrase', options: { wordCount: 5 } } } });
      renameSync(next, file);
      await log.waitFor(/"msg":"policies reloaded"/);
      assert.deepEqual([...store.current().keys()], ['only']);
      assert.notEqual(store.list(), before);
      assert.equal(store.get('db-root'), undefined);
      // A bad rewrite in place: the last good set stays, /ready's detail says why.
      let from = log.text().length;
      writeFileSync(file, JSON.stringify({ policies: { only: { mode: 'passphrase', options: { wordCount: 3 } } } }));
      await log.waitFor(/"msg":"policies file rejected; keeping the last good policies"/, 15_000, from);
      assert.equal(store.get('only')?.options.wordCount, 5);
      const status = store.status();
      assert.equal(status.state, 'stale');
      assert.equal(status.count, 1);
      // /ready's word; the reason in words is in the error log line only (U6).
      assert.equal(status.reason, 'schema');
      assert.match(
        log.text().slice(from),
        /"reason":"policy \\"only\\", field options.wordCount: options.wordCount must be between 4 and 8"/,
      );
      // Gone: still the last good set.
      from = log.text().length;
      rmSync(file);
      await log.waitFor(/policies file rejected[^\n]*"reason":"does not exist"/, 15_000, from);
      assert.equal(store.get('only')?.mode, 'passphrase');
      // Fixed: loaded again, and the reason is gone.
      from = log.text().length;
      writeFileSync(file, JSON.stringify(GOOD), { mode: 0o600 });
      await log.waitFor(/"msg":"policies reloaded"/, 15_000, from);
      assert.deepEqual(store.status(), { state: 'loaded', count: 3 });
      // Each change acted on reaches the metric's observer. The write in place can be polled
      // half-written, then whole: two rejections for one write, so the rejections are counted
      // as at least the two changes that caused them.
      const rejected = outcomes.slice(1, -1);
      assert.deepEqual([outcomes[0], outcomes.at(-1)], ['loaded', 'loaded'], outcomes.join());
      assert.ok(rejected.length >= 2 && rejected.every((o) => o === 'rejected'), outcomes.join());
    } finally {
      store.close();
      store.close();
    }
  });
});

describe('policies: the check command', () => {
  const run = (argv: string[], env: Record<string, string> = {}) => {
    let out = '';
    let err = '';
    const code = runPoliciesCli(argv, {
      env,
      cwd: dir,
      stdout: (t) => (out += t),
      stderr: (t) => (err += t),
    });
    return { code, out, err };
  };

  it("exits 0 and prints each policy's bits when all are valid", () => {
    const r = run(['check', policiesFile(GOOD)]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^ok {7}"db-root" password: \d+\.\d\d bits \(Excellent\)$/m);
    assert.match(r.out, /^ok {7}"wifi" passphrase: 77\.54 bits \(Strong\)$/m);
    assert.equal(r.out.trim().split('\n').length, 3);
    assert.match(r.err, /all 3 valid/);
  });

  it('exits 1 printing the error of each invalid one, and the bits of the rest', () => {
    const file = policiesFile({
      policies: { good: { mode: 'passphrase' }, bad: { mode: 'password', options: { length: 2 } } },
    });
    const r = run(['check', file]);
    assert.equal(r.code, 1);
    assert.match(r.out, /^ok {7}"good" passphrase: 51\.70 bits \(Fair\)$/m);
    assert.match(r.out, /^invalid {2}"bad" field options\.length: options\.length must be between 8 and 128$/m);
    assert.match(r.err, /1 of 2 invalid/);
    // The operator's floor from the environment, as the server applies it.
    const floored = run(['check', file], { MIN_ENTROPY_BITS: '60' });
    assert.equal(floored.code, 1);
    assert.match(floored.out, /"good" field minBits: this service requires at least 60 bits; /);
    assert.match(floored.err, /MIN_ENTROPY_BITS 60/);
  });

  it('exits 1 for a file it cannot read or use, 2 for a usage error, 0 for help', () => {
    assert.equal(run(['check', join(dir, 'none.json')]).code, 1);
    const broken = run(['check', policiesFile('{')]);
    assert.equal(broken.code, 1);
    assert.match(broken.err, /is not JSON/);
    assert.equal(run([]).code, 2);
    assert.equal(run(['check']).code, 2);
    assert.equal(run(['check', 'a', 'b']).code, 2);
    assert.equal(run(['list', 'a']).code, 2);
    assert.equal(run(['check', policiesFile(GOOD)], { MIN_ENTROPY_BITS: 'lots' }).code, 2);
    const help = run(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.out, /usage: npm run policies -- check FILE/);
  });
});

describe('policies: the server', () => {
  it('lists them at GET /generate, serves them at POST /generate, shows them in /ready and on the page', async () => {
    const apiKey = randomApiKey();
    const file = policiesFile(GOOD);
    const server = await startInProcess({ apiKey, env: { POLICIES_FILE: file, RATE_LIMIT_PER_MINUTE: '1000' } });
    try {
      const described = (await (await fetch(`${server.url}/generate`)).json()) as {
        policies: unknown[];
        request: { policy: { type: string } };
      };
      assert.equal(described.request.policy.type, 'string');
      assert.equal(described.policies.length, 3);
      assert.deepEqual(described.policies[0], {
        name: 'db-root',
        mode: 'password',
        description: 'Database root',
        entropy: verdictOf(GOOD.policies['db-root']).ok
          ? (verdictOf(GOOD.policies['db-root']) as { policy: { entropy: unknown } }).policy.entropy
          : null,
      });
      const post = (body: unknown) =>
        fetch(`${server.url}/generate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
          body: JSON.stringify(body),
        });
      const ok = await post({ mode: 'passphrase', policy: 'wifi', count: 2 });
      assert.equal(ok.status, 200);
      const body = (await ok.json()) as {
        count: number;
        value: string;
        metadata: { policy: string; wordCount: number };
      };
      assert.equal(body.metadata.policy, 'wifi');
      assert.equal(body.metadata.wordCount, 6);
      assert.equal(body.value.split(' ').length, 6);
      const refused = await post({ mode: 'password', policy: 'wifi' });
      assert.equal(refused.status, 400);
      assert.equal(((await refused.json()) as { field: string }).field, 'mode');
      const ready = (await (await fetch(`${server.url}/ready`)).json()) as Record<string, unknown>;
      assert.deepEqual(ready.policies, { state: 'loaded', count: 3 });
      const page = await (await fetch(`${server.url}/`)).text();
      assert.match(page, /<meta name="policies" content="\[\{&quot;name&quot;:&quot;db-root&quot;/);
      assert.match(server.output(), /"msg":"policies loaded"[^\n]*"policies":3/);
    } finally {
      await server.stop();
    }
  });

  it('does not start with an invalid policy: one line naming the policy and the field', async () => {
    const file = policiesFile({ policies: { short: { mode: 'password', options: { length: 6 } } } });
    await assert.rejects(startInProcess({ apiKey: randomApiKey(), env: { POLICIES_FILE: file } }), {
      name: 'StartError',
      message: `configuration error: POLICIES_FILE ${file} policy "short", field options.length: options.length must be between 8 and 128`,
    });
  });

  it('without POLICIES_FILE: no policies listed, no /ready detail, the page as built', async () => {
    const server = await startInProcess({ apiKey: randomApiKey() });
    try {
      const described = (await (await fetch(`${server.url}/generate`)).json()) as { policies: unknown[] };
      assert.deepEqual(described.policies, []);
      const ready = (await (await fetch(`${server.url}/ready`)).json()) as Record<string, unknown>;
      assert.equal('policies' in ready, false);
      assert.doesNotMatch(await (await fetch(`${server.url}/`)).text(), /name="policies"/);
    } finally {
      await server.stop();
    }
  });

  it('the page is given each policy as an attribute, escaped', () => {
    const page = Buffer.from('<head>\n  <meta name="min-entropy-bits" content="0">\n</head>');
    const set = policySetOf(
      judgePolicies(JSON.stringify({ policies: { x: { mode: 'password', description: '<b>"&"</b>' } } }), 0),
    );
    const out = withPolicies(page, set).toString();
    assert.match(out, /content="\[\{&quot;name&quot;:&quot;x&quot;.*&lt;b&gt;\\&quot;&amp;\\&quot;&lt;\/b&gt;/);
    const content = /<meta name="policies" content="([^"]*)">/.exec(out)![1];
    assert.doesNotMatch(content, /[<>"]/);
    assert.equal(withPolicies(page, new Map()), page, 'no policy: the page as it is');
    assert.equal(withPolicies(Buffer.from('body{}'), set).toString(), 'body{}', 'not the HTML: as it is');
  });
});
