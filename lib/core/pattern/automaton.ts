/** The pattern's automata and the graph the count runs on (docs/engine.md, (P2)-(P4)). Each step
 * is metered as it goes, under a state cap, so a pattern too big is refused after bounded work.
 * @module */
import { MAX_LENGTH, refuse, SYMBOLS, type Node, type Symbols } from './parse.ts';
import { misplaced, span, type Formula } from './shape.ts';

/** The most states a DFA may have (the graph: four times as many; an NFA: ten times). */
export const MAX_STATES = 4096;

/** Each step charged below weighs STEP units of the engine's budget (a BigInt operation weighs 1),
 * so that a plan at the budget costs what the engine's does (bench/engine.ts, section 5). */
const STEP = 10;

/** Work units spent so far against the budget; over it, a refusal. */
export function meterOf(budget: number) {
  const over = `takes more than the budget of ${budget} work units to plan; simplify it or shorten the length`;
  const m = { work: 0, charge: (n: number, unit = STEP) => ((m.work += unit * n) > budget ? refuse(over) : undefined) };
  return m;
}
export type Meter = ReturnType<typeof meterOf>;

/** States numbered as they are found, at most `cap` of them. */
function numbering<T>(cap: number): { list: T[]; id: (key: string | number, item: T) => number } {
  const [ids, list] = [new Map<string | number, number>(), [] as T[]];
  const id = (key: string | number, item: T) => {
    if (!ids.has(key) && list.length >= cap) refuse(`needs more than ${cap} automaton states; simplify it`);
    return ids.get(key) ?? ids.set(key, list.push(item) - 1).size - 1;
  };
  return { list, id };
}

/** (P3) Minterms: the symbols no set of the pattern separates; `of` maps a symbol to its own. */
export function mintermsOf(sets: readonly Symbols[]): { of: Int32Array; symbols: number[][] } {
  const { list: symbols, id } = numbering<number[]>(SYMBOLS);
  const of = Int32Array.from({ length: SYMBOLS }, (_, c) => id(sets.map((s) => s[c]).join(''), []));
  of.forEach((m, c) => symbols[m].push(c));
  return { of, symbols };
}

/** A DFA over M minterms: delta[q * M + m], -1 where no string can be accepted any more. */
export type Dfa = Readonly<{ start: number; delta: Int32Array; accept: Uint8Array }>;

type Nfa = Record<'eps' | 'bol' | 'eol', number[][]> & { readonly chars: { to: number; ms: number[] }[][] };

/** A component's Thompson NFA from state 0, and its final state. */
function nfaOf(node: Node, of: Int32Array, meter: Meter): [Nfa, number] {
  const n: Nfa = { eps: [], bol: [], eol: [], chars: [] };
  const add = () => {
    meter.charge(1);
    if (n.eps.length >= 10 * MAX_STATES) refuse(`needs more than ${10 * MAX_STATES} automaton states; simplify it`);
    for (const list of [n.eps, n.bol, n.eol, n.chars]) list.push([]);
    return n.eps.length - 1;
  };
  const build = (x: Node, from: number): number => {
    if (x.k === 'seq') return x.items.reduce((s, y) => build(y, s), from);
    if (x.k === 'group') return build(x.node, from);
    if (x.k === 'look' || x.k === 'ref') return misplaced(x);
    const to = add();
    if (x.k === 'set')
      n.chars[from].push({ to, ms: [...new Set([...x.s.keys()].filter((c) => x.s[c]).map((c) => of[c]))] });
    else if (x.k === 'bol' || x.k === 'eol') n[x.k][from].push(to);
    else if (x.k === 'alt') for (const a of x.alts) n.eps[build(a, from)].push(to);
    // No string is longer than MAX_LENGTH: an iteration that consumes fits at most that many
    // times, and iterations past both the minimum and that many can be left out.
    else if (x.min <= MAX_LENGTH || span(x.node)[0] === 0) {
      let s = from;
      for (let i = 0; i < x.min; i++) s = build(x.node, s);
      n.eps[s].push(to);
      if (x.max === Infinity) n.eps[build(x.node, to)].push(to);
      else
        for (let i = x.min; i < Math.min(x.max, Math.max(x.min, MAX_LENGTH)); i++)
          n.eps[(s = build(x.node, s))].push(to);
    }
    return to;
  };
  add();
  return [n, build(node, 0)];
}

