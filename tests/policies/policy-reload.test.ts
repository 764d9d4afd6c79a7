/**
 * A rewrite of POLICIES_FILE while the service runs (lib/policies/policy-store.ts), in process:
 *
 * - U4 (docs/security.md, plans and CPU): the rewrite is judged off the request path, a plan
 *   per slice with the event loop free between two, the plans of unchanged policies reused,
 *   the last good set served meanwhile, and a file bounded to MAX_PLANNED_POLICIES plans.
 *   Before, 64 within-budget policies were planned at once on the event loop: every request
 *   waited the whole judging (3.2 to 4.8 s in the review).
 * - U6 (docs/security.md, files): GET /ready (no key) says `stale` with a fixed word for why a
 *   rewrite was refused; the reason in words (file text, paths, modes) goes only to the error
 *   log line. Before, /ready returned it verbatim.
 * - Issue 41: a reload logs which policies it added, changed and removed, as key reloads do.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { after, describe, it, type TestContext } from 'node:test';
import { judgePolicies, MAX_PLANNED_POLICIES } from '../../lib/policies/policies.ts';
import { runPoliciesCli } from '../../lib/policies/policy-admin.ts';
import { startInProcess } from '../helpers/in-process.ts';
import { randomApiKey, type RunningServer } from '../helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-policy-reload-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let written = 0;
/** Replaces `file` by rename with `content` (mode 0600 unless said), as an operator's tooling would. */
function rewrite(file: string, content: unknown, mode = 0o600): void {
  const next = join(dir, `next-${written++}.json`);
  writeFileSync(next, typeof content === 'string' ? content : JSON.stringify(content), { mode: 0o600 });
  chmodSync(next, mode);
  renameSync(next, file);
}

/** `count` policies whose plans each cost tens of milliseconds: one site rule at as many
 * lengths (a plan is per rule and length), with a shared description. */
function costly(count: number, from = 24): Record<string, unknown> {
  const passwordRules = 'required: lower; required: upper; required: digit; required: [-!#]; max-consecutive: 2';
  return Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `rule-${String(from + i)}`,
      { mode: 'password', options: { passwordRules, length: from + i }, description: 'a site rule' },
    ]),
  );
}

const SMALL = { policies: { wifi: { mode: 'passphrase', options: { wordCount: 6 } } } };

