/**
 * What the service makes of a parsed rule: whether it can be satisfied (each refusal says
 * why), the length, the exact count and entropy, and the sampler, computed once per
 * (rule, length) so that repeated requests only draw.
 * @module
 */
import { log2BigInt } from '../entropy.ts';
import {
  atomsOf,
  completionPrefixTable,
  countRulePasswords,
  countWithSequences,
  MAX_REQUIRED_SETS,
  outsideCounts,
  runLimitedCount,
  sequenceTerms,
  signaturesOf,
  type Atom,
  type SequenceTerms,
} from './count.ts';
import { fullSamplerCost, fullTables, type FullTables } from './full-sample.ts';
import { quoteToken, RULES_FIELD, rulesError, type PasswordRules, type RulesError } from './parse.ts';
import { sequenceTables, type SequenceTables } from './sequence-sample.ts';
import { SequenceCounter, sequenceShape, type SequenceShape } from './sequences.ts';

/** The service's password lengths. */
export const SERVICE_MIN_LENGTH = 8;
export const SERVICE_MAX_LENGTH = 128;

/** The length used when the request gives none: this, moved into the rule's bounds. */
export const DEFAULT_RULES_LENGTH = 24;

/**
 * Rejection is used while it needs at most this many attempts on average (acceptance
 * probability >= 1/32), an exact sampler beyond. Rejection is the simpler path (no table, a
 * few lines to audit) and below the threshold it costs at most 32 x length draws on average,
 * within a small factor of the exact sampler (bench/rules.ts; docs/benchmark.md). Past it the
 * cost of rejection grows with 1/acceptance without bound (three required letters at length
 * 8: 2,762 attempts on average; four: 52,777) while the exact sampler's cost does not depend
 * on the acceptance. Its tail stays short too: more than 700 attempts happen with probability
 * (31/32)^700 < 2e-10.
 */
export const EXACT_SAMPLING_THRESHOLD = 32;

const LENGTH_FIELD = 'options.length';

/**
 * - rejection: every character uniform over the allowed set, the attempt kept when valid;
 * - exact: exact over the required sets and max-repeating (count.ts's table), the draw kept
 *   when no sequence is too long (always, without a binding max-sequential);
 * - exact-sequences: exact over max-repeating and max-sequential (sequences.ts), the draw kept
 *   when it hits every required set (always, without one);
 * - exact-full: exact over everything (full-sample.ts), for the rare small rules where both
 *   exact samplers above keep fewer than 1 draw in EXACT_SAMPLING_THRESHOLD.
 */
export type RulesSampler = 'rejection' | 'exact' | 'exact-sequences' | 'exact-full';

/** The exact-full sampler's bounds (fullSamplerCost): at most 2^20 BigInt operations to build
 * its table and 32,768 entries in it, the size of the exact sampler's largest
 * table, so the plan cache's memory bound holds. A rule that needs it and exceeds either is
 * refused with the reason. */
export const FULL_SAMPLER_LIMIT = Object.freeze({ operations: 2 ** 20, entries: 2 ** 15 } as const);

export interface RulesMetadata {
  readonly entropyMode: 'uniform-rules';
  /** The canonical text of the normalised rule. */
  readonly passwordRules: string;
  readonly allowedSize: number;
  readonly length: number;
  /** True when the rule said `unicode`, which was read as ascii-printable. */
  readonly unicodeAsAsciiPrintable: boolean;
}

