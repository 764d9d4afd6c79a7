/**
 * The one exact engine: every password constraint compiles to an EngineSpec, and this module
 * alone counts the strings a spec allows (the entropy is log2 of the count) and maps a uniform
 * integer below the count to one of them (unrank). docs/engine.md derives it as numbered
 * equations (E1) to (E18); each is cited at the line that computes it. In short:
 *
 * - Inclusion-exclusion over the sets a string falls short of, with Moebius weights for "at
 *   least minSets of the optional sets" (E2, E3), turns the sets into a smaller alphabet A_X and
 *   a ring of truncated polynomials that counts the codes of the sets with a minimum of 2 or more
 *   or a maximum (E4).
 * - A string is its first code and a series of moves, each a jump or a whole run of repeats or
 *   of steps along a chain (E5). K(t, x, kind), the weighted number of ways to place t more codes
 *   after a move of that kind ended on x, follows a recurrence over the pieces of A_X (E6-E10).
 * - By superposition, a piece's K is its response to the total of jumps J (E12-E13), so J and the
 *   count are one power series over the pieces' kernels (E14-E16): the count needs no table.
 * - The exact sampler keeps the tables of K and walks the moves, each weighted by the valid ways
 *   to finish after it (E17-E18).
 *
 * Work is priced in units before any BigInt operation (`compile`), so a planner refuses a spec
 * over its budget without doing the work; docs/engine.md, Cost, gives the units.
 * @module
 */

/** A set the string hits at least `min` times (min 0: optional, counting towards `minSets`) and,
 * when `max` is given, at most `max` times. */
export interface CountedSet {
  readonly codes: readonly number[];
  readonly min: number;
  readonly max?: number | null;
}

export interface EngineSpec {
  /** Allowed UTF-16 codes, ascending, distinct. */
  readonly codes: readonly number[];
  /** At most MAX_SETS sets. */
  readonly sets: readonly CountedSet[];
  /** Of the optional sets (min 0), at least this many hit (default 0). */
  readonly minSets?: number;
  /** The first character's allowed codes (default: all). */
  readonly first?: readonly number[] | null;
  /** The last character's allowed codes (default: all). */
  readonly last?: readonly number[] | null;
  readonly length: number;
  readonly maxRepeating: number | null;
  readonly maxSequential: number | null;
}

/** The most sets a spec may have: inclusion-exclusion runs over subsets of them. */
export const MAX_SETS = 8;

const JUMP = 0;
const REPEAT = 1;
const UP = 2;
const DOWN = 3;

/** The ring of one subset X (E4): a variable per set of X with a minimum of 2 or more (kept below
 * that minimum) and per set with a maximum (kept up to it, or below the minimum when in X). A
 * ring element holds `size` coefficients, by degree in mixed radix (`strides`). `sets` are the
 * sets of the subset it was made for; a shape shared by other subsets reads theirs. */
interface Ring {
  readonly sets: readonly number[];
  readonly caps: readonly number[];
  readonly strides: readonly number[];
  readonly size: number;
}

function ringOf(sets: readonly number[], caps: readonly number[]): Ring {
  const strides: number[] = [];
  let size = 1;
  for (const cap of caps) {
    strides.push(size);
    size *= cap;
  }
  return { sets, caps, strides, size };
}

/** Multiplication by the monomial of the variables in `weight` (bits by place in ring.sets), each
 * to the power e, as a pull: pull[f] is the coefficient that lands on f, or -1 (none; degrees that
 * reach a cap are dropped, which is the truncation). */
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

/** The pulls of a ring by weight and power, made as needed within one computation. */
function pulls(ring: Ring): (weight: number, e: number) => Int32Array {
  const made = new Map<number, Int32Array>();
  return (weight, e) => {
    const key = weight * 4096 + e;
    let pull = made.get(key);
    if (pull === undefined) made.set(key, (pull = pullOf(ring, weight, e)));
    return pull;
  };
}

/** A kind of piece in one A_X: its length, its weight (ring-local bits), and whether its codes may
 * come last and first (the same along a piece: compile checks it). */
interface PieceType {
  readonly size: number;
  readonly weight: number;
  readonly last: boolean;
  readonly first: boolean;
  readonly key: string;
}

/** What the counts of a subset depend on: its ring and its pieces by type (with copies). */
interface Shape {
  readonly ring: Ring;
  readonly types: readonly PieceType[];
  readonly copies: readonly number[];
  /** Whether the pieces' kernels have more than one term (E12): chains, or a repeat limit. */
  readonly long: boolean;
  /** Work units of the count by the series (E14-E15) and by the table recurrence (E6-E10). */
  readonly seriesWork: number;
  readonly tableWork: number;
}

interface Subset {
  readonly mask: number;
  readonly shape: number;
  /** The set behind each variable of the ring (subsets that share a shape may differ here). */
  readonly sets: readonly number[];
}

/** A code's binding chain: its place and the chain's length. */
interface Link {
  readonly pos: number;
  readonly size: number;
}

/** Work units (docs/engine.md, Cost): to count, to make the exact sampler's tables, to draw once;
 * and the sizes of those tables: their rows, the BigInt entries in them, and their index's cells
 * (subsets x slots). */
export interface Work {
  readonly count: number;
  readonly tables: number;
  readonly draw: number;
  readonly rows: number;
  readonly entries: number;
  readonly cells: number;
}

/** A spec compiled: its chains, every A_X's pieces and shape, and the work of each task, with no
 * BigInt operation done. */
