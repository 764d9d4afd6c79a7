/**
 * Clients from the published interface (docs/api.md, Clients). Two real generators, the pinned
 * devDependencies, turn the document a live server serves at /openapi.json into a TypeScript
 * client, offline (tests/helpers/no-network.mjs refuses every connection and name lookup):
 * openapi-typescript (types) for openapi-fetch, and @hey-api/openapi-ts (types, SDK and
 * client). A program per client (tests/fixtures/clients/), written as a user would, with no
 * cast and no `any`, compiles under `tsc --strict` and runs against the server: a password and
 * a passphrase with options, a password with constraints (issue 30), 400s read as the typed
 * error body, and GET /generate. A program
 * that passes wordCount (a passphrase option) to a password request does not compile, and the
 * examples of docs/api.md (its Clients section; the README links there) compile and run.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WORDLIST } from '../../lib/core/index.ts';
import { generate } from '../../lib/request/index.ts';
import { describe as describeService } from '../../lib/service/describe.ts';
import { ROOT, randomApiKey, startServer, type RunningServer } from '../helpers/server.ts';

const FIXTURES = join(ROOT, 'tests', 'fixtures', 'clients');
const NO_NETWORK = join(ROOT, 'tests', 'helpers', 'no-network.mjs');
const OPENAPI_TYPESCRIPT = join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
const HEY_API = join(ROOT, 'node_modules', '@hey-api', 'openapi-ts', 'bin', 'run.js');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
/** The flag docs/api.md documents: without it openapi-typescript makes a field with a default required. */
const OPENAPI_TYPESCRIPT_FLAGS = ['--default-non-nullable', 'false'];
const PROGRAMS = ['openapi-fetch', 'hey-api'] as const;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs node with `args` in `cwd`; the timeout is a kill bound only, for a loaded machine. */
function node(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd, timeout: 180_000, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env } },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr, ms: Math.round(performance.now() - started) });
      },
    );
  });
}

/** A generator run offline: it must succeed and never try the network, even in a caught error. */
async function generateOffline(label: string, args: string[], cwd: string): Promise<void> {
  const run = await node(['--import', NO_NETWORK, ...args], cwd);
  console.log(`${label}: ${run.ms} ms`);
  assert.equal(run.code, 0, `${label}\n${run.stdout}\n${run.stderr}`);
  assert.doesNotMatch(run.stderr, /no-network:/, `${label} tried the network:\n${run.stderr}`);
}