/** (P2) A component's DFA, minimised: subsets of its NFA states, each state marked once past a
 * `$` (after which nothing is consumed); `^` holds only before the first symbol. */
function componentDfa(node: Node, of: Int32Array, M: number, meter: Meter): Dfa {
  const [n, final] = nfaOf(node, of, meter);
  const seen = new Int32Array(2 * n.eps.length);
  const { list: sets, id } = numbering<number[]>(MAX_STATES);
  const delta: number[] = [];
  let mark = 0;
  const state = (seeds: number[], atStart: boolean): number => {
    const out: number[] = [];
    for (mark++; seeds.length > 0;) {
      const v = seeds.pop() as number;
      if (seen[v] === mark) continue;
      out.push(v);
      seen[v] = mark;
      for (const t of n.eps[v >> 1]) seeds.push(2 * t + (v & 1));
      if (atStart) for (const t of n.bol[v >> 1]) seeds.push(2 * t + (v & 1));
      for (const t of n.eol[v >> 1]) seeds.push(2 * t + 1);
    }
    // Visiting, sorting and naming a subset: about 4 units a state (docs/engine.md, The pattern's cost).
    meter.charge(4 * out.length + 1);
    return id(out.sort((a, b) => a - b).join(), out);
  };
  state([0], true);
  for (let q = 0; q < sets.length; q++) {
    const seeds: number[][] = Array.from({ length: M }, () => []);
    for (const v of sets[q])
      if (v % 2 === 0) for (const e of n.chars[v >> 1]) for (const m of e.ms) seeds[m].push(2 * e.to);
    meter.charge(M * (sets[q].length + 1));
    const known = new Map<string, number>();
    for (const list of seeds) {
      const key = list.join();
      known.set(key, known.get(key) ?? state(list, false));
      delta.push(known.get(key) as number);
    }
  }
  const accept = Uint8Array.from(sets, (set) => (set.some((v) => v >> 1 === final) ? 1 : 0));
  return minimize({ start: 0, delta: Int32Array.from(delta), accept }, M, meter);
}

export const holds = (f: Formula, acc: (c: number) => boolean): boolean => {
  if (typeof f === 'number') return acc(f);
  if ('not' in f) return !holds(f.not, acc);
  return 'and' in f ? f.and.every((g) => holds(g, acc)) : f.or.some((g) => holds(g, acc));
};

/** (P2) The product of the components, accepting where the formula holds, minimised; a state
 * that cannot reach acceptance becomes -1. */
export function productDfa(nodes: readonly Node[], f: Formula, of: Int32Array, M: number, meter: Meter): Dfa {
  const all = nodes.map((node) => componentDfa(node, of, M, meter));
  // A component of one state is constant (true, as `(?=.*)`, or false): it stays out of the tuples.
  const at = all.map((c, i) => (c.accept.length > 1 ? all.slice(0, i).filter((d) => d.accept.length > 1).length : -1));
  const comps = all.filter((c) => c.accept.length > 1);
  const { list: tuples, id } = numbering<number[]>(MAX_STATES);
  const delta: number[] = [];
  const start = comps.map((c) => c.start);
  id(start.join(), start);
  for (let q = 0; q < tuples.length; q++) {
    meter.charge(M * (3 * comps.length + 8));
    for (let m = 0; m < M; m++) {
      const t = tuples[q].map((s, i) => comps[i].delta[s * M + m]);
      delta.push(id(t.join(), t));
    }
  }
  const on = (t: number[], i: number) => (at[i] < 0 ? all[i].accept[0] : comps[at[i]].accept[t[at[i]]]) === 1;
  const accept = Uint8Array.from(tuples, (t) => (holds(f, (i) => on(t, i)) ? 1 : 0));
  const d = minimize({ start: 0, delta: Int32Array.from(delta), accept }, M, meter);
  // Backwards from the accepting states: what is never reached is dead.
  const into: number[][] = Array.from(d.accept, () => []);
  d.delta.forEach((t, i) => into[t].push(Math.floor(i / M)));
  const alive = Uint8Array.from(d.accept);
  const queue = [...alive.keys()].filter((q) => alive[q] === 1);
  for (let q = queue.pop(); q !== undefined; q = queue.pop())
    for (const p of into[q])
      if (alive[p] === 0) {
        alive[p] = 1;
        queue.push(p);
      }
  meter.charge(2 * d.delta.length);
  return { ...d, delta: d.delta.map((t) => (alive[t] === 1 ? t : -1)), start: alive[d.start] === 1 ? d.start : -1 };
}

