/**
 * readBody over a stand-in request stream: the limit is exact and settles once.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { readBody as readBodyCallback, type BodyResult } from '../../lib/http/body.ts';

const readBody = (req: IncomingMessage, limit: number) =>
  new Promise<BodyResult>((resolve) => readBodyCallback(req, limit, resolve));

const fake = () => new PassThrough() as unknown as IncomingMessage & PassThrough;

describe('readBody', () => {
  it('returns the whole body up to exactly the limit, in one or many chunks', async () => {
    const one = fake();
    const p1 = readBody(one, 10);
    one.end(Buffer.from('0123456789'));
    const r1 = await p1;
    assert.equal(r1.kind, 'ok');
    assert.equal(r1.kind === 'ok' && r1.body.toString(), '0123456789');

    const many = fake();
    const p2 = readBody(many, 10);
    many.write('01234');
    many.write('56789');
    many.end();
    const r2 = await p2;
    assert.equal(r2.kind === 'ok' && r2.body.toString(), '0123456789');

    const empty = fake();
    const p3 = readBody(empty, 10);
    empty.end();
    const r3 = await p3;
    assert.equal(r3.kind === 'ok' && r3.body.length, 0);
  });

  it('stops at the first byte past the limit and stops reading', async () => {
    const req = fake();
    const p = readBody(req, 10);
    req.write('0123456789');
    req.write('X');
    assert.deepEqual(await p, { kind: 'too-large' });
    assert.equal(req.isPaused(), true);
    req.emit('data', Buffer.from('more')); // ignored once settled
    req.emit('end');
    req.emit('error', new Error('late reset')); // must not throw: a listener stays
  });

  it('calls back exactly once, whatever follows', () => {
    const req = fake();
    const results: BodyResult[] = [];
    readBodyCallback(req, 4, (r) => results.push(r));
    req.emit('data', Buffer.from('12345'));
    req.emit('data', Buffer.from('6'));
    req.emit('end');
    req.emit('close');
    assert.deepEqual(results, [{ kind: 'too-large' }]);
  });

  it('settles as aborted when the stream closes before its end', async () => {
    const req = fake();
    const p = readBody(req, 10);
    req.write('01');
    req.destroy();
    assert.deepEqual(await p, { kind: 'aborted' });
  });
});
