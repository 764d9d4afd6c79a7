/**
 * The deployment files: the systemd unit, alone and with its Redis drop-in, passes
 * `systemd-analyze verify` without a warning and rates as well sandboxed offline; the
 * Dockerfile keeps to what the docs promise (it cannot be built here: no container engine), its
 * HEALTHCHECK command works against a real server and fails without one, and the image's file
 * layout, replayed in a temporary directory, runs the single file against a real redis-server
 * with the Redis client the image carries; its build context is an allow-list (S4) that keeps
 * secrets out and lets in exactly what the build needs, read with Docker's own matching rules
 * (@balena/dockerignore) and shown by building from those files alone.
 */
import assert from 'node:assert/strict';
import ignoreModule from '@balena/dockerignore';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { request as httpsRequest } from 'node:https';
import { DEFAULT_CONNECTION_CAPS } from '../../lib/http/connection-caps.ts';
import { REDIS_PACKAGE_VERSION } from '../../lib/rate-limit/redis-store.ts';
import { selfSignedPair } from '../helpers/certificates.ts';
import { post } from '../helpers/http.ts';
import { command, redisMissing, startRedis } from '../helpers/redis-server.ts';
import { randomApiKey, ROOT, startServer } from '../helpers/server.ts';

const TSX = import.meta.resolve('tsx');
// A CommonJS package whose default export TypeScript sees as the namespace under NodeNext.
const ignore = ignoreModule as unknown as typeof ignoreModule.default;

const UNIT = join(ROOT, 'deploy', 'credential-generator.service');
const REDIS_DROP_IN = join(ROOT, 'deploy', 'credential-generator-redis.conf');
const DOCKERFILE = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** `systemd-analyze security --offline=true`'s exposure (0 best, 10 worst): offline, because
 * systemd is not PID 1 in containers and CI, where the plain command refuses to run. */
function exposure(unit: string): number {
  const r = spawnSync('systemd-analyze', ['security', '--offline=true', unit], { encoding: 'utf8' });
  const level = /Overall exposure level for credential-generator\.service: ([\d.]+)/.exec(r.stdout);
  assert.ok(level !== null, r.stdout + r.stderr);
  return Number(level[1]);
}

/** The node the unit runs: the supported Node installed as docs/deploy.md says. */
const UNIT_NODE = '/opt/credential-generator/node/bin/node';

function verify(shipped: string): void {
  // systemd-analyze checks that ExecStart's program exists: where the Node of docs/deploy.md is
  // not installed (a test machine), this test's own node stands in for it.
  let unit = shipped;
  if (!existsSync(UNIT_NODE)) {
    unit = join(mkdtempSync(join(tmpdir(), 'cg-verify-')), 'credential-generator.service');
    writeFileSync(
      unit,
      readFileSync(shipped, 'utf8').replace(`ExecStart=${UNIT_NODE} `, `ExecStart=${process.execPath} `),
    );
  }
  const r = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
  assert.equal(r.error, undefined, 'systemd-analyze is installed (.ci/run installs systemd when missing)');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr.trim(), '');
  assert.equal(r.stdout.trim(), '');
}

/**
 * A loopback port that refuses connections until `release()`: the local port of a connection
 * this process holds open (to a listener of its own). Nothing listens on it, and while the
 * connection lives no other socket can bind it (the connecting socket has no SO_REUSEADDR).
 */
async function refusedPort(): Promise<{ port: number; release(): void }> {
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const held = connect({ host: '127.0.0.1', port: (listener.address() as AddressInfo).port });
  await new Promise<void>((resolve, reject) => held.once('connect', resolve).once('error', reject));
  return {
    port: held.localPort!,
    release() {
      held.destroy();
      listener.close();
    },
  };
}

/** Dockerfile instructions of one stage, continuation lines joined. */
function stages(text: string): string[][] {
  const lines = text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  const out: string[][] = [];
  for (const line of lines) {
    if (/^FROM\s/i.test(line)) out.push([]);
    out[out.length - 1].push(line.trim());
  }
  return out;
}

