/**
 * PROTOTYPE of issue 29's one exact engine; nothing on the service path uses it yet (plan.ts
 * still counts with count.ts and sequences.ts). It is here so that its recurrence is checked
 * against brute force (tests/core/rules/engine.test.ts) and its cost measured on the corpus
 * (bench/engine-work.ts; docs/password-rules.md, "The exact engine's work").
 *
 * Every constraint is one machine over moves, counted by inclusion-exclusion over the
 * required sets and unranked by walking the same terms. Notation: A the allowed characters,
 * R and S the effective max-repeating and max-sequential (the length when unset), sig(c) the
 * required sets holding c. A chain is a maximal run of consecutive codes inside 0-9, A-Z or
 * a-z (sequences.ts); it binds when it is longer than S, and every character outside a
 * binding chain is free. A string is its first character and a series of moves, each a jump
 * (to any character but the current one and its chain neighbours) or a whole step-run (j
 * repeats, j <= R - 1; j steps up or down a binding chain, j <= S - 1), a step-run never
 * followed by one of its own kind: that split is unique, and the string is valid exactly when
 * every run in it keeps its limit.
 *
 * Counting. For a set X of required sets let A_X be the characters in none of them, cut into
 * pieces: the free characters (pieces of one) and the maximal runs of a binding chain's
 * characters left in A_X. K_X(t, x, kind) is the number of ways to place t more characters of
 * A_X after a move of that kind ended on x (the first of them not a run of the same kind);
 * by the recurrence of sequences.ts it depends on x only through its piece's size and its
 * place in it, and every piece size advances in lockstep with the running sums over t (so no
 * state grows with R or S) and the jump total J_X(t) = sum over y in A_X of K_X(t, y, jump).
 * A piece of one character stands for all the free characters at once, a position for its
 * mirror image (up and down swapped), and a piece size for every piece of that size. A piece
 * of a binding chain keeps its steps even when it is no longer than S: after an up-run ended on
 * x, "not a run of the same kind" must still forbid the step to x + 1 that would lengthen the
 * prefix's sequence. Valid strings with a prefix ending in state (U, x, kind) (U the required
 * sets not yet hit, so x is in A_X for every X in U) then number
 *   C(U, x, kind, t) = sum over X subset of U of (-1)^|X| K_X(t, x, kind),
 * since the rest avoids the sets of X exactly when it is over A_X, and, the prefix's last move
 * being maximal, a run or sequence of the rest can share only x with the prefix: the rest
 * depends on the prefix through (x, kind) alone. The count of length L is the same sum over
 * the first character: sum over X of (-1)^|X| J_X(L - 1). With no prefix a piece no longer
 * than S holds no sequence too long, so the count alone treats it as free characters.
 *
 * Unranking a uniform integer below the count walks the moves from the first character in a
 * fixed order (jumps by group then member, repeat-runs, up-runs, down-runs, each by length),
 * each weighing C of the state it leads to; the weights of the moves from a state sum to its
 * C, so the rank lands in exactly one, and the walk is a bijection from [0, count) onto the
 * valid strings: the draw is uniform. A group is the free characters of one signature, or the
 * chained characters of one signature at the same place (up to mirror image) of the same size
 * of piece in every A_X: all of a group weigh the same, so one term serves them all.
 *
 * Cost, in the planner's work units (one BigInt operation each): a table set per distinct
 * piece multiset, ten per piece character per step for each distinct piece size and two more
 * for its part of J (seven in all for a piece of one). The count alone needs only the
 * multisets with a nonzero coefficient, short pieces free, each by its lockstep tables or by
 * sequences.ts's chain kernels (once per size) and series (once per multiset), whichever is
 * cheaper for the rule, and a multiset of free characters only by the closed run recurrence of
 * count.ts (countWork); the unranking tables need every A_X, pieces kept (unrankingOf). What
 * remains before it replaces count.ts, sequences.ts and the three exact samplers:
 * docs/password-rules.md, "The exact engine's work".
 * @module
 */

