/**
 * The one exact engine: every password constraint compiles to an EngineSpec, and this module alone
 * counts the strings it allows (entropy = log2 of the count); unrank.ts maps a rank to one of them.
 * docs/engine.md derives both as equations (E1)-(E18), each cited at the line that computes it.
 * `compile` prices the work before any BigInt operation (docs/engine.md, Cost), so a spec over the
 * budget is refused undone.
 * @module
 */

/** A set hit at least `min` times (0: optional, counting towards `minSets`), at most `max` if given. */
export type CountedSet = Readonly<{ codes: readonly number[]; min: number; max?: number | null }>;

export interface EngineSpec {
  /** Allowed UTF-16 codes, ascending, distinct. */
  readonly codes: readonly number[];
  /** At most MAX_SETS sets. */
  readonly sets: readonly CountedSet[];
  /** Of the optional sets (min 0), at least this many hit (default 0). */
  readonly minSets?: number;
  /** The first and the last character's allowed codes (default: all). */
  readonly first?: readonly number[] | null;
  readonly last?: readonly number[] | null;
  readonly length: number;
  readonly maxRepeating: number | null;
  readonly maxSequential: number | null;
}

/** The most sets a spec may have: inclusion-exclusion runs over subsets of them. */
export const MAX_SETS = 8;

/** The kinds of move (E5). */
export const [JUMP, REPEAT, UP, DOWN] = [0, 1, 2, 3];

/** The ring of a subset X (E4): `size` coefficients, by degree in mixed radix (`strides`). */
export type Ring = Readonly<{ caps: readonly number[]; strides: readonly number[]; size: number }>;

/** Multiplication by y^(weight e) as a pull: pull[f] is the coefficient that lands on f, or -1 (a
 * degree past its cap is dropped: the truncation of (E4)). */
function pullOf(ring: Ring, weight: number, e: number): Int32Array {
  const pull = new Int32Array(ring.size);
  for (let f = 0; f < ring.size; f++) {
    let g = f;
    for (let j = 0; j < ring.caps.length && g >= 0; j++)
      if ((weight >> j) & 1) g = Math.floor(f / ring.strides[j]) % ring.caps[j] >= e ? g - e * ring.strides[j] : -1;
    pull[f] = g;
  }
  return pull;
}

/** A ring's pulls by weight and power, made as one computation asks for them. */
function pulls(ring: Ring): (weight: number, e: number) => Int32Array {
  const made = new Map<number, Int32Array>();
  return (weight, e) => {
    let pull = made.get(weight * 4096 + e);
    if (pull === undefined) made.set(weight * 4096 + e, (pull = pullOf(ring, weight, e)));
    return pull;
  };
}

/** A kind of piece in one A_X (E4): length, weight (ring-local bits), last and first membership. */
export type PieceType = Readonly<{ size: number; weight: number; last: boolean; first: boolean; key: string }>;

/** What the counts of a subset depend on: its ring and its piece types with their copies. */
export interface Shape {
  readonly ring: Ring;
  readonly types: readonly PieceType[];
  readonly copies: readonly number[];
  /** Whether the kernels have more than one term (E12): chains, or a repeat limit. */
  readonly long: boolean;
  /** Work units of the count by the series (E14-E16) and by the table recurrence (E6-E11). */
  readonly seriesWork: number;
  readonly tableWork: number;
}

/** A subset X of the sets: its shape, and the set behind each variable of its ring. */
export type Subset = Readonly<{ mask: number; shape: number; sets: readonly number[] }>;

/** Free codes with one signature and first and last membership: one cell in every A_X. */
export type Atom = Readonly<{ sig: number; first: boolean; last: boolean; codes: readonly number[] }>;

/** Codes that weigh the same as jump targets (E18). */
export type Group = Readonly<{ first: boolean; members: readonly number[] }>;

/** Work units (docs/engine.md, Cost) to count, make the tables, draw once; and the tables' sizes. */
export type Work = Readonly<Record<'count' | 'tables' | 'draw' | 'rows' | 'entries' | 'cells', number>>;