export interface RulesPlan {
  readonly rule: PasswordRules;
  readonly length: number;
  /** The longest run of one character allowed: max-repeating, or the length if none. */
  readonly maxRun: number;
  /** The longest sequence allowed: max-sequential, or the length if none. */
  readonly maxSequence: number;
  /** True when max-sequential binds: the allowed set has a chain longer than maxSequence. */
  readonly sequenceBound: boolean;
  /** UTF-16 codes of the allowed characters, in code order. */
  readonly codes: Uint16Array;
  /** signatures[j]: bit i set when codes[j] is in required set i. */
  readonly signatures: Uint8Array;
  /** The signature bits of all required sets together. */
  readonly allRequired: number;
  readonly atoms: readonly Atom[];
  /** The exact number of passwords the rule allows at this length (all equally likely). */
  readonly count: bigint;
  /** Strings with every required set and no run too long, sequences not checked. */
  readonly countIgnoringSequences: bigint;
  /** Strings with no run and no sequence too long, required sets not checked. */
  readonly countIgnoringRequired: bigint;
  /** log2(count): the entropy in bits, unrounded. */
  readonly bits: number;
  /** count / |allowed|^length: the chance that one rejection attempt is kept. */
  readonly acceptance: number;
  /** count / countIgnoringSequences: the chance that an exact draw is kept. */
  readonly exactAcceptance: number;
  /** count / countIgnoringRequired: the chance that an exact-sequences draw is kept. */
  readonly sequencesAcceptance: number;
  readonly sampler: RulesSampler;
  /** Work units of the plan (planWork): at most the budget it was planned under. */
  readonly work: number;
  /** The exact sampler's prefix sums of completion counts (count.ts), when it is used. */
  readonly completions: readonly (readonly bigint[])[] | null;
  /** The exact-sequences sampler's tables (sequence-sample.ts), when it is used. */
  readonly sequenceTables: SequenceTables | null;
  /** The exact-full sampler's table (full-sample.ts), when it is used. */
  readonly fullTables: FullTables | null;
  readonly metadata: RulesMetadata;
}

/** Why the service cannot satisfy a rule at any length it offers, or null. */
export function checkPasswordRules(rule: PasswordRules): RulesError | null {
  const { minLength, maxLength, maxRepeating, maxSequential } = rule;
  if (maxLength !== null && maxLength < SERVICE_MIN_LENGTH) {
    return rulesError(
      `${RULES_FIELD}: maxlength ${maxLength} is below the service's minimum length ${SERVICE_MIN_LENGTH}`,
    );
  }
  if (minLength !== null && minLength > SERVICE_MAX_LENGTH) {
    return rulesError(
      `${RULES_FIELD}: minlength ${minLength} is above the service's maximum length ${SERVICE_MAX_LENGTH}`,
    );
  }
  if (minLength !== null && maxLength !== null && minLength > maxLength) {
    return rulesError(`${RULES_FIELD}: minlength ${minLength} is greater than maxlength ${maxLength}`);
  }
  // The parser refuses 0 with the property's position; this guards a rule object built by hand.
  if ((maxRepeating ?? 1) < 1 || (maxSequential ?? 1) < 1) {
    return rulesError(`${RULES_FIELD}: max-repeating and max-sequential must be at least 1`);
  }
  if (rule.allowed.length < 2) {
    return rulesError(
      `${RULES_FIELD}: allows only the character ${quoteToken(rule.allowed)}; a password needs at least 2 to choose from`,
    );
  }
  if (rule.required.length > MAX_REQUIRED_SETS) {
    return rulesError(
      `${RULES_FIELD}: has ${rule.required.length} different required sets; the service supports at most ${MAX_REQUIRED_SETS}`,
    );
  }
  return null;
}

/** The lengths the rule and the service both allow (non-empty once checkPasswordRules passed). */
export function rulesLengthBounds(rule: PasswordRules): { readonly min: number; readonly max: number } {
  return {
    min: Math.max(SERVICE_MIN_LENGTH, rule.minLength ?? 0),
    max: Math.min(SERVICE_MAX_LENGTH, rule.maxLength ?? SERVICE_MAX_LENGTH),
  };
}

/**
 * The length to generate: `given` when it lies inside the rule's and the service's bounds
 * (else an error naming the bound it breaks), or DEFAULT_RULES_LENGTH moved into the bounds
 * when the request gives none.
 */
export function resolveRulesLength(rule: PasswordRules, given: number | undefined): number | RulesError {
  const { min, max } = rulesLengthBounds(rule);
  if (given === undefined) return Math.min(max, Math.max(min, DEFAULT_RULES_LENGTH));
  if (!Number.isInteger(given) || given < SERVICE_MIN_LENGTH || given > SERVICE_MAX_LENGTH) {
    return rulesError(`${LENGTH_FIELD} must be between ${SERVICE_MIN_LENGTH} and ${SERVICE_MAX_LENGTH}`, LENGTH_FIELD);
  }
  if (rule.minLength !== null && given < rule.minLength) {
    return rulesError(
      `${LENGTH_FIELD} ${given} is below the minlength ${rule.minLength} of ${RULES_FIELD}`,
      LENGTH_FIELD,
    );
  }
  if (rule.maxLength !== null && given > rule.maxLength) {
    return rulesError(
      `${LENGTH_FIELD} ${given} is above the maxlength ${rule.maxLength} of ${RULES_FIELD}`,
      LENGTH_FIELD,
    );
  }
  return given;
}