/** The chains of an alphabet given as ascending codes: [index of its first code, length]; a
 * chain is a maximal run of consecutive codes inside 0-9, A-Z or a-z. */
function chainsOf(codes: readonly number[]): [number, number][] {
  const range = (c: number) =>
    c >= 0x30 && c <= 0x39 ? 1 : c >= 0x41 && c <= 0x5a ? 2 : c >= 0x61 && c <= 0x7a ? 3 : 0;
  const chains: [number, number][] = [];
  for (let i = 0; i < codes.length; i++) {
    const last = chains.length > 0 ? chains[chains.length - 1] : undefined;
    const step =
      i > 0 && codes[i] === codes[i - 1] + 1 && range(codes[i]) !== 0 && range(codes[i]) === range(codes[i - 1]);
    if (last !== undefined && step) last[1]++;
    else chains.push([i, 1]);
  }
  return chains;
}

export interface EngineSpec {
  /** Allowed UTF-16 codes, ascending. */
  readonly codes: readonly number[];
  /** Required sets, as codes; each must be hit at least once (at most 8). */
  readonly required: readonly (readonly number[])[];
  readonly length: number;
  readonly maxRepeating: number | null;
  readonly maxSequential: number | null;
}

const JUMP = 0;
const REPEAT = 1;
const UP = 2;
const DOWN = 3;

/** A character's piece in one A_X: its size and its place in it (0 for a free character). */
interface Piece {
  readonly size: number;
  readonly pos: number;
}

/** [piece size, how many pieces of that size], by size. */
type PieceSizes = readonly (readonly [number, number])[];

interface Subset {
  readonly sign: bigint;
  readonly key: string;
  readonly sizes: PieceSizes;
  readonly pieces: ReadonlyMap<number, Piece>;
}

/** A chained character's binding chain of A: its place and the chain's size. */
interface Link {
  readonly pos: number;
  readonly size: number;
}

/** Characters that weigh the same as jump targets: the free ones of one signature, or the
 * chained ones of one signature at the same place in the same size of piece in every A_X
 * (mirror images count as the same place). */
interface Group {
  readonly signature: number;
  readonly members: readonly number[];
}

export interface Machine {
  readonly length: number;
  readonly maxRun: number;
  readonly maxSequence: number;
  readonly sets: number;
  readonly signature: ReadonlyMap<number, number>;
  /** The chained characters (in a binding chain of A). */
  readonly links: ReadonlyMap<number, Link>;
  readonly chains: readonly (readonly number[])[];
  readonly free: readonly number[];
  /** The count's inclusion-exclusion terms: piece multisets, short pieces free, by coefficient
   * (empty when the count was found over the budget before all were seen). */
  readonly terms: readonly { readonly sizes: PieceSizes; readonly coefficient: number }[];
  /** Whether the count alone is cheaper by chain kernels and series than by lockstep tables. */
  readonly byKernels: boolean;
  /** BigInt operations of the count alone (nonzero terms, short pieces free, the cheaper way);
   * Infinity when the multisets found so far already cost more than the budget. */
  readonly countWork: number;
}

const popcount = (x: number) => {
  let c = 0;
  for (let v = x; v !== 0; v &= v - 1) c++;
  return c;
};

const keyOf = (sizes: PieceSizes) => sizes.map(([s, m]) => `${s}x${m}`).join(',');

/** Work of one piece multiset's lockstep tables: ten per character of each distinct piece size
 * and step, two per size and step for J; a piece of one has no steps up or down (seven in all). */
const tableWork = (sizes: PieceSizes, L: number) =>
  sizes.reduce((w, [size]) => w + (size === 1 ? 7 : 10 * size + 2) * L, 0);

/** Work of a count by the closed form of a multiset of free characters only (freeCount). */
const freeWork = (L: number) => 3 * L;
const onlyFree = (sizes: PieceSizes) => sizes.length === 1 && sizes[0][0] === 1;