/** A spec compiled, with no BigInt operation done. */
export interface Compiled {
  readonly spec: EngineSpec;
  readonly length: number;
  readonly maxRun: number;
  readonly maxSequence: number;
  readonly mins: readonly number[];
  /** Each set's maximum below the length, or -1 (none that can bind). */
  readonly maxes: readonly number[];
  /** Sets by kind (bits): min >= 1, min 0, and those inclusion-exclusion runs over. */
  readonly mandatory: number;
  readonly optional: number;
  readonly subsetable: number;
  readonly signature: ReadonlyMap<number, number>;
  readonly first: ReadonlySet<number>;
  readonly last: ReadonlySet<number>;
  /** The binding chains, and each chain code's place and chain length. */
  readonly chains: readonly (readonly number[])[];
  readonly links: ReadonlyMap<number, { readonly pos: number; readonly size: number }>;
  readonly atoms: readonly Atom[];
  /** Where a code's cell is kept: one slot per atom, one per chain code. */
  readonly slots: ReadonlyMap<number, number>;
  readonly slotCount: number;
  readonly groups: readonly Group[];
  /** By mask; undefined for masks outside `subsetable`. */
  readonly subsets: readonly (Subset | undefined)[];
  readonly shapes: readonly Shape[];
  readonly work: Work;
}

const UNPRICED: Work = Object.freeze({ count: 0, tables: 0, draw: 0, rows: 0, entries: 0, cells: 0 });

export const popcount = (x: number): number => {
  let c = 0;
  for (let v = x; v !== 0; v &= v - 1) c++;
  return c;
};

const binomial = (n: number, k: number): number => (k === 0 ? 1 : (binomial(n - 1, k - 1) * n) / k);

/** (E3) The Moebius weight of x optional sets when `more` of the n not yet hit must be hit. */
export function optCoef(x: number, n: number, more: number): number {
  if (x === 0) return n >= more ? 1 : 0;
  let c = 0;
  for (let j = 0; j <= x; j++) if (n - x + j >= more) c += (j & 1 ? -1 : 1) * binomial(x, j);
  return c;
}

const rangeOf = (c: number): number =>
  c >= 0x30 && c <= 0x39 ? 1 : c >= 0x41 && c <= 0x5a ? 2 : c >= 0x61 && c <= 0x7a ? 3 : 0;

/** True when b may follow a inside a sequence: the next or previous code, in the same range. */
export function isSequenceStep(a: number, b: number): boolean {
  return (b === a + 1 || b === a - 1) && rangeOf(a) !== 0 && rangeOf(a) === rangeOf(b);
}

/** Per-step units of one piece type in the table recurrence (E7-E10), per ring coefficient. */
const stepWork = (size: number) => (size === 1 ? 7 : 12 * size + 2);

/** Merges the sets of minimum 1 or more with the same codes (docs/engine.md, What a spec says). */
function mergeSets(sets: readonly CountedSet[]): CountedSet[] {
  const out: CountedSet[] = [];
  const same = (a: CountedSet, b: CountedSet) =>
    a.codes.length === b.codes.length && b.codes.every((c) => a.codes.includes(c));
  for (const set of sets) {
    const i = set.min >= 1 ? out.findIndex((o) => o.min >= 1 && same(o, set)) : -1;
    if (i < 0) out.push(set);
    else {
      const maxes = [out[i].max, set.max].filter((m) => typeof m === 'number');
      out[i] = { codes: set.codes, min: Math.max(out[i].min, set.min), max: Math.min(...maxes, Infinity) };
    }
  }
  return out.map((set) => (set.max === Infinity ? { ...set, max: null } : set));
}

/** The piece types of A_X (E4) in key order, with their copies, and its ring; `cell` hears each
 * chain code's type key and place, and each atom's by its first code. */
export function piecesOf(
  m: Pick<Compiled, 'mins' | 'maxes' | 'signature' | 'first' | 'last' | 'atoms' | 'chains'>,
  x: number,
  cell?: (code: number, key: string, place: number) => void,
): { ring: Ring; sets: number[]; entries: [PieceType, number][] } {
  const { mins, maxes } = m;
  // (E4) A_X drops the codes of X's sets of min 0 or 1; the ring's variables and caps.
  const removed = mins.reduce((r, min, i) => ((x >> i) & 1 && min <= 1 ? r | (1 << i) : r), 0);
  const sets = mins.map((_, i) => i).filter((i) => ((x >> i) & 1 ? mins[i] >= 2 : maxes[i] >= 0));
  const caps = sets.map((i) => ((x >> i) & 1 ? mins[i] : maxes[i] + 1));
  const byKey = new Map<string, [PieceType, number]>();
  const add = (size: number, sig: number, last: boolean, first: boolean, copies: number) => {
    const weight = sets.reduce((w, i, j) => ((sig >> i) & 1 ? w | (1 << j) : w), 0);
    const key = `${size}.${weight}.${last ? 1 : 0}${first ? 1 : 0}`;
    const entry = byKey.get(key);
    if (entry !== undefined) entry[1] += copies;
    else byKey.set(key, [{ size, weight, last, first, key }, copies]);
    return key;
  };
  for (const atom of m.atoms) {
    if ((atom.sig & removed) !== 0) continue;
    const key = add(1, atom.sig, atom.last, atom.first, atom.codes.length);
    cell?.(atom.codes[0], key, 0);
  }
  const sig = (code: number) => m.signature.get(code) ?? 0;
  for (const chain of m.chains)
    for (let i = 0; i < chain.length;) {
      // A piece: the next run of the chain left in A_X, one piece even when short (E17).
      let end = i;
      while (end < chain.length && (sig(chain[end]) & removed) === 0) end++;
      if (end > i) {
        const key = add(end - i, sig(chain[i]), m.last.has(chain[i]), m.first.has(chain[i]), 1);
        for (let p = i; p < end; p++) cell?.(chain[p], key, p - i);
      }
      i = end + 1;
    }
  const strides = caps.map((_, j) => caps.slice(0, j).reduce((a, b) => a * b, 1));
  const ring = { caps, strides, size: caps.reduce((a, b) => a * b, 1) };
  return { ring, sets, entries: [...byKey.values()].sort((a, b) => (a[0].key < b[0].key ? -1 : 1)) };
}

