/**
 * Errors a person can act on (issue 31, item 6), over real sockets in process: the 401's hint
 * for a key sent as `Authorization: Bearer`, the position of a JSON error, a member name given
 * twice, and the scanner behind the last two checked against JSON.parse.
 *
 * U3 (docs/security.md, logs): a member name given twice is named in the 400 and the request
 * log only when it is plain and the path to it short (json-text.ts pathOf, the validator's
 * PLAIN_NAME); otherwise the reply says a member name is given twice, at most at the plain
 * start of the path. Before, the name came back whole, whatever it held: a 300-character name
 * with U+2028 went into the reply and the log line, and 5,400 nested arrays gave a 32 KB 400.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rateLimitedBody } from '../../lib/http/errors.ts';
import { checkJsonText, MAX_NAMED_PATH, positionOf, repeatsAMember } from '../../lib/http/json-text.ts';
import { startInProcess } from '../helpers/in-process.ts';
import { post, request } from '../helpers/http.ts';
import type { RandomSource } from '../../lib/core/random.ts';
import { seededRandom } from '../helpers/seeded.ts';
import { randomApiKey, type RunningServer } from '../helpers/server.ts';
import { LINE_BREAKS } from '../helpers/unsafe-text.ts';

const GIVEN_TWICE = 'a member name is given twice in the request body';
const UNAUTHORIZED = { error: 'missing or invalid API key', status: 401 };
const HINTED = {
  error: 'missing or invalid API key: send the key in the X-Api-Key header, not Authorization',
  status: 401,
};

/** What `editedTexts` gives for a text JSON.parse refuses (JSON.parse never returns a symbol). */
const NOT_JSON = Symbol('not JSON');

/** 20,000 texts, each of `seeds` in turn changed by `edit` with one random source seeded `seed`,
 * and each text's value as JSON.parse reads it (NOT_JSON if it throws). */
function* editedTexts(
  seed: number,
  seeds: readonly string[],
  edit: (text: string, random: RandomSource) => string,
): Generator<{ text: string; parsed: unknown }> {
  const random = seededRandom(seed);
  for (let k = 0; k < 20_000; k++) {
    const text = edit(seeds[k % seeds.length], random);
    let parsed: unknown = NOT_JSON;
    try {
      parsed = JSON.parse(text);
    } catch {
      // NOT_JSON
    }
    yield { text, parsed };
  }
}