async function withStore<T>(content: unknown, fn: (server: RunningServer, file: string) => Promise<T>): Promise<T> {
  const file = join(dir, `policies-${written++}.json`);
  writeFileSync(file, JSON.stringify(content), { mode: 0o600 });
  const server = await startInProcess({
    apiKey: randomApiKey(),
    rateLimitPerMinute: 100_000,
    env: { POLICIES_FILE: file },
  });
  try {
    return await fn(server, file);
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
}

const readyOf = async (server: RunningServer): Promise<{ text: string; policies: unknown }> => {
  const text = await (await fetch(`${server.url}/ready`)).text();
  return { text, policies: (JSON.parse(text) as { policies: unknown }).policies };
};

describe('U4: a policies rewrite is judged off the request path', () => {
  it(`U4: while a ${MAX_PLANNED_POLICIES}-policy rewrite is judged, requests keep being answered; the event loop never stalls for more than a small part of the judging`, async (tc: TestContext) => {
    const policies = costly(MAX_PLANNED_POLICIES);
    const text = JSON.stringify({ policies });
    // What the old store did on the event loop: the whole file at once (after a warm-up).
    judgePolicies(JSON.stringify({ policies: costly(4, 200) }), 0);
    const started = performance.now();
    const verdict = judgePolicies(text, 0);
    const wholeMs = performance.now() - started;
    assert.ok(verdict.ok && verdict.verdicts.every((v) => v.ok), 'every policy is within the budget');
    await withStore(SMALL, async (server, file) => {
      const delay = monitorEventLoopDelay({ resolution: 10 });
      const latencies: number[] = [];
      let answered = 0;
      let judging = true;
      const asking = (async () => {
        while (judging) {
          const t = performance.now();
          const r = await fetch(`${server.url}/health`);
          await r.text();
          if (r.status === 200) answered++;
          latencies.push(performance.now() - t);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      const from = server.output().length;
      delay.enable();
      const reload = performance.now();
      rewrite(file, { policies });
      // Until the set changes, the last good one is served.
      assert.equal((await readyOf(server)).text.includes('"count":1'), true);
      await server.waitForOutput(/"msg":"policies reloaded"/, 120_000, from);
      const reloadMs = performance.now() - reload;
      delay.disable();
      judging = false;
      await asking;
      const stallMs = delay.max / 1e6;
      tc.diagnostic(
        `${MAX_PLANNED_POLICIES} policies: ${wholeMs.toFixed(0)} ms judged at once; reloaded in ${reloadMs.toFixed(0)} ms, longest event-loop stall ${stallMs.toFixed(0)} ms, ${answered} GET /health answered, slowest ${Math.max(...latencies).toFixed(0)} ms`,
      );
      assert.ok(stallMs < wholeMs / 4, `a stall of ${stallMs.toFixed(0)} ms against ${wholeMs.toFixed(0)} ms at once`);
      assert.ok(answered >= 5, `${answered} requests answered during the reload`);
      assert.ok(
        Math.max(...latencies) < wholeMs / 2,
        `the slowest request took ${Math.max(...latencies).toFixed(0)} ms`,
      );
      assert.match(
        server.output().slice(from),
        new RegExp(`"planned":${MAX_PLANNED_POLICIES},"policies":${MAX_PLANNED_POLICIES}`),
      );
    });
  });

  it('U4: a rewrite reuses the plans of the policies whose stored request is unchanged, and logs what it added, changed and removed', async () => {
    await withStore({ policies: { ...costly(6), wifi: SMALL.policies.wifi } }, async (server, file) => {
      const from = server.output().length;
      const next: Record<string, unknown> = { ...costly(6) };
      delete next['rule-24'];
      // Another description: changed, but the same stored request (no new plan).
      next['rule-25'] = { ...(next['rule-25'] as object), description: 'another' };
      next['rule-99'] = costly(1, 99)['rule-99'];
      rewrite(file, { policies: next });
      const line = await server.waitForOutput(/"msg":"policies reloaded"[^\n]*\n/, 30_000, from);
      const reloaded = JSON.parse(/\{"time[^\n]*"msg":"policies reloaded"[^\n]*/.exec(line.slice(from))![0]) as Record<
        string,
        unknown
      >;
      assert.deepEqual(
        [reloaded.added, reloaded.changed, reloaded.removed, reloaded.planned, reloaded.policies],
        [['rule-99'], ['rule-25'], ['rule-24', 'wifi'], 1, 6],
      );
    });
  });

  it(`U4: a file that would plan more than ${MAX_PLANNED_POLICIES} stored requests is refused at once, by the server and by policies check`, async () => {
    const tooMany = { policies: costly(MAX_PLANNED_POLICIES + 1) };
    await withStore(SMALL, async (server, file) => {
      const from = server.output().length;
      const started = performance.now();
      rewrite(file, tooMany);
      await server.waitForOutput(
        /policies file rejected[^\n]*stores 65 different requests to plan, more than 64/,
        30_000,
        from,
      );
      assert.ok(performance.now() - started < 10_000);
      assert.deepEqual((await readyOf(server)).policies, { state: 'stale', count: 1, reason: 'budget' });
    });
    const path = join(dir, 'too-many.json');
    writeFileSync(path, JSON.stringify(tooMany), { mode: 0o600 });
    let err = '';
    const code = runPoliciesCli(['check', path], {
      env: {},
      cwd: dir,
      stdout: () => undefined,
      stderr: (t) => (err += t),
    });
    assert.equal(code, 1);
    assert.match(err, /stores 65 different requests to plan, more than 64/);
    // Policies storing the same request share one plan: 65 of them are one plan.
    const same = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`p${i}`, { mode: 'password' }]));
    assert.ok(judgePolicies(JSON.stringify({ policies: same }), 0).ok);
  });
});

describe('U6: GET /ready says why a rewrite was refused in one fixed word', () => {
  it('U6: json, schema, trust, missing and budget; the reason in words only in the error log line', async () => {
    await withStore(SMALL, async (server, file) => {
      const secret = 'hunter2-in-the-file';
      const cases: [string, () => void, RegExp][] = [
        ['json', () => rewrite(file, `{"policies": {"${secret}"`), /is not JSON/],
        [
          'schema',
          () => rewrite(file, { policies: { wifi: { mode: 'passphrase', options: { wordCount: 2 } } }, [secret]: 1 }),
          /is not a field of the policies file/,
        ],
        ['trust', () => rewrite(file, SMALL, 0o666), /writable by group or others/],
        ['missing', () => rmSync(file), /does not exist/],
        ['budget', () => rewrite(file, { policies: costly(MAX_PLANNED_POLICIES + 1) }), /more than 64/],
      ];
      for (const [word, change, detail] of cases) {
        const from = server.output().length;
        change();
        await server.waitForOutput(/"msg":"policies file rejected; keeping the last good policies"/, 30_000, from);
        const ready = await readyOf(server);
        assert.deepEqual(ready.policies, { state: 'stale', count: 1, reason: word }, word);
        assert.ok(!ready.text.includes(secret) && !ready.text.includes(dir), ready.text);
        assert.match(server.output().slice(from), detail, word);
      }
      rewrite(file, SMALL);
      const from = server.output().length;
      await server.waitForOutput(/"msg":"policies reloaded"/, 30_000, from);
      assert.deepEqual((await readyOf(server)).policies, { state: 'loaded', count: 1 });
    });
  });
});