function shapeOf(ring: Ring, entries: readonly (readonly [PieceType, number])[], L: number, maxRun: number): Shape {
  const types = entries.map(([t]) => t);
  const long = types.some((t) => t.size > 1) || maxRun < L;
  // (E14) The terms a weight keeps (only below its smallest cap): the sum over t < L of min(t, r).
  let terms = 0;
  for (const w of new Set(types.map((t) => t.weight))) {
    const r = Math.max(
      0,
      1 + Math.min(long ? L - 1 : 0, ...ring.caps.filter((_, j) => (w >> j) & 1).map((cap) => cap - 2)),
    );
    terms += r >= L - 1 ? ((L - 1) * L) / 2 : (r * (r + 1)) / 2 + (L - 1 - r) * r;
  }
  // Without a window or a ring the series is one power (E16): a multiplication per bit of L.
  const seriesWork =
    !long && ring.size === 1 ? 2 * (types.length + Math.ceil(Math.log2(L + 1))) : 2 * ring.size * (terms + 2 * L);
  const tableWork = L * ring.size * types.reduce((sum, t) => sum + stepWork(t.size) + t.size, 0);
  return { ring, types, copies: entries.map(([, n]) => n), long, seriesWork, tableWork };
}

/** The compiled spec. Once the count's work passes `budget` it stops, that work Infinity (only a
 * price), so a spec far over costs little to refuse. Throws on a spec no compiler should make. */
export function compile(spec: EngineSpec, budget = Infinity): Compiled {
  const { codes, length: L } = spec;
  if (spec.sets.length > MAX_SETS || L < 1 || codes.length === 0) throw new RangeError('engine: spec out of range');
  const sets = mergeSets(spec.sets);
  const mins = sets.map((s) => s.min);
  const maxes = sets.map((s) => (s.max === null || s.max === undefined || s.max >= L ? -1 : s.max));
  const bits = (pick: (i: number) => boolean) => mins.reduce((m, _, i) => (pick(i) ? m | (1 << i) : m), 0);
  const mandatory = bits((i) => mins[i] >= 1);
  const optional = bits((i) => mins[i] === 0);
  const subsetable = mandatory | ((spec.minSets ?? 0) > 0 ? optional : 0);
  const allowed = new Set(codes);
  const signature = new Map<number, number>();
  for (const code of codes) signature.set(code, 0);
  sets.forEach((set, i) => {
    for (const c of set.codes) if (allowed.has(c)) signature.set(c, (signature.get(c) as number) | (1 << i));
  });
  const first = spec.first ? new Set(spec.first) : allowed;
  const last = spec.last ? new Set(spec.last) : allowed;
  const maxRun = Math.min(spec.maxRepeating ?? L, L);
  const maxSequence = Math.min(spec.maxSequential ?? L, L);
  const alphabet = alphabetOf(codes, signature, first, last, maxSequence < L ? maxSequence : Infinity);
  // A piece weighs alike along it (E4): the same variables' sets, first and last membership.
  const weighed = bits((i) => mins[i] >= 2 || maxes[i] >= 0);
  const sig = (c: number) => (signature.get(c) as number) & weighed;
  const alike = (a: number, b: number) =>
    sig(a) === sig(b) && first.has(a) === first.has(b) && last.has(a) === last.has(b);
  if (alphabet.chains.some((chain) => chain.some((c) => !alike(c, chain[0]))))
    throw new RangeError('engine: a binding chain must not change weight, first or last membership');
  const { chains, links, atoms, slots, slotCount } = alphabet;
  const base = { chains, links, atoms, slots, slotCount, mins, maxes, signature, first, last };
  const shapes: Shape[] = [];
  const shapeIndex = new Map<string, number>();
  const subsets = new Array<Subset | undefined>(1 << sets.length);
  let least = 0; // the count's work so far, at least
  for (let x = subsetable; ; x = (x - 1) & subsetable) {
    const { ring, sets: ringSets, entries } = piecesOf(base, x);
    const key = `${ring.caps.join('.')}|${entries.map(([t, n]) => `${t.key}x${n}`).join(',')}`;
    let index = shapeIndex.get(key);
    if (index === undefined) {
      shapeIndex.set(key, (index = shapes.length));
      shapes.push(shapeOf(ring, entries, L, maxRun));
      least += Math.min(shapes[index].seriesWork, shapes[index].tableWork);
    }
    subsets[x] = { mask: x, shape: index, sets: ringSets };
    if (x === 0 || least > budget) break;
  }
  const groups = groupsOf(base, subsetable & ~bits((i) => mins[i] >= 2));
  // One literal, not spreads: the walk reads this object on its hot path (a spread-built copy is slower to read).
  const compiled: Omit<Compiled, 'work'> & { work: Work } = {
    spec,
    length: L,
    maxRun,
    maxSequence,
    mins,
    maxes,
    mandatory,
    optional,
    subsetable,
    signature,
    first,
    last,
    chains,
    links,
    atoms,
    slots,
    slotCount,
    groups,
    subsets,
    shapes,
    work: UNPRICED,
  };
  const work = workOf(compiled);
  compiled.work = least > budget ? { ...work, count: Infinity } : work;
  return compiled;
}