export interface Compiled {
  readonly spec: EngineSpec;
  readonly length: number;
  readonly maxRun: number;
  readonly maxSequence: number;
  readonly mins: readonly number[];
  /** Each set's maximum below the length, or -1 (no bound that can bind). */
  readonly maxes: readonly number[];
  /** Sets by kind (bits): min >= 1, min 0, and those inclusion-exclusion runs over. */
  readonly mandatory: number;
  readonly optional: number;
  readonly subsetable: number;
  readonly signature: ReadonlyMap<number, number>;
  readonly first: ReadonlySet<number>;
  readonly last: ReadonlySet<number>;
  readonly links: ReadonlyMap<number, Link>;
  readonly alphabet: Alphabet;
  /** Where each code's cell is kept: one slot for all the codes of an atom, one per chain code. */
  readonly slots: ReadonlyMap<number, number>;
  readonly slotCount: number;
  /** The walk's jump targets by group (E18). */
  readonly groups: readonly Group[];
  /** By mask; undefined for masks outside `subsetable`. */
  readonly subsets: readonly (Subset | undefined)[];
  readonly shapes: readonly Shape[];
  readonly work: Work;
}

const popcount = (x: number) => {
  let c = 0;
  for (let v = x; v !== 0; v &= v - 1) c++;
  return c;
};

const binomial = (n: number, k: number): number => (k === 0 ? 1 : (binomial(n - 1, k - 1) * n) / k);

/**
 * (E3) The Moebius weight of a subset holding x optional sets when at least `more` of the n not
 * yet hit must be hit: the sum over j of C(x, j) (-1)^j [n - x + j >= more].
 */
function optCoef(x: number, n: number, more: number): number {
  if (x === 0) return n >= more ? 1 : 0;
  let c = 0;
  for (let j = 0; j <= x; j++) if (n - x + j >= more) c += (j & 1 ? -1 : 1) * binomial(x, j);
  return c;
}

function rangeOf(c: number): number {
  if (c >= 0x30 && c <= 0x39) return 1;
  if (c >= 0x41 && c <= 0x5a) return 2;
  if (c >= 0x61 && c <= 0x7a) return 3;
  return 0;
}

/** True when b may follow a inside a sequence: the next or previous code, in the same range. */
export function isSequenceStep(a: number, b: number): boolean {
  return (b === a + 1 || b === a - 1) && rangeOf(a) !== 0 && rangeOf(a) === rangeOf(b);
}

/** The chains of ascending codes: maximal series of consecutive codes inside one range. */
function chainsOf(codes: readonly number[]): number[][] {
  const chains: number[][] = [];
  for (let i = 0; i < codes.length; i++) {
    const chain = chains.at(-1);
    if (chain !== undefined && isSequenceStep(codes[i - 1], codes[i])) chain.push(codes[i]);
    else chains.push([codes[i]]);
  }
  return chains;
}

/** Per-step units of one piece type in the table recurrence (E7-E10), per ring coefficient. */
const stepWork = (size: number) => (size === 1 ? 7 : 10 * size + 2);

/** The sets with the same codes and a minimum of 1 or more as one set: the highest minimum and the
 * lowest maximum of them (they hold together exactly when it holds), so inclusion-exclusion runs
 * over distinct sets. Optional sets stay apart: each counts towards minSets. */
function mergeSets(sets: readonly CountedSet[]): CountedSet[] {
  const out: CountedSet[] = [];
  const key = (set: CountedSet) => [...set.codes].sort((a, b) => a - b).join(',');
  for (const set of sets) {
    const same = set.min >= 1 ? out.findIndex((o) => o.min >= 1 && key(o) === key(set)) : -1;
    if (same < 0) {
      out.push(set);
      continue;
    }
    const max = [out[same].max, set.max].filter((m): m is number => m !== null && m !== undefined);
    out[same] = {
      codes: out[same].codes,
      min: Math.max(out[same].min, set.min),
      max: max.length === 0 ? null : Math.min(...max),
    };
  }
  return out;
}

/** What the pieces of every A_X are cut from: the free codes grouped by signature and first and
 * last membership (they weigh the same in every subset), and the binding chains. */
interface Alphabet {
  readonly atoms: readonly {
    readonly sig: number;
    readonly first: boolean;
    readonly last: boolean;
    readonly codes: readonly number[];
  }[];
  readonly chains: readonly (readonly number[])[];
}

/** The piece types of A_X (E4), in key order, with their copies; `cell`, when given, hears each
 * chain code's type key and place, and each atom's by its first code. */
function piecesOf(
  m: Pick<Compiled, 'mins' | 'maxes' | 'signature' | 'first' | 'last'>,
  alphabet: Alphabet,
  x: number,
  cell?: (code: number, key: string, place: number) => void,
): { ring: Ring; entries: [PieceType, number][] } {
  const { mins, maxes } = m;
  // (E4) A_X drops the codes of X's sets of min 0 or 1. The ring has a variable for each set of
  // X with a minimum of 2 or more (kept below it) and each other set with a maximum (kept up to it).
  let removed = 0;
  for (let i = 0; i < mins.length; i++) if ((x >> i) & 1 && mins[i] <= 1) removed |= 1 << i;
  const ringSets = mins.map((_, i) => i).filter((i) => ((x >> i) & 1 ? mins[i] >= 2 : maxes[i] >= 0));
  const caps = ringSets.map((i) => ((x >> i) & 1 ? mins[i] : maxes[i] + 1));
  const local = (sig: number) => ringSets.reduce((w, i, j) => ((sig >> i) & 1 ? w | (1 << j) : w), 0);
  const byKey = new Map<string, [PieceType, number]>();
  const add = (size: number, sig: number, last: boolean, first: boolean, copies: number) => {
    const weight = local(sig);
    const key = `${size}.${weight}.${last ? 1 : 0}${first ? 1 : 0}`;
    const entry = byKey.get(key);
    if (entry !== undefined) entry[1] += copies;
    else byKey.set(key, [{ size, weight, last, first, key }, copies]);
    return key;
  };
  for (const atom of alphabet.atoms) {
    if ((atom.sig & removed) !== 0) continue;
    const key = add(1, atom.sig, atom.last, atom.first, atom.codes.length);
    // The codes of an atom share one cell (compile gives them one slot).
    if (cell !== undefined) cell(atom.codes[0], key, 0);
  }
  const sig = (code: number) => m.signature.get(code) ?? 0;
  for (const chain of alphabet.chains) {
    let run: number[] = [];
    for (let i = 0; i <= chain.length; i++) {
      const code = i < chain.length ? chain[i] : -1;
      if (code >= 0 && (sig(code) & removed) === 0) {
        run.push(code);
        continue;
      }
      if (run.length === 0) continue;
      // A run stays one piece even when no longer than the limit: the walk's moves along it are
      // the same in every A_X, so its completions are counted alike in each (E17).
      const key = add(run.length, sig(run[0]), m.last.has(run[0]), m.first.has(run[0]), 1);
      if (cell !== undefined) run.forEach((code, place) => cell(code, key, place));
      run = [];
    }
  }
  const entries = [...byKey.values()].sort((a, b) => (a[0].key < b[0].key ? -1 : 1));
  return { ring: ringOf(ringSets, caps), entries };
}

