/**
 * The connection caps of the public listener (lib/http/connection-caps.ts, security finding
 * T1): the count per client key, and both caps on a real listener, over loopback sources
 * 127.0.0.1 and 127.0.0.2.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import { clientKeyOf } from '../../lib/http/client-key.ts';
import { capConnections, ConnectionCounts, SlotTable, type RefusedBy } from '../../lib/http/connection-caps.ts';
import { withReplyCap } from '../../lib/http/outstanding-replies.ts';
import { fixturePair } from '../helpers/certificates.ts';
import { captureLogger } from '../helpers/log-capture.ts';

describe('ConnectionCounts', () => {
  it('admits up to the cap per key, and again after a release', () => {
    const counts = new ConnectionCounts(2);
    assert.equal(counts.admit('a'), true);
    assert.equal(counts.admit('a'), true);
    assert.equal(counts.admit('a'), false);
    assert.equal(counts.of('a'), 2, 'a refusal counts nothing');
    assert.equal(counts.admit('b'), true);
    assert.equal(counts.keys, 2);
    counts.release('a');
    assert.equal(counts.admit('a'), true);
    counts.release('a');
    counts.release('a');
    counts.release('b');
    assert.equal(counts.keys, 0, 'a key without connections is not held');
    counts.release('never admitted');
    assert.equal(counts.keys, 0);
    assert.equal(counts.of('a'), 0);
  });

  it('counts one IPv6 /56 and one IPv4 host in all its spellings as one client', () => {
    const counts = new ConnectionCounts(1);
    assert.equal(counts.admit(clientKeyOf('2001:db8:ab:cd01::1')), true);
    assert.equal(counts.admit(clientKeyOf('2001:db8:ab:cdff::2')), false);
    assert.equal(counts.admit(clientKeyOf('203.0.113.9')), true);
    assert.equal(counts.admit(clientKeyOf('::ffff:203.0.113.9')), false);
  });
});

/** A connection from `from`: 'served' if a request on it is answered, 'closed' if the server
 * closed it first. Served ones stay open (keep-alive) in `open`. */
function probe(port: number, from: string, open: Socket[]): Promise<'served' | 'closed'> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: from });
    socket.on('error', () => undefined);
    socket.once('connect', () => socket.write('GET / HTTP/1.1\r\nHost: lo\r\n\r\n'));
    socket.once('data', () => {
      open.push(socket);
      resolve('served');
    });
    socket.once('close', () => resolve('closed'));
  });
}

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

const connections = (server: Server): Promise<number> =>
  new Promise((resolve, reject) => {
    server.getConnections((error, count) => (error === null ? resolve(count) : reject(error)));
  });

describe('capConnections', () => {
  const servers: Server[] = [];
  const open: Socket[] = [];
  after(() => {
    for (const s of open) s.destroy();
    for (const s of servers) s.close();
  });
  const serve = (): Server => {
    const server = createServer((_req, res) => res.end('ok'));
    servers.push(server);
    return server;
  };

  it('refuses a connection past the per-address cap at accept, counts and logs it masked, and admits one again once a connection closed', async () => {
    const server = serve();
    const log = captureLogger('debug');
    const refused: RefusedBy[] = [];
    capConnections(server, { total: 10, perAddress: 2 }, log.logger, (by) => refused.push(by));
    const port = await listening(server);
    const mine: Socket[] = [];
    assert.equal(await probe(port, '127.0.0.1', mine), 'served');
    assert.equal(await probe(port, '127.0.0.1', mine), 'served');
    assert.equal(await probe(port, '127.0.0.1', mine), 'closed');
    assert.equal(await probe(port, '127.0.0.2', open), 'served', 'another address has its own count');
    assert.deepEqual(refused, ['per_address']);
    await log.waitFor(/MAX_CONNECTIONS_PER_ADDRESS/);
    const line = log.lines('debug').find((l) => /MAX_CONNECTIONS_PER_ADDRESS/.test(String(l.msg)))!;
    assert.deepEqual([line.client, line.cap], ['127.0.0.0/24', 2]);
    assert.ok(!log.text().includes('127.0.0.1"'), 'no full address in the log');
    mine.pop()!.destroy();
    while ((await connections(server)) > 2) await new Promise((r) => setTimeout(r, 10));
    assert.equal(await probe(port, '127.0.0.1', mine), 'served');
    open.push(...mine);
  });

  it('refuses a connection past the process-wide cap (server.maxConnections), counts and logs it', async () => {
    const server = serve();
    const log = captureLogger('debug');
    const refused: RefusedBy[] = [];
    capConnections(server, { total: 2, perAddress: 2 }, log.logger, (by) => refused.push(by));
    assert.equal(server.maxConnections, 2);
    assert.equal(server.listenerCount('connection'), 1, 'no per-address count when it equals the total');
    const port = await listening(server);
    assert.equal(await probe(port, '127.0.0.1', open), 'served');
    assert.equal(await probe(port, '127.0.0.2', open), 'served');
    assert.equal(await probe(port, '127.0.0.3', open), 'closed');
    assert.deepEqual(refused, ['total']);
    await log.waitFor(/MAX_CONNECTIONS/);
    const line = log.lines('debug').find((l) => /MAX_CONNECTIONS/.test(String(l.msg)))!;
    assert.deepEqual([line.client, line.cap], ['127.0.0.0/24', 2]);
  });

  it('logs nothing below debug and needs no counter', async () => {
    const server = serve();
    const log = captureLogger('info');
    capConnections(server, { total: 1, perAddress: 1 }, log.logger);
    const port = await listening(server);
    assert.equal(await probe(port, '127.0.0.1', open), 'served');
    assert.equal(await probe(port, '127.0.0.1', open), 'closed');
    const other = serve();
    capConnections(other, { total: 5, perAddress: 1 }, log.logger);
    const otherPort = await listening(other);
    assert.equal(await probe(otherPort, '127.0.0.1', open), 'served');
    assert.equal(await probe(otherPort, '127.0.0.1', open), 'closed');
    log.logger.flush();
    assert.equal(log.text(), '');
  });
});

