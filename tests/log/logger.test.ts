/**
 * The logger's batch is UTF-8 bytes in one reused buffer (lib/log/logger.ts): every line comes
 * out whole, in order and byte for byte, whatever its characters or length, and what stdout is
 * handed is its own copy, never a view of the buffer that the next lines overwrite. (Levels,
 * line shapes and batch timing: tests/http/app.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { hundredthsText, Logger } from '../../lib/log/logger.ts';
import { LINE_BREAKS, TERMINAL_UNSAFE } from '../helpers/unsafe-text.ts';

const at = (): number => Date.UTC(2026, 10, 25, 12, 0, 0, 0);

function textLogger(): { log: Logger; writes: string[] } {
  const writes: string[] = [];
  return { log: new Logger('debug', (text) => writes.push(text), at), writes };
}

const messages = (text: string): unknown[] =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => (JSON.parse(line) as { msg: unknown }).msg);

describe('Logger batch bytes', () => {
  it('carries any character through the batch exactly: accents, CJK, emoji, a lone surrogate', () => {
    const { log, writes } = textLogger();
    const odd = ['café ß', '密码生成', 'key 🔑 ok', 'lone \ud800 half'];
    for (const msg of odd) log.info(msg);
    log.flush();
    assert.equal(writes.length, 1);
    // JSON.stringify writes a lone surrogate as an escape, so it survives UTF-8 as well.
    assert.deepEqual(messages(writes[0]), odd);
  });

  it('writes a line too long for the batch whole, after the lines before it, then batches again', () => {
    const { log, writes } = textLogger();
    const long = 'x'.repeat(40_000) + 'é';
    log.info('before');
    log.warn(long);
    log.info('after');
    log.flush();
    assert.equal(writes.length, 3, 'the pending batch, the long line alone, the next batch');
    assert.deepEqual(writes.map(messages), [['before'], [long], ['after']]);
  });

  it('cuts batches only between lines: 2,000 lines of mixed widths come out whole and in order', () => {
    const { log, writes } = textLogger();
    const sent: string[] = [];
    for (let i = 0; i < 2_000; i++) {
      const msg = `${i} ${'é'.repeat(i % 97)}${'a'.repeat((i * 7) % 300)}`;
      sent.push(msg);
      log.info(msg);
    }
    log.flush();
    assert.ok(writes.length > 10, `${writes.length} batches`);
    for (const text of writes) {
      assert.ok(text.endsWith('\n'));
      assert.ok(Buffer.byteLength(text) < 16_384 + 1_000, 'a batch is written once it reaches 16 KB');
    }
    assert.deepEqual(messages(writes.join('')), sent);
  });

  it('hands stdout a copy that later lines do not change', (t) => {
    const chunks: Uint8Array[] = [];
    t.mock.method(process.stdout, 'write', (chunk: Uint8Array) => {
      chunks.push(chunk);
      return true;
    });
    const log = new Logger('info', undefined, at);
    log.info('first');
    log.flush();
    log.info('later, and longer than the first');
    log.flush();
    t.mock.restoreAll();
    assert.equal(chunks.length, 2);
    assert.deepEqual(messages(Buffer.from(chunks[0]).toString('utf8')), ['first']);
    assert.deepEqual(messages(Buffer.from(chunks[1]).toString('utf8')), ['later, and longer than the first']);
  });
});

describe('the request line', () => {
  it('writes the duration as JSON.stringify writes it, to the hundredth', () => {
    for (let h = 0; h <= 200_000; h++) assert.equal(hundredthsText(h / 100), JSON.stringify(h / 100), String(h));
    for (const ms of [0.004, 0.005, 0.015, 1.005, 12.345, 99.999, 1e6 + 0.25, 123456789.12, 2 ** 40 / 3]) {
      assert.equal(hundredthsText(ms), JSON.stringify(Math.round(ms * 100) / 100), String(ms));
    }
  });

  it('quotes every value as JSON.stringify does, also past the bound on values it keeps quoted', () => {
    const { log, writes } = textLogger();
    const sent: { route: string; client: string; key: string }[] = [];
    for (let i = 0; i < 9000; i++) {
      const v = { route: `/r"${i % 5000}\\`, client: `c\u2028${i}`, key: i % 2 === 0 ? 'env' : `k\n${i % 4100}` };
      sent.push(v);
      log.request({
        id: 'AAAAAAAAAAAAAAAA',
        method: 'POST',
        status: 200,
        ms: i / 100,
        reason: 'r"',
        field: null,
        ...v,
      });
    }
    log.flush();
    const lines = writes
      .join('')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(lines.length, sent.length);
    lines.forEach((line, i) => {
      assert.equal(line.route, sent[i].route);
      assert.equal(line.client, sent[i].client);
      assert.equal(line.key, sent[i].key);
      assert.equal(line.reason, 'r"');
      assert.equal(line.ms, i / 100);
    });
  });
});

describe('U3: what a log line may hold', () => {
  const HOSTILE = [
    'nel \u0085 line',
    'ls \u2028 ps \u2029',
    'c0 \u0000 \u001b[31m \r\n \u007f',
    'c1 \u0080 \u009b2J \u009f',
    'bidi \u202e \u2066 \u2069 \u200e \u200f \u061c',
    'zero-width \u200b \u200d \ufeff',
  ];

  it('U3: escapes U+2028, U+2029, U+0085, the C0 and C1 controls and the bidi controls in every line: one line each, the same values', () => {
    const { log, writes } = textLogger();
    for (const text of HOSTILE) log.error(text, { reason: text, list: [text] });
    log.request({
      id: 'abc',
      method: 'POST',
      route: '/generate',
      status: 400,
      ms: 1,
      key: null,
      client: '127.0.0.0/24',
      reason: 'duplicateMember',
      field: HOSTILE.join('|'),
    });
    log.flush();
    const text = writes.join('');
    assert.ok(!TERMINAL_UNSAFE.test(text) && !/[\u200b-\u200d\ufeff]/.test(text), JSON.stringify(text));
    const lines = text.trimEnd().split(LINE_BREAKS);
    assert.equal(lines.length, HOSTILE.length + 1);
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(
      parsed.slice(0, -1).map((l) => [l.msg, l.reason, l.list]),
      HOSTILE.map((t) => [t, t, [t]]),
    );
    assert.equal(parsed.at(-1)?.field, HOSTILE.join('|'));
  });

  it('U3 (issue 40): the request line escapes every value it quotes, each once, with no pass over the whole line', () => {
    const { log, writes } = textLogger();
    for (const text of HOSTILE) {
      for (let i = 0; i < 2; i++) {
        log.request({
          id: 'abc',
          method: text,
          route: text,
          status: 400,
          ms: 1,
          key: text,
          client: text,
          reason: text,
          field: text,
        });
      }
    }
    log.flush();
    const text = writes.join('');
    assert.ok(!TERMINAL_UNSAFE.test(text) && !/[\u200b-\u200d\ufeff]/.test(text), JSON.stringify(text));
    const lines = text.trimEnd().split(LINE_BREAKS);
    assert.equal(lines.length, 2 * HOSTILE.length);
    lines.forEach((l, i) => {
      const line = JSON.parse(l) as Record<string, unknown>;
      const sent = HOSTILE[Math.floor(i / 2)];
      assert.deepEqual([line.method, line.route, line.key, line.client, line.reason, line.field], Array(6).fill(sent));
    });
  });
});

describe('Logger time field', () => {
  // The time is built from a prefix made once a second and the milliseconds (lib/log/logger.ts
  // time()): it must read exactly as Date.prototype.toISOString would, at every millisecond.
  function timesFor(clock: readonly number[]): string[] {
    const writes: string[] = [];
    let i = 0;
    const log = new Logger(
      'info',
      (text) => writes.push(text),
      () => clock[i],
    );
    for (i = 0; i < clock.length; i++) {
      if (i % 2 === 0) log.info('tick');
      else
        log.request({
          id: 'a',
          method: 'GET',
          route: '/health',
          status: 200,
          ms: 0,
          key: null,
          client: 'c',
          reason: null,
          field: null,
        });
    }
    log.flush();
    return writes
      .join('')
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { time: string }).time);
  }

  it('reads as toISOString at every millisecond across second, day, year and leap-day boundaries', () => {
    const edges = [
      0,
      Date.UTC(2026, 10, 30, 1, 2, 3, 999),
      Date.UTC(2026, 11, 31, 23, 59, 59, 998),
      Date.UTC(2028, 1, 28, 23, 59, 59, 990),
      Date.UTC(2028, 1, 29, 23, 59, 59, 990),
      -1500,
      Date.UTC(9999, 11, 31, 23, 59, 59, 995),
    ];
    const clock: number[] = [];
    for (const start of edges) for (let ms = 0; ms < 25; ms++) clock.push(start + ms);
    assert.deepEqual(
      timesFor(clock),
      clock.map((t) => new Date(t).toISOString()),
    );
  });

  it('reads as toISOString for 5,000 random times, in any order, and when the clock steps back', () => {
    const clock: number[] = [];
    let t = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 5_000; i++) {
      // Mostly small steps forward (same second, next second), some back, some far.
      const r = Math.random();
      t +=
        r < 0.6
          ? Math.floor(Math.random() * 3)
          : r < 0.8
            ? 1000
            : r < 0.9
              ? -Math.floor(Math.random() * 2500)
              : Math.floor(Math.random() * 1e10);
      clock.push(t);
    }
    assert.deepEqual(
      timesFor(clock),
      clock.map((x) => new Date(x).toISOString()),
    );
  });

  it('formats a second once however many lines fall in it (the clock read once a line)', () => {
    const formats = mock.method(Date.prototype, 'toISOString');
    try {
      const base = Date.UTC(2026, 10, 30, 1, 2, 3, 0);
      const clock = Array.from({ length: 3_000 }, (_, i) => base + Math.floor(i / 3)); // 1,000 ms: 1 s
      assert.equal(timesFor(clock).length, 3_000);
      assert.equal(formats.mock.callCount(), 1);
    } finally {
      formats.mock.restore();
    }
  });
});
