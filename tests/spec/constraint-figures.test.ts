/**
 * The worked figures of docs/api.md, "Password constraints", recomputed by a method of their own
 * so the doc cannot drift and does not merely repeat the service: nothing here imports lib/.
 *
 * The method: the four classes are disjoint, so a string of length L is described by how many
 * characters it takes from each class, (n1..n4) with n1 + ... + n4 = L. The strings with those
 * counts number L! / (n1! ... n4!) x s1^n1 ... s4^n4 (choose the places of each class, then a
 * character of the class for each place). The constraints without run limits depend on the
 * counts only, except the first and last characters: among the arrangements of the counts, those
 * with a class i character first number (L - 1)! / (n1! ... (ni - 1)! ... n4!), and with class i
 * first and class j last (L - 2)! / (... (ni - 1)! ... (nj - 1)! ...) (one fewer of each, same
 * class: two fewer). The exact count is the sum over every count vector that meets the minimums
 * and minClasses, of the arrangements with an allowed first and last class, times the characters.
 * All in BigInt. The method is itself checked against enumerating every string of small pools.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../spec/build.ts';

/** The service's classes as docs/api.md states them (sizes of the default pool), in pool order. */
const CLASSES = [
  { name: 'lowercase', include: 'includeLowercase', min: 'minLowercase', size: 26, byDefault: true },
  { name: 'uppercase', include: 'includeUppercase', min: 'minUppercase', size: 26, byDefault: true },
  { name: 'numbers', include: 'includeNumbers', min: 'minNumbers', size: 10, byDefault: true },
  { name: 'symbols', include: 'includeSymbols', min: 'minSymbols', size: 23, byDefault: false },
] as const;

/** What the count needs: the included classes' sizes, minimums and the constraints on them. */
interface Spec {
  readonly length: number;
  readonly sizes: readonly number[];
  readonly minimums: readonly number[];
  readonly minClasses: number;
  /** Indexes into sizes of the classes the first (last) character may come from. */
  readonly first: readonly number[];
  readonly last: readonly number[];
}

function factorial(n: number): bigint {
  let out = 1n;
  for (let i = 2n; i <= BigInt(n); i++) out *= i;
  return out;
}

/** The number of arrangements of `counts` in a row: (sum)! / prod(count!); 0 for a negative count. */
function arrangements(counts: readonly number[]): bigint {
  if (counts.some((c) => c < 0)) return 0n;
  return counts.reduce((acc, c) => acc / factorial(c), factorial(counts.reduce((s, c) => s + c, 0)));
}

/** Every vector of `parts` non-negative integers summing to `total`. */
function* compositions(total: number, parts: number): Generator<number[]> {
  if (parts === 1) {
    yield [total];
    return;
  }
  for (let head = 0; head <= total; head++)
    for (const rest of compositions(total - head, parts - 1)) yield [head, ...rest];
}

/** The exact number of strings of the spec: the multinomial sum described above. */
export function countByClassCounts(spec: Spec): bigint {
  const k = spec.sizes.length;
  let total = 0n;
  for (const counts of compositions(spec.length, k)) {
    if (counts.some((c, i) => c < spec.minimums[i])) continue;
    if (counts.filter((c) => c > 0).length < spec.minClasses) continue;
    // Arrangements with an allowed first and last class: fix those two places, arrange the rest.
    let placed = 0n;
    for (const f of spec.first) {
      for (const l of spec.last) {
        const rest = [...counts];
        rest[f]--;
        rest[l]--;
        placed += arrangements(rest);
      }
    }
    const characters = counts.reduce((acc, c, i) => acc * BigInt(spec.sizes[i]) ** BigInt(c), 1n);
    total += placed * characters;
  }
  return total;
}

/** log2 of a BigInt, to well within 2 decimals: its leading 53 bits as a double, and the rest. */
export function log2Big(n: bigint): number {
  const bits = n.toString(2).length;
  const shift = Math.max(0, bits - 53);
  return Math.log2(Number(n >> BigInt(shift))) + shift;
}

type Options = Record<string, unknown>;

/** A request's password options as the spec of the count: the defaults resolved here, from the
 * rule docs/api.md states (a class's minimum is 1 when included, 0 when minClasses is given). */
export function specOf(options: Options): Spec {
  const included = CLASSES.filter((c) => (options[c.include] ?? c.byDefault) === true);
  const names = included.map((c) => c.name as string);
  const any = included.map((_, i) => i);
  const positions = (key: string) =>
    options[key] === undefined ? any : (options[key] as string[]).map((n) => names.indexOf(n));
  return {
    length: (options.length as number | undefined) ?? 24,
    sizes: included.map((c) => c.size),
    minimums: included.map((c) => (options[c.min] as number | undefined) ?? (options.minClasses === undefined ? 1 : 0)),
    minClasses: (options.minClasses as number | undefined) ?? 0,
    first: positions('firstCharacter'),
    last: positions('lastCharacter'),
  };
}

