/**
 * Section 1: in-process generation, credentials per second. The project's `generate()` (what
 * the server calls: validation, the plan from its store, generation, entropy) against the npm peers, each
 * contender run for a fixed time slice per round, in an order that alternates every round; the
 * figure is the per-round ratio, median and min-max.
 * @module
 */
import type * as CoreModule from '../lib/core/index.ts';
import type * as RequestModule from '../lib/request/index.ts';
import { performance } from 'node:perf_hooks';
import generatePasswordPkg from 'generate-password';
import { generate as peerPassphrase } from 'generate-passphrase';
import { generatePassword as spuPassword, generatePassphrase as spuPassphrase } from 'secure-password-utilities';
import { pairedRatios, roundOrder, summarize, type Summary } from './stats.ts';

const SYMBOLS = '!@#$%^&*()-_=+[]{};:,.?'; // the project's symbol class (lib/core/charsets.ts)

/** One call makes `perCall` credentials; returns something derived from them (kept alive). */
interface Contender {
  readonly name: string;
  readonly run: () => number;
}

interface Workload {
  readonly id: string;
  readonly label: string;
  readonly perCall: number;
  readonly contenders: readonly Contender[];
}

export interface ContenderResult {
  readonly name: string;
  /** Credentials per second, per round. */
  readonly perRound: readonly number[];
  readonly rate: Summary;
  /** project / this contender, per round. Absent for the project itself. */
  readonly projectRatio?: Summary;
}

export interface WorkloadResult {
  readonly id: string;
  readonly label: string;
  readonly credentialsPerCall: number;
  readonly contenders: readonly ContenderResult[];
}

/** The code under test: the built dist/lib/request and dist/lib/core (exactly what
 * dist/server.js runs): the request layer's generate(), and the core's word list. */
export type Core = Pick<typeof RequestModule, 'generate'> & Pick<typeof CoreModule, 'WORDLIST'>;

export interface InProcessOptions {
  readonly core: Core;
  readonly rounds: number;
  /** Milliseconds each contender runs per round. */
  readonly sliceMs: number;
  readonly log: (line: string) => void;
}

function times(n: number, make: () => string): number {
  let sink = 0;
  for (let i = 0; i < n; i++) sink += make().length;
  return sink;
}

/** The project's generate() as the server calls it: with a plan store (the server's is its
 * memo, lib/http/plan-memo.ts), so the plan for the options is made once and each call draws.
 * Without one every call would plan afresh, which no caller that repeats options does. */
function project(generate: Core['generate'], input: unknown): () => number {
  const plans = new Map<string, object>();
  const settings = {
    plans: { get: (key: string) => plans.get(key), offer: (key: string, value: object) => void plans.set(key, value) },
  };
  return () => {
    const out = generate(input, undefined, settings);
    if (out.status !== 200) throw new Error(`generate() refused the workload: ${JSON.stringify(out.body)}`);
    return out.body.results.length + out.body.value.length;
  };
}

/** The peers' option sets that promise what the project promises (every class present). */
function passwordWorkload(
  core: Core,
  id: string,
  label: string,
  length: number,
  symbols: boolean,
  count: number,
): Workload {
  // generate-password builds a RegExp class from a custom symbol string without escaping it
  // (']' and '-' break it and strict mode then recurses forever), so it keeps its own 30 symbols.
  const gpOptions = { length, numbers: true, uppercase: true, lowercase: true, symbols, strict: true };
  const spuOptions = {
    digits: { min: 1 },
    lowercase: { min: 1 },
    uppercase: { min: 1 },
    symbols: symbols ? { min: 1 } : false,
    charset: { symbols: SYMBOLS },
  };
  const input = { mode: 'password', count, options: { length, includeSymbols: symbols } };
  return {
    id,
    label,
    perCall: count,
    contenders: [
      { name: 'project generate()', run: project(core.generate, input) },
      { name: 'generate-password', run: () => times(count, () => generatePasswordPkg.generate(gpOptions)) },
      { name: 'secure-password-utilities', run: () => times(count, () => spuPassword(length, spuOptions)) },
    ],
  };
}

