/**
 * The one exact engine: every password constraint of the service compiles to an EngineSpec,
 * and this module alone counts the strings a spec allows (the entropy is log2 of the count)
 * and maps a uniform integer below the count to one of them (unrank). `validity` is the same
 * definition as a check, for the rejection sampler (sample.ts); tests/core/engine.test.ts
 * holds the three together against enumeration.
 *
 * What a spec allows. Strings of `length` over the allowed codes A where: each required set i
 * is hit at least min_i times (min_i >= 1), or, for the optional sets (min_i = 0), at least
 * `minSets` of them are hit at all; the first and last codes lie in `first` and `last`; no run
 * of one code is longer than R (maxRepeating) and no sequence longer than S (maxSequential). A
 * sequence is a series of codes each one step up, or each one step down, inside 0-9, A-Z or
 * a-z; a chain is a maximal series of consecutive codes of A inside one of those ranges, and it
 * binds when it is longer than S (S < length). Codes outside binding chains are free.
 *
 * Moves. A string is its first code and a series of moves, each a jump (to any code but the
 * current one and its neighbours in a binding chain) or a whole step-run (j repeats, j <= R -
 * 1; j steps up or down a binding chain, j <= S - 1), a step-run never followed by one of its
 * own kind. That split is unique, and the string keeps its run and sequence limits exactly
 * when every step-run keeps its bound.
 *
 * Counting, by inclusion-exclusion over the sets. For a subset X of the sets, A_X is A without
 * the codes of X's sets of min 0 or 1; X's sets of min 2 or more stay, each of their codes
 * weighted by a variable z_i, in polynomials kept below degree min_i (a "ring"). K_X(t, x,
 * kind) is the polynomial of the ways to place t more codes of A_X after a move of that kind
 * ended on x, the last of them in `last`: the coefficient of z^d counts those with d_i codes
 * of set i. It depends on x only through its piece (x alone if free, else the maximal run of
 * its binding chain's codes in A_X), its place there and the piece's weight and `last`
 * membership, which are the same along a piece (compile checks it), so one table serves every
 * piece of a type, and a piece is its own mirror image (up and down swapped). The recurrence
 * (shapeTables) keeps, per piece, running sums of the repeat-, up- and down-tables, each
 * multiplied by the piece's weight per step, so a window of run lengths costs two terms, and
 * the jump total J(t) = sum over y in A_X of w(y) K_X(t, y, jump) once per step. Given a
 * prefix that leaves need_i more codes to find in mandatory set i and `more` optional sets to
 * hit among the set U of those not hit, the valid completions number
 *   C = sum over X of coef(X) * (the coefficients of K_X(t, x, kind) below degree need_i),
 * over X inside the sets still needed: coef is (-1)^|mandatory sets of X| times optCoef, the
 * Moebius weight of "at least `more` of U hit" (optCoef below). The rest depends on the prefix
 * only through the last move's (x, kind), as the last move is maximal, so C is exact. The count
 * is the sum of C over the first code (in `first`) after it is placed.
 *
 * Unranking. From the first code, the walk weighs each possible move (jumps by group then
 * member, repeat-runs, up-runs, down-runs, each by length) by the C of the state it leads to.
 * The weights of the moves from a state sum to its C, so a rank below C lands in exactly one
 * move, and the rest of the rank, below that move's C, is carried on: the walk is a bijection
 * from [0, count) onto the valid strings. A group is codes that weigh the same: one signature,
 * the same `first`/`last` membership and the same place (up to mirror image) in the same type
 * of piece in every A_X.
 *
 * Cost, in work units (one BigInt operation on a ring element each; `price`): per distinct
 * table set, per piece type and step, ten per place in the piece and two for J (seven for a
 * piece of one), times the ring's size; and the count's first step, one term per code of
 * `first` and subset.
 * @module
 */

/** A set the string hits at least `min` times (min >= 1), or an optional set (min 0) that counts
 * towards the spec's `minSets`. */
export interface RequiredSet {
  readonly codes: readonly number[];
  readonly min: number;
}