/**
 * The machine of a spec: its chains and groups, the count's terms and the work of the count,
 * with no BigInt work done. Finding the terms is plain arithmetic over the 2^k subsets; it
 * stops as soon as the distinct multisets found so far would cost more than `budget` (each
 * costs at least the cheaper of its series and its lockstep tables), so that a rule far over
 * the budget is refused without finding all of them.
 */
export function compile(spec: EngineSpec, budget = Infinity): Machine {
  const { codes, required, length: L } = spec;
  const signature = new Map<number, number>();
  for (const code of codes)
    signature.set(
      code,
      required.reduce((s, set, i) => (set.includes(code) ? s | (1 << i) : s), 0),
    );
  const maxRun = Math.min(spec.maxRepeating ?? L, L);
  const maxSequence = Math.min(spec.maxSequential ?? L, L);
  // A sequence is never longer than the string: a limit of the length or more cannot bind.
  const binds = spec.maxSequential !== null && spec.maxSequential < L;
  const links = new Map<number, Link>();
  const chains: number[][] = [];
  for (const [start, size] of chainsOf(codes)) {
    if (!binds || size <= maxSequence) continue;
    const chain = codes.slice(start, start + size);
    chains.push(chain);
    chain.forEach((code, pos) => links.set(code, { pos, size }));
  }
  const free = codes.filter((code) => !links.has(code));
  const base = { length: L, maxRun, maxSequence, sets: 2 ** required.length, signature, links, chains, free };

  const freeSigs = free.map((code) => signature.get(code) ?? 0);
  const chainSigs = chains.map((chain) => chain.map((code) => signature.get(code) ?? 0));
  const counted = new Map<string, { sizes: PieceSizes; coefficient: number }>();
  let least = 0;
  for (let x = 0; x < base.sets; x++) {
    let short = 0; // pieces no longer than S count as free characters
    for (const sig of freeSigs) if ((sig & x) === 0) short++;
    const longer: number[] = [];
    for (const sigs of chainSigs) {
      let run = 0;
      for (let i = 0; i <= sigs.length; i++) {
        if (i < sigs.length && (sigs[i] & x) === 0) run++;
        else {
          if (run > maxSequence) longer.push(run);
          else short += run;
          run = 0;
        }
      }
    }
    longer.sort((a, b) => a - b);
    const sizes: [number, number][] = short > 0 ? [[1, short]] : [];
    for (const size of longer) {
      const last = sizes.length > 0 ? sizes[sizes.length - 1] : null;
      if (last !== null && last[0] === size) last[1]++;
      else sizes.push([size, 1]);
    }
    const key = keyOf(sizes);
    let entry = counted.get(key);
    if (entry === undefined) {
      entry = { sizes, coefficient: 0 };
      counted.set(key, entry);
      if (!onlyFree(sizes) && sizes.length > 0) least += Math.min(L * (L + 1), tableWork(sizes, L));
      if (least > budget) return { ...base, terms: [], byKernels: false, countWork: Infinity };
    }
    entry.coefficient += popcount(x) & 1 ? -1 : 1;
  }
  // An empty A_X has no string: its term is zero.
  const terms = [...counted.values()].filter((term) => term.coefficient !== 0 && term.sizes.length > 0);
  // The count alone, two ways: each multiset's lockstep tables, or each piece size's kernel
  // once and a series per multiset (sequences.ts, SequenceCounter); the cheaper is used.
  let lockstep = 0;
  let series = 0;
  const kernels = new Set<number>();
  for (const { sizes } of terms) {
    if (onlyFree(sizes)) {
      lockstep += freeWork(L);
      series += freeWork(L);
      continue;
    }
    lockstep += tableWork(sizes, L);
    series += L * (L + 1) + 2 * L * sizes.length;
    for (const [size] of sizes) kernels.add(size);
  }
  for (const size of kernels) series += 10 * size * L;
  return { ...base, terms, byKernels: series < lockstep, countWork: Math.min(lockstep, series) };
}

