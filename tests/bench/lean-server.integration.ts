/**
 * The lean limit of the benchmark (bench/lean-server.mjs) is only a fair limit if it does the
 * contract work it is compared on: the key, the bucket and its headers, the 16 KB cap, each of
 * Content-Type and X-Api-Key once and no member name twice, the request's validation without
 * coercion, a uniform generator with the each-class rule and the service's exact bits, the reply
 * with the headers the contract puts on every JSON reply, and one log line per request without
 * the key or a generated value. Real sockets against the real script; nothing here is timed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { LEAN_SERVER } from '../../bench/procs.ts';
import { headerSets, policyOf } from '../../lib/http/headers.ts';
import { generate } from '../../lib/request/index.ts';
import { validatorAt, type GenerateReply } from '../helpers/contract.ts';

const KEY = 'bench-lean-key-0123456789';
const JSON_HEADERS = headerSets(false).json;
const SERVICE_JSON = new Map(JSON_HEADERS.flatMap((v, i) => (i % 2 === 0 ? [[v, JSON_HEADERS[i + 1]] as const] : [])));
const CLASSES: Record<string, RegExp> = {
  lowercase: /[a-z]/,
  uppercase: /[A-Z]/,
  numbers: /[0-9]/,
  symbols: /[!@#$%^&*()\-_=+[\]{};:,.?]/,
};

/** One request on a fresh connection, raw enough to send a bad length or content type. */
function send(
  url: string,
  body: string,
  headers: Record<string, string | string[]> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/generate`,
      {
        method: 'POST',
        agent: false,
        headers: { 'Content-Type': 'application/json', 'X-Api-Key': KEY, ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the lean limit (bench/lean-server.mjs)', () => {
  let server: ChildProcess;
  let url = '';
  let output = '';
  const generated: string[] = [];
  const isResponse = validatorAt('/components/schemas/GenerateResponse');
  const stop = async (): Promise<void> => {
    if (server.exitCode !== null) return;
    const exited = once(server, 'exit');
    server.kill('SIGTERM');
    await exited;
  };

  before(async () => {
    const env = { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', API_KEY: KEY, RATE_LIMIT_PER_MINUTE: '30' };
    server = spawn(process.execPath, [LEAN_SERVER], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    server.stdout!.setEncoding('utf8');
    url = await new Promise<string>((resolve, reject) => {
      server.stdout!.on('data', (chunk: string) => {
        output += chunk;
        const m = /"url":"(http:[^"]+)"/.exec(output);
        if (m !== null) resolve(m[1]);
      });
      server.once('exit', () => reject(new Error(`the lean server exited:\n${output}`)));
    });
  });
  after(stop);

  it('answers the contract body with the service exact bits, no-store and the bucket numbers', async () => {
    for (const options of [
      undefined,
      { length: 8, includeSymbols: true, avoidAmbiguous: true },
      { length: 40, includeUppercase: false, excludedCharacters: 'abcdefg0123' },
      { length: 12, includeLowercase: false, includeNumbers: false, includeSymbols: true },
    ]) {
      const input = options === undefined ? { mode: 'password', count: 5 } : { mode: 'password', count: 5, options };
      const reply = await send(url, JSON.stringify(input));
      assert.equal(reply.status, 200, reply.body);
      const body: GenerateReply = JSON.parse(reply.body);
      assert.ok(isResponse(body), JSON.stringify(isResponse.errors));
      assert.equal(reply.headers['cache-control'], 'no-store');
      assert.equal(reply.headers['x-ratelimit-limit'], '30');
      assert.match(String(reply.headers['x-ratelimit-remaining']), /^\d+$/);
      assert.ok(Number(reply.headers['x-ratelimit-reset']) > 0);
      // The rest of what the contract puts on every JSON reply, with the service's values.
      for (const name of ['X-Content-Type-Options', 'Referrer-Policy', 'Content-Security-Policy', 'Content-Type'])
        assert.equal(reply.headers[name.toLowerCase()], SERVICE_JSON.get(name), name);
      assert.equal(reply.headers['ratelimit-policy'], policyOf(30));
      assert.equal(
        reply.headers.ratelimit,
        `"client";r=${String(reply.headers['x-ratelimit-remaining'])};t=${String(reply.headers['x-ratelimit-reset'])}`,
      );
      // The same entropy and metadata as the service's generator for the same request.
      const service = generate(input);
      assert.equal(service.status, 200);
      if (service.status !== 200) return;
      const metadata = service.body.metadata as unknown as { length: number; classes: { name: string }[] };
      assert.deepEqual(body.entropy, service.body.entropy);
      assert.deepEqual(body.metadata, metadata);
      assert.equal(body.results.length, 5);
      assert.equal(body.value, body.results[0].value);
      for (const r of body.results) {
        generated.push(r.value);
        assert.equal(r.value.length, metadata.length);
        for (const c of metadata.classes) assert.match(r.value, CLASSES[c.name], `every class in ${r.value}`);
        for (const ch of r.value) assert.ok(!(options?.excludedCharacters ?? '').includes(ch));
      }
    }
  });

  it('refuses what the contract refuses, each with the contract status', async () => {
    assert.equal((await send(url, '{"mode":"password"}', { 'X-Api-Key': 'not-the-key-0123456789' })).status, 401);
    assert.equal((await send(url, '{"mode":"password"}', { 'Content-Type': 'text/plain' })).status, 400);
    assert.equal((await send(url, '{"mode":"password"', {})).status, 400, 'not JSON');
    assert.equal((await send(url, '{"mode":"password","colour":"red"}')).status, 400, 'an unknown field');
    assert.equal((await send(url, '{"mode":"password","count":21}')).status, 400, 'count above 20');
    assert.equal((await send(url, '{"mode":"password","options":{"length":"24"}}')).status, 400, 'no coercion');
    assert.equal((await send(url, '{"mode":"password","options":{"length":7}}')).status, 400, 'length below 8');
    const json = 'application/json';
    assert.equal((await send(url, '{"mode":"password"}', { 'Content-Type': [json, json] })).status, 400, 'two types');
    assert.equal((await send(url, '{"mode":"password"}', { 'X-Api-Key': [KEY, KEY] })).status, 401, 'two keys');
    const twice = '{"mode":"password","options":{"length":9,"length":10}}';
    assert.equal((await send(url, twice)).status, 400, 'a member name twice');
    assert.equal((await send(url, '{"mode":"password","options":{"excludedCharacters":":\\":"}}')).status, 200);
    const big = JSON.stringify({ mode: 'password', pad: 'x'.repeat(17_000) });
    assert.equal((await send(url, big)).status, 413);
  });

  it('refuses past the bucket with Retry-After', async () => {
    let last = await send(url, '{"mode":"password"}');
    for (let i = 0; i < 40 && last.status !== 429; i++) last = await send(url, '{"mode":"password"}');
    assert.equal(last.status, 429);
    assert.ok(Number(last.headers['retry-after']) >= 1);
    assert.equal(last.headers['x-ratelimit-remaining'], '0');
  });

  it('writes one JSON line per request, without the key or a generated value', async () => {
    await stop(); // it writes what its log holds as it exits
    const lines = output
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'request');
    assert.ok(lines.length >= 14, `${lines.length} request lines`);
    for (const line of lines) {
      assert.deepEqual(Object.keys(line), ['time', 'level', 'msg', 'method', 'route', 'status', 'ms', 'key', 'client']);
      assert.equal(line.client, '127.0.0.0/24');
      // Written as the service writes it: toISOString's text, read back to the same instant.
      assert.equal(new Date(Date.parse(String(line.time))).toISOString(), line.time);
    }
    assert.ok(!output.includes(KEY), 'no key in the log');
    for (const value of generated) assert.ok(!output.includes(value), 'no generated value in the log');
  });
});