export interface EngineSpec {
  /** Allowed UTF-16 codes, ascending, distinct. */
  readonly codes: readonly number[];
  /** At most MAX_SETS sets. */
  readonly sets: readonly RequiredSet[];
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

/** The most sets a spec may have: the count sums over their 2^8 subsets. */
export const MAX_SETS = 8;

/**
 * What a plan may cost, in work units (`price`): a request whose spec would take more is
 * refused before any BigInt work, with the reason, so that no request stalls the event loop
 * (security finding T4) and the answer does not depend on the machine's load. What the corpus
 * needs and what a plan at the budget costs in time: docs/password-rules.md, "The work budget".
 */
export const PLAN_WORK_BUDGET = 500_000;

const JUMP = 0;
const REPEAT = 1;
const UP = 2;
const DOWN = 3;

/** The polynomials of one subset X: a variable per set of X with min >= 2, kept below min. A
 * table row holds ring.size coefficients per place, by degree in mixed radix (dims). */
interface Ring {
  /** The sets with a variable, by their index in the spec. */
  readonly counted: readonly number[];
  readonly dims: readonly number[];
  readonly strides: readonly number[];
  readonly size: number;
}

function ringOf(counted: readonly number[], mins: readonly number[]): Ring {
  const dims = counted.map((i) => mins[i]);
  const strides: number[] = [];
  let size = 1;
  for (const d of dims) {
    strides.push(size);
    size *= d;
  }
  return { counted, dims, strides, size };
}

const degree = (ring: Ring, f: number, j: number) => Math.floor(f / ring.strides[j]) % ring.dims[j];

/** Multiplying by the monomial of the variables in `local` (bits by place in ring.counted),
 * each to the power l, as a pull: pull[f] is the coefficient that lands on f, or -1 (none; and
 * degrees that reach a variable's bound are dropped). */
function pullOf(ring: Ring, local: number, l: number): Int32Array {
  const pull = new Int32Array(ring.size);
  for (let f = 0; f < ring.size; f++) {
    let g = f;
    for (let j = 0; j < ring.dims.length && g >= 0; j++)
      if ((local >> j) & 1) g = degree(ring, f, j) >= l ? g - l * ring.strides[j] : -1;
    pull[f] = g;
  }
  return pull;
}

/** The sum of a row's coefficients at `place` whose degree in each set i is below need[i]. */
function below(ring: Ring, row: readonly bigint[], place: number, need: readonly number[]): bigint {
  let sum = 0n;
  for (let f = 0; f < ring.size; f++) {
    let ok = true;
    for (let j = 0; j < ring.dims.length && ok; j++) ok = degree(ring, f, j) < need[ring.counted[j]];
    if (ok) sum += row[place * ring.size + f];
  }
  return sum;
}

const popcount = (x: number) => {
  let c = 0;
  for (let v = x; v !== 0; v &= v - 1) c++;
  return c;
};

const binomial = (n: number, k: number): number => (k === 0 ? 1 : (binomial(n - 1, k - 1) * n) / k);

/**
 * The Moebius weight of excluding x optional sets when at least `more` of the n not yet hit
 * must be hit: sum over j of C(x, j) (-1)^j [n - x + j >= more]. With the final hit sets Y,
 * [|Y| >= more] = sum over T with U \ Y subset of T of [|U \ T| >= more] (-1)^|T \ (U \ Y)|
 * summed per excluded set T; grouping by |T| = x gives this (it is [x = 0] when more <= 0).
 */
function optCoef(x: number, n: number, more: number): number {
  let c = 0;
  for (let j = 0; j <= x; j++) if (n - x + j >= more) c += (j & 1 ? -1 : 1) * binomial(x, j);
  return c;
}

/** A kind of piece in one A_X: its length, its weight (ring-local bits) and `last` membership. */
interface PieceType {
  readonly size: number;
  readonly weight: number;
  readonly last: boolean;
  readonly key: string;
}

/** One piece type's K(t, pos, kind): table[kind][t], ring.size coefficients per place. */
type PieceTable = bigint[][][];

interface Subset {
  readonly mask: number;
  readonly mandatory: number;
  readonly optional: number;
  readonly ring: Ring;
  /** The key of its table set: the ring's dims and the multiset of piece types. */
  readonly shape: string;
  readonly types: readonly (readonly [PieceType, number])[];
  /** Each code of A_X: its piece type and place. */
  readonly cells: ReadonlyMap<number, readonly [PieceType, number]>;
}

/** A code's binding chain: its place and the chain's length. */
interface Link {
  readonly pos: number;
  readonly size: number;
}

interface Group {
  readonly signature: number;
  readonly first: boolean;
  readonly members: readonly number[];
}

export interface Machine {
  readonly spec: EngineSpec;
  readonly maxRun: number;
  readonly maxSequence: number;
  readonly mins: readonly number[];
  readonly mandatory: number;
  readonly optional: number;
  readonly signature: ReadonlyMap<number, number>;
  readonly links: ReadonlyMap<number, Link>;
  readonly subsets: readonly Subset[];
  /** Work units of countTables (see the module comment); Infinity when compile stopped as soon
   * as they exceeded its budget (the machine is then only a price). */
  readonly work: number;
  /** The BigInt coefficients the tables keep (a plan memo's measure of their bytes). */
  readonly entries: number;
}

/** The chains of ascending codes: [index of the first code, length]. */
function chainsOf(codes: readonly number[]): [number, number][] {
  const chains: [number, number][] = [];
  for (let i = 0; i < codes.length; i++) {
    const last = chains.at(-1);
    if (
      last !== undefined &&
      codes[i] === codes[i - 1] + 1 &&
      rangeOf(codes[i]) !== 0 &&
      rangeOf(codes[i]) === rangeOf(codes[i - 1])
    )
      last[1]++;
    else chains.push([i, 1]);
  }
  return chains;
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

/**
 * The machine of a spec: its chains, every A_X's pieces and the groups, and the work its tables
 * take, with no BigInt work done (a planner prices a spec before counting it). Throws on a spec
 * no compiler should make (a programming error, not a request's).
 */
export function compile(spec: EngineSpec, budget = Infinity): Machine {
  const { codes, sets, length: L } = spec;
  if (sets.length > MAX_SETS || L < 1 || codes.length === 0) throw new RangeError('engine: spec out of range');
  const mins = sets.map((s) => s.min);
  const signature = new Map<number, number>();
  for (const code of codes)
    signature.set(
      code,
      sets.reduce((s, set, i) => (set.codes.includes(code) ? s | (1 << i) : s), 0),
    );
  const sig = (code: number) => signature.get(code) ?? 0;
  const bits = (pick: (min: number) => boolean) => mins.reduce((m, min, i) => (pick(min) ? m | (1 << i) : m), 0);
  const counted = bits((min) => min >= 2);
  const first = new Set(spec.first ?? codes);
  const last = new Set(spec.last ?? codes);
  const maxRun = Math.min(spec.maxRepeating ?? L, L);
  const maxSequence = Math.min(spec.maxSequential ?? L, L);
  const binds = spec.maxSequential !== null && spec.maxSequential < L;
  const links = new Map<number, Link>();
  const chains: number[][] = [];
  for (const [start, size] of chainsOf(codes)) {
    if (!binds || size <= maxSequence) continue;
    const chain = codes.slice(start, start + size);
    const kind = (c: number) => `${sig(c) & counted} ${last.has(c)}`;
    if (chain.some((c) => kind(c) !== kind(chain[0])))
      throw new RangeError('engine: a binding chain must not change weight or last membership');
    chains.push(chain);
    chain.forEach((code, pos) => links.set(code, { pos, size }));
  }
  const pieces: Pieces = { sig, counted, mins, last, chains, free: codes.filter((code) => !links.has(code)) };
  // Each subset's index of its codes and the count's first step over it, then each new table
  // set: priced as found, so that a spec far over the budget stops early.
  const mandatory = bits((min) => min >= 1);
  const optional = bits((min) => min === 0);
  const subsets: Subset[] = [];
  const shapes = new Set<string>();
  let work = 0;
  let entries = 0;
  for (let x = 0; x < 2 ** sets.length && work <= budget; x++) {
    const subset = subsetOf(x, pieces, mandatory, optional);
    subsets.push(subset);
    work += codes.length + 2 * first.size;
    if (shapes.has(subset.shape)) continue;
    shapes.add(subset.shape);
    for (const [type] of subset.types) {
      work += (type.size === 1 ? 7 : 10 * type.size + 2) * L * subset.ring.size;
      entries += 4 * type.size * L * subset.ring.size;
    }
  }
  if (work > budget) work = Infinity;
  return {
    spec,
    maxRun,
    maxSequence,
    mins,
    mandatory,
    optional,
    signature,
    links,
    subsets,
    work,
    entries,
  };
}

/** What the pieces of every A_X are cut from. */
interface Pieces {
  readonly sig: (code: number) => number;
  readonly counted: number;
  readonly mins: readonly number[];
  readonly last: ReadonlySet<number>;
  readonly chains: readonly (readonly number[])[];
  readonly free: readonly number[];
}

/** A_X: its ring, its pieces by type and each code's piece and place. */
function subsetOf(x: number, p: Pieces, mandatory: number, optional: number): Subset {
  const ring = ringOf(
    p.mins.map((_, i) => i).filter((i) => ((x & p.counted) >> i) & 1),
    p.mins,
  );
  const local = (code: number) => ring.counted.reduce((w, i, j) => ((p.sig(code) >> i) & 1 ? w | (1 << j) : w), 0);
  const inside = (code: number) => (p.sig(code) & x & ~p.counted) === 0;
  const cells = new Map<number, [PieceType, number]>();
  const many = new Map<string, [PieceType, number]>();
  const piece = (run: readonly number[]) => {
    const weight = local(run[0]);
    const last = p.last.has(run[0]);
    const key = `${run.length}.${weight}.${last ? 1 : 0}`;
    const entry = many.get(key) ?? [{ size: run.length, weight, last, key }, 0];
    entry[1]++;
    many.set(key, entry);
    run.forEach((code, pos) => cells.set(code, [entry[0], pos]));
  };
  for (const code of p.free) if (inside(code)) piece([code]);
  for (const chain of p.chains) {
    let run: number[] = [];
    for (const code of [...chain, -1]) {
      if (code >= 0 && inside(code)) run.push(code);
      else if (run.length > 0) {
        piece(run);
        run = [];
      }
    }
  }
  const types = [...many.values()].sort((a, b) => (a[0].key < b[0].key ? -1 : 1));
  const shape = `${ring.dims.join('.')}|${types.map(([t, n]) => `${t.key}x${n}`).join(',')}`;
  return { mask: x, mandatory: x & mandatory, optional: x & optional, ring, shape, types, cells };
}

/** Codes that weigh the same in the walk: one signature, the same first and last membership,
 * and the same place (up to mirror image) in the same type of piece in every A_X. */
function groupsOf(m: Machine): Group[] {
  const { codes } = m.spec;
  const sig = (code: number) => m.signature.get(code) ?? 0;
  const first = new Set(m.spec.first ?? codes);
  const last = new Set(m.spec.last ?? codes);
  const byKey = new Map<string, number[]>();
  for (const code of codes) {
    const places = m.links.has(code)
      ? m.subsets.map(({ cells }) => {
          const cell = cells.get(code);
          return cell === undefined ? '-' : `${cell[0].key}.${Math.min(cell[1], cell[0].size - 1 - cell[1])}`;
        })
      : ['free'];
    const key = `${sig(code)} ${first.has(code)} ${last.has(code)} ${places.join(',')}`;
    byKey.set(key, [...(byKey.get(key) ?? []), code]);
  }
  return [...byKey.values()].map((members) => ({ signature: sig(members[0]), first: first.has(members[0]), members }));
}

/** Work units (BigInt operations) of countTables, with no BigInt work done. */
export function price(spec: EngineSpec, budget = Infinity): number {
  return compile(spec, budget).work;
}

/**
 * K(t, pos, kind) for every piece type of one table set, t = 0..L-1, by the recurrence of the
 * module comment: running sums P (repeat: P(t, x) = K(t, x) + w P(t - 1, x); up and down along
 * the piece), so that the runs of 1..m more codes weigh w P(t - 1) - w^(m+1) P(t - 1 - m).
 */
function shapeTables(
  m: Machine,
  ring: Ring,
  types: readonly (readonly [PieceType, number])[],
): Map<string, PieceTable> {
  const { size: D } = ring;
  // By weight, then power; a weight of no variable leaves every coefficient where it is.
  const pulls = new Map<number, Int32Array[]>();
  const identity = pullOf(ring, 0, 0);
  const pull = (weight: number, l: number) => {
    if (weight === 0) return identity;
    const byPower = pulls.get(weight) ?? [];
    pulls.set(weight, byPower);
    return (byPower[l] ??= pullOf(ring, weight, l));
  };
  const tables = new Map<string, PieceTable>();
  const sums = new Map<string, bigint[][][]>(); // [repeat, up, down][t]
  for (const [type] of types) {
    tables.set(type.key, [[], [], [], []]);
    sums.set(type.key, [[], [], []]);
  }
  let J = new Array<bigint>(D).fill(0n); // J(t - 1)
  for (let t = 0; t < m.spec.length; t++) {
    const nextJ = new Array<bigint>(D).fill(0n);
    for (const [type, many] of types) {
      const table = tables.get(type.key) as PieceTable;
      const sum = sums.get(type.key) as bigint[][][];
      const { size, weight } = type;
      const one = pull(weight, 1);
      /** row[place] times the monomial whose pull is `by`, at coefficient f (0 outside the piece
       * or before time 0). */
      const at = (row: readonly bigint[] | undefined, place: number, f: number, by = one) => {
        const g = by[f];
        return row === undefined || g < 0 || place < 0 || place >= size ? 0n : row[place * D + g];
      };
      const rows = [0, 1, 2, 3].map(() => new Array<bigint>(size * D).fill(0n));
      if (t === 0) for (const row of rows) for (let x = 0; x < size; x++) row[x * D] = type.last ? 1n : 0n;
      else {
        const mr = Math.min(m.maxRun - 1, t);
        const ms = Math.min(m.maxSequence - 1, t);
        const previous = table[JUMP][t - 1];
        for (let x = 0; x < (size + 1) >> 1; x++) {
          const mu = Math.min(ms, size - 1 - x);
          const md = Math.min(ms, x);
          const y = size - 1 - x;
          const [pr, pu, pd] = [mr, mu, md].map((l) => pull(weight, l + 1));
          for (let f = 0; f < D; f++) {
            const r = mr > 0 ? at(sum[0][t - 1], x, f) - at(sum[0][t - 1 - mr], x, f, pr) : 0n;
            const u = mu > 0 ? at(sum[1][t - 1], x + 1, f) - at(sum[1][t - 1 - mu], x + 1 + mu, f, pu) : 0n;
            const d = md > 0 ? at(sum[2][t - 1], x - 1, f) - at(sum[2][t - 1 - md], x - 1 - md, f, pd) : 0n;
            const j = J[f] - at(previous, x, f) - at(previous, x - 1, f) - at(previous, x + 1, f);
            const all = r + u + d + j;
            rows[JUMP][x * D + f] = rows[JUMP][y * D + f] = all;
            rows[REPEAT][x * D + f] = rows[REPEAT][y * D + f] = all - r;
            rows[UP][x * D + f] = rows[DOWN][y * D + f] = all - u;
            rows[DOWN][x * D + f] = rows[UP][y * D + f] = all - d;
          }
        }
      }
      rows.forEach((row, kind) => table[kind].push(row));
      const running = (row: readonly bigint[], k: number, shift: number) =>
        row.map((v, i) => v + at(sum[k][t - 1], Math.floor(i / D) + shift, i % D));
      sum[0].push(running(rows[REPEAT], 0, 0));
      // A piece of one never steps up or down: its running sums of those are never read.
      sum[1].push(size > 1 ? running(rows[UP], 1, 1) : []);
      sum[2].push(size > 1 ? running(rows[DOWN], 2, -1) : []);
      for (let f = 0; f < D; f++) {
        let jumps = 0n;
        for (let x = 0; x < size; x++) jumps += at(rows[JUMP], x, f);
        nextJ[f] += BigInt(many) * jumps;
      }
    }
    J = nextJ;
  }
  return tables;
}

/** Where a walk stands: what each set still needs (mandatory: codes to find; optional: 1 while
 * not hit) and how many optional sets must still be hit. */
interface State {
  readonly need: readonly number[];
  readonly more: number;
}

function place(m: Machine, s: State, code: number): State {
  const sig = m.signature.get(code) ?? 0;
  if (sig === 0) return s;
  let more = s.more;
  const need = s.need.map((n, i) => {
    if (((sig >> i) & 1) === 0 || n === 0) return n;
    if ((m.optional >> i) & 1) more--;
    return n - 1;
  });
  return { need, more: Math.max(0, more) };
}

export interface Tables {
  readonly machine: Machine;
  /** The walk's groups (pricing does not need them, so they are made here). */
  readonly groups: readonly Group[];
  /** By subset: each A_X code's row source (its piece's table and place). */
  readonly cells: readonly ReadonlyMap<number, readonly [PieceTable, number]>[];
  readonly start: State;
  /** The exact number of valid strings. */
  readonly count: bigint;
}

/** C(state, code, kind, t) of the module comment: the valid ways to finish. */
function completions(tables: Tables, s: State, code: number, kind: number, t: number): bigint {
  const m = tables.machine;
  const u = s.need.reduce((mask, n, i) => (n > 0 ? mask | (1 << i) : mask), 0);
  const open = popcount(u & m.optional);
  let sum = 0n;
  for (let x = u; ; x = (x - 1) & u) {
    const sign = popcount(x & m.mandatory) & 1 ? -1 : 1;
    const coef = sign * optCoef(popcount(x & m.optional), open, s.more);
    if (coef !== 0) {
      const [table, pos] = tables.cells[x].get(code) as [PieceTable, number];
      sum += BigInt(coef) * below(m.subsets[x].ring, table[kind][t], pos, s.need);
    }
    if (x === 0) return sum;
  }
}

/** Every table and the exact count: the sum, over the allowed first codes, of the completions
 * after each (all of a group weigh the same). */
export function countTables(spec: EngineSpec, m: Machine = compile(spec)): Tables {
  if (m.work === Infinity) throw new RangeError('countTables: the machine was priced over its budget');
  const built = new Map<string, Map<string, PieceTable>>();
  const cells = m.subsets.map((subset) => {
    let byType = built.get(subset.shape);
    if (byType === undefined) {
      byType = shapeTables(m, subset.ring, subset.types);
      built.set(subset.shape, byType);
    }
    const row = new Map<number, [PieceTable, number]>();
    for (const [code, [type, pos]] of subset.cells) row.set(code, [byType.get(type.key) as PieceTable, pos]);
    return row;
  });
  const start = { need: m.mins.map((min, i) => ((m.optional >> i) & 1 ? 1 : min)), more: m.spec.minSets ?? 0 };
  const groups = groupsOf(m);
  const partial = { machine: m, groups, cells, start, count: 0n };
  let count = 0n;
  for (const { members, first } of groups) {
    if (!first) continue;
    count +=
      BigInt(members.length) * completions(partial, place(m, start, members[0]), members[0], JUMP, spec.length - 1);
  }
  return { ...partial, count };
}

/** The valid string of rank `rank` (0 <= rank < count), as codes. */
export function unrank(tables: Tables, rank: bigint): number[] {
  const m = tables.machine;
  const L = m.spec.length;
  if (rank < 0n || rank >= tables.count) throw new RangeError('unrank: rank out of range');
  const out: number[] = [];
  let r = rank;
  let s = tables.start;
  let last = -1;
  let kind = JUMP;
  while (out.length < L) {
    const t = L - out.length; // codes still to place
    let taken = false;
    // Jumps: by group, then member, skipping the last code and its chain neighbours (all of a
    // group weigh the same, so any member gives the weight).
    const link = m.links.get(last);
    const near = last < 0 ? [] : [last];
    if (link !== undefined && link.pos < link.size - 1) near.push(last + 1);
    if (link !== undefined && link.pos > 0) near.push(last - 1);
    for (const group of tables.groups) {
      if (last < 0 && !group.first) continue;
      const members = group.members.filter((code) => !near.includes(code));
      if (members.length === 0) continue;
      const next = place(m, s, members[0]);
      const each = completions(tables, next, members[0], JUMP, t - 1);
      const weight = BigInt(members.length) * each;
      if (r < weight) {
        last = members[Number(r / each)];
        r %= each;
        out.push(last);
        s = next;
        kind = JUMP;
        taken = true;
        break;
      }
      r -= weight;
    }
    if (taken) continue;
    // Step-runs: repeats, then up, then down, each by length.
    const runs: [number, number][] = []; // [kind, direction]
    if (last >= 0 && kind !== REPEAT) runs.push([REPEAT, 0]);
    if (link !== undefined && kind !== UP) runs.push([UP, 1]);
    if (link !== undefined && kind !== DOWN) runs.push([DOWN, -1]);
    for (const [next, dir] of runs) {
      // A run places j codes: at most what is left, the limit, and the room in the chain.
      const room = dir === 0 ? t : dir > 0 ? (link as Link).size - 1 - (link as Link).pos : (link as Link).pos;
      const most = Math.min(dir === 0 ? m.maxRun - 1 : m.maxSequence - 1, t, room);
      let v = s;
      for (let j = 1; j <= most && !taken; j++) {
        const end = last + dir * j;
        v = place(m, v, end);
        const weight = completions(tables, v, end, next, t - j);
        if (r < weight) {
          for (let i = 1; i <= j; i++) out.push(last + dir * i);
          last = end;
          s = v;
          kind = next;
          taken = true;
        } else r -= weight;
      }
      if (taken) break;
    }
    /* c8 ignore next -- the weights of the moves sum to the state's C, which the rank is below */
    if (!taken) throw new Error('unrank: weights do not add up');
  }
  return out;
}

/** The definition the engine counts, as data for `isValid` (the rejection sampler's check). */
export interface Check {
  readonly length: number;
  /** By code: the code's set bits, and ALLOWED when it is allowed. */
  readonly sig: Int32Array;
  /** By code: 1 when it may come first (last); null: any may. */
  readonly first: Uint8Array | null;
  readonly last: Uint8Array | null;
  readonly mins: readonly number[];
  /** The sets of min 1 or more, of min 2 or more, of min 0. */
  readonly mandatory: number;
  readonly counted: number;
  readonly optional: number;
  readonly minSets: number;
  readonly maxRun: number;
  readonly maxSequence: number;
}

const ALLOWED = 1 << 30;

export function validity(spec: EngineSpec): Check {
  const top = Math.max(...spec.codes) + 1;
  const sig = new Int32Array(top);
  for (const code of spec.codes) sig[code] = ALLOWED;
  spec.sets.forEach((set, i) => {
    for (const code of set.codes) if (code < top) sig[code] |= 1 << i;
  });
  const table = (codes: readonly number[] | null | undefined) => {
    if (codes === null || codes === undefined) return null;
    const t = new Uint8Array(top);
    for (const code of codes) if (code < top) t[code] = 1;
    return t;
  };
  const bits = (pick: (min: number) => boolean) =>
    spec.sets.reduce((m, set, i) => (pick(set.min) ? m | (1 << i) : m), 0);
  return {
    length: spec.length,
    sig,
    first: table(spec.first),
    last: table(spec.last),
    mins: spec.sets.map((set) => set.min),
    mandatory: bits((min) => min >= 1),
    counted: bits((min) => min >= 2),
    optional: bits((min) => min === 0),
    minSets: spec.minSets ?? 0,
    maxRun: spec.maxRepeating ?? spec.length,
    maxSequence: spec.maxSequential ?? spec.length,
  };
}

/**
 * The definition the engine counts: the length, every code allowed, the first and last codes,
 * each set of min m >= 1 hit at least m times, at least minSets of the sets of min 0 hit, no run
 * of one code longer than maxRepeating, no sequence longer than maxSequential.
 */
export function isValid(c: Check, codes: ArrayLike<number>): boolean {
  const n = codes.length;
  if (n !== c.length) return false;
  if (c.first !== null && c.first[codes[0]] !== 1) return false;
  if (c.last !== null && c.last[codes[n - 1]] !== 1) return false;
  const limited = c.maxRun < n || c.maxSequence < n;
  const { sig } = c;
  let seen = 0;
  let run = 0;
  let sequence = 0;
  let direction = 0;
  for (let i = 0; i < n; i++) {
    const code = codes[i];
    const s = code < sig.length ? sig[code] : 0;
    if ((s & ALLOWED) === 0) return false;
    seen |= s;
    if (!limited) continue;
    const previous = i > 0 ? codes[i - 1] : -1;
    run = code === previous ? run + 1 : 1;
    if (i > 0 && isSequenceStep(previous, code)) {
      sequence = code - previous === direction ? sequence + 1 : 2;
      direction = code - previous;
    } else {
      sequence = 1;
      direction = 0;
    }
    if (run > c.maxRun || sequence > c.maxSequence) return false;
  }
  if ((seen & c.mandatory) !== c.mandatory) return false;
  if (c.counted !== 0 && !c.mins.every((min, i) => min < 2 || hits(c, codes, i) >= min)) return false;
  return c.minSets === 0 || popcount(seen & c.optional) >= c.minSets;
}

function hits(c: Check, codes: ArrayLike<number>, set: number): number {
  let h = 0;
  for (let i = 0; i < codes.length; i++) if ((c.sig[codes[i]] >> set) & 1) h++;
  return h;
}
