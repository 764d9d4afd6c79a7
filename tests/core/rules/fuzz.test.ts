/**
 * Fuzzing the `passwordrules` path: 5,000 seeded rule strings in `npm test`, 95 % sure to meet a
 * fault that 6e-4 of the strings reach (100,000 in the soak, tests/soak/fuzz.soak.ts, 1 - e^-3
 * for 3e-5) (tests/helpers/rules-fuzz.ts)
 * through parse, plan (the default length, or a random requested one) and one sample, and the
 * same rule and length through the request path, `generate()` with options.passwordRules.
 * Never a throw; every refusal is a 400 naming options.passwordRules (or options.length for a
 * requested length), in plain ASCII, at most 200 characters; every accepted rule reads back
 * from its canonical text, and every password it yields satisfies the rule as the independent
 * checker reads it. generate() answers exactly what the direct path decided (the same error
 * body, or a password to the same plan). Prints the per-input time (median, 99.9th percentile,
 * worst) of both and bounds them.
 * Seed printed; replay with FUZZ_SEED=<seed>; RULES_FUZZ_RUNS overrides the count.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import {
  generateRulesPasswords,
  isRulesPlan,
  parsePasswordRules,
  planPasswordRules,
  type RulesError,
  type RulesPlan,
} from '../../../lib/core/rules/index.ts';
import { generate, type GenerateOutcome } from '../../../lib/request/generate.ts';
import { fuzzSeed, runsFrom } from '../../helpers/fuzz-bodies.ts';
import { readRule, violation } from '../../helpers/rules-checker.ts';
import { rulesFuzzer } from '../../helpers/rules-fuzz.ts';
import { seededFill, seededRandom } from '../../helpers/seeded.ts';

/**
 * A bound on one input's parse + plan + sample, in CPU time, far above the measured worst
 * (~100 ms: a 128-character plan with 8 single-letter required sets spread so that max-sequential
 * 1 meets 256 different alphabets; ~30 ms without max-sequential). It catches a super-linear
 * parser or an exponential plan, not a slow machine: the slowest inputs by wall clock are re-run
 * 5 times and the least CPU time of the 5 is compared, so descheduling on a shared machine and
 * one-off garbage collections do not count.
 */
const BOUND_CPU_MS = 500;
const RETIMED = 20;

/** The costliest inputs the limits allow, re-timed whatever the fuzzer drew. */
const EIGHT_SETS = [...'abcdefgh'].map((c) => `required: [${c}]`).join('; ');
const SPREAD_SETS = [...'sxML2uqT'].map((c) => `required: [${c}]`).join('; ');
const ADVERSARIAL: { text: string; length: number | undefined }[] = [
  // 8 required sets, 128 characters, exact sampler: the largest index of the engine's tables
  { text: `minlength: 128; max-consecutive: 1; ${EIGHT_SETS}; allowed: ascii-printable`, length: undefined },
  { text: `${EIGHT_SETS}; allowed: ascii-printable`, length: 128 },
  // 8 overlapping sets splitting the 95 characters into many atoms
  {
    text: `minlength: 128; max-consecutive: 2; ${[0, 1, 2, 3, 4, 5, 6]
      .map(
        (b) =>
          `required: [${Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i))
            .filter((c, i) => (i >> b) & 1 && c !== '-' && c !== ']')
            .join('')}]`,
      )
      .join('; ')}; required: [-]`,
    length: undefined,
  },
  // 1,024 characters: ~90 required lines, and one long class
  {
    text: Array.from({ length: 90 }, (_, i) => `required: [${String.fromCharCode(33 + i)}]`)
      .join(';')
      .slice(0, 1024)
      .replace(/;[^;]*$/, ''),
    length: undefined,
  },
  { text: `allowed: [${'a'.repeat(1010)}]`, length: 128 },
  // max-sequential: 8 single letters cutting a-z, A-Z and 0-9 into 256 different alphabets
  // (the most inclusion-exclusion terms a sequence limit can meet), with and without others
  { text: `minlength: 128; max-consecutive: 1; ${SPREAD_SETS}; allowed: ascii-printable`, length: undefined },
  { text: `minlength: 128; max-sequential: 2; ${SPREAD_SETS}; allowed: ascii-printable`, length: undefined },
  { text: `minlength: 128; max-sequential: 1; ${SPREAD_SETS}; allowed: lower, upper, digit`, length: undefined },
  // the exact sampler where rejection keeps almost nothing, at full length
  { text: 'max-consecutive: 1; allowed: digit', length: 128 },
  { text: 'max-sequential: 1; required: [b]; allowed: [abc]', length: 128 },
];

