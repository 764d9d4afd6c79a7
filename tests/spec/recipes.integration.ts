/**
 * The typed-client recipes of docs/api.md (Clients) work as printed, in an empty folder: each
 * fenced block marked `<!-- recipe: NAME -->` is a step of recipe NAME, in document order; a
 * `sh` block runs in bash as printed, a block marked `<!-- recipe: NAME FILE -->` is the file a
 * user saves under that name. The one change made to the text is the server's address
 * (http://127.0.0.1:8080 becomes the live server's). Each recipe runs in a new empty temporary
 * folder: npm install from the registry (with the versions the recipe pins), code generation,
 * tsc, and a call to a server started here on loopback. It needs the npm registry, so it is an
 * integration test; each recipe is bounded by RECIPE_TIMEOUT_MS.
 *
 * Why: the recipes used to fail verbatim (npx paired @hey-api/openapi-ts with TypeScript 7 and
 * crashed; openapi-fetch's top-level await failed in a CommonJS project, and tsc lacked
 * @types/node), while tests/spec/clients.integration.ts, which compiles the same programs with
 * the project's own node_modules, passed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT, randomApiKey, startServer, type RunningServer } from '../helpers/server.ts';

/** A recipe installs packages from the registry: slow on a busy machine, bounded all the same. */
const RECIPE_TIMEOUT_MS = 300_000;
const DOC = join(ROOT, 'docs', 'api.md');
const PRINTED_URL = 'http://127.0.0.1:8080';

interface Step {
  lang: string;
  file: string | null;
  text: string;
}

/** The marked blocks of the document, by recipe, in order. */
function recipesIn(markdown: string): Map<string, Step[]> {
  const recipes = new Map<string, Step[]>();
  const marked = /<!-- recipe: ([a-z0-9-]+)(?: ([\w.-]+))? -->\n```(\w+)\n([\s\S]*?)```/g;
  for (const [, name, file, lang, text] of markdown.matchAll(marked)) {
    const steps = recipes.get(name) ?? [];
    steps.push({ lang, file: file ?? null, text });
    recipes.set(name, steps);
  }
  return recipes;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * One sh block in bash, as a user pastes it (-e: the first failing command fails the step).
 * bash leads its own process group, so the timeout ends npm and tsc too, not only bash.
 */
function bash(script: string, cwd: string, env: NodeJS.ProcessEnv, timeout: number): Promise<Run> {
  return new Promise((resolve) => {
    let timedOut = false;
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      // A negative pid is the group; never 0, which would be the test's own group.
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group has already ended
      }
    }, timeout);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr: timedOut ? `${stderr}\n(killed after ${timeout} ms)` : stderr });
    });
  });
}

describe('the typed-client recipes of docs/api.md, verbatim in an empty folder', () => {
  const apiKey = randomApiKey();
  let server: RunningServer;
  const recipes = recipesIn(readFileSync(DOC, 'utf8'));

  before(async () => {
    server = await startServer({ apiKey, logLevel: 'error' });
  });
  after(async () => {
    await server?.stop();
  });

  it('finds both recipes, each with commands and a program', () => {
    assert.deepEqual([...recipes.keys()].sort(), ['hey-api', 'openapi-fetch']);
    for (const [name, steps] of recipes) {
      assert.ok(steps.some((s) => s.lang === 'sh') && steps.some((s) => s.file === 'main.ts'), name);
    }
  });

  // What each program prints on success: the value the recipe's comment promises.
  const expected: Record<string, RegExp> = {
    'openapi-fetch': /^[a-z]+(?:-[a-z]+){5}$/, // 6 EFF words, hyphens
    'hey-api': /^[A-Za-z0-9]{32}$/, // 32 letters and digits
  };

  for (const name of ['openapi-fetch', 'hey-api']) {
    it(
      `${name}: npm install, codegen, tsc and a call to the live server, as printed`,
      { timeout: RECIPE_TIMEOUT_MS + 10_000 },
      async () => {
        const dir = mkdtempSync(join(tmpdir(), `cg-recipe-${name}-`));
        const started = performance.now();
        try {
          // The user's environment (proxy and CA settings reach npm), with the machine's node
          // first on PATH (the line under test), without what the test runner adds: its
          // NODE_OPTIONS (--throw-deprecation would fail npm) and coverage collection.
          const env: NodeJS.ProcessEnv = { ...process.env };
          for (const v of ['NODE_OPTIONS', 'NODE_V8_COVERAGE', 'NODE_TEST_CONTEXT']) delete env[v];
          Object.assign(env, {
            PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
            CG_API_KEY: apiKey,
            NO_COLOR: '1',
            npm_config_fund: 'false',
            npm_config_audit: 'false',
            npm_config_update_notifier: 'false',
          });
          let output = '';
          for (const step of recipes.get(name) ?? []) {
            const text = step.text.replaceAll(PRINTED_URL, server.url);
            if (step.file !== null) {
              writeFileSync(join(dir, step.file), text);
              continue;
            }
            assert.equal(step.lang, 'sh', `${name}: an unmarked ${step.lang} block`);
            const left = Math.floor(RECIPE_TIMEOUT_MS - (performance.now() - started));
            assert.ok(left > 0, `${name}: over ${RECIPE_TIMEOUT_MS} ms`);
            const run = await bash(text, dir, env, left);
            assert.equal(run.code, 0, `${name}: this step failed:\n${text}\n${run.stdout}\n${run.stderr}`);
            output = run.stdout;
          }
          const last = output.trim().split('\n').at(-1) ?? '';
          assert.match(last, expected[name], `${name}: the program printed ${JSON.stringify(output)}`);
          console.log(`recipe ${name}: ${Math.round(performance.now() - started)} ms on Node ${process.version}`);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  }
});