describe('actionable errors of POST /generate', () => {
  const KEY = randomApiKey();
  let server: RunningServer;

  before(async () => {
    server = await startInProcess({ apiKey: KEY, rateLimitPerMinute: 10_000 });
  });

  after(async () => {
    assert.equal((await server.stop()).code, 0);
  });

  it('T31-bearer: a key in Authorization and none in X-Api-Key gets the 401 with a hint, whatever the key', async () => {
    const replies = [];
    // the right key, a wrong one, another scheme: the hint depends only on the header's presence
    for (const authorization of [`Bearer ${KEY}`, `Bearer ${randomApiKey()}`, 'Basic dXNlcjpwYXNz', 'x']) {
      const r = await post(server.url, null, { mode: 'password' }, { headers: { authorization } });
      assert.equal(r.status, 401, authorization);
      assert.deepEqual(r.json, HINTED);
      assert.equal(r.headers['www-authenticate'], 'ApiKey realm="credential-generator", header="X-Api-Key"');
      replies.push(r.text);
    }
    assert.equal(new Set(replies).size, 1, 'one body for every Authorization value');
    // With X-Api-Key sent, Authorization changes nothing: every failing key, the same 401.
    for (const key of ['', 'wrong', randomApiKey()]) {
      const r = await post(server.url, key, { mode: 'password' }, { headers: { authorization: `Bearer ${KEY}` } });
      assert.equal(r.status, 401);
      assert.deepEqual(r.json, UNAUTHORIZED);
    }
    const none = await post(server.url, null, { mode: 'password' });
    assert.deepEqual(none.json, UNAUTHORIZED);
    const both = await post(server.url, KEY, { mode: 'password' }, { headers: { authorization: 'Bearer x' } });
    assert.equal(both.status, 200, 'a valid X-Api-Key is enough');
  });

  it('T31-duplicate: a member name given twice, at any depth and however escaped, is a 400 naming it', async () => {
    const cases: [string, string][] = [
      ['{"mode":"password","mode":"passphrase"}', 'mode'],
      ['{"mode":"passphrase","options":{"wordCount":5,"separator":"dot","wordCount":8}}', 'options.wordCount'],
      ['{"mode":"password","m\\u006fde":"passphrase"}', 'mode'],
      ['{"mode":"password","count":2,"options":{},"count":3}', 'count'],
      ['{"mode":"password","x":[{"a":1},{"b":1,"b":2}]}', 'x[1].b'],
    ];
    for (const [body, field] of cases) {
      const r = await post(server.url, KEY, body);
      assert.equal(r.status, 400, body);
      assert.deepEqual(r.json, { error: `${field} is given more than once in the request body`, status: 400, field });
      assert.doesNotMatch(r.text, /passphrase"|password"/, 'no value echoed');
    }
    // The same name in two different objects is no duplicate.
    const ok = await post(server.url, KEY, '{"mode":"passphrase","options":{"mode":1}}');
    assert.equal(ok.status, 400);
    assert.equal((ok.json as { field: string }).field, 'options.mode');
  });

  it('T31-json: an invalid body gets its position and never its text', async () => {
    const secret = 'hunter2-do-not-echo';
    for (const body of [`{"mode":"password","x":"${secret}"`, `{"mode":"password",${secret}}`, `${secret}`]) {
      const r = await post(server.url, KEY, body);
      assert.equal(r.status, 400);
      assert.match(
        (r.json as { error: string }).error,
        /^request body must be valid JSON: error at line 1, column \d+$/,
      );
      assert.ok(!r.text.includes('hunter'), r.text);
    }
  });

  it('T31-charset: a JSON body declared in another charset is told the charset is not supported', async () => {
    const r = await request(server.url, '/generate', {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json; charset=latin1' },
      body: '{"mode":"password"}',
    });
    assert.equal(r.status, 400);
    assert.deepEqual(r.json, { error: 'Content-Type charset is not supported: send the JSON as UTF-8', status: 400 });
  });

  /** The log lines written from output offset `from` on, each parsed. */
  const linesSince = (from: number): Record<string, unknown>[] =>
    server
      .output()
      .slice(from)
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  it('U3: a long name holding U+2028 is not echoed: the 400 says a name is given twice; the log line is one line', async () => {
    const name = `${'n'.repeat(150)}\u2028forged\u0085line\u202e${'m'.repeat(150)}`;
    const from = server.output().length;
    const top = await post(server.url, KEY, `{"mode":"password",${JSON.stringify(name)}:1,${JSON.stringify(name)}:2}`);
    assert.equal(top.status, 400);
    assert.deepEqual(top.json, { error: GIVEN_TWICE, status: 400 });
    const nested = await post(
      server.url,
      KEY,
      `{"mode":"password","options":{${JSON.stringify(name)}:1,${JSON.stringify(name)}:2}}`,
    );
    assert.deepEqual(nested.json, { error: GIVEN_TWICE, status: 400, field: 'options' });
    for (const r of [top, nested]) assert.ok(!/[\u2028\u0085\u202e]|forged|nnnn/.test(r.text), r.text);
    await new Promise((resolve) => setTimeout(resolve, 250)); // the log's batch timer (100 ms)
    const text = server.output().slice(from);
    assert.ok(!/[\u2028\u0085\u202e]|forged/.test(text), 'no such character, nor the name, in the log');
    const logged = linesSince(from).filter((l) => l.reason === 'duplicateMember');
    assert.deepEqual(
      logged.map((l) => l.field ?? null),
      [null, 'options'],
    );
    for (const line of text.trimEnd().split('\n')) assert.equal(line.split(LINE_BREAKS).length, 1, line);
  });

  it('U3: 5,400 nested arrays make a 400 of bounded size, naming at most the plain start of the path', async () => {
    const depth = 5_400;
    const body = `{"mode":"password","x":${'['.repeat(depth)}{"a":1,"a":2}${']'.repeat(depth)}}`;
    assert.ok(body.length < 16_384);
    const r = await post(server.url, KEY, body);
    assert.equal(r.status, 400);
    const json = r.json as { error: string; field: string };
    assert.equal(json.error, GIVEN_TWICE);
    assert.match(json.field, /^x(\[0\])+$/);
    assert.ok(json.field.length <= MAX_NAMED_PATH, json.field);
    assert.ok(r.text.length < 256, `${r.text.length} bytes`);
  });

  it('U3: a plain, short path is still named; an empty name is not', async () => {
    const named = await post(server.url, KEY, '{"mode":"passphrase","options":{"wordCount":5,"wordCount":6}}');
    assert.deepEqual(named.json, {
      error: 'options.wordCount is given more than once in the request body',
      status: 400,
      field: 'options.wordCount',
    });
    const empty = await post(server.url, KEY, '{"mode":"password","":1,"":2}');
    assert.deepEqual(empty.json, { error: GIVEN_TWICE, status: 400 });
    // Just over the bound: named by its start.
    const long = `${'k'.repeat(40)}`;
    const deep = await post(server.url, KEY, `{"mode":"password","options":{"${long}":{"${long}":{"b":1,"b":2}}}}`);
    assert.deepEqual(deep.json, { error: GIVEN_TWICE, status: 400, field: `options.${long}` });
  });
});

describe('rateLimitedBody', () => {
  it('gives the wait in whole seconds, as Retry-After does', () => {
    assert.deepEqual(rateLimitedBody(1), { error: 'rate limit exceeded: retry after 1 second', status: 429 });
    assert.deepEqual(rateLimitedBody(3), { error: 'rate limit exceeded: retry after 3 seconds', status: 429 });
  });
});