export function isRulesPlan(p: RulesPlan | RulesError): p is RulesPlan {
  return 'count' in p;
}

/**
 * What a plan may cost, in work units: one unit is one BigInt addition, subtraction or
 * multiplication of the counting and table code (countPlan, tableWork). A request whose plan
 * would take more is refused before any of that work is done, with the reason, so the cost of
 * a request does not depend on what the client sends (security finding T4) and the answer
 * does not depend on the machine's load. The 434-rule corpus needs at most 135,680 units at
 * any length it allows (fedex.com at 128; tests/core/corpus-lengths.integration.ts); the
 * budget is 3.7 times that. What a plan at the budget costs in time is measured in
 * docs/password-rules.md, "The work budget".
 */
export const PLAN_WORK_BUDGET = 500_000;

/** Work units of the building blocks (each counted as the BigInt operations its loop does):
 * - runLimitedStarts (count.ts): three per length step;
 * - runChain (sequences.ts): about ten per character and step (the four kinds' sums and
 *   differences, the running sums);
 * - SequenceCounter.totals: the series 1 / (1 - z G), a multiply and an add per term of an
 *   L x L triangle, and the kernels' sum G, two per step and chain size. */
const runLimitedWork = (L: number) => 3 * L;
const chainWork = (size: number, L: number) => 10 * size * L;
const seriesWork = (shape: SequenceShape, L: number) => L * (L + 1) + 2 * L * (shape.kept.length + 1);

/** The cheap part of a count: what it is made of, and how much BigInt work making it takes. */
export interface CountPlan {
  readonly maxRun: number;
  readonly maxSequence: number;
  readonly codes: Uint16Array;
  readonly signatures: Uint8Array;
  readonly atoms: Atom[];
  /** The allowed set's shape under max-sequential, or null when the limit cannot bind. */
  readonly shape: SequenceShape | null;
  /** The inclusion-exclusion terms by shape, when max-sequential binds. */
  readonly terms: SequenceTerms | null;
  /** Work units of the three exact counts (planWork). */
  readonly work: number;
}

export interface Counts extends CountPlan {
  readonly count: bigint;
  readonly countIgnoringSequences: bigint;
  readonly countIgnoringRequired: bigint;
  readonly counter: SequenceCounter | null;
}

/** What the counts of a rule at length L are made of and what they cost, with no BigInt work
 * done: the plan checks the cost against the budget before it counts. A work of Infinity: the
 * shapes alone were found to exceed `budget`, and the rest was not priced. */
export function countPlan(rule: PasswordRules, L: number, budget = Infinity): CountPlan {
  const k = rule.required.length;
  const maxRun = Math.min(rule.maxRepeating ?? L, L);
  const maxSequence = Math.min(rule.maxSequential ?? L, L);
  const codes = Uint16Array.from(rule.allowed, (c) => c.charCodeAt(0));
  const signatures = signaturesOf(rule.allowed, rule.required);
  const atoms = atomsOf(rule.allowed, rule.required);
  const shape = sequenceShape(codes, maxSequence);
  // countRulePasswords: one run-limited count per distinct alphabet size.
  let work = new Set(outsideCounts(atoms, k)).size * runLimitedWork(L);
  if (shape === null)
    return { maxRun, maxSequence, codes, signatures, atoms, shape, terms: null, work: work + runLimitedWork(L) };
  // Each distinct shape costs at least a series: past the budget's worth, stop looking.
  const terms = sequenceTerms(codes, signatures, k, maxSequence, Math.floor((budget - work) / (L * (L + 1))));
  if (terms === null) return { maxRun, maxSequence, codes, signatures, atoms, shape, terms, work: Infinity };
  for (const [n, c] of terms.bySize) if (c !== 0n && n > 0) work += runLimitedWork(L);
  // Every shape with a coefficient, and the whole alphabet's (countIgnoringRequired), costs a
  // series, and each distinct chain size a kernel.
  const shapes = new Map([[shape.key, shape]]);
  for (const { shape: s, coefficient } of terms.byShape.values()) if (coefficient !== 0n) shapes.set(s.key, s);
  const sizes = new Set<number>();
  for (const s of shapes.values()) {
    work += seriesWork(s, L);
    if (s.free > 0) sizes.add(1);
    for (const [size] of s.kept) sizes.add(size);
  }
  for (const size of sizes) work += chainWork(size, L);
  return { maxRun, maxSequence, codes, signatures, atoms, shape, terms, work };
}

