/**
 * The exact sampler's side of the engine (docs/engine.md, (E17) and (E18)): every shape's tables,
 * the completions of a walk's state, and the walk, a bijection from [0, count) onto the strings.
 * @module
 */
import { DOWN, JUMP, optCoef, piecesOf, popcount, REPEAT, runPieces, UP } from './engine.ts';
import type { Compiled, Ring, Subset } from './engine.ts';

/** Where a walk stands (E17): per set the hits still needed and allowed, and the optional sets to hit. */
type State = Readonly<{ need: readonly number[]; left: readonly number[]; more: number }>;

/** The exact sampler's tables and the exact count. */
export interface Counted {
  readonly compiled: Compiled;
  /** By shape and piece type: K by kind and t, each row summed below every degree (cumulate). */
  readonly tables: readonly (readonly (readonly (readonly bigint[])[])[])[][];
  /** By subset mask: per slot, its piece type (index in the shape, -1: not in A_X) and place. */
  readonly cells: readonly (Int32Array | undefined)[];
  readonly start: State;
  /** The exact number of valid strings (E2), recounted from the tables. */
  readonly count: bigint;
}

/** Sums a row below each degree, in place, so (E17)'s sum within a state's bounds is one read. */
function cumulate(ring: Ring, row: bigint[]): void {
  for (let j = 0; j < ring.caps.length; j++)
    for (let base = 0; base < row.length; base += ring.size)
      for (let f = 0; f < ring.size; f++)
        if (Math.floor(f / ring.strides[j]) % ring.caps[j] > 0) row[base + f] += row[base + f - ring.strides[j]];
}

function cellsOf(m: Compiled): (Int32Array | undefined)[] {
  return m.subsets.map((subset) => {
    if (subset === undefined) return undefined;
    const cells = new Int32Array(2 * m.slotCount).fill(-1);
    const heard: [number, string, number][] = [];
    const { entries } = piecesOf(m, subset.mask, (code, key, place) => heard.push([code, key, place]));
    const index = new Map(entries.map(([type], i) => [type.key, i]));
    for (const [code, key, place] of heard) {
      const slot = m.slots.get(code) as number;
      cells.set([index.get(key) as number, place], 2 * slot);
    }
    return cells;
  });
}

/** The exact sampler's tables: every shape's K by the recurrence (E6-E10), and the count. */
export function tablesOf(m: Compiled): Counted {
  const tables = m.shapes.map((shape) => {
    const { rows } = runPieces(m, shape, true);
    if (shape.ring.size > 1) for (const row of rows) for (const k of row.K) for (const r of k) cumulate(shape.ring, r);
    return rows.map((row) => row.K);
  });
  const start: State = {
    need: m.mins.map((min, i) => ((m.optional >> i) & 1 ? 1 : min)),
    left: m.maxes.map((max) => (max < 0 ? m.length : max)),
    more: m.spec.minSets ?? 0,
  };
  const partial = { compiled: m, tables, cells: cellsOf(m), start, count: 0n };
  let total = 0n;
  for (const { members, first } of m.groups) {
    const next = first ? advance(m, start, members[0]) : null;
    if (next !== null) total += BigInt(members.length) * completions(partial, next, members[0], JUMP, m.length - 1);
  }
  return { ...partial, count: total };
}

/** The state after placing `code`, or null when that breaks a set's maximum. */
function advance(m: Compiled, s: State, code: number): State | null {
  const sig = m.signature.get(code) ?? 0;
  if (sig === 0) return s;
  let more = s.more;
  const need = s.need.slice();
  const left = s.left.slice();
  for (let i = 0; i < need.length; i++) {
    if (((sig >> i) & 1) === 0) continue;
    if (need[i] > 0) {
      need[i]--;
      if ((m.optional >> i) & 1) more--;
    }
    if (--left[i] < 0) return null;
  }
  return { need, left, more: Math.max(0, more) };
}

/** (E17) C(state, code, kind, t): over X within the open sets, the Moebius weight of X times K_X's
 * coefficients within the state's bounds. */
