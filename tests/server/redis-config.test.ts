/**
 * RATE_LIMIT_REDIS_* parsing: unset means no Redis at all; one standalone URL, a cluster's seed
 * nodes or Sentinel's sentinels, never two of them; every bad value is one error that names its
 * variable and never shows a URL or a password; the password can come from a file.
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

function standalone(env: Record<string, string>) {
  const config = parseRedisConfig(env, dir);
  assert.ok(config?.mode === 'standalone');
  return config;
}

describe('RATE_LIMIT_REDIS_* configuration', () => {
  it('unset or empty: null (no Redis, nothing loaded)', () => {
    assert.equal(parseRedisConfig({}, dir), null);
    assert.equal(parseRedisConfig({ RATE_LIMIT_REDIS_URL: '' }, dir), null);
  });

  it('another Redis setting without a Redis is an error, not silently ignored', () => {
    for (const name of ['RATE_LIMIT_REDIS_PASSWORD_FILE', 'RATE_LIMIT_REDIS_PREFIX', 'RATE_LIMIT_REDIS_TIMEOUT_MS']) {
      assert.match(
        failure({ [name]: 'x' }, name),
        /is set but none of RATE_LIMIT_REDIS_URL, RATE_LIMIT_REDIS_CLUSTER_NODES, RATE_LIMIT_REDIS_SENTINELS is/,
      );
    }
    assert.match(
      failure({ RATE_LIMIT_REDIS_SENTINEL_MASTER: 'm' }, 'RATE_LIMIT_REDIS_SENTINEL_MASTER'),
      /is set but RATE_LIMIT_REDIS_SENTINELS is not/,
    );
    assert.match(
      failure(
        { RATE_LIMIT_REDIS_URL: 'redis://h', RATE_LIMIT_REDIS_SENTINEL_MASTER: 'm' },
        'RATE_LIMIT_REDIS_SENTINEL_MASTER',
      ),
      /is set but RATE_LIMIT_REDIS_SENTINELS is not/,
    );
  });

  it('at most one of the URL, the cluster nodes and the sentinels: two refuse the start with one line', () => {
    const url = `redis://:${SECRET}@h`;
    const nodes = `redis://:${SECRET}@a:7000`;
    assert.match(
      failure({ RATE_LIMIT_REDIS_URL: url, RATE_LIMIT_REDIS_CLUSTER_NODES: nodes }, 'RATE_LIMIT_REDIS_CLUSTER_NODES'),
      /^RATE_LIMIT_REDIS_CLUSTER_NODES cannot be set together with RATE_LIMIT_REDIS_URL: set one of RATE_LIMIT_REDIS_URL, RATE_LIMIT_REDIS_CLUSTER_NODES, RATE_LIMIT_REDIS_SENTINELS$/,
    );
    assert.match(
      failure(
        { RATE_LIMIT_REDIS_URL: url, RATE_LIMIT_REDIS_SENTINELS: 's:1', RATE_LIMIT_REDIS_SENTINEL_MASTER: 'm' },
        'RATE_LIMIT_REDIS_SENTINELS',
      ),
      /cannot be set together with RATE_LIMIT_REDIS_URL/,
    );
    assert.match(
      failure(
        {
          RATE_LIMIT_REDIS_CLUSTER_NODES: nodes,
          RATE_LIMIT_REDIS_SENTINELS: 's:1',
          RATE_LIMIT_REDIS_SENTINEL_MASTER: 'm',
        },
        'RATE_LIMIT_REDIS_SENTINELS',
      ),
      /cannot be set together with RATE_LIMIT_REDIS_CLUSTER_NODES/,
    );
    // Empty counts as unset, as for every variable.
    assert.equal(
      parseRedisConfig({ RATE_LIMIT_REDIS_URL: '', RATE_LIMIT_REDIS_CLUSTER_NODES: 'a:7000' }, dir)!.mode,
      'cluster',
    );
  });

  it('takes the URL apart: host, port, TLS, user, password, database; defaults for the rest', () => {
    assert.deepEqual(parseRedisConfig({ RATE_LIMIT_REDIS_URL: 'redis://cache.internal' }, dir), {
      mode: 'standalone',
      setting: 'RATE_LIMIT_REDIS_URL',
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
    assert.ok(full.mode === 'standalone');
    assert.equal(full.host, '2001:db8::7');
    assert.equal(full.port, 6380);
    assert.equal(full.tls, true);
    assert.equal(full.username, 'svc-user');
    assert.equal(full.password, `${SECRET}@:/`, 'percent-escapes decoded');
    assert.equal(full.database, 3);
    assert.equal(full.target, 'rediss://[2001:db8::7]:6380/3');
    assert.ok(!full.target.includes('svc-user') && !full.target.includes('hunter2'), 'the target names no credentials');
    assert.equal(standalone({ RATE_LIMIT_REDIS_URL: 'redis://h/' }).database, 0);
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

  it('cluster: seed nodes as host:port or redis[s]:// URLs; credentials and TLS for every node, never in the target', () => {
    const plain = parseRedisConfig(
      { RATE_LIMIT_REDIS_CLUSTER_NODES: '10.0.0.1:7000, node-b.internal:7001 ,[2001:db8::1]:7002,node-c' },
      dir,
    );
    assert.deepEqual(plain, {
      mode: 'cluster',
      setting: 'RATE_LIMIT_REDIS_CLUSTER_NODES',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'node-b.internal', port: 7001 },
        { host: '2001:db8::1', port: 7002 },
        { host: 'node-c', port: 6379 },
      ],
      tls: false,
      username: undefined,
      password: undefined,
      target: 'redis://10.0.0.1:7000,node-b.internal:7001,[2001:db8::1]:7002,node-c:6379 (cluster)',
      prefix: DEFAULT_REDIS_PREFIX,
      timeoutMs: DEFAULT_REDIS_TIMEOUT_MS,
    });
    const tls = parseRedisConfig(
      { RATE_LIMIT_REDIS_CLUSTER_NODES: `rediss://svc:${SECRET}@a:7000,rediss://svc:${SECRET}@b:7001/` },
      dir,
    )!;
    assert.ok(tls.mode === 'cluster');
    assert.equal(tls.tls, true);
    assert.equal(tls.username, 'svc');
    assert.equal(tls.password, SECRET);
    assert.equal(tls.target, 'rediss://a:7000,b:7001 (cluster)');
    writeFileSync(join(dir, 'cluster-pw'), `${SECRET}\n`);
    const fromFile = parseRedisConfig(
      { RATE_LIMIT_REDIS_CLUSTER_NODES: 'a:7000', RATE_LIMIT_REDIS_PASSWORD_FILE: 'cluster-pw' },
      dir,
    )!;
    assert.equal(fromFile.password, SECRET, 'the password file applies to a cluster too');
  });

  it('cluster and sentinel entries: one line naming the variable and the entry, never its text', () => {
    const nodes = 'RATE_LIMIT_REDIS_CLUSTER_NODES';
    const bad: [string, RegExp][] = [
      ['a:7000,,b:7001', /^RATE_LIMIT_REDIS_CLUSTER_NODES entry 2 is empty/],
      ['a:7000,', /entry 2 is empty/],
      [`a:7000,u:${SECRET}@b:7001`, /entry 2 is not host:port, redis:\/\/.* or rediss:\/\/\.\.\./],
      [`a:7000,b:7001/2`, /entry 2 is not host:port/],
      [`a:7000,b:7001/`, /entry 2 is not host:port/],
      [`a:${SECRET}`, /entry 1 is not a valid URL/],
      ['a:0', /entry 1 must not name port 0/],
      [`http://u:${SECRET}@a:7000`, /entry 1 must start with redis:\/\/ or rediss:\/\//],
      [`redis://u:${SECRET}@a:7000/1`, /entry 1 must not name a database \(a cluster has only database 0\)$/],
      [`redis://u:${SECRET}@a:7000?x=1`, /entry 1 must not have a query/],
      [
        `redis://:${SECRET}@a:7000,redis://:${SECRET}x@b:7001`,
        /entry 2 differs from entry 1 in scheme, user or password/,
      ],
      [`redis://a:7000,rediss://b:7001`, /entry 2 differs from entry 1/],
      [`redis://:${SECRET}@a:7000,b:7001`, /entry 2 differs from entry 1/],
      [Array.from({ length: 33 }, (_, i) => `n${i}:7000`).join(','), /at most 32 entries/],
    ];
    for (const [value, message] of bad) assert.match(failure({ [nodes]: value }, nodes), message, value);
    assert.match(
      failure(
        { RATE_LIMIT_REDIS_SENTINELS: 's:1,,s:2', RATE_LIMIT_REDIS_SENTINEL_MASTER: 'm' },
        'RATE_LIMIT_REDIS_SENTINELS',
      ),
      /^RATE_LIMIT_REDIS_SENTINELS entry 2 is empty/,
    );
    assert.match(
      failure(
        { RATE_LIMIT_REDIS_SENTINELS: `redis://:${SECRET}@s:1/2`, RATE_LIMIT_REDIS_SENTINEL_MASTER: 'm' },
        'RATE_LIMIT_REDIS_SENTINELS',
      ),
      /^RATE_LIMIT_REDIS_SENTINELS entry 1 must not name a database \(with Sentinel the master is used with database 0\)$/,
    );
    writeFileSync(join(dir, 'pw3'), 'other\n');
    assert.match(
      failure(
        { [nodes]: `redis://:${SECRET}@a:7000`, RATE_LIMIT_REDIS_PASSWORD_FILE: 'pw3' },
        'RATE_LIMIT_REDIS_PASSWORD_FILE',
      ),
      /cannot be used together with a password in RATE_LIMIT_REDIS_CLUSTER_NODES/,
    );
  });

  it("sentinel: the sentinels (default port 26379) and the master name; their credentials are theirs, the password file is the data nodes'", () => {
    assert.deepEqual(
      parseRedisConfig(
        { RATE_LIMIT_REDIS_SENTINELS: 's1:26380,s2', RATE_LIMIT_REDIS_SENTINEL_MASTER: 'cg-master' },
        dir,
      ),
      {
        mode: 'sentinel',
        setting: 'RATE_LIMIT_REDIS_SENTINELS',
        sentinels: [
          { host: 's1', port: 26380 },
          { host: 's2', port: 26379 },
        ],
        masterName: 'cg-master',
        sentinelUsername: undefined,
        sentinelPassword: undefined,
        tls: false,
        username: undefined,
        password: undefined,
        target: 'redis://s1:26380,s2:26379 (sentinel, master cg-master)',
        prefix: DEFAULT_REDIS_PREFIX,
        timeoutMs: DEFAULT_REDIS_TIMEOUT_MS,
      },
    );
    writeFileSync(join(dir, 'data-pw'), `${SECRET}-data\n`);
    const secured = parseRedisConfig(
      {
        RATE_LIMIT_REDIS_SENTINELS: `rediss://watch:${SECRET}@s1,rediss://watch:${SECRET}@s2:26390`,
        RATE_LIMIT_REDIS_SENTINEL_MASTER: 'm',
        RATE_LIMIT_REDIS_PASSWORD_FILE: 'data-pw',
      },
      dir,
    )!;
    assert.ok(secured.mode === 'sentinel');
    assert.equal(secured.tls, true);
    assert.equal(secured.sentinelUsername, 'watch');
    assert.equal(secured.sentinelPassword, SECRET);
    assert.equal(secured.username, undefined);
    assert.equal(secured.password, `${SECRET}-data`);
    assert.equal(secured.target, 'rediss://s1:26379,s2:26390 (sentinel, master m)');
    assert.match(
      failure({ RATE_LIMIT_REDIS_SENTINELS: 's1:26379' }, 'RATE_LIMIT_REDIS_SENTINEL_MASTER'),
      /must be set with RATE_LIMIT_REDIS_SENTINELS/,
    );
    for (const name of ['has space', 'x'.repeat(129), 'ü']) {
      assert.match(
        failure(
          { RATE_LIMIT_REDIS_SENTINELS: 's1', RATE_LIMIT_REDIS_SENTINEL_MASTER: name },
          'RATE_LIMIT_REDIS_SENTINEL_MASTER',
        ),
        /1 to 128 printable ASCII characters without spaces/,
      );
    }
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
    assert.equal(
      parseRedisConfig({ RATE_LIMIT_REDIS_URL: 'redis://h', RATE_LIMIT_REDIS_PREFIX: '!|~z' }, dir)!.prefix,
      '!|~z',
    );
    // No braces: the hash tag belongs to the client part of the key.
    for (const prefix of ['has space', 'tab\t', 'ü:', 'x'.repeat(65), 'a{b', 'a}', '{x}:']) {
      assert.match(
        failure({ RATE_LIMIT_REDIS_URL: 'redis://h', RATE_LIMIT_REDIS_PREFIX: prefix }, 'RATE_LIMIT_REDIS_PREFIX'),
        /printable ASCII characters without spaces or braces/,
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
