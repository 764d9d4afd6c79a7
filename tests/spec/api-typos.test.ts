/**
 * docs/api.md, "Typos": every row of its table is what the service answers to that body
 * (through generate(), the path of the server and of the page), so the page cannot drift.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { generate } from '../../lib/request/index.ts';
import { ROOT } from '../../spec/build.ts';

const doc = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');
const section = doc.slice(doc.indexOf('### Typos'), doc.indexOf('### Headers on every reply'));
const rows = [...section.matchAll(/^\| `(\{.*\})` \| `([^`]+)`.*\|$/gm)].map((m) => [m[1], m[2]] as const);

describe('docs/api.md, Typos', () => {
  it('has its table', () => assert.ok(rows.length >= 6, `${rows.length} rows`));
  for (const [body, error] of rows) {
    it(body, () => {
      const outcome = generate(JSON.parse(body) as unknown);
      assert.equal(outcome.status, 400);
      assert.equal((outcome.body as { error: string }).error, error);
    });
  }
});