/** The unranking's view of every A_X (pieces kept, not folded) and the work of its tables. */
export interface Unranking {
  /** By X (bit mask of required sets). */
  readonly subsets: readonly Subset[];
  readonly groups: readonly Group[];
  /** The index of each character's group. */
  readonly groupOf: ReadonlyMap<number, number>;
  /** BigInt operations of the tables (one lockstep table set per distinct piece multiset). */
  readonly work: number;
}

/** The machine's pieces in every A_X and the price of its tables, with no BigInt work done
 * (countMachine takes it, so that a plan prices its tables before making them). */
export function unrankingOf(m: Machine): Unranking {
  const subsets: Subset[] = [];
  const tables = new Map<string, PieceSizes>();
  for (let x = 0; x < m.sets; x++) {
    const inside = (code: number) => ((m.signature.get(code) ?? 0) & x) === 0;
    const pieces = new Map<number, Piece>();
    const many = new Map<number, number>();
    for (const code of m.free) if (inside(code)) pieces.set(code, { size: 1, pos: 0 });
    if (pieces.size > 0) many.set(1, pieces.size);
    for (const chain of m.chains) {
      let run: number[] = [];
      for (const code of [...chain, -1]) {
        if (code >= 0 && inside(code)) {
          run.push(code);
          continue;
        }
        if (run.length === 0) continue;
        run.forEach((c, pos) => pieces.set(c, { size: run.length, pos }));
        many.set(run.length, (many.get(run.length) ?? 0) + 1);
        run = [];
      }
    }
    const sizes = [...many].sort((a, b) => a[0] - b[0]);
    const key = keyOf(sizes);
    tables.set(key, sizes);
    subsets.push({ sign: popcount(x) & 1 ? -1n : 1n, key, sizes, pieces });
  }
  let work = 0;
  for (const sizes of tables.values()) work += tableWork(sizes, m.length);
  const byKey = new Map<string, number[]>();
  const sig = (code: number) => m.signature.get(code) ?? 0;
  for (const code of m.free) {
    const key = `free ${sig(code)}`;
    byKey.set(key, [...(byKey.get(key) ?? []), code]);
  }
  for (const code of m.links.keys()) {
    const places = subsets.map(({ pieces }) => {
      const piece = pieces.get(code);
      return piece === undefined ? '-' : `${piece.size}.${Math.min(piece.pos, piece.size - 1 - piece.pos)}`;
    });
    const key = `${sig(code)} ${places.join(',')}`;
    byKey.set(key, [...(byKey.get(key) ?? []), code]);
  }
  const groups = [...byKey.values()].map((members) => ({ signature: sig(members[0]), members }));
  const groupOf = new Map<number, number>();
  groups.forEach((group, g) => {
    for (const code of group.members) groupOf.set(code, g);
  });
  return { subsets, groups, groupOf, work };
}

/** One piece size's K(t, pos, kind) for t = 0..L-1, by kind: rows[kind][t][pos]. */
type PieceTable = bigint[][][];

interface ShapeTables {
  readonly bySize: ReadonlyMap<number, PieceTable>;
  /** J(t), t = 0..L-1. */
  readonly jumps: readonly bigint[];
}

/**
 * The recurrence of sequences.ts (runChain) for every piece size of one multiset at once, the
 * jump total J summed as each step is made, so that no second pass is needed.
 */