describe('systemd unit', () => {
  it('passes systemd-analyze verify with no warning', () => {
    verify(UNIT);
  });

  it("docs/deploy.md says that verify needs the Node at the unit's path, with the message it gives without (issue 41)", (t) => {
    const docs = readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8');
    const message = `Command ${UNIT_NODE} is not executable: No such file or directory`;
    assert.ok(docs.replace(/\s+/g, ' ').includes(message), 'docs/deploy.md quotes the message');
    if (existsSync(UNIT_NODE)) {
      t.diagnostic(`${UNIT_NODE} is installed here: the shipped unit verifies as it is`);
      return;
    }
    const r = spawnSync('systemd-analyze', ['verify', UNIT], { encoding: 'utf8' });
    assert.notEqual(r.status, 0, 'the shipped unit fails verify without its Node');
    assert.ok(r.stderr.includes(message), r.stderr);
  });

  it("runs the supported Node that docs/deploy.md installs, not the distribution's", () => {
    assert.match(
      readFileSync(UNIT, 'utf8'),
      new RegExp(`^ExecStart=${UNIT_NODE} /opt/credential-generator/credential-generator\\.mjs$`, 'm'),
    );
    assert.ok(readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8').includes(UNIT_NODE), 'the docs name the same path');
  });

  it('with the Redis drop-in (URL, password as a systemd credential) still verifies and rates the same', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-unit-'));
    try {
      const dropIn = readFileSync(REDIS_DROP_IN, 'utf8');
      assert.match(dropIn, /^Environment=RATE_LIMIT_REDIS_URL=redis:\/\/\S+$/m);
      assert.match(dropIn, /^LoadCredential=redis-password:\S+$/m);
      assert.match(dropIn, /^Environment=RATE_LIMIT_REDIS_PASSWORD_FILE=%d\/redis-password$/m);
      // The drop-in's [Service] lines merged into the unit, as systemd reads the two together.
      const service = dropIn.slice(dropIn.indexOf('[Service]\n') + '[Service]\n'.length);
      const merged = join(dir, 'credential-generator.service');
      writeFileSync(merged, readFileSync(UNIT, 'utf8').replace('\n[Install]', `\n${service}\n[Install]`));
      verify(merged);
      const level = exposure(merged);
      t.diagnostic(`with the Redis drop-in: exposure ${level}`);
      assert.equal(level, exposure(UNIT));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs as a dedicated user with the sandbox the docs describe', (t) => {
    const unit = readFileSync(UNIT, 'utf8');
    for (const line of [
      'User=credential-generator',
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'Restart=on-failure',
      'Environment=API_KEYS_FILE=/var/lib/credential-generator/keys.json',
      'StateDirectory=credential-generator',
      'MemoryMax=512M',
    ]) {
      assert.match(unit, new RegExp(`^${line.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, 'm'), line);
    }
    assert.match(
      unit,
      /^ExecStart=\/opt\/credential-generator\/node\/bin\/node \/opt\/credential-generator\/credential-generator\.mjs$/m,
    );
    const level = exposure(UNIT);
    t.diagnostic(`systemd-analyze security --offline=true exposure: ${level} (0 best, 10 worst)`);
    assert.ok(level <= 2, `exposure ${level}`);
    const docs = readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8');
    assert.ok(docs.includes(`systemd-analyze security --offline=true\` rates it ${level}`), 'docs/deploy.md states it');
  });
});

describe('T7: the unit bounds fds, tasks and system calls', () => {
  /** `systemd-analyze security --offline=true`'s open items (lines marked ✗), by name. */
  const openItems = (unit: string): string[] =>
    spawnSync('systemd-analyze', ['security', '--offline=true', unit], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter((l) => l.startsWith('✗'))
      .map((l) => l.slice(1).trim().split(/\s+/)[0]);

  it('T7: LimitNOFILE above MAX_CONNECTIONS with headroom, TasksMax above the threads Node runs, SystemCallFilter=~@privileged @resources; the offline rating has neither filter item open', async (t) => {
    const unit = readFileSync(UNIT, 'utf8');
    const setting = (name: string): string | null => new RegExp(`^${name}=(.*)$`, 'm').exec(unit)?.[1] ?? null;
    const maxConnections = Number(
      /^Environment=MAX_CONNECTIONS=(\d+)$/m.exec(unit)?.[1] ?? DEFAULT_CONNECTION_CAPS.total,
    );
    const nofile = Number(setting('LimitNOFILE'));
    assert.ok(
      nofile >= maxConnections + 128,
      `LimitNOFILE=${setting('LimitNOFILE')} for MAX_CONNECTIONS ${maxConnections}`,
    );
    assert.match(unit, /^SystemCallFilter=@system-service$/m);
    assert.match(unit, /^SystemCallFilter=~@privileged @resources$/m);
    const tasks = Number(setting('TasksMax'));
    // The threads of a running server, as the unit would count them.
    const server = await startServer({ apiKey: randomApiKey() });
    let threads: number;
    try {
      threads = Number(/^Threads:\s+(\d+)$/m.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]);
    } finally {
      await server.stop();
    }
    assert.ok(tasks >= 4 * threads, `TasksMax=${setting('TasksMax')} for ${threads} threads`);
    const items = openItems(UNIT);
    t.diagnostic(`exposure ${exposure(UNIT)}, open: ${items.join(' ')}`);
    for (const item of ['SystemCallFilter=~@privileged', 'SystemCallFilter=~@resources']) {
      assert.ok(!items.includes(item), `${item} still open`);
    }
  });

  it('T7: the service, started and used over TLS with its metrics, makes no system call of @privileged or @resources (strace)', async (t) => {
    if (spawnSync('strace', ['-V']).error !== undefined) return t.skip('strace is not installed');
    const sets = ['@privileged', '@resources'].flatMap((group) => syscallsOf(group));
    // Only the calls this machine's strace knows (the sets name some of other architectures).
    const known = sets.filter((call) => spawnSync('strace', ['-qq', '-e', `trace=${call}`, 'true']).status === 0);
    const dir = mkdtempSync(join(tmpdir(), 'cg-strace-'));
    const log = join(dir, 'strace.out');
    try {
      const pair = selfSignedPair(dir, 'strace');
      const key = randomApiKey();
      const server = await startServer({
        apiKey: key,
        command: [
          'strace',
          '-f',
          '-qq',
          '-o',
          log,
          '-e',
          // sched_getaffinity: the control, which Node calls at start (the trace does record).
          `trace=${[...known, 'sched_getaffinity'].join(',')}`,
          process.execPath,
          join(ROOT, 'dist', 'credential-generator.mjs'),
        ],
        env: { TLS_CERT_FILE: pair.cert, TLS_KEY_FILE: pair.key, METRICS_PORT: '0' },
      });
      try {
        const ca = readFileSync(pair.cert);
        for (const path of ['/', '/service-api.js', '/openapi.json']) {
          assert.equal(await httpsStatus(server.port, ca, 'GET', path), 200, path);
        }
        assert.equal(await httpsStatus(server.port, ca, 'POST', '/generate', key), 200);
        assert.equal((await fetch(new URL('/metrics', server.metricsUrl!))).status, 200);
      } finally {
        // SIGTERM to node itself: strace, signalled, would detach and leave it running.
        const [node] = readFileSync(`/proc/${server.pid}/task/${server.pid}/children`, 'utf8').trim().split(' ');
        process.kill(Number(node), 'SIGTERM');
        assert.equal((await server.exited).code, 0);
      }
      const calls = readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => /^\d+\s+[a-z_0-9]+\(/.test(l));
      const control = calls.filter((l) => /^\d+\s+sched_getaffinity\(/.test(l));
      t.diagnostic(`${known.length} calls traced, ${calls.length - control.length} made (control: ${control.length})`);
      assert.ok(control.length > 0, 'the trace records calls');
      assert.deepEqual(
        calls.filter((l) => !control.includes(l)),
        [],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The system calls of a systemd group, nested groups expanded. */
function syscallsOf(group: string): string[] {
  const out = execFileSync('systemd-analyze', ['syscall-filter', group], { encoding: 'utf8' });
  return out
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .flatMap((l) => (l.startsWith('@') ? syscallsOf(l) : [l]));
}

/** One HTTPS request on a fresh connection: its status. */
function httpsStatus(port: number, ca: Buffer, method: string, path: string, key?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        ca,
        agent: false,
        headers:
          key === undefined ? { 'accept-encoding': 'br' } : { 'content-type': 'application/json', 'x-api-key': key },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(key === undefined ? undefined : '{"mode":"password"}');
  });
}

describe('Dockerfile', () => {
  const [build, runtime] = stages(DOCKERFILE) as [string[], string[]];

  it('has a build stage and a runtime stage on a Node LTS image holding only the single file', () => {
    assert.equal(stages(DOCKERFILE).length, 2);
    assert.match(build[0], /^FROM node:(24|26)-\S+ AS build$/);
    assert.match(runtime[0], /^FROM node:(24|26)-\S+$/);
    const copies = runtime.filter((l) => l.startsWith('COPY'));
    assert.deepEqual(copies, [
      'COPY --from=build --chmod=0444 /src/dist/credential-generator.mjs /app/credential-generator.mjs',
      'COPY --from=build /src/node_modules/redis /app/node_modules/redis',
      'COPY --from=build /src/node_modules/@redis /app/node_modules/@redis',
    ]);
    assert.ok(
      build.some((l) => l.includes('sha256sum -c credential-generator.mjs.sha256')),
      'the build checks the printed digest',
    );
  });

  it('runs as a non-root user, listens on all addresses, keeps keys on a volume, exposes the port, and execs node directly', () => {
    const users = runtime.filter((l) => l.startsWith('USER '));
    assert.deepEqual(users, ['USER 1000:1000'], "the node user by number (Kubernetes' runAsNonRoot needs one)");
    assert.ok(runtime.indexOf('USER 1000:1000') < runtime.findIndex((l) => l.startsWith('ENTRYPOINT')));
    const env = runtime.find((l) => l.startsWith('ENV '))!;
    assert.match(env, /HOST=0\.0\.0\.0/);
    assert.match(env, /PORT=8080/);
    assert.match(env, /API_KEYS_FILE=\/keys\/keys\.json/);
    assert.ok(runtime.includes('VOLUME ["/keys"]'));
    assert.ok(runtime.includes('EXPOSE 8080'));
    assert.ok(
      runtime.includes('ENTRYPOINT ["node", "/app/credential-generator.mjs"]'),
      'exec form: node is PID 1 and gets SIGTERM',
    );
    assert.ok(runtime.some((l) => /^RUN mkdir -m 0700 \/keys && chown node:node \/keys$/.test(l)));
  });

  it('carries OCI labels: the version of package.json, the commit from the build, the licence', () => {
    const label = runtime.find((l) => l.startsWith('LABEL '))!;
    const labels = Object.fromEntries(
      [...label.matchAll(/(org\.opencontainers\.image\.[a-z.]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    assert.equal(labels['org.opencontainers.image.version'], VERSION);
    assert.equal(labels['org.opencontainers.image.revision'], '${REVISION}');
    assert.ok(runtime.includes('ARG REVISION=unknown'));
    assert.equal(labels['org.opencontainers.image.licenses'], 'MIT');
    assert.equal(labels['org.opencontainers.image.title'], 'credential-generator');
    assert.equal(labels['org.opencontainers.image.base.name'], `docker.io/library/${runtime[0].slice(5)}`);
  });

  it('HEALTHCHECK needs no curl: the file probes itself, 0 when healthy, 1 when not', async () => {
    const check = runtime.find((l) => l.startsWith('HEALTHCHECK'))!;
    assert.match(check, /CMD \["node", "\/app\/credential-generator\.mjs", "health"\]$/);
    const server = await startServer({ apiKey: randomApiKey(), env: { HOST: '0.0.0.0' } });
    try {
      // Through server.ts (the code the bundle is built from) so coverage sees the probe.
      const probe = (port: number): ReturnType<typeof spawnSync> =>
        spawnSync(process.execPath, ['--import', TSX, join(ROOT, 'server.ts'), 'health'], {
          encoding: 'utf8',
          env: {
            PATH: process.env.PATH,
            NODE_V8_COVERAGE: process.env.NODE_V8_COVERAGE,
            PORT: String(port),
            HOST: '0.0.0.0',
          },
        });
      const healthy = probe(server.port);
      assert.equal(healthy.status, 0, String(healthy.stderr));
      assert.equal(String(healthy.stdout) + String(healthy.stderr), '');
      const stopped = await server.stop();
      assert.equal(stopped.code, 0);
      // Not the stopped server's port: freed, the OS may hand it to any process asking for a
      // free port (every test server does) while the probe starts; this one stays refused.
      const closed = await refusedPort();
      try {
        const down = probe(closed.port);
        assert.equal(down.status, 1);
        assert.match(String(down.stderr), /^unhealthy: \/health unreachable \(ECONNREFUSED\)\n$/);
      } finally {
        closed.release();
      }
    } finally {
      await server.stop();
    }
  });
});

describe('the image with Redis, its file layout replayed', { skip: redisMissing() ?? false }, () => {
  const [, runtime] = stages(DOCKERFILE) as [string[], string[]];

  /** The runtime stage's COPY lines as [path in the build stage, path in the image]. */
  const copies = runtime
    .filter((l) => l.startsWith('COPY --from=build'))
    .map((l) => l.split(/\s+/).slice(-2) as [string, string]);
  /** Its ENV, as variables. */
  const env = Object.fromEntries(
    [...runtime.find((l) => l.startsWith('ENV '))!.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1], m[2]]),
  );

  it('runs the single file with RATE_LIMIT_REDIS_URL against a real redis-server, the client beside it', async () => {
    const image = mkdtempSync(join(tmpdir(), 'cg-image-'));
    const redis = await startRedis();
    try {
      for (const [from, to] of copies) {
        // The build stage is this checkout after npm ci and npm run build: /src is ROOT.
        assert.match(from, /^\/src\//);
        const source = join(ROOT, from.slice('/src/'.length));
        assert.ok(existsSync(source), `${source} (npm ci and the build provide it)`);
        cpSync(source, join(image, to), { recursive: true, dereference: true });
      }
      for (let dir = dirname(image); ; dir = dirname(dir)) {
        assert.ok(!existsSync(join(dir, 'node_modules')), `${dir}/node_modules would make the test meaningless`);
        if (dirname(dir) === dir) break;
      }
      const installed = JSON.parse(readFileSync(join(image, 'app/node_modules/redis/package.json'), 'utf8')) as {
        version: string;
      };
      assert.equal(installed.version, REDIS_PACKAGE_VERSION, 'the client version the store names');
      mkdirSync(join(image, 'keys'), { mode: 0o700 });
      const key = randomApiKey();
      const server = await startServer({
        command: [process.execPath, join(image, 'app/credential-generator.mjs')],
        cwd: join(image, 'app'),
        keysFile: join(image, env.API_KEYS_FILE),
        apiKey: key,
        env: {
          NODE_ENV: env.NODE_ENV,
          RATE_LIMIT_REDIS_URL: redis.url,
          RATE_LIMIT_REDIS_PREFIX: 'image-test:',
          RATE_LIMIT_REDIS_TIMEOUT_MS: '5000',
        },
      });
      try {
        assert.match(
          server.output(),
          new RegExp(
            `"msg":"rate limit store: Redis[^\\n]*"redis":"redis://127\\.0\\.0\\.1:${redis.port}/0","state":"shared"`,
          ),
        );
        const reply = await post(server.url, key, { mode: 'password' });
        assert.equal(reply.status, 200);
        assert.equal(reply.headers['x-ratelimit-remaining'], '19');
        assert.equal(await command(redis, 'EXISTS', 'image-test:{127.0.0.1}'), 1, 'the bucket lives in Redis');
      } finally {
        assert.equal((await server.stop()).code, 0);
      }
    } finally {
      await redis.close();
      rmSync(image, { recursive: true, force: true });
    }
  });
});

describe('S4: the Docker build context is an allow-list', () => {
  const list = readFileSync(join(ROOT, 'deploy', 'Dockerfile.dockerignore'), 'utf8');
  const rules = list.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
  const context = ignore().add(rules);
  const letIn = (path: string): boolean => !context.ignores(path);

  it('S4: deploy/Dockerfile.dockerignore leaves out everything and names what it lets in; the root .dockerignore is the same list', () => {
    // BuildKit reads <Dockerfile>.dockerignore beside the Dockerfile; the legacy builder only
    // the root .dockerignore: both must say the same.
    assert.equal(readFileSync(join(ROOT, '.dockerignore'), 'utf8'), list);
    assert.equal(rules[0], '*');
    for (const rule of rules.slice(1)) {
      assert.match(rule, /^!/, `${rule}: after "*", only exceptions`);
      assert.doesNotMatch(rule, /(^!|\/)\*\*$|\/$|^![^/]*\*/, `${rule}: no whole folder, no wildcard at the root`);
    }
  });

  it('S4: keeps out key files and their temporaries and locks, TLS keys, .env, Redis password files, .git and local builds', () => {
    const secrets = [
      'keys.json',
      'prod-keys.json',
      'secrets/keys.json',
      'lib/keys.json',
      '.keys.json.0f1e2d3c4b5a69788796a5b4c3d2e1f0.tmp',
      'keys.json.lock',
      '.keys.json.lock.0f1e2d3c4b5a69788796a5b4c3d2e1f0.new',
      '.keys.json.lock.0f1e2d3c4b5a69788796a5b4c3d2e1f0.claim',
      'server.pem',
      'server.key',
      'tls/privkey.pem',
      'lib/http/cert.pem',
      'spec/server.key',
      '.env',
      '.env.production',
      'deploy/.env',
      'redis-password',
      'redis.pass',
      'secrets/redis-password.txt',
      '.git/config',
      '.git/HEAD',
      'node_modules/redis/package.json',
      'dist/credential-generator.mjs',
      'coverage/lcov.info',
      '.test-output/home.png',
      'bench/results/latest.json',
      'server.log',
      'tests/helpers/server.ts',
      'docs/security.md',
    ];
    assert.deepEqual(secrets.filter(letIn), [], 'let into the build context');
  });

  it('S4: lets in exactly what the build needs: those files alone, with the installed dependencies, build the single file', () => {
    const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n');
    const inContext = tracked.filter(letIn);
    // Everything the build reads, nothing of the tests, docs, benchmark or deployment files.
    for (const file of inContext)
      assert.doesNotMatch(file, /^(tests|docs|bench|\.ci)\/|\.md$|^deploy\/(?!rollup)/, file);
    const dir = mkdtempSync(join(tmpdir(), 'cg-context-'));
    try {
      for (const file of inContext) {
        mkdirSync(dirname(join(dir, file)), { recursive: true });
        cpSync(join(ROOT, file), join(dir, file));
      }
      // What `npm ci` put there in the image: the same dependencies, linked.
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
      const built = spawnSync('npm', ['run', '--silent', 'build'], { cwd: dir, encoding: 'utf8' });
      assert.equal(built.status, 0, built.stdout + built.stderr);
      const single = readFileSync(join(dir, 'dist', 'credential-generator.mjs'));
      const recorded = readFileSync(join(dir, 'dist', 'credential-generator.mjs.sha256'), 'utf8').split(' ')[0];
      assert.equal(createHash('sha256').update(single).digest('hex'), recorded);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