/**
 * The compiled spec: chains, the subsets' shapes, and the work of counting, of the tables and of
 * one draw. When the count's work passes `budget` as shapes are found, it stops there with that
 * work Infinity (the compiled spec is then only a price), so a spec far over the budget costs
 * little to refuse. Throws on a spec no compiler should make (a programming error, not a
 * request's).
 */
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
  // The sets whose codes carry a variable in some ring (E4).
  const weighed = bits((i) => mins[i] >= 2 || maxes[i] >= 0);
  const allowed = new Set(codes);
  const signature = new Map<number, number>(codes.map((code) => [code, 0]));
  sets.forEach((set, i) => {
    for (const code of set.codes)
      if (allowed.has(code)) signature.set(code, (signature.get(code) as number) | (1 << i));
  });
  const sig = (code: number) => signature.get(code) as number;
  const first = new Set(spec.first ?? codes);
  const last = new Set(spec.last ?? codes);
  const maxRun = Math.min(spec.maxRepeating ?? L, L);
  const maxSequence = Math.min(spec.maxSequential ?? L, L);
  // A chain binds when the sequence limit can be broken in it: longer than the limit.
  const links = new Map<number, Link>();
  const chains: number[][] = [];
  for (const chain of chainsOf(codes)) {
    if (maxSequence >= L || chain.length <= maxSequence) continue;
    const kind = (c: number) => `${sig(c) & weighed} ${first.has(c)} ${last.has(c)}`;
    if (chain.some((c) => kind(c) !== kind(chain[0])))
      throw new RangeError('engine: a binding chain must not change weight, first or last membership');
    chains.push(chain);
    chain.forEach((code, pos) => links.set(code, { pos, size: chain.length }));
  }
  const atoms = new Map<string, { sig: number; first: boolean; last: boolean; codes: number[] }>();
  for (const code of codes) {
    if (links.has(code)) continue;
    const key = `${sig(code)} ${first.has(code)} ${last.has(code)}`;
    const atom = atoms.get(key);
    if (atom !== undefined) atom.codes.push(code);
    else atoms.set(key, { sig: sig(code), first: first.has(code), last: last.has(code), codes: [code] });
  }
  const alphabet: Alphabet = { atoms: [...atoms.values()], chains };
  const slots = new Map<number, number>();
  alphabet.atoms.forEach((atom, i) => atom.codes.forEach((code) => slots.set(code, i)));
  let slotCount = alphabet.atoms.length;
  for (const chain of chains) for (const code of chain) slots.set(code, slotCount++);
  const groups = groupsOf(alphabet, subsetable & ~bits((i) => mins[i] >= 2), sig, first, last);
  const base = { mins, maxes, signature, first, last };
  const shapes: Shape[] = [];
  const shapeIndex = new Map<string, number>();
  const subsets: (Subset | undefined)[] = new Array<Subset | undefined>(1 << sets.length);
  let least = 0; // the count's work so far, at least
  for (let x = subsetable; ; x = (x - 1) & subsetable) {
    const { ring, entries } = piecesOf(base, alphabet, x);
    const key = `${ring.caps.join('.')}|${entries.map(([t, n]) => `${t.key}x${n}`).join(',')}`;
    let index = shapeIndex.get(key);
    if (index === undefined) {
      index = shapes.length;
      shapeIndex.set(key, index);
      const shape = shapeOf(ring, entries, L, maxRun);
      shapes.push(shape);
      least += Math.min(shape.seriesWork, shape.tableWork);
    }
    subsets[x] = { mask: x, shape: index, sets: ring.sets };
    if (x === 0 || least > budget) break;
  }
  const compiled = {
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
    links,
    alphabet,
    slots,
    slotCount,
    groups,
    subsets,
    shapes,
  };
  const work = workOf(compiled);
  return { ...compiled, work: least > budget ? { ...work, count: Infinity } : work };
}