function passphraseWorkload(core: Core, id: string, label: string, words: number, count: number): Workload {
  const options = { length: words, numbers: false, separator: '-', uppercase: false, titlecase: false };
  const input = { mode: 'passphrase', count, options: { wordCount: words } };
  return {
    id,
    label,
    perCall: count,
    contenders: [
      { name: 'project generate()', run: project(core.generate, input) },
      { name: 'generate-passphrase', run: () => times(count, () => peerPassphrase(options)) },
      { name: 'secure-password-utilities', run: () => times(count, () => spuPassphrase(words, core.WORDLIST, '-')) },
    ],
  };
}

export function workloads(core: Core): readonly Workload[] {
  return [
    passwordWorkload(core, 'password-24', '24-char password (default: a-z A-Z 0-9)', 24, false, 1),
    passwordWorkload(core, 'password-128-symbols', '128-char password with symbols', 128, true, 1),
    passphraseWorkload(core, 'passphrase-4', '4-word passphrase', 4, 1),
    passphraseWorkload(core, 'passphrase-8', '8-word passphrase', 8, 1),
    passwordWorkload(core, 'password-24-x20', 'count=20 batch of 24-char passwords', 24, false, 20),
    passwordWorkload(
      core,
      'password-128-symbols-x20',
      'count=20 batch of 128-char passwords with symbols',
      128,
      true,
      20,
    ),
    passphraseWorkload(core, 'passphrase-4-x20', 'count=20 batch of 4-word passphrases', 4, 20),
    passphraseWorkload(core, 'passphrase-8-x20', 'count=20 batch of 8-word passphrases', 8, 20),
  ];
}

let blackhole = 0;

/** Calls per time check, grown until one batch takes >= 1 ms, so reading the clock costs
 * well under 1 % even for sub-microsecond calls. */
function calibrate(run: () => number): number {
  let batch = 1;
  for (let tries = 0; tries < 24; tries++) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) blackhole += run();
    if (performance.now() - t0 >= 1) break;
    batch *= 2;
  }
  return batch;
}

/** Calls per second of `run` over about `ms` milliseconds. */
function measure(run: () => number, batch: number, ms: number): number {
  let calls = 0;
  const t0 = performance.now();
  let elapsed: number;
  do {
    for (let i = 0; i < batch; i++) blackhole += run();
    calls += batch;
    elapsed = performance.now() - t0;
  } while (elapsed < ms);
  return (calls * 1000) / elapsed;
}

export function runInProcess(options: InProcessOptions): WorkloadResult[] {
  const results: WorkloadResult[] = [];
  for (const w of workloads(options.core)) {
    const batches = new Map<string, number>();
    for (const c of w.contenders) {
      // Warm-up: let the JIT settle before anything counts.
      measure(c.run, 1, Math.max(20, options.sliceMs / 2));
      batches.set(c.name, calibrate(c.run));
    }
    const perRound = new Map<string, number[]>(w.contenders.map((c) => [c.name, []]));
    for (let round = 0; round < options.rounds; round++) {
      for (const c of roundOrder(w.contenders, round)) {
        perRound.get(c.name)!.push(measure(c.run, batches.get(c.name)!, options.sliceMs) * w.perCall);
      }
    }
    const projectRates = perRound.get(w.contenders[0].name)!;
    const contenders = w.contenders.map((c, i): ContenderResult => {
      const rates = perRound.get(c.name)!;
      const base = { name: c.name, perRound: rates, rate: summarize(rates) };
      return i === 0 ? base : { ...base, projectRatio: summarize(pairedRatios(projectRates, rates)) };
    });
    results.push({ id: w.id, label: w.label, credentialsPerCall: w.perCall, contenders });
    options.log(`  in-process ${w.id}: done`);
  }
  if (blackhole === -1) options.log(''); // keeps the sink observable
  return results;
}