/** Moore's refinement: states no suffix tells apart are merged; the language is unchanged. */
function minimize(d: Dfa, M: number, meter: Meter): Dfa {
  let cls = Int32Array.from(d.accept);
  for (let count = -1; ;) {
    const ids = new Map<string, number>();
    const next = cls.map((c, q) => {
      let key = String(c);
      for (let m = 0; m < M; m++) key += `,${cls[d.delta[q * M + m]]}`;
      return ids.get(key) ?? ids.set(key, ids.size).size - 1;
    });
    meter.charge(d.delta.length + 2 * cls.length);
    if (ids.size === count) break;
    [count, cls] = [ids.size, next];
  }
  const size = Math.max(...cls) + 1;
  const [delta, accept] = [new Int32Array(size * M), new Uint8Array(size)];
  cls.forEach((c, q) => {
    accept[c] = d.accept[q];
    for (let m = 0; m < M; m++) delta[c * M + m] = cls[d.delta[q * M + m]];
  });
  return { start: cls[d.start], delta, accept };
}

/** An edge places one of `w` symbols: `syms` (kind 0), `syms` but the last placed (kind 1), or
 * the last again (kind 2). */
export type Edge = Readonly<{ to: number; w: bigint; kind: 0 | 1 | 2; syms: readonly number[] }>;
export type Graph = Readonly<{ start: number; final: readonly boolean[]; edges: readonly (readonly Edge[])[] }>;

/** (P4) The graph the count runs on: the DFA's states, an edge per minterm; with a run limit, states
 * (q, m, r), the last symbol in minterm m repeated r times. */
export function graphOf(d: Dfa, symbols: readonly number[][], limit: number | null, meter: Meter): Graph {
  const [M, K] = [symbols.length, (limit ?? 0) + 1];
  const { list: keys, id } = numbering<number>(4 * MAX_STATES);
  const node = (q: number, m: number, r: number) => id((q * (M + 1) + m + 1) * K + r, (q * (M + 1) + m + 1) * K + r);
  const stateOf = (key: number) => Math.floor(key / K / (M + 1));
  const edges: Edge[][] = [];
  if (d.start >= 0) node(d.start, -1, 0);
  for (let s = 0; s < keys.length; s++) {
    const [q, m, r] = [stateOf(keys[s]), (Math.floor(keys[s] / K) % (M + 1)) - 1, keys[s] % K];
    const out: Edge[] = [];
    const add = (to: number, w: number, kind: 0 | 1 | 2, syms: readonly number[]) =>
      out.push({ to, w: BigInt(w), kind, syms });
    symbols.forEach((syms, n) => {
      const t = d.delta[q * M + n];
      if (t >= 0 && limit === null) add(node(t, -1, 0), syms.length, 0, syms);
      else if (t >= 0 && n !== m) add(node(t, n, 1), syms.length, 0, syms);
      else if (t >= 0 && syms.length > 1) add(node(t, n, 1), syms.length - 1, 1, syms);
      if (t >= 0 && limit !== null && n === m && r < limit) add(node(t, n, r + 1), 1, 2, []);
    });
    edges.push(out);
    meter.charge(8 * M + 16);
  }
  return { start: keys.length > 0 ? 0 : -1, final: keys.map((k) => d.accept[stateOf(k)] === 1), edges };
}

/** The lengths 1..MAX_LENGTH at which some string reaches acceptance (reachability only). */
export function lengthsOf(g: Graph, meter: Meter): number[] {
  const lengths: number[] = [];
  let cur = new Set(g.start >= 0 ? [g.start] : []);
  for (let t = 1; t <= MAX_LENGTH; t++) {
    cur = new Set([...cur].flatMap((s) => g.edges[s].map((e) => e.to)));
    if ([...cur].some((s) => g.final[s])) lengths.push(t);
    meter.charge(6 * cur.size + 3);
  }
  return lengths;
}