function shapeOf(ring: Ring, entries: readonly (readonly [PieceType, number])[], L: number, maxRun: number): Shape {
  const types = entries.map(([t]) => t);
  const long = types.some((t) => t.size > 1) || maxRun < L;
  // (E14) Per step t, a term for each earlier s whose kernel term may be non-zero: all of them for
  // the unweighted part when kernels are long, and below each weight's smallest cap otherwise.
  let terms = 0;
  for (const w of new Set(types.map((t) => t.weight))) {
    // The last j at which h_w(j) y^(w (j + 1)) can be non-zero: below the weight's smallest cap.
    const caps = ring.caps.filter((_, j) => (w >> j) & 1);
    const last = Math.min(long ? L - 1 : 0, caps.length === 0 ? L : Math.min(...caps) - 2);
    for (let t = 1; t < L; t++) terms += Math.max(0, Math.min(t, last + 1));
  }
  // Without a window or a ring the series is one power (E16): a multiplication per bit of L.
  const seriesWork =
    !long && ring.size === 1 ? 2 * (types.length + Math.ceil(Math.log2(L + 1))) : 2 * ring.size * (terms + 2 * L);
  const tableWork = L * ring.size * types.reduce((sum, t) => sum + stepWork(t.size) + t.size, 0);
  return { ring, types, copies: entries.map(([, n]) => n), long, seriesWork, tableWork };
}

/**
 * The work of each task (docs/engine.md, Cost), with no BigInt operation done. A unit is one BigInt
 * operation, weighted by the size of the numbers (1 + bits / 1024: the count's bits bound them).
 */
function workOf(m: Omit<Compiled, 'work'>): Work {
  const L = m.length;
  const size = 1 + (L * Math.log2(m.spec.codes.length)) / 1024;
  let count = 0;
  let tables = 0;
  let entries = 0;
  let rows = 0;
  const kernels = new Set<number>();
  for (const shape of m.shapes) {
    tables += shape.tableWork + L * shape.ring.size * shape.ring.caps.length * 4;
    rows += 4 * L * shape.types.length;
    entries += 4 * L * shape.ring.size * shape.types.reduce((sum, t) => sum + t.size, 0);
    if (shape.seriesWork < shape.tableWork) {
      count += shape.seriesWork;
      if (shape.long) for (const t of shape.types) kernels.add(t.size);
    } else count += shape.tableWork;
  }
  for (const n of kernels) count += L * stepWork(n);
  const subsets = m.subsets.filter((s) => s !== undefined).length;
  const cells = subsets * m.slotCount;
  count += subsets * (m.first.size + 4);
  // A draw weighs, at each place i, every jump group, then the run lengths of each kind in turn,
  // each by a sum over the subsets of the sets still open (E17): at most 2^min(mandatory, (L - i)
  // h) x 2^optional of them, as the L - i codes still to place must hit every mandatory set left
  // and each hits at most h sets. The runs of the last kind tried are scanned only up to the one
  // taken, which places that many codes: L lookups in a whole walk.
  let h = 0;
  for (const sig of m.signature.values()) h = Math.max(h, popcount(sig & m.mandatory));
  const mandatory = popcount(m.subsetable & m.mandatory);
  const optional = popcount(m.subsetable & m.optional);
  const steps = m.links.size > 0 && m.maxSequence > 1;
  const moves = m.groups.length + (steps ? m.maxRun - 1 + m.maxSequence - 1 : 0);
  let sums = 0;
  for (let i = 0; i < L; i++) sums += (moves + 1) * 2 ** (Math.min(mandatory, (L - i) * h) + optional);
  return {
    count: Math.ceil(count * size),
    tables: Math.ceil((tables + count) * size + cells),
    draw: Math.ceil(2 * sums * size),
    rows,
    entries,
    cells,
  };
}

// --- The table recurrence (E6-E10) ----------------------------------------------------------

/** One piece type's rows while the recurrence runs: K by kind and t (size x ring.size
 * coefficients each), and the running sums of (E8). */
interface Rows {
  readonly K: bigint[][][];
  /** The running sums of (E8); undefined where a limit of 1 allows no run of that kind. */
  readonly repeats: (bigint[] | undefined)[];
  readonly ups: (bigint[] | undefined)[];
}

/**
 * (E6)-(E10) for the piece types of one shape, t = 0..L-1. `input(t)` is J(t), the jump total the
 * recurrence of step t + 1 reads; null feeds J back from the rows (E10). `start` is K(0): [x in
 * last] (E6), or 1 for a kernel (E12). Returns each type's rows (every t when `keep`, else only
 * the last few) and J by t.
 */