describe('checkJsonText', () => {
  it('agrees with JSON.parse on validity over 20,000 seeded mutations of valid bodies', () => {
    const seeds = [
      '{"mode":"password","count":2,"options":{"length":24,"excludedCharacters":"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9"}}',
      '[1,-0.5e+10,2E-3,true,false,null,"\\ud83d\\ude00",{},[],{"a":[{"b":{}}]}]',
      ' \t\r\n{ "a" : 0 , "b" : -0 } ',
    ];
    const alphabet = '{}[]":,.-+eE0123456789 \\/utrfalsn\n\t\u00e9\u0001x';
    let disagreements = 0;
    let invalid = 0;
    const mutated = editedTexts(31, seeds, (text, random) => {
      const chars = [...text];
      const edits = 1 + random.below(3);
      for (let j = 0; j < edits; j++) {
        const at = random.below(chars.length + 1);
        const op = random.below(3);
        const c = alphabet[random.below(alphabet.length)];
        if (op === 0) chars.splice(at, 1);
        else if (op === 1) chars.splice(at, 0, c);
        else chars[at] = c;
      }
      return chars.join('');
    });
    for (const { text, parsed } of mutated) {
      const check = checkJsonText(text);
      if (parsed === NOT_JSON) invalid++;
      if ((parsed !== NOT_JSON) !== (check.kind !== 'syntax')) disagreements++;
    }
    assert.equal(disagreements, 0);
    assert.ok(invalid > 5_000, `the mutations must reach invalid texts (${invalid})`);
  });

  it('names the first duplicate and the error position, lines and characters counted from 1', () => {
    assert.deepEqual(checkJsonText('{"a":{"b":1},"a":2}'), { kind: 'duplicate', path: 'a' });
    assert.deepEqual(checkJsonText('{"":1,"":2}'), { kind: 'duplicate', path: '' });
    assert.deepEqual(checkJsonText('[[1,{"x":1,"x":1}]]'), { kind: 'duplicate', path: '[0][1].x' });
    assert.deepEqual(checkJsonText('{"a":1}'), { kind: 'ok' });
    assert.deepEqual(checkJsonText('{\n"a":01}'), { kind: 'syntax', line: 2, column: 6 });
    assert.deepEqual(checkJsonText('"\u{1f600}\u{1f600}'), { kind: 'syntax', line: 1, column: 4 });
    assert.deepEqual(positionOf('ab\ncd', 5), { line: 2, column: 3 });
    // 8,000 levels deep: no recursion, no stack overflow
    assert.deepEqual(checkJsonText('['.repeat(8000) + ']'.repeat(8000)), { kind: 'ok' });
    assert.deepEqual(checkJsonText('['.repeat(8000)), { kind: 'syntax', line: 1, column: 8001 });
  });
});

describe('repeatsAMember (issue 40: the body is not scanned a second time unless a name repeats)', () => {
  it('says a name repeats exactly where checkJsonText finds a duplicate, over 20,000 seeded valid texts', () => {
    const seeds = [
      '{"mode":"password","count":2,"options":{"length":24,"excludedCharacters":"a:\\":b"}}',
      '[{"a":[{"b":{"c":1}}],"d":"x:y"},{"a":1},[{"e":null}]]',
      '{"__proto__":1,"a\u003a":2,"mo\u0064e":"password","mode":"password"}',
    ];
    const names = ['"a"', '"b"', '"mode"', '"mo\\u0064e"', '"__proto__"', '"a:"', '""', '"\\""'];
    let duplicates = 0;
    let checked = 0;
    const inserted = editedTexts(47, seeds, (seed, random) => {
      let text = seed;
      // Insert a member with a name from the list after a random `{`.
      for (let j = random.below(3); j >= 0; j--) {
        const opens = [...text.matchAll(/\{/g)].map((m) => m.index);
        const at = opens[random.below(opens.length)] + 1;
        const rest = text.slice(at);
        const member = `${names[random.below(names.length)]}:${random.below(2) === 0 ? '{"a":1}' : '"v:"'}`;
        text = `${text.slice(0, at)}${member}${rest.startsWith('}') ? '' : ','}${rest}`;
      }
      return text;
    });
    for (const { text, parsed } of inserted) {
      if (parsed === NOT_JSON) continue;
      checked++;
      const duplicate = checkJsonText(text).kind === 'duplicate';
      if (duplicate) duplicates++;
      assert.equal(repeatsAMember(text, parsed), duplicate, text);
    }
    assert.ok(checked > 19_000 && duplicates > 2_000 && checked - duplicates > 2_000, `${checked} ${duplicates}`);
  });

  it('counts members at any depth, 8,000 levels deep, and nothing for scalars', () => {
    const deep = `${'{"a":['.repeat(4000)}1${']}'.repeat(4000)}`;
    assert.equal(repeatsAMember(deep, JSON.parse(deep)), false);
    const repeated = `${'{"a":['.repeat(4000)}{"b":1,"b":2}${']}'.repeat(4000)}`;
    assert.equal(repeatsAMember(repeated, JSON.parse(repeated)), true);
    assert.equal(repeatsAMember('"a:b"', 'a:b'), false);
    assert.equal(repeatsAMember('{"a":1,"a":1}', { a: 1 }), true);
  });
});