describe('U2: SlotTable, who gives way when every slot is taken', () => {
  /** A connection: its name, and whether it is only waiting on its client. */
  type C = { name: string; waiting: boolean };
  const c = (name: string, waiting = true): C => ({ name, waiting });
  const table = (total: number, perAddress: number) => new SlotTable<C>({ total, perAddress }, (x) => x.waiting);

  it('U2: refuses past the per-address cap, and a group past all but a quarter of the total', () => {
    const t = table(8, 4);
    assert.equal(t.perGroup, 6);
    for (let i = 0; i < 4; i++) assert.deepEqual(t.take(c(`a${i}`), '10.0.0.1', '10.0.0.0/24'), { evicted: null });
    assert.deepEqual(t.take(c('a4'), '10.0.0.1', '10.0.0.0/24'), { refused: 'per_address' });
    assert.deepEqual(t.take(c('b0'), '10.0.0.2', '10.0.0.0/24'), { evicted: null });
    assert.deepEqual(t.take(c('b1'), '10.0.0.2', '10.0.0.0/24'), { evicted: null });
    assert.deepEqual(t.take(c('b2'), '10.0.0.2', '10.0.0.0/24'), { refused: 'per_group' });
    assert.equal(t.open, 6);
    assert.equal(t.ofGroup('10.0.0.0/24'), 6);
    assert.equal(table(10, 10).perGroup, 10, 'never below the per-address cap');
  });

  it('U2: when full, a newcomer takes the slot of the oldest waiting connection of the largest group, never one being answered', () => {
    const t = table(6, 6);
    const big = [c('big0', false), c('big1'), c('big2'), c('big3')];
    for (const x of big) t.take(x, '10.1.0.1', '10.1.0.0/24');
    const small = [c('small0'), c('small1')];
    for (const x of small) t.take(x, '10.2.0.1', '10.2.0.0/24');
    assert.equal(t.open, 6);
    // big0 is being answered: big1 is the oldest waiting one of the largest group.
    assert.deepEqual(t.take(c('new0'), '10.3.0.1', '10.3.0.0/24'), { evicted: big[1] });
    assert.equal(t.ofGroup('10.1.0.0/24'), 3);
    assert.deepEqual(t.take(c('new1'), '10.3.0.1', '10.3.0.0/24'), { evicted: big[2] });
    // Now 2 (big0, big3), 2 (small), 2 (new): no group holds 2 more than the newcomer's.
    assert.deepEqual(t.take(c('new2'), '10.3.0.1', '10.3.0.0/24'), { refused: 'total' });
    // A newcomer of an empty group: one of the groups of 2 gives way (which one is not
    // specified), with its oldest waiting connection, never big0.
    const taken = t.take(c('new3'), '10.4.0.1', '10.4.0.0/24');
    assert.ok('evicted' in taken && taken.evicted !== null, JSON.stringify(taken));
    assert.ok(['big3', 'small0', 'new0'].includes(taken.evicted.name), taken.evicted.name);
    // A slot given back is free again, and giving it back twice changes nothing.
    t.release(big[0]);
    t.release(big[0]);
    assert.equal(t.open, 5);
    assert.deepEqual(t.take(c('new4'), '10.5.0.1', '10.5.0.0/24'), { evicted: null });
  });

  it('U2: walks down to a smaller group when the largest has no waiting connection', () => {
    const t = table(7, 7);
    for (let i = 0; i < 4; i++) t.take(c(`busy${i}`, false), '10.1.0.1', '10.1.0.0/24');
    const idle = [c('idle0'), c('idle1'), c('idle2')];
    for (const x of idle) t.take(x, '10.2.0.1', '10.2.0.0/24');
    assert.deepEqual(t.take(c('new'), '10.3.0.1', '10.3.0.0/24'), { evicted: idle[0] });
  });
});

/** Opens a connection from `from` that sends nothing; resolves once connected. */
function silent(port: number, from: string, open: Socket[]): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: from });
    socket.on('error', () => undefined);
    open.push(socket);
    socket.once('connect', () => resolve(socket));
  });
}

