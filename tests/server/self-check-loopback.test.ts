/**
 * U5 (docs/security.md, connections and memory): the start-up self-check of the Node internals
 * (lib/http/node-internals.ts) listens on the loopback address of HOST's family, else the
 * other one; when it cannot listen on either, or its connections do not get through (a
 * firewall filtering loopback), the start is refused with one line that says so, never a
 * stack trace and never a blame on Node. Before, it listened on 127.0.0.1 with no error
 * handler: without IPv4 loopback the process died with a 17-line stack trace (EADDRNOTAVAIL),
 * though HOST=::1 would have served.
 */
import assert from 'node:assert/strict';
import { Socket } from 'node:net';
import { describe, it } from 'node:test';
import { checkNodeInternals, internalsRefusal, loopbacksFor } from '../../lib/http/node-internals.ts';
import { launchServer, startServer } from '../helpers/server.ts';

const PRELOAD = `--import=${import.meta.resolve('../helpers/no-loopback.mjs')}`;
const withoutLoopback = (missing: string, env: Record<string, string> = {}) => ({
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${PRELOAD}`.trim(),
  NO_LOOPBACK: missing,
  ...env,
});

/** The output of a start that must be refused: its exit code, and its lines. */
async function refused(env: Record<string, string>): Promise<string[]> {
  const server = launchServer({ env });
  const started = server.waitForOutput(/listening on/).then(
    () => server.stop(),
    () => undefined,
  );
  const status = await server.exited;
  await started;
  assert.equal(status.code, 1, server.output());
  return server.output().trimEnd().split('\n');
}

describe('U5: the self-check without IPv4 loopback', () => {
  it('U5: with HOST=::1 and no 127.0.0.1, the server starts and serves on ::1', async () => {
    const server = await startServer({ env: withoutLoopback('127.0.0.1', { HOST: '::1' }) });
    try {
      assert.match(server.url, /^http:\/\/\[::1\]:\d+$/);
      assert.equal((await fetch(`${server.url}/health`)).status, 200);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  it('U5: with the default HOST and no 127.0.0.1, one line says the listener cannot bind (the check ran on ::1)', async () => {
    const lines = await refused(withoutLoopback('127.0.0.1'));
    assert.deepEqual(lines, [`cannot listen on 127.0.0.1:0 (EADDRNOTAVAIL); check PORT and HOST`]);
  });

  it('U5: with no loopback at all, one line says the self-check cannot listen, and why', async () => {
    const lines = await refused(withoutLoopback('127.0.0.1,::1', { HOST: '::1' }));
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(
      lines[0],
      /^cannot start: the start-up self-check of the Node internals cannot listen on loopback \(::1: EADDRNOTAVAIL; 127\.0\.0\.1: EADDRNOTAVAIL\); /,
    );
    assert.doesNotMatch(lines[0], /no longer provides/);
  });

  it('U5: the loopback of HOST family first', () => {
    assert.deepEqual(loopbacksFor('::1'), ['::1', '127.0.0.1']);
    assert.deepEqual(loopbacksFor('2001:db8::1'), ['::1', '127.0.0.1']);
    assert.deepEqual(loopbacksFor('0.0.0.0'), ['127.0.0.1', '::1']);
    assert.deepEqual(loopbacksFor('localhost'), ['127.0.0.1', '::1']);
    assert.deepEqual(loopbacksFor(undefined), ['127.0.0.1', '::1']);
  });

  it('U5: connections refused or dropped on loopback (a firewall) are said to be so, not blamed on Node', async () => {
    const proto = Socket.prototype as unknown as { connect: (this: Socket) => Socket };
    const connect = Object.getOwnPropertyDescriptor(Socket.prototype, 'connect')!;
    try {
      // Refused: each connection fails at once.
      proto.connect = function () {
        process.nextTick(() =>
          this.destroy(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
        );
        return this;
      };
      const rejected = await checkNodeInternals();
      assert.ok(rejected !== null && typeof rejected === 'object', JSON.stringify(rejected));
      assert.match(
        internalsRefusal(rejected),
        /^cannot start: the start-up self-check of the Node internals cannot connect to itself on 127\.0\.0\.1 port \d+ \(ECONNREFUSED\): a firewall may be filtering loopback; /,
      );
      // Dropped: no connection ever completes.
      proto.connect = function () {
        return this;
      };
      const dropped = await checkNodeInternals('::1', 300);
      assert.ok(dropped !== null && typeof dropped === 'object', JSON.stringify(dropped));
      assert.match(
        internalsRefusal(dropped),
        / cannot connect to itself on ::1 port \d+ \(no connection within 300 ms\): a firewall may be filtering loopback; /,
      );
    } finally {
      Object.defineProperty(Socket.prototype, 'connect', connect);
    }
    assert.equal(await checkNodeInternals('::1'), null, 'the check passes on ::1');
  });
});