/** Every string over a small pool of classes, checked one by one: the method's own judge. */
function enumerate(spec: Spec): bigint {
  const classOf: number[] = spec.sizes.flatMap((s, i) => Array<number>(s).fill(i));
  const n = classOf.length;
  let count = 0n;
  const word = new Array<number>(spec.length).fill(0);
  for (let index = 0; index < n ** spec.length; index++) {
    let rest = index;
    for (let p = 0; p < spec.length; p++) {
      word[p] = classOf[rest % n];
      rest = Math.floor(rest / n);
    }
    const counts = spec.sizes.map((_, i) => word.filter((c) => c === i).length);
    if (counts.some((c, i) => c < spec.minimums[i])) continue;
    if (counts.filter((c) => c > 0).length < spec.minClasses) continue;
    if (!spec.first.includes(word[0]) || !spec.last.includes(word[spec.length - 1])) continue;
    count++;
  }
  return count;
}

describe('the independent count (multinomial over class counts)', () => {
  it('agrees with enumerating every string of small pools, for every kind of constraint', () => {
    const cases: Spec[] = [
      { length: 5, sizes: [2, 1, 1], minimums: [1, 1, 1], minClasses: 0, first: [0, 1, 2], last: [0, 1, 2] },
      { length: 6, sizes: [2, 2, 1], minimums: [0, 2, 1], minClasses: 0, first: [0, 1, 2], last: [0, 1, 2] },
      {
        length: 6,
        sizes: [1, 2, 1, 1],
        minimums: [0, 0, 0, 0],
        minClasses: 3,
        first: [0, 1, 2, 3],
        last: [0, 1, 2, 3],
      },
      { length: 5, sizes: [2, 2, 1], minimums: [1, 1, 1], minClasses: 0, first: [0, 1], last: [0, 1, 2] },
      { length: 5, sizes: [2, 1, 1], minimums: [1, 0, 2], minClasses: 0, first: [2], last: [2] },
      { length: 6, sizes: [1, 1, 2, 1], minimums: [0, 1, 0, 0], minClasses: 2, first: [1, 3], last: [0] },
    ];
    for (const spec of cases) assert.equal(countByClassCounts(spec), enumerate(spec), JSON.stringify(spec));
  });

  it('gives the figures of docs/decisions.md for one of each class (inclusion-exclusion there)', () => {
    assert.equal(log2Big(countByClassCounts(specOf({ length: 8 }))).toFixed(2), '47.18');
    assert.equal(log2Big(countByClassCounts(specOf({ length: 24 }))).toFixed(2), '142.88');
  });
});

/** The rows of the worked-figures table of docs/api.md, "Password constraints". */
function docRows(): { options: Options; count: string; bits: string; naive: string }[] {
  const doc = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
  const start = doc.indexOf('<!-- constraint figures -->');
  assert.ok(start >= 0, 'docs/api.md has the constraint figures table');
  const rows = doc
    .slice(start)
    .split('\n')
    .slice(1)
    .filter((line, i, all) => line.startsWith('|') && all.slice(0, i).every((l) => l.startsWith('|')));
  return rows.slice(2).map((row) => {
    const cells = row.split(' | ').map((cell) => cell.replace(/^\|\s*|\s*\|$/g, '').replace(/`/g, ''));
    // The count is written with thousands separators.
    const [options, count, bits, naive] = cells;
    return { options: JSON.parse(options) as Options, count: count.replace(/,/g, ''), bits, naive };
  });
}

describe('docs/api.md: the password constraints figures', () => {
  it('states each exact count, its bits and the naive length x log2(pool) as the independent count gives them', () => {
    const rows = docRows();
    assert.equal(rows.length, 3, 'three worked figures');
    for (const row of rows) {
      const spec = specOf(row.options);
      const count = countByClassCounts(spec);
      const label = JSON.stringify(row.options);
      assert.equal(row.count, count.toString(), label);
      assert.equal(row.bits, log2Big(count).toFixed(2), label);
      const pool = spec.sizes.reduce((s, c) => s + c, 0);
      assert.equal(row.naive, (spec.length * Math.log2(pool)).toFixed(2), label);
      // The constraints only ever remove strings: the exact figure is below the naive one.
      assert.ok(log2Big(count) < spec.length * Math.log2(pool), label);
    }
  });
});

describe('README.md: the password constraints example', () => {
  it('states the bits the independent count gives for its options, and the naive figure beside them', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const m = /-d '(\{"mode":"password","options":\{[^']*"minNumbers"[^']*\})' \\\n[^\n]*#=> ([\d.]+) bits/.exec(
      readme,
    );
    assert.ok(m, 'README has a curl example with minNumbers and its bits');
    const options = (JSON.parse(m[1]) as { options: Options }).options;
    const spec = specOf(options);
    const bits = log2Big(countByClassCounts(spec)).toFixed(2);
    assert.equal(m[2], bits);
    const naive = (spec.length * Math.log2(spec.sizes.reduce((s, c) => s + c, 0))).toFixed(2);
    assert.ok(
      readme.includes(`give ${bits} bits where the\nnaive 16 x log2(85) says ${naive}`),
      `${bits} beside ${naive}`,
    );
  });
});
