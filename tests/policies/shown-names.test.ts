/**
 * U7 (docs/security.md, files): names from a policies file (an unknown member, a policy's name)
 * reach the operator's terminal only escaped, whether `policies check` prints them or the
 * server refuses to start with them; and everything the keys CLI prints goes through the same
 * escape (lib/log/shown-text.ts). Before, `policies check` and the start-up refusal printed
 * such names raw: a file from someone else could write escape sequences to the terminal.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runKeysCli } from '../../lib/keys/key-admin.ts';
import { runPoliciesCli } from '../../lib/policies/policy-admin.ts';
import { launchServer } from '../helpers/server.ts';
import { TERMINAL_UNSAFE } from '../helpers/unsafe-text.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-shown-names-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const HOSTILE = '\u001b[2J\u001b]0;owned\u0007\u2028\u202eevil';
const ESCAPED = '\\x1b[2J\\x1b]0;owned\\x07\\u2028\\u202eevil';

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content), { mode: 0o600 });
  return path;
}

function check(path: string): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const code = runPoliciesCli(['check', path], {
    env: {},
    cwd: dir,
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
  });
  return { code, out, err };
}

describe('U7: names from files reach the terminal escaped', () => {
  it('U7: policies check escapes an unknown member of a policy, a policy name and an unknown member of the file', () => {
    const member = check(file('member.json', { policies: { p: { mode: 'password', [HOSTILE]: 1 } } }));
    assert.equal(member.code, 1);
    const name = check(file('name.json', { policies: { [HOSTILE]: { mode: 'password' } } }));
    assert.equal(name.code, 1);
    const top = check(file('top.json', { policies: {}, [HOSTILE]: 1 }));
    assert.equal(top.code, 1);
    for (const r of [member, name, top]) {
      const text = r.out + r.err;
      assert.ok(!TERMINAL_UNSAFE.test(text), JSON.stringify(text));
      assert.ok(text.includes('evil'), text);
    }
    assert.ok(member.out.includes(ESCAPED), member.out);
    assert.ok(top.err.includes(ESCAPED), top.err);
  });

  it('U7: the start-up refusal is one line, with the name escaped', async () => {
    const server = launchServer({
      env: { POLICIES_FILE: file('start.json', { policies: { p: { mode: 'password', [HOSTILE]: 1 } } }) },
    });
    const { code } = await server.exited;
    assert.equal(code, 1);
    const text = server.output();
    assert.match(text, /^configuration error: POLICIES_FILE /);
    assert.equal(text.trimEnd().split('\n').length, 1, text);
    assert.ok(!TERMINAL_UNSAFE.test(text), JSON.stringify(text));
    assert.ok(text.includes(ESCAPED), text);
  });

  it('U7: the keys CLI prints a path it was given escaped', () => {
    const keys = join(dir, `k${HOSTILE}`);
    mkdirSync(keys, { mode: 0o700 });
    let err = '';
    const code = runKeysCli(['list', '--file', join(keys, 'keys.json')], {
      env: {},
      cwd: dir,
      stdout: () => undefined,
      stderr: (t) => (err += t),
    });
    assert.equal(code, 0, err);
    assert.ok(!TERMINAL_UNSAFE.test(err), JSON.stringify(err));
    assert.ok(err.includes(ESCAPED), err);
  });
});