/** The work units of a sampler's table, beyond the counts (none for rejection). */
function tableWork(sampler: RulesSampler, c: CountPlan, k: number, L: number): number {
  if (sampler === 'exact') return new Set(outsideCounts(c.atoms, k)).size * runLimitedWork(L) + L * 2 ** k * (k + 2);
  if (sampler === 'exact-sequences') {
    const shape = c.shape ?? { free: c.codes.length, kept: [], key: 'free' };
    let work = seriesWork(shape, L) + (shape.free > 0 ? chainWork(1, L) : 0);
    for (const [size] of shape.kept) work += chainWork(size, L);
    return work;
  }
  if (sampler === 'exact-full') return fullSamplerCost(c.codes.length, k, { ...c, length: L }).operations;
  return 0;
}

/** The counts of a plan whose cost was accepted. */
function countsOf(c: CountPlan, k: number, L: number): Counts {
  const countIgnoringSequences = countRulePasswords(c.atoms, k, c.maxRun, L);
  if (c.shape === null || c.terms === null) {
    const countIgnoringRequired = runLimitedCount(c.codes.length, c.maxRun, L);
    return { ...c, count: countIgnoringSequences, countIgnoringSequences, countIgnoringRequired, counter: null };
  }
  const counter = new SequenceCounter(c.maxRun, c.maxSequence, L);
  const count = countWithSequences(c.terms, counter);
  return { ...c, count, countIgnoringSequences, countIgnoringRequired: counter.count(c.shape), counter };
}

/** The three exact counts of a rule at any length L >= 1 (count.ts, sequences.ts): the plan's,
 * and the tests' against enumeration on lengths the service does not offer. */
export function exactCounts(rule: PasswordRules, L: number): Counts {
  return countsOf(countPlan(rule, L), rule.required.length, L);
}

/** The refusal of a plan over the work budget, with what makes it costly (under 200 characters,
 * as every refusal). */
function overBudget(rule: PasswordRules, L: number, work: number, budget: number): RulesError {
  const why =
    rule.maxSequential !== null && rule.required.length > 0
      ? ` (${rule.required.length} required sets under max-sequential ${rule.maxSequential} split the allowed set too many ways)`
      : '';
  const takes = Number.isFinite(work) ? String(work) : `more than ${budget}`;
  return rulesError(
    `${RULES_FIELD}: at length ${L} the plan takes ${takes} work units, over the budget of ${budget}${why}`,
  );
}

/** Why no password of length L exists, for a rule that passed the checks. Only a binding
 * max-sequential of 1 can cause it: with 2 or more, alternating two characters always works. */
function noPassword(rule: PasswordRules, L: number): RulesError {
  const why =
    rule.maxSequential === 1
      ? ': max-sequential 1 keeps neighbours such as "ab" or "21" apart, and the allowed characters leave no other way'
      : '';
  return rulesError(`${RULES_FIELD}: no password of length ${L} satisfies the rule${why}`);
}

const ratio = (a: bigint, b: bigint) => 2 ** (log2BigInt(a) - log2BigInt(b));

/** Rejection while it needs at most EXACT_SAMPLING_THRESHOLD attempts on average; else the
 * exact sampler whose draws are kept more often, while it too needs at most that many; else
 * the exact-full sampler where its table is affordable, else none (null). */
function chooseSampler(
  acceptance: number,
  exact: number,
  sequences: number,
  fullCost: { entries: number; operations: number },
): RulesSampler | null {
  if (acceptance * EXACT_SAMPLING_THRESHOLD >= 1) return 'rejection';
  if (Math.max(exact, sequences) * EXACT_SAMPLING_THRESHOLD >= 1)
    return exact >= sequences ? 'exact' : 'exact-sequences';
  const affordable =
    fullCost.operations <= FULL_SAMPLER_LIMIT.operations && fullCost.entries <= FULL_SAMPLER_LIMIT.entries;
  return affordable ? 'exact-full' : null;
}

