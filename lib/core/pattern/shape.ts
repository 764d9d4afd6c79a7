/** The pattern's top level as a formula over automata (P1), its run limit and length window
 * (P7), and the common shape as the engine's spec (P8); docs/engine.md, The pattern. @module */
import { MAX_SETS, type EngineSpec } from '../engine.ts';
import { FIRST, MAX_LENGTH, refuse, SYMBOLS, type Node, type Parsed, type Symbols } from './parse.ts';

/** A component's index, or a combination; `and: []` is true. */
export type Formula =
  number | { readonly not: Formula } | { readonly and: readonly Formula[] } | { readonly or: readonly Formula[] };

/** The automata (a body, or a lookahead's content then anything; `looks` holds the content, null
 * for a body), the formula, the idiom's run limit, and (P7) the lengths the body allows, with its
 * items and the counted class (now a star) at `at`. */
export type Shape = Readonly<{ components: readonly Node[]; looks: readonly (Node | null)[]; formula: Formula }> &
  Readonly<{ runLimit: number | null; window: readonly [number, number]; counted: Counted | null }>;
type Counted = Readonly<{ items: readonly Node[]; at: number }>;

/** The items of a sequence, with the groups that hold one alternative opened. */
export const itemsOf = (n: Node): Node[] =>
  n.k === 'seq' ? n.items.flatMap(itemsOf) : n.k === 'group' && n.node.k !== 'alt' ? itemsOf(n.node) : [n];
const single = (n: Node): Node => ((n.k === 'seq' || n.k === 'group') && itemsOf(n).length === 1 ? itemsOf(n)[0] : n);
const alternativesOf = (n: Node) =>
  n.k === 'alt' ? n.alts : n.k === 'group' && n.node.k === 'alt' ? n.node.alts : null;
const opensWithLook = (items: readonly Node[]): boolean => {
  const x = items.find((y) => y.k !== 'bol');
  return x !== undefined && (x.k === 'look' || (alternativesOf(x)?.some((a) => opensWithLook(itemsOf(a))) ?? false));
};
const isAll = (n: Node) => n.k === 'set' && n.s.every((x) => x === 1);
const anyStar = (n: Node) => n.k === 'rep' && n.min === 0 && n.max === Infinity && isAll(single(n.node));

/** k when a negative lookahead's content is `.*(.)\1{k}` (or `\1+`, `\1\1`...): no run over k. */
function idiom(n: Node, names: ReadonlyMap<string, number>): number | null {
  const items = n.k === 'seq' ? n.items : [n];
  const [star, cap] = items as (Node | undefined)[];
  if (star === undefined || !anyStar(star) || cap?.k !== 'group' || cap.cap === 0 || !isAll(single(cap.node)))
    return null;
  let k = 0;
  for (const r of items.slice(2)) {
    const [ref, min] = r.k === 'rep' ? [r.node, r.min] : [r, 1];
    if (ref.k !== 'ref' || (typeof ref.to === 'number' ? ref.to : names.get(ref.to)) !== cap.cap) return null;
    k += min;
  }
  return k > 0 ? Math.min(k, MAX_LENGTH) : null;
}