function shapeTables(sizes: PieceSizes, maxRun: number, maxSequence: number, L: number): ShapeTables {
  const bySize = new Map<number, PieceTable>();
  const running = new Map<number, bigint[][][]>(); // [repeat, up, down][t][pos]
  for (const [size] of sizes) {
    bySize.set(size, [[], [], [], []]);
    running.set(size, [[], [], []]);
  }
  const jumps: bigint[] = [];
  for (let t = 0; t < L; t++) {
    let total = 0n;
    for (const [size, many] of sizes) {
      const table = bySize.get(size) as PieceTable;
      const run = running.get(size) as bigint[][][];
      const rows = [0, 1, 2, 3].map(() => new Array<bigint>(size));
      if (t === 0) for (const row of rows) row.fill(1n);
      else if (size === 1) single(t, table, run, rows, jumps[t - 1]);
      else fill(t, size, table, run, rows, jumps[t - 1]);
      let sum = 0n;
      for (let x = 0; x < size; x++) sum += rows[JUMP][x];
      total += BigInt(many) * sum;
      rows.forEach((row, kind) => table[kind].push(row));
      run[0].push(accumulate(rows[REPEAT], t > 0 ? run[0][t - 1] : null, 0));
      // A piece of one never steps up or down: its running sums of those are never read.
      if (size > 1) run[1].push(accumulate(rows[UP], t > 0 ? run[1][t - 1] : null, 1));
      if (size > 1) run[2].push(accumulate(rows[DOWN], t > 0 ? run[2][t - 1] : null, -1));
    }
    jumps.push(total);
  }
  return { bySize, jumps };

  /** fill() for a piece of one: a repeat-run or a jump, so up and down are the jump's. */
  function single(t: number, table: PieceTable, run: bigint[][][], rows: bigint[][], J: bigint): void {
    const mr = Math.min(maxRun - 1, t);
    const r = mr > 0 ? run[0][t - 1][0] - (t - 1 - mr >= 0 ? run[0][t - 1 - mr][0] : 0n) : 0n;
    const j = J - table[JUMP][t - 1][0];
    const all = r + j;
    rows[JUMP][0] = rows[UP][0] = rows[DOWN][0] = all;
    rows[REPEAT][0] = j;
  }

  function fill(t: number, size: number, table: PieceTable, run: bigint[][][], rows: bigint[][], J: bigint): void {
    const before = (kind: number, s: number) => (s >= 0 ? run[kind][s] : null);
    const mr = Math.min(maxRun - 1, t);
    const ms = Math.min(maxSequence - 1, t);
    const previous = table[JUMP][t - 1];
    // The piece is its own mirror image (pos to size - 1 - pos, up and down swapped).
    for (let x = 0; x < (size + 1) >> 1; x++) {
      let r = 0n;
      if (mr > 0) r = run[0][t - 1][x] - (before(0, t - 1 - mr)?.[x] ?? 0n);
      const mu = Math.min(ms, size - 1 - x);
      let u = 0n;
      if (mu > 0) {
        const b = before(1, t - 1 - mu);
        u = run[1][t - 1][x + 1] - (b === null || x + 1 + mu >= size ? 0n : b[x + 1 + mu]);
      }
      const md = Math.min(ms, x);
      let d = 0n;
      if (md > 0) {
        const b = before(2, t - 1 - md);
        d = run[2][t - 1][x - 1] - (b === null || x - 1 - md < 0 ? 0n : b[x - 1 - md]);
      }
      let j = J - previous[x];
      if (x > 0) j -= previous[x - 1];
      if (x < size - 1) j -= previous[x + 1];
      const all = r + u + d + j;
      const y = size - 1 - x;
      rows[JUMP][x] = rows[JUMP][y] = all;
      rows[REPEAT][x] = rows[REPEAT][y] = all - r;
      rows[UP][x] = rows[DOWN][y] = all - u;
      rows[DOWN][x] = rows[UP][y] = all - d;
    }
  }
}

/** row[x] plus the previous running row at x + shift (0 outside the piece or before time 0). */
function accumulate(row: readonly bigint[], previous: readonly bigint[] | null, shift: number): bigint[] {
  return row.map((v, x) => {
    const y = x + shift;
    return previous === null || y < 0 || y >= row.length ? v : v + previous[y];
  });
}

export interface Tables {
  readonly machine: Machine;
  readonly unranking: Unranking;
  readonly shapes: ReadonlyMap<string, ShapeTables>;
  /** cells[X][code]: the table of the character's piece in A_X and its place there. */
  readonly cells: readonly (readonly (readonly [PieceTable, number] | undefined)[])[];
  readonly odd: readonly boolean[];
  readonly count: bigint;
}