/** The binding chains (docs/engine.md, (E5)), the atoms of the other codes, and the slots of both. */
function alphabetOf(
  codes: readonly number[],
  signature: ReadonlyMap<number, number>,
  first: ReadonlySet<number>,
  last: ReadonlySet<number>,
  limit: number,
): Pick<Compiled, 'chains' | 'links' | 'atoms' | 'slots' | 'slotCount'> {
  const runs: number[][] = [];
  for (let i = 0; i < codes.length; i++)
    if (i > 0 && isSequenceStep(codes[i - 1], codes[i])) (runs.at(-1) as number[]).push(codes[i]);
    else runs.push([codes[i]]);
  const chains = runs.filter((run) => run.length > limit);
  const links = new Map(chains.flatMap((chain) => chain.map((c, pos) => [c, { pos, size: chain.length }] as const)));
  const kind = (c: number) => 4 * (signature.get(c) as number) + (first.has(c) ? 2 : 0) + (last.has(c) ? 1 : 0);
  const atoms = new Map<number, Atom & { codes: number[] }>();
  for (const c of codes.filter((code) => !links.has(code))) {
    const atom = atoms.get(kind(c));
    if (atom !== undefined) atom.codes.push(c);
    else atoms.set(kind(c), { sig: signature.get(c) as number, first: first.has(c), last: last.has(c), codes: [c] });
  }
  const slots = new Map<number, number>();
  for (const [i, atom] of [...atoms.values()].entries()) for (const c of atom.codes) slots.set(c, i);
  let slotCount = atoms.size;
  for (const chain of chains) for (const c of chain) slots.set(c, slotCount++);
  return { chains, links, atoms: [...atoms.values()], slots, slotCount };
}

/** Codes that weigh the same as jump targets (E18): an atom's; an uncut chain's by length, place up
 * to mirror, signature, first and last; a cut chain's code alone. */
function groupsOf(a: Pick<Compiled, 'chains' | 'atoms' | 'signature' | 'first' | 'last'>, removable: number): Group[] {
  const sig = (c: number) => a.signature.get(c) as number;
  const byKey = new Map<string, number[]>();
  for (const chain of a.chains) {
    const cut = chain.some((c) => ((sig(c) ^ sig(chain[0])) & removable) !== 0);
    chain.forEach((c, pos) => {
      const place = Math.min(pos, chain.length - 1 - pos);
      const key = cut ? `code ${c}` : `${chain.length} ${place} ${sig(c)} ${a.first.has(c)} ${a.last.has(c)}`;
      byKey.set(key, [...(byKey.get(key) ?? []), c]);
    });
  }
  return [
    ...a.atoms.map((atom) => ({ first: atom.first, members: atom.codes })),
    ...[...byKey.values()].map((members) => ({ first: a.first.has(members[0]), members })),
  ];
}

