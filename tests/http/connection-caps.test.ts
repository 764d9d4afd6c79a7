/**
 * The connection caps of the public listener (lib/http/connection-caps.ts, security finding
 * T1): the count per client key, and both caps on a real listener, over loopback sources
 * 127.0.0.1 and 127.0.0.2.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { clientKeyOf } from '../../lib/http/client-key.ts';
import { capConnections, ConnectionCounts, type RefusedBy } from '../../lib/http/connection-caps.ts';
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