function runPieces(
  m: Pick<Compiled, 'length' | 'maxRun' | 'maxSequence'>,
  ring: Ring,
  types: readonly PieceType[],
  copies: readonly number[],
  input: ((t: number) => readonly bigint[]) | null,
  start: 'last' | 'one',
  keep: boolean,
): { rows: Rows[]; J: bigint[][] } {
  const L = m.length;
  const D = ring.size;
  const pull = pulls(ring);
  const window = Math.max(m.maxRun, m.maxSequence) + 1;
  const rows: Rows[] = types.map(() => ({ K: [[], [], [], []], repeats: [], ups: [] }));
  // y^(w e) for every weight and every power a run can reach.
  const byWeight = new Map<number, Int32Array[]>();
  const powersOf = (w: number) => {
    let powers = byWeight.get(w);
    if (powers === undefined) byWeight.set(w, (powers = Array.from({ length: window + 1 }, (_, e) => pull(w, e))));
    return powers;
  };
  const J: bigint[][] = [];
  const zero = new Array<bigint>(D).fill(0n);
  for (let t = 0; t < L; t++) {
    const jin = t === 0 ? zero : input === null ? J[t - 1] : input(t - 1);
    const total = new Array<bigint>(D).fill(0n);
    for (let i = 0; i < types.length; i++) {
      const type = types[i];
      const row = rows[i];
      if (t === 0) first(row, type);
      else step(row, type, t, jin);
      sums(row, type, t);
      if (!keep && t >= window) {
        for (const k of row.K) k[t - window] = [];
        row.repeats[t - window] = undefined;
        row.ups[t - window] = undefined;
      }
      // (E10) J(t): each code's K(t, ., jump) times its weight, over the type's copies (for a
      // kernel, with its input given, this is the kernel itself, E12).
      const one = pull(type.weight, 1);
      const K = row.K[JUMP][t];
      const many = BigInt(copies[i]);
      for (let f = 0; f < D; f++) {
        const g = one[f];
        if (g < 0) continue;
        let sum = 0n;
        for (let x = 0; x < type.size; x++) sum += K[x * D + g];
        if (sum !== 0n) total[f] += many * sum;
      }
    }
    J.push(total);
  }
  return { rows, J };

  /** (E6) K(0, x, .) = [x in last]; a kernel starts at 1 (E12). */
  function first(row: Rows, type: PieceType): void {
    const v = start === 'one' || type.last ? 1n : 0n;
    for (let kind = 0; kind < 4; kind++) {
      const k = new Array<bigint>(type.size * D).fill(0n);
      for (let x = 0; x < type.size; x++) k[x * D] = v;
      row.K[kind].push(k);
    }
  }

  /** (E7) K(t, ., .) from the rows before it and J(t - 1). */
  function step(row: Rows, type: PieceType, t: number, jin: readonly bigint[]): void {
    const n = type.size;
    const w = type.weight;
    const kj = new Array<bigint>(n * D);
    const kr = new Array<bigint>(n * D);
    const ku = new Array<bigint>(n * D);
    const kd = new Array<bigint>(n * D);
    const powers = powersOf(w);
    const one = powers[1];
    const previous = row.K[JUMP][t - 1];
    const mr = Math.min(m.maxRun - 1, t);
    const pr = powers[mr + 1];
    const repeats = row.repeats[t - 1] as bigint[];
    const repeatsBefore = row.repeats[t - 1 - mr];
    for (let x = 0; x < (n + 1) >> 1; x++) {
      const y = n - 1 - x;
      const mu = Math.min(m.maxSequence - 1, t, n - 1 - x);
      const md = Math.min(m.maxSequence - 1, t, x);
      const pu = powers[mu + 1];
      const pd = powers[md + 1];
      const ups = row.ups[t - 1];
      const upsBefore = row.ups[t - 1 - mu];
      const downsBefore = row.ups[t - 1 - md];
      for (let f = 0; f < D; f++) {
        const g = one[f];
        let all = jin[f];
        let r = 0n;
        let u = 0n;
        let d = 0n;
        if (g >= 0) {
          // (E8) The runs of 1..m more repeats, steps up and steps down: two terms of running sums.
          if (mr > 0) {
            r = repeats[x * D + g];
            if (repeatsBefore !== undefined && pr[f] >= 0) r -= repeatsBefore[x * D + pr[f]];
          }
          if (mu > 0 && ups !== undefined) {
            u = ups[(x + 1) * D + g];
            if (upsBefore !== undefined && pu[f] >= 0 && x + 1 + mu < n) u -= upsBefore[(x + 1 + mu) * D + pu[f]];
          }
          // A down-run from x is the mirror of an up-run from y (E9): its sums are the ups'.
          if (md > 0 && ups !== undefined) {
            d = ups[(n - x) * D + g];
            if (downsBefore !== undefined && pd[f] >= 0 && md < x) d -= downsBefore[(n - x + md) * D + pd[f]];
          }
          // (E7) The jumps: all of J but the code itself and its neighbours in the piece.
          all -= previous[x * D + g];
          if (x > 0) all -= previous[(x - 1) * D + g];
          if (x < n - 1) all -= previous[(x + 1) * D + g];
          all += r + u + d;
        }
        // (E7) after a move of one kind the next is not of that kind; (E9) the mirror image.
        kj[x * D + f] = kj[y * D + f] = all;
        kr[x * D + f] = kr[y * D + f] = all - r;
        ku[x * D + f] = kd[y * D + f] = all - u;
        kd[x * D + f] = ku[y * D + f] = all - d;
      }
    }
    row.K[JUMP].push(kj);
    row.K[REPEAT].push(kr);
    row.K[UP].push(ku);
    row.K[DOWN].push(kd);
  }

  /** (E8) The running sums: repeats in place, ups along the diagonal (x, t) from (x + 1, t - 1). */
  function sums(row: Rows, type: PieceType, t: number): void {
    const n = type.size;
    const one = pull(type.weight, 1);
    const add = (k: readonly bigint[], previous: readonly bigint[] | undefined, shift: number) => {
      const out = k.slice();
      if (previous === undefined) return out;
      for (let x = 0; x + shift < n; x++)
        for (let f = 0; f < D; f++) if (one[f] >= 0) out[x * D + f] += previous[(x + shift) * D + one[f]];
      return out;
    };
    if (m.maxRun > 1) row.repeats.push(add(row.K[REPEAT][t], row.repeats[t - 1], 0));
    else row.repeats.push(undefined);
    row.ups.push(n > 1 && m.maxSequence > 1 ? add(row.K[UP][t], row.ups[t - 1], 1) : undefined);
  }
}

// --- Counting (E11-E16) ---------------------------------------------------------------------

/** (E12) The kernel g_n(t) of a piece of n codes: the recurrence with no jumps in and 1 at the
 * start, summed over the piece. */
function kernel(m: Compiled, size: number): bigint[] {
  const ring = ringOf([], []);
  const type: PieceType = { size, weight: 0, last: true, first: true, key: '' };
  return runPieces(m, ring, [type], [1], () => [0n], 'one', false).J.map((total) => total[0]);
}

/** The weighted number of strings of the full length over one shape: the ring element whose
 * coefficients count them by degree (E11, E15), by the series or by the recurrence, whichever the
 * shape prices lower. */