/** The work of each task (docs/engine.md, Cost): BigInt operations weighted by 1 + bits / 1024. */
function workOf(m: Omit<Compiled, 'work'>): Work {
  const L = m.length;
  const size = 1 + (L * Math.log2(m.spec.codes.length)) / 1024;
  let [count, tables, entries, rows] = [0, 0, 0, 0];
  const kernels = new Set<number>();
  for (const shape of m.shapes) {
    tables += shape.tableWork + L * shape.ring.size * shape.ring.caps.length * 4;
    rows += 4 * L * shape.types.length;
    entries += 4 * L * shape.ring.size * shape.types.reduce((sum, t) => sum + t.size, 0);
    count += Math.min(shape.seriesWork, shape.tableWork);
    if (shape.seriesWork < shape.tableWork && shape.long) for (const t of shape.types) kernels.add(t.size);
  }
  for (const n of kernels) count += n === 1 ? L : L * (6 * n + 1); // a lone code's by (E12a)
  const subsets = m.subsets.filter((s) => s !== undefined).length;
  count += subsets * (m.first.size + 4);
  // A draw: at each place, every jump group and run length, each a sum over at most
  // 2^min(mandatory, places left x h) x 2^optional subsets (E17; docs/engine.md, Cost).
  const h = Math.max(...[...m.signature.values()].map((sig) => popcount(sig & m.mandatory)));
  const mandatory = popcount(m.subsetable & m.mandatory);
  const optional = popcount(m.subsetable & m.optional);
  const steps = m.links.size > 0 && m.maxSequence > 1;
  const moves = m.groups.length + (steps ? m.maxRun - 1 + m.maxSequence - 1 : 0) + 1;
  let sums = 0; // the sum over k = L - i = 1..L of 2^min(mandatory, k h), constant once k h reaches mandatory
  for (let k = 1; k <= L; k++)
    if (k * h < mandatory) sums += 2 ** (k * h);
    else {
      sums += (L - k + 1) * 2 ** mandatory;
      break;
    }
  sums *= moves * 2 ** optional;
  const cells = subsets * m.slotCount;
  const [c, t, d] = [count * size, (tables + count) * size + cells, 2 * sums * size].map(Math.ceil);
  return { count: c, tables: t, draw: d, rows, entries, cells };
}

/** A piece type's rows: K by kind and t, and the running sums of (E8) (undefined: no such run). */
export type Rows = Readonly<{ K: bigint[][][]; repeats: (bigint[] | undefined)[]; ups: (bigint[] | undefined)[] }>;

/** What one run of the recurrence reads: the limits, the ring and its powers by weight. */
type Recurrence = Readonly<{ R: number; S: number; D: number; powers: (weight: number) => Int32Array[] }>;

/** (E6)-(E10) for the piece types of one shape, t = 0..L-1: the rows (every t when `keep`, else
 * the last few) and J. */
export function runPieces(
  m: Pick<Compiled, 'length' | 'maxRun' | 'maxSequence'>,
  shape: Pick<Shape, 'ring' | 'types' | 'copies'>,
  keep: boolean,
): { rows: Rows[]; J: bigint[][] } {
  const { ring, types, copies } = shape;
  const D = ring.size;
  const pull = pulls(ring);
  const window = Math.max(m.maxRun, m.maxSequence) + 1;
  const byWeight = new Map<number, Int32Array[]>();
  const powers = (w: number) => {
    let p = byWeight.get(w);
    if (p === undefined) byWeight.set(w, (p = Array.from({ length: window + 1 }, (_, e) => pull(w, e))));
    return p;
  };
  const rec: Recurrence = { R: m.maxRun, S: m.maxSequence, D, powers };
  const rows: Rows[] = types.map(() => ({ K: [[], [], [], []], repeats: [], ups: [] }));
  const J: bigint[][] = [];
  for (let t = 0; t < m.length; t++) {
    const jin = t === 0 ? [] : J[t - 1];
    const total = new Array<bigint>(D).fill(0n);
    types.forEach((type, i) => {
      const row = rows[i];
      // (E6) K(0, x, .) = [x in last], for each kind.
      const K =
        t > 0
          ? stepRows(rec, row, type, t, jin)
          : [0, 1, 2, 3].map(() =>
              Array.from({ length: type.size * D }, (_, at) => (type.last && at % D === 0 ? 1n : 0n)),
            );
      K.forEach((k, kind) => row.K[kind].push(k));
      sumRows(rec, row, type, t);
      if (!keep && t >= window) {
        for (const k of row.K) k[t - window] = [];
        row.repeats[t - window] = row.ups[t - window] = undefined;
      }
      // (E10) J(t): each code's K(t, ., jump) times its weight, over the copies.
      const one = powers(type.weight)[1];
      for (let f = 0; f < D; f++) {
        if (one[f] < 0) continue;
        let sum = 0n;
        for (let x = 0; x < type.size; x++) sum += K[JUMP][x * D + one[f]];
        if (sum !== 0n) total[f] += BigInt(copies[i]) * sum;
      }
    });
    J.push(total);
  }
  return { rows, J };
}

