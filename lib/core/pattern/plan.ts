/** A pattern's plan: the length, the exact number of matches of that length, and a sampler uniform
 * over them (docs/engine.md, The pattern). @module */
import { drawValues, finish, isSpecPlan, planSpec, PLAN_WORK_BUDGET, REJECTION_ACCEPTANCE } from '../sample.ts';
import type { Sampler, SpecPlan } from '../sample.ts';
import { log2BigInt } from '../entropy.ts';
import { uniformBigIntBelow, type RandomSource } from '../random.ts';
import { unrank as unrankSpec } from '../unrank.ts';
import type { ErrorBody } from '../error-body.ts';
import { requestSchema } from '../../generated/schema.generated.ts';
import { FIRST, MAX_LENGTH, parsePattern, PatternRefusal, PATTERN_FIELD, refuse, SYMBOLS } from './parse.ts';
import { fastSpec, shapeOf } from './shape.ts';
import { graphOf, lengthsOf, meterOf, mintermsOf, productDfa, type Dfa, type Graph } from './automaton.ts';

/** Without a length: 24 when admitted, else the admitted length from 8 nearest it (the longer on a tie). */
export const DEFAULT_PATTERN_LENGTH = 24;
const SHORTEST = 8;
const MOST_DRAWS: number = requestSchema.properties.count.maximum;

/** The automaton's side: its DFA over minterms `of`, the graph with its rows N_t (absent: rejection),
 * the lengths it admits, and the codes its edges place (rejection draws from them). */
type Walk = Readonly<{ dfa: Dfa; of: Int32Array; runLimit: number | null; graph: Graph }> &
  Readonly<{ lengths: readonly number[]; pool: readonly number[]; rows?: readonly (readonly bigint[])[] }>;

/** Counted by the engine or on the automaton (`walk`); `work` in units, the largest request's draws included. */
export type PatternPlan = Readonly<{ length: number; count: bigint; bits: number; sampler: Sampler; work: number }> &
  Readonly<{ engine: SpecPlan | null; walk: Walk | null }>;

/** Tests force a sampler or a method: each is exact and uniform, only the cost differs. */
export type PatternPlanOptions = Readonly<{ sampler?: Sampler; method?: 'engine' | 'automaton'; budget?: number }>;

export const isPatternPlan = (p: PatternPlan | ErrorBody): p is PatternPlan => 'count' in p;

/** The plan of a pattern at a length (undefined: the default), or the 400 that says why not. */
export function planPattern(text: string, length?: number, o: PatternPlanOptions = {}): PatternPlan | ErrorBody {
  try {
    return plan(text, length, o);
  } catch (e) {
    if (e instanceof PatternRefusal) return { error: e.message, status: 400, field: PATTERN_FIELD };
    throw e;
  }
}

function plan(text: string, length: number | undefined, o: PatternPlanOptions): PatternPlan {
  const budget = o.budget ?? PLAN_WORK_BUDGET;
  const [parsed, meter] = [parsePattern(text), meterOf(budget)];
  const shape = shapeOf(parsed);
  let built: Walk | undefined;
  const walk = (): Walk => {
    if (built !== undefined) return built;
    const { of, symbols } = mintermsOf(parsed.sets);
    const dfa = productDfa(shape.components, shape.formula, of, symbols.length, meter);
    const graph = graphOf(dfa, symbols, shape.runLimit, meter);
    const lengths = lengthsOf(graph, meter).filter((n) => n >= shape.window[0] && n <= shape.window[1]);
    const live = new Set(graph.edges.flatMap((out) => out.flatMap((e) => e.syms)));
    const pool = [...live].sort((a, b) => a - b).map((c) => c + FIRST);
    return (built = { dfa, of, runLimit: shape.runLimit, graph, lengths, pool });
  };
  const L = length ?? chooseLength(walk().lengths);
  const done = (count: bigint, sampler: Sampler, engine: SpecPlan | null, w: Walk | null): PatternPlan =>
    Object.freeze({ length: L, count, bits: log2BigInt(count), sampler, work: Math.ceil(meter.work), engine, walk: w });
  const spec = o.method === 'automaton' ? null : fastSpec(shape, L);
  const engine = spec === null || spec === 'empty' ? null : planSpec(spec, o.sampler, budget - meter.work);
  if (engine !== null && isSpecPlan(engine)) {
    meter.work += engine.work;
    return done(engine.count, engine.sampler, engine, null);
  }
  // Over the budget as the engine's spec, the automaton is priced on its own and may fit.
  if (spec === 'empty' || engine?.kind === 'empty' || !walk().lengths.includes(L)) return noPassword(L, walk);
  const { graph } = walk();
  // (P5) Priced before any BigInt operation (docs/engine.md, The pattern's cost).
  const size = 1 + (L * Math.log2(SYMBOLS)) / 1024;
  meter.charge((2 * graph.edges.flat().length + graph.edges.length) * L * size, 1);
  const rows = countRows(graph, L);
  const count = rows[L][graph.start];
  const kept = 2 ** (log2BigInt(count) - L * Math.log2(walk().pool.length));
  if ((o.sampler ?? (kept >= REJECTION_ACCEPTANCE ? 'rejection' : 'exact')) === 'rejection')
    return done(count, 'rejection', null, walk());
  meter.charge(MOST_DRAWS * L * (3 * Math.max(...graph.edges.map((e) => e.length)) + 2) * size, 1);
  return done(count, 'exact', null, { ...walk(), rows });
}