function shapeCount(m: Compiled, shape: Shape, kernels: (size: number) => bigint[], method?: Method): bigint[] {
  const { ring, types, copies } = shape;
  const D = ring.size;
  const L = m.length;
  const pull = pulls(ring);
  if (types.length === 0) return new Array<bigint>(D).fill(0n);
  if (method === 'recurrence' || (method === undefined && shape.tableWork <= shape.seriesWork)) {
    const { rows } = runPieces(m, ring, types, copies, null, 'last', false);
    // (E11) the count: every first code's K(L - 1, ., jump) times its weight.
    const out = new Array<bigint>(D).fill(0n);
    types.forEach((type, i) => {
      if (!type.first) return;
      const K = rows[i].K[JUMP][L - 1];
      const one = pull(type.weight, 1);
      for (let f = 0; f < D; f++) {
        const g = one[f];
        if (g < 0) continue;
        let sum = 0n;
        for (let x = 0; x < type.size; x++) sum += K[x * D + g];
        out[f] += BigInt(copies[i]) * sum;
      }
    });
    return out;
  }
  if (!shape.long && D === 1 && method === undefined) {
    // (E16) With no window the kernels are g = [1] and H the number of codes h: J(t) = h_G h^t,
    // and the count is h_FG at length 1, h_F h^(L - 2) h_G beyond. (A ring of one coefficient
    // has only caps of 1: a weighted code cannot appear at all.)
    const sum = (pick: (t: PieceType) => boolean) =>
      BigInt(types.reduce((n, type, i) => (type.weight === 0 && pick(type) ? n + copies[i] : n), 0));
    const last = sum((t) => t.last);
    const first = sum((t) => t.first);
    return [L === 1 ? sum((t) => t.first && t.last) : first * sum(() => true) ** BigInt(L - 2) * last];
  }
  // (E13, E14) H(j) = the sum over types of copies x g_size(j) x y^(weight (j + 1)); the same over the
  // types that may come last (H_G), first (H_F) or both (H_FG). Kept by weight: scalar series.
  const weights = [...new Set(types.map((t) => t.weight))];
  const series = (pick: (t: PieceType) => boolean) =>
    weights.map((w) => {
      const h = new Array<bigint>(L).fill(0n);
      types.forEach((type, i) => {
        if (type.weight !== w || !pick(type)) return;
        const g = shape.long ? kernels(type.size) : [1n];
        const c = BigInt(copies[i]);
        for (let j = 0; j < g.length && j < L; j++) h[j] += c * g[j];
      });
      return h;
    });
  const H = series(() => true);
  const HG = series((t) => t.last);
  const HF = series((t) => t.first);
  const HFG = series((t) => t.first && t.last);
  if (D === 1) {
    // No ring: the weight-0 series alone, a plain convolution (a weighted code has a cap of 1).
    const at = weights.indexOf(0);
    if (at < 0) return [0n];
    const [h, hG, hF, hFG] = [H, HG, HF, HFG].map((x) => x[at]);
    const J: bigint[] = [];
    for (let t = 0; t < L - 1; t++) {
      let v = hG[t];
      for (let j = 0; j < t; j++) if (h[j] !== 0n) v += h[j] * J[t - 1 - j];
      J.push(v);
    }
    let total = hFG[L - 1];
    for (let j = 0; j < L - 1; j++) if (hF[j] !== 0n) total += hF[j] * J[L - 2 - j];
    return [total];
  }
  // The last j at which each weight's terms can be non-zero (shapeOf prices the same reach).
  const reach = weights.map((w) => {
    const caps = ring.caps.filter((_, j) => (w >> j) & 1);
    return Math.min(shape.long ? L - 1 : 0, caps.length === 0 ? L : Math.min(...caps) - 2);
  });
  // y^(w e) as a pull, for every weight and power a term can have.
  const by = weights.map((w, i) => Array.from({ length: reach[i] + 2 }, (_, e) => pull(w, e)));
  /** acc += the monomials of h at j: h(j) y^(w (j + 1)) for each weight w. */
  const addMonomials = (acc: bigint[], h: readonly (readonly bigint[])[], j: number) => {
    for (let i = 0; i < weights.length; i++) {
      const c = h[i][j];
      if (j > reach[i] || c === 0n) continue;
      const p = by[i][j + 1];
      for (let f = 0; f < D; f++) if (p[f] === 0) acc[f] += c;
    }
  };
  /** acc += the sum over j <= top of h(j) y^(w (j + 1)) src[base - j], for each weight w. */
  const addProducts = (acc: bigint[], h: readonly (readonly bigint[])[], src: readonly bigint[][], base: number) => {
    for (let i = 0; i < weights.length; i++) {
      const hi = h[i];
      const top = Math.min(base, reach[i]);
      for (let j = 0; j <= top; j++) {
        const c = hi[j];
        if (c === 0n) continue;
        const v = src[base - j];
        const p = by[i][j + 1];
        for (let f = 0; f < D; f++) {
          const g = p[f];
          if (g >= 0 && v[g] !== 0n) acc[f] += c * v[g];
        }
      }
    }
  };
  // (E14) J(t) = H_G(t) + the sum over s < t of H(t - 1 - s) J(s).
  const J: bigint[][] = [];
  for (let t = 0; t < L - 1; t++) {
    const v = new Array<bigint>(D).fill(0n);
    addMonomials(v, HG, t);
    addProducts(v, H, J, t - 1);
    J.push(v);
  }
  // (E15) the count: H_FG(L - 1) + the sum over s < L - 1 of H_F(L - 2 - s) J(s).
  const out = new Array<bigint>(D).fill(0n);
  addMonomials(out, HFG, L - 1);
  addProducts(out, HF, J, L - 2);
  return out;
}

/** (E2) The sign and Moebius weight of subset X in the state (need, more): zero when X leaves a
 * set of X already satisfied. */