/** (E7) K(t, ., .) by kind, from the rows before it and J(t - 1). */
function stepRows(rec: Recurrence, row: Rows, type: PieceType, t: number, jin: readonly bigint[]): bigint[][] {
  const { D } = rec;
  const n = type.size;
  const [kj, kr, ku, kd] = [
    new Array<bigint>(n * D),
    new Array<bigint>(n * D),
    new Array<bigint>(n * D),
    new Array<bigint>(n * D),
  ];
  const powers = rec.powers(type.weight);
  const one = powers[1];
  const previous = row.K[JUMP][t - 1];
  const mr = Math.min(rec.R - 1, t);
  const repeats = row.repeats[t - 1];
  const repeatsBefore = row.repeats[t - 1 - mr];
  const ups = row.ups[t - 1];
  const pr = powers[mr + 1];
  for (let x = 0; x < (n + 1) >> 1; x++) {
    const y = n - 1 - x;
    const mu = Math.min(rec.S - 1, t, n - 1 - x);
    const md = Math.min(rec.S - 1, t, x);
    const upsBefore = row.ups[t - 1 - mu];
    const downsBefore = row.ups[t - 1 - md];
    const [pu, pd] = [powers[mu + 1], powers[md + 1]];
    for (let f = 0; f < D; f++) {
      const g = one[f];
      // Plain declarations, not a destructured array: this loop is the count's hot path.
      let all = jin[f];
      let r = 0n;
      let u = 0n;
      let d = 0n;
      if (g >= 0) {
        // (E8) The runs of 1..m more repeats, steps up and steps down: two terms of running sums.
        if (mr > 0 && repeats !== undefined)
          r = repeats[x * D + g] - (repeatsBefore && pr[f] >= 0 ? repeatsBefore[x * D + pr[f]] : 0n);
        if (mu > 0 && ups !== undefined)
          u =
            ups[(x + 1) * D + g] -
            (upsBefore && pu[f] >= 0 && x + 1 + mu < n ? upsBefore[(x + 1 + mu) * D + pu[f]] : 0n);
        // A down-run from x is the mirror of an up-run from y (E9): its sums are the ups'.
        if (md > 0 && ups !== undefined)
          d = ups[(n - x) * D + g] - (downsBefore && pd[f] >= 0 && md < x ? downsBefore[(n - x + md) * D + pd[f]] : 0n);
        // (E7) The jumps: all of J but the code itself and its neighbours in the piece.
        all -=
          previous[x * D + g] + (x > 0 ? previous[(x - 1) * D + g] : 0n) + (x < n - 1 ? previous[(x + 1) * D + g] : 0n);
        all += r + u + d;
      }
      // (E7) After a move of one kind the next is not of that kind; (E9) the mirror image.
      kj[x * D + f] = kj[y * D + f] = all;
      kr[x * D + f] = kr[y * D + f] = all - r;
      ku[x * D + f] = kd[y * D + f] = all - u;
      kd[x * D + f] = ku[y * D + f] = all - d;
    }
  }
  return [kj, kr, ku, kd];
}

/** (E8) The running sums: repeats in place, ups along the diagonal (x, t) from (x + 1, t - 1). */
function sumRows(rec: Recurrence, row: Rows, type: PieceType, t: number): void {
  const { D } = rec;
  const one = rec.powers(type.weight)[1];
  const add = (k: readonly bigint[], previous: readonly bigint[] | undefined, shift: number) => {
    const out = k.slice();
    for (let x = 0; previous !== undefined && x + shift < type.size; x++)
      for (let f = 0; f < D; f++) if (one[f] >= 0) out[x * D + f] += previous[(x + shift) * D + one[f]];
    return out;
  };
  row.repeats.push(rec.R > 1 ? add(row.K[REPEAT][t], row.repeats[t - 1], 0) : undefined);
  row.ups.push(type.size > 1 && rec.S > 1 ? add(row.K[UP][t], row.ups[t - 1], 1) : undefined);
}

/** The series (E14-E16) or the table recurrence (E6-E11): both exact; by default the cheaper. */
export type Method = 'series' | 'recurrence';

