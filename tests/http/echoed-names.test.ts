/**
 * U3 (docs/security.md, logs): a member name given twice is named in the 400 and the request
 * log only when it is plain and the path to it short (json-text.ts pathOf, the validator's
 * PLAIN_NAME); otherwise the reply says a member name is given twice, at most at the plain
 * start of the path. Before, the name came back whole, whatever it held: a 300-character name
 * with U+2028 went into the reply and the log line, and 5,400 nested arrays gave a 32 KB 400.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_NAMED_PATH } from '../../lib/http/json-text.ts';
import { startInProcess } from '../helpers/in-process.ts';
import { post } from '../helpers/http.ts';
import { randomApiKey, type RunningServer } from '../helpers/server.ts';
import { LINE_BREAKS } from '../helpers/unsafe-text.ts';

const GIVEN_TWICE = 'a member name is given twice in the request body';

describe('U3: names given twice are echoed only when plain and short', () => {
  const KEY = randomApiKey();
  let server: RunningServer;

  before(async () => {
    server = await startInProcess({ apiKey: KEY, rateLimitPerMinute: 10_000 });
  });

  after(async () => {
    assert.equal((await server.stop()).code, 0);
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