function coefficient(m: Compiled, x: number, open: number, more: number): number {
  const sign = popcount(x & m.mandatory) & 1 ? -1 : 1;
  return sign * optCoef(popcount(x & m.optional), popcount(open & m.optional), more);
}

/** The kernels of a compiled spec, made once each as the shapes ask for them. */
function kernelsOf(m: Compiled): (size: number) => bigint[] {
  const made = new Map<number, bigint[]>();
  return (size) => {
    let g = made.get(size);
    if (g === undefined) made.set(size, (g = kernel(m, size)));
    return g;
  };
}

/** How a shape is counted: by the series (E14-E15) or the table recurrence (E6-E10). Both are
 * exact; by default each shape takes the one it prices lower, and tests force each. */
export type Method = 'series' | 'recurrence';

/** (E2) The exact number of strings the spec allows. */
export function count(m: Compiled, by?: Method): bigint {
  const kernels = kernelsOf(m);
  const byShape = new Map<number, bigint>();
  let total = 0n;
  for (const subset of m.subsets) {
    if (subset === undefined) continue;
    const coef = coefficient(m, subset.mask, m.subsetable, m.spec.minSets ?? 0);
    if (coef === 0) continue;
    let n = byShape.get(subset.shape);
    if (n === undefined) {
      n = shapeCount(m, m.shapes[subset.shape], kernels, by).reduce((a, b) => a + b, 0n);
      byShape.set(subset.shape, n);
    }
    total += BigInt(coef) * n;
  }
  return total;
}

// --- Drawing (E17-E18) ----------------------------------------------------------------------

/** Where a walk stands: per set, the hits still needed (mandatory) or 1 until hit (optional), the
 * hits still allowed (sets with a maximum), and how many optional sets must still be hit. */
interface State {
  readonly need: readonly number[];
  readonly left: readonly number[];
  readonly more: number;
}

/** Codes that weigh the same in the walk: one signature, the same first and last membership, and
 * the same cell (up to mirror image) in every A_X. */
interface Group {
  readonly signature: number;
  readonly first: boolean;
  readonly members: readonly number[];
}

/** The tables of the exact sampler and the exact count. */
export interface Counted {
  readonly compiled: Compiled;
  /** By shape, by piece type: K by kind and t, each row's coefficients summed below every degree
   * (so that (E17)'s sum below the state's bounds is one read). */
  readonly tables: readonly (readonly (readonly (readonly bigint[])[])[])[][];
  /** By subset mask: each slot's cell (cellsOf). */
  readonly cells: readonly (Int32Array | undefined)[];
  readonly start: State;
  /** The exact number of valid strings. */
  readonly count: bigint;
}

/** Sums every row's coefficients below each degree, in place: (E17)'s bounds become one index. */
function cumulate(ring: Ring, row: bigint[]): void {
  const D = ring.size;
  for (let j = 0; j < ring.caps.length; j++) {
    const stride = ring.strides[j];
    for (let base = 0; base < row.length; base += D)
      for (let f = 0; f < D; f++)
        if (Math.floor(f / stride) % ring.caps[j] > 0) row[base + f] += row[base + f - stride];
  }
}

/**
 * Codes that weigh the same as jump targets (E18): the codes of an atom (free, one signature and
 * first and last membership: the same cell in every A_X); and the codes of chains that no set
 * inclusion-exclusion removes cuts, by chain length, place up to mirror image, signature and first
 * and last membership. A code of a cut chain is a group of its own.
 */
function groupsOf(
  alphabet: Alphabet,
  removable: number,
  sig: (code: number) => number,
  first: ReadonlySet<number>,
  last: ReadonlySet<number>,
): Group[] {
  const groups: Group[] = alphabet.atoms.map((atom) => ({
    signature: atom.sig,
    first: atom.first,
    members: atom.codes,
  }));
  const byKey = new Map<string, number[]>();
  for (const chain of alphabet.chains) {
    const cut = chain.some((c) => ((sig(c) ^ sig(chain[0])) & removable) !== 0);
    chain.forEach((code, pos) => {
      const place = Math.min(pos, chain.length - 1 - pos);
      const key = cut ? `code ${code}` : `${chain.length} ${place} ${sig(code)} ${first.has(code)} ${last.has(code)}`;
      byKey.set(key, [...(byKey.get(key) ?? []), code]);
    });
  }
  for (const members of byKey.values())
    groups.push({ signature: sig(members[0]), first: first.has(members[0]), members });
  return groups;
}

/** Each subset's cells by slot: [piece type (index in the shape, -1 when not in A_X), place]. */
function cellsOf(m: Compiled): (Int32Array | undefined)[] {
  return m.subsets.map((subset) => {
    if (subset === undefined) return undefined;
    const cells = new Int32Array(2 * m.slotCount).fill(-1);
    const heard: [number, string, number][] = [];
    const { entries } = piecesOf(m, m.alphabet, subset.mask, (code, key, place) => heard.push([code, key, place]));
    const index = new Map(entries.map(([type], i) => [type.key, i]));
    for (const [code, key, place] of heard) {
      const slot = m.slots.get(code) as number;
      cells[2 * slot] = index.get(key) as number;
      cells[2 * slot + 1] = place;
    }
    return cells;
  });
}