/** (E2) The exact number of strings the spec allows. */
export function count(m: Compiled, method?: Method): bigint {
  const made = new Map<number, bigint[]>();
  const kernels = (size: number) => {
    let g = made.get(size);
    if (g === undefined) made.set(size, (g = kernel(m, size)));
    return g;
  };
  const byShape = new Map<number, bigint>();
  let total = 0n;
  for (const subset of m.subsets) {
    if (subset === undefined) continue;
    const sign = popcount(subset.mask & m.mandatory) & 1 ? -1 : 1;
    const coef =
      sign * optCoef(popcount(subset.mask & m.optional), popcount(m.optional & m.subsetable), m.spec.minSets ?? 0);
    if (coef === 0) continue;
    let n = byShape.get(subset.shape);
    if (n === undefined) {
      const shape = m.shapes[subset.shape];
      const by = method ?? (shape.tableWork <= shape.seriesWork ? 'recurrence' : 'series');
      const weighted =
        shape.types.length === 0
          ? [0n]
          : by === 'recurrence'
            ? byTables(m, shape)
            : bySeries(m, shape, kernels, method === undefined);
      byShape.set(subset.shape, (n = weighted.reduce((a, b) => a + b, 0n)));
    }
    total += BigInt(coef) * n;
  }
  return total;
}

/** (E12) The kernel g_n(t) of a lone piece of n codes: no jumps in, 1 at the start. For n > 1, (E7)-(E10)
 * on the one piece without a ring, J = 0 and K(0) = 1: K(t, x, jump) and the running sums of repeats
 * and ups by t, each row halved by the mirror (E9). */
function kernel(m: Compiled, n: number): bigint[] {
  const [R, S, L] = [m.maxRun, m.maxSequence, m.length];
  // (E12a) A lone code's kernel in closed form: 1 at t = 0 (mod R + 1), -1 at t = R, else 0.
  if (n === 1)
    return Array.from({ length: L }, (_, t) => BigInt((t % (R + 1) === 0 ? 1 : 0) - (t % (R + 1) === R ? 1 : 0)));
  let jump = new Array<bigint>(n).fill(1n);
  const [repeats, ups, g] = [[jump], [jump], [BigInt(n)]];
  const row = (rows: bigint[][], t: number): bigint[] | undefined => (t >= 0 ? rows[t] : undefined);
  for (let t = 1; t < L; t++) {
    const [kj, kr, ku] = [new Array<bigint>(n), new Array<bigint>(n), new Array<bigint>(n)];
    const mr = Math.min(R - 1, t);
    const [sums, before, upSums] = [repeats[t - 1], row(repeats, t - 1 - mr), ups[t - 1]];
    let sum = 0n;
    for (let x = 0; x < (n + 1) >> 1; x++) {
      const y = n - 1 - x;
      const mu = Math.min(S - 1, t, y);
      const md = Math.min(S - 1, t, x);
      const up = row(ups, t - 1 - mu);
      const down = row(ups, t - 1 - md);
      // (E8) Runs of 1..m more repeats, steps up, steps down (a down from x mirrors an up from y).
      const r = mr > 0 ? sums[x] - (before !== undefined ? before[x] : 0n) : 0n;
      const u = mu > 0 ? upSums[x + 1] - (up !== undefined && x + 1 + mu < n ? up[x + 1 + mu] : 0n) : 0n;
      const d = md > 0 ? upSums[n - x] - (down !== undefined && md < x ? down[n - x + md] : 0n) : 0n;
      // (E7) No jumps in; out, all but the code and its neighbours in the piece.
      const all = r + u + d - jump[x] - (x > 0 ? jump[x - 1] : 0n) - (x < n - 1 ? jump[x + 1] : 0n);
      kj[x] = kj[y] = all;
      kr[x] = kr[y] = all - r;
      ku[x] = all - u;
      ku[y] = all - d;
      sum += x === y ? all : all + all;
    }
    repeats.push(kr.map((k, x) => k + sums[x]));
    ups.push(ku.map((k, x) => (x + 1 < n ? k + upSums[x + 1] : k)));
    jump = kj;
    g.push(sum);
  }
  return g;
}

/** (E11) W_X by the table recurrence: every first code's K(L - 1, ., jump) times its weight. */
function byTables(m: Compiled, shape: Shape): bigint[] {
  const { ring, types, copies } = shape;
  const { rows } = runPieces(m, shape, false);
  const pull = pulls(ring);
  const out = new Array<bigint>(ring.size).fill(0n);
  types.forEach((type, i) => {
    const K = rows[i].K[JUMP][m.length - 1];
    const one = pull(type.weight, 1);
    for (let f = 0; f < ring.size && type.first; f++)
      for (let x = 0; x < type.size && one[f] >= 0; x++) out[f] += BigInt(copies[i]) * K[x * ring.size + one[f]];
  });
  return out;
}