/** Every A_X's tables and the count. */
export function countMachine(m: Machine, unranking = unrankingOf(m)): Tables {
  const { subsets } = unranking;
  const shapes = new Map<string, ShapeTables>();
  for (const s of subsets)
    if (!shapes.has(s.key)) shapes.set(s.key, shapeTables(s.sizes, m.maxRun, m.maxSequence, m.length));
  let count = 0n;
  for (const s of subsets) count += s.sign * (shapes.get(s.key) as ShapeTables).jumps[m.length - 1];
  const cells = subsets.map((s) => {
    const bySize = (shapes.get(s.key) as ShapeTables).bySize;
    const row: ([PieceTable, number] | undefined)[] = [];
    for (const [code, piece] of s.pieces) row[code] = [bySize.get(piece.size) as PieceTable, piece.pos];
    return row;
  });
  return { machine: m, unranking, shapes, cells, odd: subsets.map((s) => s.sign < 0n), count };
}

/** C(U, code, kind, t) of the module comment. */
function completions(tables: Tables, u: number, code: number, kind: number, t: number): bigint {
  let sum = 0n;
  for (let x = u; ; x = (x - 1) & u) {
    const [table, pos] = tables.cells[x][code] as [PieceTable, number];
    if (tables.odd[x]) sum -= table[kind][t][pos];
    else sum += table[kind][t][pos];
    if (x === 0) return sum;
  }
}

/** The valid string of rank `rank` (0 <= rank < count), as codes. */
export function unrankMachine(tables: Tables, rank: bigint): number[] {
  const m = tables.machine;
  if (rank < 0n || rank >= tables.count) throw new RangeError('unrankMachine: rank out of range');
  const sig = (code: number) => m.signature.get(code) ?? 0;
  const { groups, groupOf } = tables.unranking;
  const out: number[] = [];
  let r = rank;
  let u = m.sets - 1;
  let last = -1;
  let kind = JUMP;
  while (out.length < m.length) {
    const t = m.length - out.length; // characters still to place
    // Jumps: by group, then member, skipping the last character and its chain neighbours
    // (all of a group weigh the same, so any member, skipped or not, gives the weight).
    const link = m.links.get(last);
    const near: number[] = last < 0 ? [] : [last];
    if (link !== undefined && link.pos < link.size - 1) near.push(last + 1);
    if (link !== undefined && link.pos > 0) near.push(last - 1);
    const nearGroups = near.map((code) => groupOf.get(code));
    let taken = false;
    for (let g = 0; g < groups.length; g++) {
      const { members, signature } = groups[g];
      const skipped = nearGroups.includes(g);
      const n = skipped ? members.length - nearGroups.filter((h) => h === g).length : members.length;
      if (n === 0) continue;
      const v = u & ~signature;
      const each = completions(tables, v, members[0], JUMP, t - 1);
      const weight = BigInt(n) * each;
      if (r < weight) {
        const i = Number(r / each);
        last = skipped ? members.filter((code) => !near.includes(code))[i] : members[i];
        r %= each;
        out.push(last);
        u = v;
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
      // A run places j characters: at most what is left, the limit, and the room in the chain.
      const room = dir === 0 ? t : dir > 0 ? (link as Link).size - 1 - (link as Link).pos : (link as Link).pos;
      const most = Math.min(dir === 0 ? m.maxRun - 1 : m.maxSequence - 1, t, room);
      let v = u;
      for (let j = 1; j <= most && !taken; j++) {
        const end = last + dir * j;
        v &= ~sig(end);
        const weight = completions(tables, v, end, next, t - j);
        if (r < weight) {
          for (let i = 1; i <= j; i++) out.push(last + dir * i);
          last = end;
          u = v;
          kind = next;
          taken = true;
        } else r -= weight;
      }
      if (taken) break;
    }
    /* c8 ignore next -- the weights of the moves sum to the state's C, which the rank is below */
    if (!taken) throw new Error('unrankMachine: weights do not add up');
  }
  return out;
}