/** The exact sampler's tables: every shape's K by the recurrence (E6-E10), and the count. */
export function tablesOf(m: Compiled): Counted {
  const tables = m.shapes.map((shape) => {
    const { rows } = runPieces(m, shape.ring, shape.types, shape.copies, null, 'last', true);
    if (shape.ring.size > 1) for (const row of rows) for (const k of row.K) for (const r of k) cumulate(shape.ring, r);
    return rows.map((row) => row.K);
  });
  const start: State = {
    need: m.mins.map((min, i) => ((m.optional >> i) & 1 ? 1 : min)),
    left: m.maxes.map((max) => (max < 0 ? m.length : max)),
    more: m.spec.minSets ?? 0,
  };
  const cells = cellsOf(m);
  const partial = { compiled: m, tables, cells, start, count: 0n };
  let total = 0n;
  for (const { members, first } of m.groups) {
    if (!first) continue;
    const next = advance(m, start, members[0]);
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
      if ((m.optional >> i) & 1) more--;
      need[i]--;
    }
    if (--left[i] < 0) return null;
  }
  return { need, left, more: Math.max(0, more) };
}

/**
 * (E17) C(state, code, kind, t): the valid ways to place t more codes after a move of that kind
 * ended on `code`: over X inside the sets still open, the Moebius weight of X times K_X's
 * coefficients within the state's bounds (below the need for a set of X, up to what is left for
 * a set with a maximum).
 */
function completions(c: Omit<Counted, 'count'>, s: State, code: number, kind: number, t: number): bigint {
  const m = c.compiled;
  let open = 0;
  for (let i = 0; i < s.need.length; i++) if (s.need[i] > 0) open |= 1 << i;
  open &= m.subsetable;
  const slot = m.slots.get(code) as number;
  const openOptional = popcount(open & m.optional);
  let sum = 0n;
  for (let x = open; ; x = (x - 1) & open) {
    // (E2) the Moebius weight: the sign of X's mandatory sets, times optCoef for its optional ones.
    const weight = optCoef(popcount(x & m.optional), openOptional, s.more);
    if (weight !== 0) {
      const subset = m.subsets[x] as Subset;
      const cells = c.cells[x] as Int32Array;
      const { ring } = m.shapes[subset.shape];
      let index = cells[2 * slot + 1] * ring.size;
      for (let j = 0; j < subset.sets.length && index >= 0; j++) {
        const i = subset.sets[j];
        const bound = (x >> i) & 1 ? s.need[i] - 1 : s.left[i];
        index = bound < 0 ? -1 : index + Math.min(bound, ring.caps[j] - 1) * ring.strides[j];
      }
      if (index >= 0) {
        const v = c.tables[subset.shape][cells[2 * slot]][kind][t][index];
        const coef = popcount(x & m.mandatory) & 1 ? -weight : weight;
        if (coef === 1) sum += v;
        else if (coef === -1) sum -= v;
        else sum += BigInt(coef) * v;
      }
    }
    if (x === 0) return sum;
  }
}

/** The valid string of rank `rank` (0 <= rank < count), as codes (E18). */
export function unrank(c: Counted, rank: bigint): number[] {
  const m = c.compiled;
  const L = m.length;
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

interface Walk {
  readonly rank: bigint;
  readonly state: State;
  readonly last: number;
  readonly kind: number;
}

interface Move {
  readonly walk: Walk;
  readonly placed: readonly number[];
}

/** The codes a jump from `last` may not land on: itself and its neighbours in a binding chain. */
function near(m: Compiled, last: number): number[] {
  if (last < 0) return [];
  const link = m.links.get(last);
  const out = [last];
  if (link !== undefined && link.pos < link.size - 1) out.push(last + 1);
  if (link !== undefined && link.pos > 0) out.push(last - 1);
  return out;
}

/** (E18) The jumps, by group then member: the one the rank falls in, or the rank left past them. */
function takeJump(c: Counted, walk: Walk, t: number): Move | { readonly rest: bigint } {
  const m = c.compiled;
  const excluded = near(m, walk.last);
  let r = walk.rank;
  for (const { first, members } of m.groups) {
    if (walk.last < 0 && !first) continue;
    // The members a jump may land on: all but the excluded (at most three, so counted, not copied).
    let allowed = members.length;
    for (const code of excluded) if (members.includes(code)) allowed--;
    if (allowed === 0) continue;
    const one = excluded.length === 0 ? members[0] : (members.find((code) => !excluded.includes(code)) as number);
    const state = advance(m, walk.state, one);
    if (state === null) continue;
    const each = completions(c, state, one, JUMP, t - 1);
    const weight = BigInt(allowed) * each;
    if (r < weight) {
      // The member of rank r / each among the allowed ones, in order.
      let k = Number(r / each);
      const code = members.find((member) => !excluded.includes(member) && k-- === 0) as number;
      return { walk: { rank: r % each, state, last: code, kind: JUMP }, placed: [code] };
    }
    r -= weight;
  }
  return { rest: r };
}

/** (E18) The step-runs after the jumps: repeats, then up, then down, each by length. */
function takeRun(c: Counted, walk: Walk, t: number): Move | null {
  const m = c.compiled;
  const link = m.links.get(walk.last);
  const runs: [number, number][] = [];
  if (walk.last >= 0 && walk.kind !== REPEAT) runs.push([REPEAT, 0]);
  if (link !== undefined && walk.kind !== UP) runs.push([UP, 1]);
  if (link !== undefined && walk.kind !== DOWN) runs.push([DOWN, -1]);
  let r = walk.rank;
  for (const [kind, dir] of runs) {
    const room = dir === 0 ? t : dir > 0 ? (link as Link).size - 1 - (link as Link).pos : (link as Link).pos;
    const most = Math.min(dir === 0 ? m.maxRun - 1 : m.maxSequence - 1, t, room);
    let state: State | null = walk.state;
    const placed: number[] = [];
    for (let j = 1; j <= most && state !== null; j++) {
      const code = walk.last + dir * j;
      placed.push(code);
      state = advance(m, state, code);
      if (state === null) break;
      const weight = completions(c, state, code, kind, t - j);
      if (r < weight) return { walk: { rank: r, state, last: code, kind }, placed };
      r -= weight;
    }
  }
  return null;
}