/** The formula and its automata; throws PatternRefusal. */
export function shapeOf({ root, names }: Parsed): Shape {
  const components: Node[] = [];
  const looks: (Node | null)[] = [];
  const keys = new Map<string, number>();
  let runLimit: number | null = null;
  const any: Node = { k: 'rep', node: { k: 'set', s: new Uint8Array(SYMBOLS).fill(1) }, min: 0, max: Infinity };
  const leaf = (node: Node, look: Extract<Node, { k: 'look' }> | null): number => {
    const known = look === null ? undefined : keys.get(look.src);
    if (known !== undefined) return known;
    if (look !== null) keys.set(look.src, components.length);
    looks.push(look?.node ?? null);
    return components.push(node) - 1;
  };
  const lookahead = (n: Extract<Node, { k: 'look' }>, underOr: boolean): Formula => {
    const k = n.neg ? idiom(n.node, names) : null;
    if (k === null) {
      const c = leaf({ k: 'seq', items: [n.node, any] }, n);
      return n.neg ? { not: c } : c;
    }
    if (underOr)
      refuse('uses the no-repeat idiom (?!.*(.)\\1{k}) inside an alternation; it is supported at the top only');
    runLimit = Math.min(runLimit ?? k, k);
    return { and: [] };
  };
  // (P1) The items before anything is consumed: the lookaheads, the rest one body, an alternation
  // opening with lookaheads distributed over the rest (kept as one condition when only lookaheads).
  const conj = (items: readonly Node[], body: boolean, underOr: boolean): Formula => {
    const fs: Formula[] = [];
    for (let i = 0; i < items.length; i++) {
      const it = items[i];
      const alts = alternativesOf(it)?.map(itemsOf);
      if (it.k === 'look') fs.push(lookahead(it, underOr));
      else if (alts?.some(opensWithLook) && alts.every((a) => a.every((x) => x.k === 'bol' || x.k === 'look')))
        fs.push({ or: alts.map((a) => conj(a, false, true)) });
      else if (alts?.some(opensWithLook))
        return { and: [...fs, { or: alts.map((a) => conj([...a, ...items.slice(i + 1)], body, true)) }] };
      else if (it.k !== 'bol') return { and: [...fs, leaf({ k: 'seq', items: items.slice(i) }, null)] };
    }
    return { and: body ? [...fs, leaf({ k: 'seq', items: [] }, null)] : fs };
  };
  const formula = conj(itemsOf(root), true, false);
  const bodies = looks.flatMap((l, i) => (l === null ? [i] : []));
  const items = bodies.length === 1 ? itemsOf(components[bodies[0]]) : [];
  const fixed = items.map((y) => (span(y)[0] === span(y)[1] ? span(y)[0] : null));
  // The one item of varying length, or (none varying) the class counted most often.
  const counts = items.map((y) => (y.k === 'rep' && single(y.node).k === 'set' ? y.max : -1));
  const at = fixed.includes(null) ? fixed.indexOf(null) : counts.indexOf(Math.max(0, ...counts));
  const x = at >= 0 && fixed.lastIndexOf(null) <= at ? single(items[at]) : null;
  if (x?.k !== 'rep' || single(x.node).k !== 'set')
    return { components, looks, formula, runLimit, window: [0, MAX_LENGTH], counted: null };
  // (P7) One counted class amid fixed-length items: its count is the length less theirs, so the
  // automaton takes it as a star and the lengths are kept apart.
  const c = fixed.reduce((a: number, b, i) => a + (i === at ? 0 : (b ?? 0)), 0);
  const starred = items.map((y, i) => (i === at ? { ...x, min: 0, max: Infinity } : y));
  components[bodies[0]] = { k: 'seq', items: starred };
  const window = [x.min + c, Math.min(MAX_LENGTH, x.max + c)] as const;
  return { components, looks, formula, runLimit, window, counted: { items: starred, at } };
}

/** The shortest and longest match of n (a backreference or a lookahead: [0, Infinity]). */
export const span = (n: Node): [number, number] => {
  if (n.k === 'set') return [1, 1];
  if (n.k === 'group') return span(n.node);
  if (n.k === 'bol' || n.k === 'eol') return [0, 0];
  const parts = n.k === 'seq' ? n.items.map(span) : n.k === 'alt' ? n.alts.map(span) : [];
  if (n.k === 'seq') return parts.reduce(([a, b], [c, d]) => [a + c, b + d], [0, 0]);
  if (n.k === 'alt') return [Math.min(...parts.map((x) => x[0])), Math.max(...parts.map((x) => x[1]))];
  const [a, b] = n.k === 'rep' ? span(n.node) : [0, Infinity];
  return n.k === 'rep' ? [a * n.min, n.max === 0 || b === 0 ? 0 : b * n.max] : [a, b];
};

/** The refusal for a lookahead or a backreference the automata cannot hold. */
export const misplaced = (n: Node): never =>
  refuse(
    n.k === 'look'
      ? 'has a lookahead after consumed characters, inside a quantifier or inside another lookahead; lookaheads are supported at the start of the pattern or of a top-level alternative'
      : 'uses a backreference; only the no-repeat idiom (?!.*(.)\\1{k}) is supported, at the top of the pattern',
  );

type Hit = Readonly<{ s: Symbols; min: number }>;

/** An alternation of conjunctions of `(?=.*S)` that holds exactly when at least k of its M
 * distinct sets are hit (checked on every subset of them): the sets and k. */