/** The refusal when no sampler is both exact and affordable (never met by a search of millions
 * of random rules; the bound keeps the worst case finite all the same). */
function tooNarrow(L: number, best: number): RulesError {
  return rulesError(
    `${RULES_FIELD}: at length ${L} the rule leaves its required characters too few places to sample exactly in bounded time (an exact draw is kept about once in 2^${Math.round(-Math.log2(best))})`,
  );
}

/** The exact-sequences tables; a rule whose max-sequential cannot bind (a forced sampler)
 * counts every character as free. */
function tablesOf(c: Counts, L: number): SequenceTables {
  const shape = c.shape ?? { free: c.codes.length, kept: [], key: 'free' };
  return sequenceTables(c.codes, shape, c.counter ?? new SequenceCounter(c.maxRun, c.maxSequence, L));
}

/**
 * The plan for a rule and a requested length (undefined: the default), or the error that
 * explains why there is none. `sampler` forces a sampler (tests and benchmarks: all are
 * uniform over the same set, only their cost differs); by default rejection is chosen while
 * it needs at most EXACT_SAMPLING_THRESHOLD attempts on average, else the exact sampler whose
 * draws are kept more often, else exact-full (chooseSampler). A plan whose work units
 * (countPlan, tableWork) exceed `budget` is refused before that work is done: first its
 * counts, then its table.
 */
export function planPasswordRules(
  rule: PasswordRules,
  length?: number,
  sampler?: RulesSampler,
  budget: number = PLAN_WORK_BUDGET,
): RulesPlan | RulesError {
  const infeasible = checkPasswordRules(rule);
  if (infeasible !== null) return infeasible;
  const resolved = resolveRulesLength(rule, length);
  if (typeof resolved !== 'number') return resolved;
  const L = resolved;
  const k = rule.required.length;
  const priced = countPlan(rule, L, budget);
  if (priced.work > budget) return overBudget(rule, L, priced.work, budget);
  const c = countsOf(priced, k, L);
  if (c.count === 0n) return noPassword(rule, L);
  const n = rule.allowed.length;
  const bits = log2BigInt(c.count);
  const acceptance = 2 ** (bits - log2BigInt(BigInt(n) ** BigInt(L)));
  const exactAcceptance = ratio(c.count, c.countIgnoringSequences);
  const sequencesAcceptance = ratio(c.count, c.countIgnoringRequired);
  const fullCost = fullSamplerCost(n, k, { ...c, length: L });
  const chosen = sampler ?? chooseSampler(acceptance, exactAcceptance, sequencesAcceptance, fullCost);
  if (chosen === null) return tooNarrow(L, Math.max(exactAcceptance, sequencesAcceptance));
  const work = priced.work + tableWork(chosen, c, k, L);
  if (work > budget) return overBudget(rule, L, work, budget);
  return Object.freeze({
    rule,
    length: L,
    maxRun: c.maxRun,
    maxSequence: c.maxSequence,
    sequenceBound: c.shape !== null,
    codes: c.codes,
    signatures: c.signatures,
    allRequired: (1 << k) - 1,
    atoms: Object.freeze(c.atoms),
    count: c.count,
    countIgnoringSequences: c.countIgnoringSequences,
    countIgnoringRequired: c.countIgnoringRequired,
    bits,
    acceptance,
    exactAcceptance,
    sequencesAcceptance,
    sampler: chosen,
    work,
    completions: chosen === 'exact' ? completionPrefixTable(c.atoms, k, c.maxRun, L) : null,
    sequenceTables: chosen === 'exact-sequences' ? tablesOf(c, L) : null,
    fullTables: chosen === 'exact-full' ? fullTables(c.codes, c.signatures, k, { ...c, length: L }) : null,
    metadata: Object.freeze({
      entropyMode: 'uniform-rules',
      passwordRules: rule.text,
      allowedSize: n,
      length: L,
      unicodeAsAsciiPrintable: rule.unicodeAsAsciiPrintable,
    }),
  });
}