/** W_X by the series (E13-E15a), or by one power without a window (E16, when `closed` allows). */
function bySeries(m: Compiled, shape: Shape, kernels: (size: number) => bigint[], closed: boolean): bigint[] {
  const { ring, types, copies } = shape;
  const [D, L] = [ring.size, m.length];
  if (!shape.long && D === 1 && closed) {
    // (E16) g = [1], H the number of codes h: W_X is h_FG at length 1, h_F h^(L - 2) h_G beyond (in a
    // ring of one coefficient every cap is 1: a weighted code cannot appear).
    const h = (pick: (t: PieceType) => boolean) =>
      BigInt(types.reduce((n, type, i) => (type.weight === 0 && pick(type) ? n + copies[i] : n), 0));
    return [
      L === 1 ? h((t) => t.first && t.last) : h((t) => t.first) * h(() => true) ** BigInt(L - 2) * h((t) => t.last),
    ];
  }
  // (E13, E14) H(j), H_G, H_F and H_FG: copies x g_size(j) x y^(weight (j + 1)), by weight.
  const weights = [...new Set(types.map((t) => t.weight))];
  const series = (pick: (t: PieceType) => boolean) =>
    weights.map((w) => {
      const h = new Array<bigint>(L).fill(0n);
      types.forEach((type, i) => {
        const g = shape.long ? kernels(type.size) : [1n];
        if (type.weight === w && pick(type)) for (let j = 0; j < g.length; j++) h[j] += BigInt(copies[i]) * g[j];
      });
      return h;
    });
  const H = series(() => true);
  // Where every piece may come first and last (no first or last set), the four are one.
  const all = types.every((t) => t.first && t.last);
  const [HG, HF, HFG] = all
    ? [H, H, H]
    : [(t: PieceType) => t.last, (t: PieceType) => t.first, (t: PieceType) => t.first && t.last].map(series);
  // The last j a weight's terms can be non-zero (as shapeOf prices).
  const reach = weights.map((w) =>
    Math.min(shape.long ? L - 1 : 0, ...ring.caps.filter((_, j) => (w >> j) & 1).map((cap) => cap - 2)),
  );
  // (E15a) A ring element as one BigInt, coefficient f in bits [fB, (f + 1)B): every coefficient of a
  // J(t) and of W_X counts strings of at most L codes, so lies in [0, 2^B) and the finished sums read
  // back slot by slot; one multiply-add serves all D coefficients. y^(w e) is a shift up by its degree
  // with the slots past a cap masked off (the pull's -1).
  const B = BigInt((BigInt(m.spec.codes.length) ** BigInt(L)).toString(2).length);
  const slot = (1n << B) - 1n;
  const pull = pulls(ring);
  // y^(w (j + 1)) for each weighted term: its shift, and a mask of the slots pullOf keeps, written out
  // as binary text (a mask built slot by slot would copy the growing BigInt D times).
  const [ones, zeros] = ['1', '0'].map((bit) => bit.repeat(Number(B)));
  const by = weights.map((w, i) =>
    Array.from({ length: w === 0 ? 0 : reach[i] + 1 }, (_, j) => {
      const p = pull(w, j + 1);
      const f = p.findIndex((g) => g >= 0);
      const mask = BigInt(
        `0b0${Array.from(p, (g) => (g >= 0 ? ones : zeros))
          .reverse()
          .join('')}`,
      );
      return { shift: f < 0 ? 0n : B * BigInt(f - p[f]), mask };
    }),
  );
  /** acc + the sum over j <= base of h(j) y^(w (j + 1)) src(base - j) for each weight w, where src
   * null stands for the unit (the monomials of h at j = base themselves). */
  const add = (acc: bigint, h: readonly (readonly bigint[])[], src: readonly bigint[] | null, base: number) => {
    for (let i = 0; i < weights.length; i++) {
      const [hi, top] = [h[i], Math.min(base, reach[i])];
      if (weights[i] === 0)
        for (let j = src === null ? base : 0; j <= top; j++) acc += hi[j] * (src === null ? 1n : src[base - j]);
      else
        for (let j = src === null ? base : 0; j <= top; j++)
          if (hi[j] !== 0n) acc += hi[j] * (((src === null ? 1n : src[base - j]) << by[i][j].shift) & by[i][j].mask);
    }
    return acc;
  };
  // (E14) J(t) = H_G(t) + the sum over s < t of H(t - 1 - s) J(s).
  const J: bigint[] = [];
  for (let t = 0; t < L - 1; t++) J.push(add(add(0n, HG, null, t), H, J, t - 1));
  // (E15) W_X = H_FG(L - 1) + the sum over s < L - 1 of H_F(L - 2 - s) J(s).
  const out = add(add(0n, HFG, null, L - 1), HF, J, L - 2);
  return Array.from({ length: D }, (_, f) => (out >> (B * BigInt(f))) & slot);
}