function kOfM(alts: readonly Formula[], hitOf: (f: Formula) => Hit | null): [Hit[], number] | null {
  const sets = new Map<string, Hit>();
  const needs = alts.map((a) => (typeof a === 'object' && 'and' in a ? a.and : [a]).map(hitOf));
  for (const h of needs.flat()) if (h?.min === 1) sets.set(h.s.join(''), h);
  const keys = [...sets.keys()];
  const bits = (mask: number) => keys.filter((_, j) => (mask >> j) & 1).length;
  const hit = (mask: number) =>
    needs.some((n) => n.every((h) => h !== null && (mask >> keys.indexOf(h.s.join(''))) & 1));
  const masks = [...Array(keys.length <= MAX_SETS ? 1 << keys.length : 0).keys()];
  const k = Math.min(...masks.filter(hit).map(bits));
  if (needs.flat().some((h) => h?.min !== 1) || !(k > 0) || masks.some((m) => hit(m) !== bits(m) >= k)) return null;
  return [[...sets.values()], k];
}

/** `(?=.*S)` (or `(?=[^S]*S)`, a lazy or trailing `.*`) as {S, 1}; `(?=(?:.*S){k})` as {S, k}. */
function contains(n: Node | null): Hit | null {
  const items = n === null ? [] : itemsOf(n);
  while (items.length > 1 && anyStar(items[items.length - 1])) items.pop();
  const [a, b] = items as (Node | undefined)[];
  if (items.length === 1 && a?.k === 'rep') {
    const inner = contains(a.node);
    return inner?.min === 1 ? { s: inner.s, min: a.min } : null;
  }
  const y = a?.k === 'rep' && a.min === 0 && a.max === Infinity ? single(a.node) : null;
  if (items.length !== 2 || y?.k !== 'set' || b?.k !== 'set') return null;
  return y.s.every((v, c) => v === 1 || b.s[c] === 1) ? { s: b.s, min: 1 } : null;
}

/** (P8) The common shape as the engine's spec at length L; 'empty' when no string of length L can
 * match, null for another shape. */
export function fastSpec(sh: Shape, L: number): EngineSpec | 'empty' | null {
  if (sh.counted === null || typeof sh.formula === 'number' || !('and' in sh.formula)) return null;
  const hitOf = (f: Formula) => (typeof f === 'number' ? contains(sh.looks[f]) : null);
  const [need, none]: Hit[][] = [[], []];
  let [optional, minSets]: [Hit[], number] = [[], 0];
  for (const f of sh.formula.and) {
    const hit = hitOf(typeof f === 'object' && 'not' in f ? f.not : f);
    const km = typeof f === 'object' && 'or' in f && minSets === 0 ? kOfM(f.or, hitOf) : null;
    if (typeof f === 'number' && sh.looks[f] === null) continue;
    if (typeof f === 'number' && hit !== null) need.push(...(hit.min > 0 ? [hit] : []));
    else if (typeof f === 'object' && 'not' in f && hit?.min === 1) none.push(hit);
    else if (km !== null) [optional, minSets] = km;
    else if (!(typeof f === 'object' && 'and' in f && f.and.length === 0)) return null;
  }
  const { items, at } = sh.counted;
  const x = single((items[at] as { node: Node }).node) as { s: Symbols };
  const start = items[0].k === 'bol' ? 1 : 0;
  const end = items.length - (items.at(-1)?.k === 'eol' ? 1 : 0);
  const [f, g] = [items.slice(start, at), items.slice(at + 1, end)].map((ends) => (ends.length === 0 ? null : ends));
  const within = (e: Node[] | null) =>
    e === null || (e.length === 1 && e[0].k === 'set' && e[0].s.every((v, c) => v <= x.s[c]));
  if (!within(f) || !within(g) || need.length + optional.length > MAX_SETS) return null;
  const allowed = x.s.map((v, c) => (none.some((h) => h.s[c] === 1) ? 0 : v));
  const codesOf = (s: Symbols) => [...s.keys()].filter((c) => s[c] === 1 && allowed[c] === 1).map((c) => c + FIRST);
  const sets = [...need, ...optional.map(({ s }) => ({ s, min: 0 }))].map(({ s, min }) => ({ codes: codesOf(s), min }));
  const [first, last] = [f, g].map((e) => (e === null ? null : codesOf((e[0] as { s: Symbols }).s)));
  const codes = codesOf(allowed);
  if (L < sh.window[0] || L > sh.window[1] || [codes, first ?? codes, last ?? codes].some((c) => c.length === 0))
    return 'empty';
  if (sets.some((s) => s.codes.length === 0))
    return sets.some((s) => s.min > 0 && s.codes.length === 0) ? 'empty' : null;
  return { codes, sets, minSets, first, last, length: L, maxRepeating: sh.runLimit, maxSequential: null };
}