/** "8-64, 70": lengths as ranges. */
function ranges(lengths: readonly number[]): string {
  const out: string[] = [];
  for (let i = 0, j = 0; i < lengths.length; i = ++j) {
    while (lengths[j + 1] === lengths[j] + 1) j++;
    out.push(j > i ? `${lengths[i]}-${lengths[j]}` : String(lengths[i]));
  }
  return out.length > 6 ? `${out.slice(0, 6).join(', ')}, ...` : out.join(', ');
}

const NONE = `matches no password: no string of printable ASCII without space (U+0021-U+007E) up to ${MAX_LENGTH} characters long matches it`;

function chooseLength(lengths: readonly number[]): number {
  const far = (n: number) => Math.abs(n - DEFAULT_PATTERN_LENGTH) - n / 1024;
  const served = lengths.filter((n) => n >= SHORTEST);
  if (served.length > 0) return served.reduce((a, b) => (far(b) < far(a) ? b : a));
  const some = `admits no length from ${SHORTEST} to ${MAX_LENGTH}; it admits lengths ${ranges(lengths)}`;
  return refuse(lengths.length === 0 ? NONE : some);
}

/** The refusal of a length the pattern does not admit, with those it admits if the budget allows. */
function noPassword(L: number, walk: () => Walk): never {
  let admits = '';
  try {
    admits = `; it admits lengths ${ranges(walk().lengths)}`;
  } catch (e) {
    if (!(e instanceof PatternRefusal)) throw e;
  }
  return refuse(admits === '; it admits lengths ' ? NONE : `matches no password of length ${L}${admits}`);
}

/** (P5) N_0(s) = [s final]; N_t(s) = the sum over the edges e of s of w_e N_(t-1)(to_e). */
function countRows(g: Graph, L: number): bigint[][] {
  const rows: bigint[][] = [g.final.map((f) => (f ? 1n : 0n))];
  for (let t = 1; t <= L; t++) rows.push(g.edges.map((out) => out.reduce((n, e) => n + e.w * rows[t - 1][e.to], 0n)));
  return rows;
}

/** (P6) The string of rank r below N_L(start), a bijection from [0, N_L(start)) onto the strings. */
function unrank({ graph, rows = [] }: Walk, L: number, r: bigint): number[] {
  const out: number[] = [];
  for (let t = L, s = graph.start; t >= 1; t--)
    for (const e of graph.edges[s]) {
      const c = rows[t - 1][e.to];
      if (r >= e.w * c) {
        r -= e.w * c;
        continue;
      }
      const [i, last] = [Number(r / c), out[out.length - 1]];
      out.push(e.kind === 2 ? last : e.syms[e.kind === 1 && i >= e.syms.indexOf(last) ? i + 1 : i]);
      [r, s] = [r % c, e.to];
      break;
    }
  return out;
}

/** Whether the automaton counts the string: its DFA and the run limit (the pattern itself never
 * runs on a backtracking engine). */
export function accepts({ dfa, of, runLimit }: Walk, codes: readonly number[]): boolean {
  const M = dfa.delta.length / dfa.accept.length;
  let q = dfa.start;
  for (let i = 0, run = 0; i < codes.length && q >= 0; i++) {
    run = i > 0 && codes[i] === codes[i - 1] ? run + 1 : 1;
    const c = codes[i] - FIRST;
    q = c < 0 || c >= SYMBOLS || run > (runLimit ?? Infinity) ? -1 : dfa.delta[q * M + of[c]];
  }
  return q >= 0 && dfa.accept[q] === 1;
}

/** The password of rank r below the count, for an exact plan: (P6), or (E18) for the engine's spec. */
export function valueAt(plan: PatternPlan, r: bigint): string {
  const counted = plan.engine?.counted;
  return finish(counted ? unrankSpec(counted, r) : unrank(plan.walk as Walk, plan.length, r).map((c) => c + FIRST));
}

/** `count` passwords, each uniform over the strings the plan counts: the engine's samplers, or on
 * the automaton a uniform rank unranked, or rejection over the pool (docs/engine.md, (P6)). */
export function drawPattern(plan: PatternPlan, random: RandomSource, count: number): string[] {
  if (plan.engine !== null) return drawValues(plan.engine, random, count);
  const codes = new Array<number>(plan.length).fill(0);
  const values = Array.from({ length: count }, () => {
    if (plan.sampler === 'exact') return valueAt(plan, uniformBigIntBelow(plan.count, random));
    const { pool } = plan.walk as Walk;
    do for (let i = 0; i < codes.length; i++) codes[i] = pool[random.below(pool.length)];
    while (!accepts(plan.walk as Walk, codes));
    return String.fromCharCode(...codes);
  });
  codes.fill(0);
  return values;
}