const closed = (socket: Socket): Promise<void> =>
  new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

describe('U2: capConnections makes room on a full listener', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cg-slots-'));
  const servers: Server[] = [];
  const open: Socket[] = [];
  after(() => {
    for (const s of open) s.destroy();
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('U2: silent connections of the largest group give way to another address; one being answered does not; the eviction is counted and logged masked', async () => {
    const log = captureLogger('debug');
    // A POST's body is read to its end before the reply: while it arrives the request is being answered.
    const server = createServer(
      withReplyCap((req, res) => {
        req.resume();
        req.on('end', () => res.end('ok'));
      }, log.logger),
    );
    servers.push(server);
    const refused: RefusedBy[] = [];
    let evicted = 0;
    capConnections(server, { total: 4, perAddress: 4 }, log.logger, (by) => refused.push(by), {
      peersAreClients: true,
      onEvicted: () => evicted++,
    });
    assert.equal(server.maxConnections, undefined, 'the total is counted here, not by node');
    const port = await listening(server);
    // The oldest: a request whose body is still arriving.
    const busy = await silent(port, '127.1.0.1', open);
    busy.write('POST / HTTP/1.1\r\nHost: lo\r\nContent-Length: 10\r\n\r\n12345');
    await new Promise((r) => setTimeout(r, 100));
    const quiet = [await silent(port, '127.1.0.2', open), await silent(port, '127.1.0.3', open)];
    const other = await silent(port, '127.2.0.1', open);
    // Full. 127.1.0.0/24 holds 3, the newcomer's group none: its oldest waiting one gives way.
    const mine: Socket[] = [];
    assert.equal(await probe(port, '127.3.0.1', mine), 'served');
    await closed(quiet[0]);
    assert.equal(busy.destroyed, false, 'the connection being answered stays');
    assert.equal(evicted, 1);
    await log.waitFor(/connection closed to make room/);
    const line = log.lines('debug').find((l) => /make room/.test(String(l.msg)))!;
    assert.deepEqual([line.client, line.for], ['127.1.0.0/24', '127.3.0.0/24']);
    assert.ok(!log.text().includes('127.1.0.2"'), 'no full address in the log');
    // Now 2, 1, 1 (the served one idles on keep-alive): no group holds 2 more than a newcomer
    // of 127.2.0.0/24, which holds 1.
    assert.equal(await probe(port, '127.2.0.2', open), 'closed');
    assert.deepEqual(refused, ['total']);
    busy.write('67890');
    await new Promise((resolve) => busy.once('data', resolve));
    open.push(...mine, other);
  });

  it('U2: over TLS, one that leaves its replies unread gives way, and one whose body is arriving does not: their requests come on the TLS socket', async () => {
    const pair = fixturePair(dir, 'slots');
    const log = captureLogger('info');
    const big = Buffer.alloc(4 * 1024 * 1024, 'x');
    const server = createHttpsServer(
      { cert: readFileSync(pair.cert), key: readFileSync(pair.key) },
      withReplyCap((req, res) => {
        req.resume();
        req.on('end', () => res.end(req.method === 'POST' ? 'ok' : big));
      }, log.logger),
    ) as unknown as Server;
    servers.push(server);
    let evicted = 0;
    capConnections(server, { total: 2, perAddress: 2 }, log.logger, undefined, {
      peersAreClients: true,
      onEvicted: () => evicted++,
    });
    const port = await listening(server);
    const tls = (from: string, head: string): Promise<Socket> =>
      new Promise((resolve) => {
        const socket = tlsConnect({
          socket: connect({ host: '127.0.0.1', port, localAddress: from }),
          rejectUnauthorized: false,
        });
        socket.pause();
        socket.on('error', () => undefined);
        open.push(socket);
        socket.once('secureConnect', () => {
          socket.write(head, () => resolve(socket));
        });
      });
    // The older one is being answered (its body is arriving), the younger leaves 4 MB unread.
    const uploading = await tls('127.1.0.1', 'POST / HTTP/1.1\r\nHost: lo\r\nContent-Length: 4\r\n\r\nab');
    const stalled = await tls('127.1.0.2', 'GET / HTTP/1.1\r\nHost: lo\r\n\r\n');
    await new Promise((r) => setTimeout(r, 200));
    await tls('127.2.0.1', '');
    assert.equal(evicted, 1);
    // The stalled one was closed: reading, it meets the end before the 4 MB.
    let read = 0;
    stalled.on('data', (chunk: Buffer) => (read += chunk.length));
    stalled.resume();
    await closed(stalled);
    assert.ok(read < big.length, `${read} bytes read`);
    // The uploading one was not: its body ends and it gets its reply.
    uploading.resume();
    let reply = '';
    uploading.on('data', (chunk: Buffer) => (reply += chunk.toString('latin1')));
    uploading.write('cd');
    while (!reply.endsWith('ok')) await new Promise((r) => setTimeout(r, 10));
    assert.match(reply, /^HTTP\/1\.1 200 /);
  });
});