function completions(c: Omit<Counted, 'count'>, s: State, code: number, kind: number, t: number): bigint {
  const m = c.compiled;
  const open = s.need.reduce((o, n, i) => (n > 0 ? o | (1 << i) : o), 0) & m.subsetable;
  const slot = 2 * (m.slots.get(code) as number);
  const openOptional = popcount(open & m.optional);
  let sum = 0n;
  for (let x = open; ; x = (x - 1) & open) {
    // (E2) The Moebius weight: the sign of X's mandatory sets, times optCoef for its optional ones.
    const weight = optCoef(popcount(x & m.optional), openOptional, s.more) * (popcount(x & m.mandatory) & 1 ? -1 : 1);
    const { shape, sets } = m.subsets[x] as Subset;
    const { ring } = m.shapes[shape];
    const cells = c.cells[x] as Int32Array;
    let index = cells[slot + 1] * ring.size;
    for (let j = 0; j < sets.length && index >= 0; j++) {
      const bound = (x >> sets[j]) & 1 ? s.need[sets[j]] - 1 : s.left[sets[j]];
      index = bound < 0 ? -1 : index + Math.min(bound, ring.caps[j] - 1) * ring.strides[j];
    }
    if (weight !== 0 && index >= 0) {
      const v = c.tables[shape][cells[slot]][kind][t][index];
      sum += weight === 1 ? v : weight === -1 ? -v : BigInt(weight) * v;
    }
    if (x === 0) return sum;
  }
}

type Walk = Readonly<{ rank: bigint; state: State; last: number; kind: number }>;

type Move = Readonly<{ walk: Walk; placed: readonly number[] }>;

/** (E18) The valid string of rank `rank` (0 <= rank < count), as codes. */
export function unrank(c: Counted, rank: bigint): number[] {
  const L = c.compiled.length;
  if (rank < 0n || rank >= c.count) throw new RangeError('unrank: rank out of range');
  const out: number[] = [];
  let walk: Walk = { rank, state: c.start, last: -1, kind: JUMP };
  while (out.length < L) {
    const t = L - out.length;
    const jump = takeJump(c, walk, t);
    const next = 'walk' in jump ? jump : takeRun(c, { ...walk, rank: jump.rest }, t);
    /* c8 ignore next -- the weights of the moves sum to the state's C, which the rank is below */
    if (next === null) throw new Error('unrank: weights do not add up');
    out.push(...next.placed);
    walk = next.walk;
  }
  return out;
}

/** (E18) The jumps, by group then member: the one the rank falls in, or the rank left past them.
 * A jump may not land on the code before it or its neighbours in a binding chain. */
function takeJump(c: Counted, walk: Walk, t: number): Move | { readonly rest: bigint } {
  const m = c.compiled;
  const link = m.links.get(walk.last);
  const excluded = walk.last < 0 ? [] : [walk.last];
  if (link !== undefined && link.pos < link.size - 1) excluded.push(walk.last + 1);
  if (link !== undefined && link.pos > 0) excluded.push(walk.last - 1);
  let r = walk.rank;
  for (const { first, members } of m.groups) {
    if (walk.last < 0 && !first) continue;
    // The members a jump may land on: all but the excluded (at most three: counted, not copied).
    const allowed = members.length - excluded.filter((code) => members.includes(code)).length;
    const one = members.find((code) => !excluded.includes(code));
    const state = one === undefined ? null : advance(m, walk.state, one);
    if (state === null || one === undefined) continue;
    const each = completions(c, state, one, JUMP, t - 1);
    if (r < BigInt(allowed) * each) {
      // The member of rank r / each among the allowed ones, in order.
      let k = Number(r / each);
      const code = members.find((member) => !excluded.includes(member) && k-- === 0) as number;
      return { walk: { rank: r % each, state, last: code, kind: JUMP }, placed: [code] };
    }
    r -= BigInt(allowed) * each;
  }
  return { rest: r };
}

/** (E18) The step-runs after the jumps: repeats, then up, then down, each by length. */
function takeRun(c: Counted, walk: Walk, t: number): Move | null {
  const m = c.compiled;
  if (walk.last < 0) return null;
  const link = m.links.get(walk.last);
  let r = walk.rank;
  for (const [kind, dir] of [
    [REPEAT, 0],
    [UP, 1],
    [DOWN, -1],
  ] as const) {
    if (kind === walk.kind || (dir !== 0 && link === undefined)) continue;
    const room = link === undefined || dir === 0 ? t : dir > 0 ? link.size - 1 - link.pos : link.pos;
    const most = Math.min(dir === 0 ? m.maxRun - 1 : m.maxSequence - 1, t, room);
    let state: State | null = walk.state;
    const placed: number[] = [];
    for (let j = 1; j <= most && state !== null; j++) {
      const code = walk.last + dir * j;
      placed.push(code);
      state = advance(m, state, code);
      const weight = state === null ? 0n : completions(c, state, code, kind, t - j);
      if (state !== null && r < weight) return { walk: { rank: r, state, last: code, kind }, placed };
      r -= weight;
    }
  }
  return null;
}