function cpuMs(work: () => void): number {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/**
 * The same rule and length through generate(): the direct path's answer, as a request gives
 * it. A length the schema refuses (not an integer of 8 to 128) is refused by the schema first,
 * in the schema's words; anything else must be the direct path's error body, or a password of
 * the direct path's plan that the checker accepts.
 */
function checkRequest(
  r: GenerateOutcome,
  text: string,
  length: number | undefined,
  parsed: ReturnType<typeof parsePasswordRules>,
  planned: RulesPlan | RulesError | undefined,
): void {
  const schemaLength = length !== undefined && !(Number.isInteger(length) && length >= 8 && length <= 128);
  if (r.status === 400) {
    checkError(r.body as RulesError, length !== undefined, text);
    if (schemaLength) return assert.equal(r.body.field, 'options.length', text);
    const direct = parsed.ok ? planned! : parsed.error;
    assert.ok(
      !isRulesPlan(direct),
      `generate() refused what the direct path planned: ${JSON.stringify(text)}: ${r.body.error}`,
    );
    assert.deepEqual(r.body, { ...direct }, text);
    return;
  }
  assert.ok(
    parsed.ok && planned !== undefined && isRulesPlan(planned),
    `generate() accepted what the direct path refused: ${JSON.stringify(text)}`,
  );
  assert.deepEqual(r.body.metadata, planned.metadata, text);
  assert.equal(r.body.value.length, planned.length);
  assert.equal(
    violation(readRule(text), r.body.value),
    null,
    `${JSON.stringify(text)} gave a password the checker refuses through generate()`,
  );
}

function checkError(e: RulesError, fromLength: boolean, text: string): void {
  assert.deepEqual(Object.keys(e).sort(), ['error', 'field', 'status'], text);
  assert.equal(e.status, 400);
  assert.ok(
    e.field === 'options.passwordRules' || (fromLength && e.field === 'options.length'),
    `field ${e.field} for ${JSON.stringify(text)}`,
  );
  assert.ok(e.error.startsWith(e.field), `message does not name ${e.field}: ${e.error}`);
  assert.ok(e.error.length <= 200, `message too long: ${e.error}`);
  assert.match(e.error, /^[\x20-\x7e]+$/, 'message is plain printable ASCII');
}

const RUNS = runsFrom('RULES_FUZZ_RUNS', 5_000);

it(`${RUNS.toLocaleString('en')} fuzzed rule strings, directly and through generate(): no throw, field-named errors, valid passwords, bounded time`, () => {
  const runs = RUNS;
  const seed = fuzzSeed('rules fuzz');
  const next = rulesFuzzer(seed);
  const random = seededRandom(seed);
  const pickFill = seededFill(seed ^ 0x5bd1e995);
  const word = new Uint32Array(1);
  const pick = (n: number) => (pickFill(word), word[0] % n);
  const times = new Float64Array(runs);
  const outcome = { parsed: 0, planned: 0, exact: 0, refusedByParse: 0, refusedByPlan: 0 };
  const samplers = new Map<string, number>();
  const kinds = new Map<string, number>();
  const slowest: { ms: number; text: string; length: number | undefined }[] = [];
  // CPU time of each generate() call, in microseconds: descheduling on a shared machine does
  // not count, so the worst is the request's own cost (its plan, when not cached, included).
  const requestCpu = new Float64Array(runs);
  let worstRequest = { us: 0, text: '' };

  for (let i = 0; i < runs; i++) {
    const input = next();
    kinds.set(input.kind, (kinds.get(input.kind) ?? 0) + 1);
    // Half the time the default length, else a requested one (mostly valid, a few out of range).
    const length = pick(2) === 0 ? undefined : pick(20) === 0 ? [7, 129, 0, 12.5][pick(4)] : 8 + pick(121);
    const started = performance.now();
    let parsed: ReturnType<typeof parsePasswordRules>;
    let planned: ReturnType<typeof planPasswordRules> | undefined;
    let password: string | undefined;
    try {
      parsed = parsePasswordRules(input.text);
      if (parsed.ok) {
        planned = planPasswordRules(parsed.rule, length);
        if (isRulesPlan(planned)) password = generateRulesPasswords(planned, random, 1)[0];
      }
    } catch (e) {
      assert.fail(`threw on input ${i} (seed ${seed}): ${JSON.stringify(input.text)}: ${String(e)}`);
    }
    const ms = performance.now() - started;
    const options = length === undefined ? { passwordRules: input.text } : { passwordRules: input.text, length };
    let request: GenerateOutcome;
    const cpuBefore = process.cpuUsage();
    try {
      request = generate({ mode: 'password', options }, random);
    } catch (e) {
      assert.fail(`generate() threw on input ${i} (seed ${seed}): ${JSON.stringify(input.text)}: ${String(e)}`);
    }
    const cpu = process.cpuUsage(cpuBefore);
    requestCpu[i] = cpu.user + cpu.system;
    if (requestCpu[i] > worstRequest.us) worstRequest = { us: requestCpu[i], text: input.text };
    checkRequest(request, input.text, length, parsed, planned);
    times[i] = ms;
    if (slowest.length < RETIMED || ms > slowest[slowest.length - 1].ms) {
      slowest.push({ ms, text: input.text, length });
      slowest.sort((a, b) => b.ms - a.ms);
      slowest.length = Math.min(slowest.length, RETIMED);
    }

    if (!parsed.ok) {
      outcome.refusedByParse++;
      checkError(parsed.error, false, input.text);
      continue;
    }
    outcome.parsed++;
    const again = parsePasswordRules(parsed.rule.text);
    assert.ok(again.ok, `canonical text refused: ${parsed.rule.text}`);
    assert.deepEqual(
      { ...again.rule, unicodeAsAsciiPrintable: parsed.rule.unicodeAsAsciiPrintable },
      parsed.rule,
      input.text,
    );
    if (!isRulesPlan(planned!)) {
      outcome.refusedByPlan++;
      checkError(planned!, length !== undefined, input.text);
      continue;
    }
    outcome.planned++;
    if (planned.sampler !== 'rejection') outcome.exact++;
    samplers.set(planned.sampler, (samplers.get(planned.sampler) ?? 0) + 1);
    assert.equal(password!.length, planned.length);
    assert.equal(
      violation(readRule(input.text), password!),
      null,
      `${JSON.stringify(input.text)} gave a password the checker refuses`,
    );
  }

  const sorted = Float64Array.from(times).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const requestSorted = Float64Array.from(requestCpu).sort();
  const requestAt = (q: number) =>
    requestSorted[Math.min(requestSorted.length - 1, Math.floor(q * requestSorted.length))];
  // Re-time the slowest inputs and the adversarial ones: least CPU time of 5 runs each.
  const retimed = [...slowest, ...ADVERSARIAL].map(({ text, length }) => {
    let best = Infinity;
    for (let r = 0; r < 5; r++) {
      best = Math.min(
        best,
        cpuMs(() => {
          const parsed = parsePasswordRules(text);
          if (!parsed.ok) return;
          const planned = planPasswordRules(parsed.rule, length);
          if (isRulesPlan(planned)) generateRulesPasswords(planned, random, 1);
        }),
      );
    }
    return { text, cpu: best };
  });
  retimed.sort((a, b) => b.cpu - a.cpu);
  process.stdout.write(
    `rules fuzz: ${runs} inputs (${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}): ${outcome.refusedByParse} refused by the parser, ` +
      `${outcome.parsed} parsed, ${outcome.refusedByPlan} refused by the plan, ${outcome.planned} planned (${[...samplers].map(([k, n]) => `${k} ${n}`).join(', ')})\n`,
  );
  process.stdout.write(
    `rules fuzz: parse + plan + sample per input, wall clock: median ${(at(0.5) * 1000).toFixed(0)} us, 99.9th percentile ${at(0.999).toFixed(2)} ms, ` +
      `worst ${slowest[0].ms.toFixed(2)} ms; the ${RETIMED} slowest and ${ADVERSARIAL.length} adversarial inputs re-run (least CPU time of 5): worst ${retimed[0].cpu.toFixed(2)} ms ` +
      `(${JSON.stringify(retimed[0].text.slice(0, 80))}...)\n`,
  );
  process.stdout.write(
    `rules fuzz: generate() per request, CPU time: median ${requestAt(0.5).toFixed(0)} us, 99.9th percentile ${(requestAt(0.999) / 1000).toFixed(2)} ms, ` +
      `worst ${(worstRequest.us / 1000).toFixed(2)} ms (${JSON.stringify(worstRequest.text.slice(0, 80))}...)\n`,
  );
  assert.ok(
    worstRequest.us / 1000 < BOUND_CPU_MS,
    `a request took ${(worstRequest.us / 1000).toFixed(1)} ms of CPU: ${JSON.stringify(worstRequest.text.slice(0, 200))}`,
  );
  assert.ok(outcome.planned > runs / 10, 'a fair share of rules planned');
  assert.ok(outcome.exact > 0, 'some rules take the exact sampler');
  assert.ok(outcome.refusedByParse > runs / 10 && outcome.refusedByPlan > runs / 100, 'a fair share of refusals');
  assert.ok(
    retimed[0].cpu < BOUND_CPU_MS,
    `an input took ${retimed[0].cpu.toFixed(1)} ms of CPU: ${JSON.stringify(retimed[0].text.slice(0, 200))}`,
  );
});