/** The program's source without comments and string literals: what the compiler reads as code. */
function codeOf(source: string): string {
  return source
    .replace(/\/\/[^\n]*/g, '')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`|"(?:[^"\\\n]|\\.)*"/g, "''");
}

/** The ```ts blocks of the "Clients" section of a document: the examples users copy. */
function examplesIn(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const start = text.indexOf('\n## Clients\n');
  assert.ok(start >= 0, `${file} has a "## Clients" section`);
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
}

/**
 * Every documented example, once, as the file the test
 * compiles: its URL made the live server's, and the client directory the one generated here.
 */
function documentedExamples(url: string): Map<string, string> {
  const examples = [...new Set(examplesIn('docs/api.md'))];
  assert.ok(examples.length >= 2, 'an example for each generator');
  return new Map(
    examples.map((code, i) => [
      `example-${i + 1}.ts`,
      code.replaceAll('http://127.0.0.1:8080', url).replaceAll('./cg-client/', './hey-api/'),
    ]),
  );
}

function tsconfig(files: string[], emit: boolean): string {
  return JSON.stringify({
    compilerOptions: {
      strict: true,
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2022', 'DOM'],
      types: ['node'],
      ...(emit ? { outDir: 'out', noEmitOnError: true } : { noEmit: true }),
    },
    files,
  });
}

describe('typed clients generated from /openapi.json', () => {
  const apiKey = randomApiKey();
  let server: RunningServer;
  let dir: string;

  before(async () => {
    server = await startServer({ apiKey, logLevel: 'error' });
    dir = mkdtempSync(join(tmpdir(), 'cg-clients-'));
    // The programs import openapi-fetch and use Node's types, as in a user's project.
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  });
  after(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('serves the built document at /openapi.json (the input of both generators)', async () => {
    const res = await fetch(`${server.url}/openapi.json`);
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.equal(text, readFileSync(join(ROOT, 'spec', 'openapi.json'), 'utf8'));
    writeFileSync(join(dir, 'openapi.json'), text);
  });

  it('the offline preload refuses a connection and a name lookup, and says so even when caught', async () => {
    const attempts = [
      `await fetch(${JSON.stringify(server.url)})`,
      `await new Promise((ok, ko) => http.get(${JSON.stringify(server.url)}, ok).on('error', ko))`,
      "await dns.promises.lookup('localhost')",
    ];
    for (const attempt of attempts) {
      const script = `import http from 'node:http'; import dns from 'node:dns'; try { ${attempt}; } catch {}`;
      const run = await node(['--import', NO_NETWORK, '--input-type=module', '-e', script], dir);
      assert.match(run.stderr, /no-network: \S+ refused/, `${attempt}: ${run.stderr}`);
    }
  });

  it('openapi-typescript generates the types offline', async () => {
    mkdirSync(join(dir, 'openapi-typescript'));
    await generateOffline(
      'openapi-typescript',
      [OPENAPI_TYPESCRIPT, 'openapi.json', ...OPENAPI_TYPESCRIPT_FLAGS, '-o', 'openapi-typescript/schema.d.ts'],
      dir,
    );
  });

  it('openapi-typescript reads the same document from the server URL, as docs/api.md shows', async () => {
    const run = await node(
      [OPENAPI_TYPESCRIPT, `${server.url}/openapi.json`, ...OPENAPI_TYPESCRIPT_FLAGS, '-o', 'schema.d.ts'],
      dir,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      readFileSync(join(dir, 'schema.d.ts'), 'utf8'),
      readFileSync(join(dir, 'openapi-typescript', 'schema.d.ts'), 'utf8'),
    );
  });

  it('@hey-api/openapi-ts generates the types, SDK and client offline', async () => {
    await generateOffline('@hey-api/openapi-ts', [HEY_API, '-i', 'openapi.json', '-o', 'hey-api'], dir);
    assert.ok(readdirSync(join(dir, 'hey-api')).includes('sdk.gen.ts'));
  });

  it('the programs use no cast, no any and no non-null assertion', () => {
    for (const file of readdirSync(FIXTURES)) {
      const source = readFileSync(join(FIXTURES, file), 'utf8');
      const code = codeOf(source);
      assert.doesNotMatch(code, /\bas\b/, `${file}: a cast`);
      assert.doesNotMatch(code, /\bany\b/, `${file}: any`);
      assert.doesNotMatch(code, /[\w)\]]!(?=[.;,)[\s])/, `${file}: a non-null assertion`);
      assert.doesNotMatch(source, /@ts-/, `${file}: a @ts- directive`);
    }
    for (const [name, code] of documentedExamples(server.url)) {
      assert.doesNotMatch(codeOf(code), /\bas\b|\bany\b|[\w)\]]!(?=[.;,)[\s])/, name);
    }
  });

  it('tsc --strict compiles both programs and the documented examples', async () => {
    for (const file of readdirSync(FIXTURES)) copyFileSync(join(FIXTURES, file), join(dir, file));
    const examples = documentedExamples(server.url);
    for (const [name, code] of examples) writeFileSync(join(dir, name), code);
    // The negative programs with wordCount replaced by a password option: the same code compiles,
    // so what the negative check sees refused is wordCount and nothing else.
    const controls = PROGRAMS.map((p) => `${p}.control.ts`);
    for (const p of PROGRAMS) {
      const negative = readFileSync(join(dir, `${p}.negative.ts`), 'utf8');
      assert.match(negative, /wordCount: 5/);
      writeFileSync(join(dir, `${p}.control.ts`), negative.replace('wordCount: 5', 'length: 12'));
    }
    writeFileSync(
      join(dir, 'tsconfig.json'),
      tsconfig([...PROGRAMS.map((p) => `${p}.ts`), ...examples.keys(), ...controls], true),
    );
    const run = await node([TSC, '-p', 'tsconfig.json', '--strict', '--pretty', 'false'], dir);
    console.log(`tsc --strict (generated clients, 2 programs, ${examples.size} examples, 2 controls): ${run.ms} ms`);
    assert.equal(run.code, 0, run.stdout);
  });

  it('tsc --strict refuses wordCount in a password request, with either client', async () => {
    writeFileSync(
      join(dir, 'tsconfig.negative.json'),
      tsconfig(
        PROGRAMS.map((p) => `${p}.negative.ts`),
        false,
      ),
    );
    const run = await node([TSC, '-p', 'tsconfig.negative.json', '--strict', '--pretty', 'false'], dir);
    assert.notEqual(run.code, 0, 'the negative programs compiled');
    const errors = [...run.stdout.matchAll(/^(\S+)\(\d+,\d+\): error (TS\d+): /gm)].map((m) => m[1]);
    assert.deepEqual(errors.sort(), PROGRAMS.map((p) => `${p}.negative.ts`).sort(), run.stdout);
    const refusals = run.stdout.match(/'wordCount' does not exist in type/g) ?? [];
    assert.equal(refusals.length, PROGRAMS.length, run.stdout);
  });

  /** What each program prints, as the service itself computes it. */
  function expected() {
    const body = (input: unknown) => generate(input).body;
    const bits = (input: unknown) => (body(input) as { entropy: { bits: number } }).entropy.bits;
    const description = describeService() as {
      limits: { count: { maximum: number } };
      modes: { passphrase: { options: { wordCount: { maximum: number } } } };
    };
    return {
      password: {
        summary: 'password, length 32',
        status: 200,
        mode: 'password',
        lengths: [32, 32],
        bits: bits({ mode: 'password', options: { length: 32, includeSymbols: true, avoidAmbiguous: true } }),
      },
      passphrase: {
        summary: 'passphrase, 6 words',
        status: 200,
        mode: 'passphrase',
        words: 6,
        bits: bits({ mode: 'passphrase', options: { wordCount: 6, separator: 'space', capitalize: true } }),
      },
      refused: { status: 400, body: body({ mode: 'password', options: { length: 7 } }) },
      named: { status: 400, field: 'policy' },
      constrained: { status: 200, lengths: [16] },
      unmet: { status: 400, field: 'options.minSymbols' },
      described: {
        status: 200,
        policies: 0,
        countMaximum: description.limits.count.maximum,
        wordlistSize: WORDLIST.length,
        wordCountMaximum: description.modes.passphrase.options.wordCount.maximum,
      },
    };
  }

  for (const program of PROGRAMS) {
    it(`the ${program} program runs against the server: both modes, a typed 400 and GET /generate`, async () => {
      const run = await node([join('out', `${program}.js`)], dir, {
        CG_BASE_URL: server.url,
        CG_API_KEY: apiKey,
      });
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      assert.deepEqual(JSON.parse(run.stdout), expected());
    });
  }

  it('the documented examples run against the server and print what they asked for', async () => {
    const printed: string[] = [];
    for (const name of documentedExamples(server.url).keys()) {
      const run = await node([join('out', name.replace(/\.ts$/, '.js'))], dir, { CG_API_KEY: apiKey });
      assert.equal(run.code, 0, `${name}: ${run.stdout}\n${run.stderr}`);
      printed.push(run.stdout.trim());
    }
    // docs/api.md: a passphrase of 6 words (hyphens) and a password of 32 characters.
    assert.equal(printed.length, 2, printed.join('\n'));
    const [passphrase, password] = printed;
    const words = passphrase.split('-');
    assert.equal(words.length, 6, passphrase);
    for (const word of words) assert.ok(WORDLIST.includes(word), word);
    assert.match(password, /^\S{32}$/);
  });
});
