/**
 * RATE_LIMIT_REDIS_* parsing: unset means no Redis at all; every bad value is one error that
 * names its variable and never shows the URL or a password; the password can come from a file.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, type ConfigWarning } from '../../lib/server/env.ts';
import { DEFAULT_REDIS_PREFIX, DEFAULT_REDIS_TIMEOUT_MS, parseRedisConfig } from '../../lib/server/redis-config.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-redis-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = 'hunter2-S3cret';

/** The error's message, after checking it names `variable` first and leaks no secret. */
function failure(env: Record<string, string>, variable: string): string {
  let caught: unknown;
  try {
    parseRedisConfig(env, dir);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ConfigError, `expected an error for ${JSON.stringify(env)}`);
  assert.equal(caught.variable, variable);
  assert.ok(caught.message.startsWith(`${variable} `), caught.message);
  assert.ok(!caught.message.includes('\n'), 'one line');
  assert.ok(!caught.message.includes(SECRET) && !caught.message.includes('hunter2'), `no secret in: ${caught.message}`);
  return caught.message;
}

describe('RATE_LIMIT_REDIS_* configuration', () => {
  it('unset or empty: null (no Redis, nothing loaded)', () => {
    assert.equal(parseRedisConfig({}, dir), null);
    assert.equal(parseRedisConfig({ RATE_LIMIT_REDIS_URL: '' }, dir), null);
  });

  it('another Redis setting without the URL is an error, not silently ignored', () => {
    for (const name of ['RATE_LIMIT_REDIS_PASSWORD_FILE', 'RATE_LIMIT_REDIS_PREFIX', 'RATE_LIMIT_REDIS_TIMEOUT_MS']) {
      assert.match(failure({ [name]: 'x' }, name), /is set but RATE_LIMIT_REDIS_URL is not/);
    }
  });

  it('takes the URL apart: host, port, TLS, user, password, database; defaults for the rest', () => {
    assert.deepEqual(parseRedisConfig({ RATE_LIMIT_REDIS_URL: 'redis://cache.internal' }, dir), {
      host: 'cache.internal',
      port: 6379,
      tls: false,
      username: undefined,
      password: undefined,
      database: 0,
      target: 'redis://cache.internal:6379/0',
      prefix: DEFAULT_REDIS_PREFIX,
      timeoutMs: DEFAULT_REDIS_TIMEOUT_MS,
    });
    const full = parseRedisConfig(
      { RATE_LIMIT_REDIS_URL: `rediss://svc-user:${encodeURIComponent(`${SECRET}@:/`)}@[2001:db8::7]:6380/3` },
      dir,
    )!;
    assert.equal(full.host, '2001:db8::7');
    assert.equal(full.port, 6380);
    assert.equal(full.tls, true);
    assert.equal(full.username, 'svc-user');
    assert.equal(full.password, `${SECRET}@:/`, 'percent-escapes decoded');
    assert.equal(full.database, 3);
    assert.equal(full.target, 'rediss://[2001:db8::7]:6380/3');
    assert.ok(!full.target.includes('svc-user') && !full.target.includes('hunter2'), 'the target names no credentials');
    assert.equal(parseRedisConfig({ RATE_LIMIT_REDIS_URL: 'redis://h/' }, dir)!.database, 0);
    assert.equal(parseRedisConfig({ RATE_LIMIT_REDIS_URL: `redis://:${SECRET}@h` }, dir)!.password, SECRET);
    assert.equal(parseRedisConfig({ RATE_LIMIT_REDIS_URL: `redis://:${SECRET}@h` }, dir)!.username, undefined);
  });

  it('rejects bad URLs with one line that never shows the URL', () => {
    const bad: [string, RegExp][] = [
      [`not a url ${SECRET}`, /is not a valid URL/],
      [`http://u:${SECRET}@h:6379`, /must start with redis:\/\/ or rediss:\/\//],
      [`redis://u:${SECRET}@h:70000`, /is not a valid URL/],
      [`redis://u:${SECRET}@h:0`, /port 0/],
      [`redis://u:${SECRET}@h/abc`, /database number/],
      [`redis://u:${SECRET}@h/1/2`, /database number/],
      [`redis://u:${SECRET}@h/-1`, /database number/],
      [`redis://u:${SECRET}@h/1?db=2`, /query or a fragment/],
      [`redis://u:${SECRET}@h/1#x`, /query or a fragment/],
      [`redis://u:${SECRET}%zz@h`, /malformed %-escape/],
      [`redis://u:${SECRET}@:6379`, /is not a valid URL|must name a host/],
      [`redis:${SECRET}`, /must name a host/],
    ];
    for (const [url, message] of bad)
      assert.match(failure({ RATE_LIMIT_REDIS_URL: url }, 'RATE_LIMIT_REDIS_URL'), message, url);
  });

  it('reads the password from RATE_LIMIT_REDIS_PASSWORD_FILE (one line, relative to the working directory)', () => {
    writeFileSync(join(dir, 'pw'), `${SECRET}\n`);
    writeFileSync(join(dir, 'pw-crlf'), `${SECRET}\r\n`);
    writeFileSync(join(dir, 'pw-bare'), SECRET);
    for (const file of ['pw', join(dir, 'pw-crlf'), 'pw-bare']) {
      const config = parseRedisConfig(
        { RATE_LIMIT_REDIS_URL: 'redis://user@h', RATE_LIMIT_REDIS_PASSWORD_FILE: file },
        dir,
      )!;
      assert.equal(config.password, SECRET, file);
      assert.equal(config.username, 'user');
    }
  });

  it('rejects a password file that is missing, unreadable, empty or more than one line, or a second password', () => {
    writeFileSync(join(dir, 'empty'), '');
    writeFileSync(join(dir, 'newline-only'), '\n');
    writeFileSync(join(dir, 'two-lines'), `${SECRET}\nsecond\n`);
    mkdirSync(join(dir, 'a-dir'));
    const cases: [string, RegExp][] = [
      ['absent', /does not exist/],
      ['a-dir', /cannot be used: "a-dir" is not a regular file$/],
      ['empty', /on one line/],
      ['newline-only', /on one line/],
      ['two-lines', /on one line/],
    ];
    for (const [file, message] of cases) {
      assert.match(
        failure(
          { RATE_LIMIT_REDIS_URL: 'redis://h', RATE_LIMIT_REDIS_PASSWORD_FILE: file },
          'RATE_LIMIT_REDIS_PASSWORD_FILE',
        ),
        message,
        file,
      );
    }
    writeFileSync(join(dir, 'pw2'), 'other\n');
    assert.match(
      failure(
        { RATE_LIMIT_REDIS_URL: `redis://:${SECRET}@h`, RATE_LIMIT_REDIS_PASSWORD_FILE: 'pw2' },
        'RATE_LIMIT_REDIS_PASSWORD_FILE',
      ),
      /together with a password/,
    );
  });

  it('S3: a password file others can write, or in a directory others can write, is refused; one others can read is used with a warning; a link is followed', () => {
    const sub = join(dir, 's3');
    mkdirSync(sub, { mode: 0o700 });
    const file = join(sub, 'pw');
    writeFileSync(file, `${SECRET}\n`, { mode: 0o600 });
    const parse = (name: string): { password: string | undefined; warnings: ConfigWarning[] } => {
      const warnings: ConfigWarning[] = [];
      const config = parseRedisConfig(
        { RATE_LIMIT_REDIS_URL: 'redis://h', RATE_LIMIT_REDIS_PASSWORD_FILE: name },
        sub,
        (w) => warnings.push(w),
      )!;
      return { password: config.password, warnings };
    };
    assert.deepEqual(parse('pw'), { password: SECRET, warnings: [] });
    chmodSync(file, 0o644);
    assert.deepEqual(parse('pw'), {
      password: SECRET,
      warnings: [
        {
          message: 'RATE_LIMIT_REDIS_PASSWORD_FILE is readable by other users; chmod o-r it',
          fields: { file, mode: '0644' },
        },
      ],
    });
    symlinkSync('pw', join(sub, 'link'));
    assert.equal(parse('link').password, SECRET);
    chmodSync(file, 0o666);
    const refused = failure(
      { RATE_LIMIT_REDIS_URL: 'redis://h', RATE_LIMIT_REDIS_PASSWORD_FILE: file },
      'RATE_LIMIT_REDIS_PASSWORD_FILE',
    );
    assert.match(refused, /cannot be used: ".+" is writable by group or others \(mode 0666; chmod go-w it\)$/);
    assert.ok(!refused.includes(SECRET), 'the password is never shown');
    chmodSync(file, 0o600);
    chmodSync(sub, 0o777);
    assert.match(
      failure(
        { RATE_LIMIT_REDIS_URL: 'redis://h', RATE_LIMIT_REDIS_PASSWORD_FILE: file },
        'RATE_LIMIT_REDIS_PASSWORD_FILE',
      ),
      /which is writable by group or others \(mode 0777\)$/,
    );
    chmodSync(sub, 0o700);
  });

  it('prefix: default cg:rl:, any 1 to 64 printable characters without spaces', () => {
    assert.equal(
      parseRedisConfig({ RATE_LIMIT_REDIS_URL: 'redis://h', RATE_LIMIT_REDIS_PREFIX: 'prod-eu:rl:' }, dir)!.prefix,
      'prod-eu:rl:',
    );
    for (const prefix of ['has space', 'tab\t', 'ü:', 'x'.repeat(65)]) {
      assert.match(
        failure({ RATE_LIMIT_REDIS_URL: 'redis://h', RATE_LIMIT_REDIS_PREFIX: prefix }, 'RATE_LIMIT_REDIS_PREFIX'),
        /printable ASCII/,
      );
    }
  });

  it('timeout: default 50 ms, an integer from 1 to 5000, digits only', () => {
    assert.equal(
      parseRedisConfig({ RATE_LIMIT_REDIS_URL: 'redis://h', RATE_LIMIT_REDIS_TIMEOUT_MS: '250' }, dir)!.timeoutMs,
      250,
    );
    assert.equal(
      parseRedisConfig({ RATE_LIMIT_REDIS_URL: 'redis://h', RATE_LIMIT_REDIS_TIMEOUT_MS: '5000' }, dir)!.timeoutMs,
      5000,
    );
    for (const value of ['0', '5001', '1e3', ' 50', '0x10', '-5', '50ms', '99999999']) {
      assert.match(
        failure(
          { RATE_LIMIT_REDIS_URL: 'redis://h', RATE_LIMIT_REDIS_TIMEOUT_MS: value },
          'RATE_LIMIT_REDIS_TIMEOUT_MS',
        ),
        /integer from 1 to 5000/,
        value,
      );
    }
  });
});
