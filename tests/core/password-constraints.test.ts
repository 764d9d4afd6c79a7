/**
 * The constraints of mode password (minimums, maximums, minClasses, first and last character,
 * maxRepeating, maxSequential), compiled to the engine by lib/core/password.ts:
 * - counts against enumeration on small pools, for every option alone and in random
 *   combinations, judged by a reading of the options written here from their definitions
 *   (docs/api.md), not from the compiler;
 * - both samplers uniform over the allowed strings (chi-square over every string), with teeth:
 *   a sampler that places the required characters then shuffles, and one that draws the first
 *   character's class uniformly, must fail. False-alarm rate: alpha = 1e-6 per test.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHARACTER_CLASSES, type ClassName } from '../../lib/core/charsets.ts';
import { generatePasswords, isPlan, planPassword, type PasswordPlan } from '../../lib/core/password.ts';
import { defaultRandom } from '../../lib/core/random.ts';
import { validateRequest, type PasswordOptions } from '../../lib/request/validate.ts';
import { readFileSync } from 'node:fs';
import { chiSquareTest } from '../helpers/stats.ts';
import { seededRandom } from '../helpers/seeded.ts';

const ALPHA = 1e-6;
const NAMES = CHARACTER_CLASSES.map((c) => c.name);
const random = seededRandom(30);
const below = (n: number) => random.below(n);

interface Constraints {
  minLowercase?: number;
  minUppercase?: number;
  minNumbers?: number;
  minSymbols?: number;
  maxLowercase?: number;
  maxUppercase?: number;
  maxNumbers?: number;
  maxSymbols?: number;
  minClasses?: number;
  firstCharacter?: ClassName[];
  lastCharacter?: ClassName[];
  maxRepeating?: number;
  maxSequential?: number;
}
type Options = PasswordOptions & Constraints;
const MIN = {
  lowercase: 'minLowercase',
  uppercase: 'minUppercase',
  numbers: 'minNumbers',
  symbols: 'minSymbols',
} as const;
const MAX = {
  lowercase: 'maxLowercase',
  uppercase: 'maxUppercase',
  numbers: 'maxNumbers',
  symbols: 'maxSymbols',
} as const;

/** Options whose included classes keep the given characters (the rest excluded). */
function optionsOf(kept: Partial<Record<ClassName, string>>, length: number, c: Constraints): Options {
  const excluded = CHARACTER_CLASSES.map((cls) =>
    [...cls.chars].filter((ch) => !(kept[cls.name] ?? '').includes(ch)).join(''),
  ).join('');
  return {
    length,
    includeLowercase: kept.lowercase !== undefined,
    includeUppercase: kept.uppercase !== undefined,
    includeNumbers: kept.numbers !== undefined,
    includeSymbols: kept.symbols !== undefined,
    avoidAmbiguous: false,
    excludedCharacters: excluded,
    passwordRules: undefined,
    ...c,
  };
}

/** The options' meaning, read from their definitions: is `s` a password they allow? */
function allowed(o: Options, s: string): boolean {
  const classOf = (ch: string) => CHARACTER_CLASSES.find((cls) => cls.chars.includes(ch))?.name;
  const included = CHARACTER_CLASSES.filter((cls) => o[cls.option]).map((cls) => cls.name);
  const counts = new Map(included.map((name) => [name, [...s].filter((ch) => classOf(ch) === name).length]));
  for (const name of included) {
    const min = o[MIN[name]] ?? (o.minClasses === undefined ? 1 : 0);
    if ((counts.get(name) ?? 0) < min) return false;
    if ((counts.get(name) ?? 0) > (o[MAX[name]] ?? Infinity)) return false;
  }
  if (o.minClasses !== undefined && included.filter((name) => (counts.get(name) ?? 0) > 0).length < o.minClasses)
    return false;
  if (o.firstCharacter && !o.firstCharacter.includes(classOf(s[0]) as ClassName)) return false;
  if (o.lastCharacter && !o.lastCharacter.includes(classOf(s[s.length - 1]) as ClassName)) return false;
  const ranged = (ch: string) => /[0-9A-Za-z]/.test(ch);
  for (let i = 0; i < s.length; i++)
    for (let j = i + 1; j <= s.length; j++) {
      const w = s.slice(i, j);
      if (o.maxRepeating !== undefined && w.length > o.maxRepeating && [...w].every((ch) => ch === w[0])) return false;
      if (o.maxSequential !== undefined && w.length > o.maxSequential && [...w].every(ranged))
        for (const step of [1, -1])
          if (
            [...w].every(
              (ch, k) => k === 0 || (ch.charCodeAt(0) - w.charCodeAt(k - 1) === step && classOf(ch) === classOf(w[0])),
            )
          )
            return false;
    }
  return true;
}

function strings(pool: string, length: number): string[] {
  let out = [''];
  for (let i = 0; i < length; i++) out = out.flatMap((s) => [...pool].map((c) => s + c));
  return out;
}

/** Small pools: up to 2 characters per class (runs like "ab" and "01" so sequences exist). */
function randomPool(): Partial<Record<ClassName, string>> {
  const kept: Partial<Record<ClassName, string>> = {};
  const samples = { lowercase: 'abc', uppercase: 'XY', numbers: '012', symbols: '!#' } as const;
  for (const name of NAMES) if (below(3) > 0) kept[name] = samples[name].slice(0, 1 + below(2));
  // The service refuses a pool of fewer than 2 characters whatever the constraints.
  if (Object.values(kept).join('').length < 2) kept.lowercase = 'ab';
  return kept;
}

type Kind = keyof Constraints | 'all' | 'maximums';
function randomConstraints(kind: Kind, kept: Partial<Record<ClassName, string>>, length: number): Constraints {
  const present = NAMES.filter((n) => kept[n] !== undefined);
  const some = () =>
    present
      .filter(() => below(2) === 0)
      .concat(present.length > 0 ? [] : [])
      .slice(0, 3);
  const pickSome = () => {
    const s = some();
    return s.length > 0 ? s : [present[below(present.length)]];
  };
  const c: Constraints = {};
  const on = (k: Kind) => kind === k || (kind === 'all' && below(2) === 0);
  for (const name of present)
    if (kind === MIN[name] || (kind === 'all' && below(3) === 0)) c[MIN[name]] = below(Math.min(3, length));
  if (on('minClasses')) c.minClasses = 1 + below(present.length);
  if (on('firstCharacter')) c.firstCharacter = pickSome();
  if (on('lastCharacter')) c.lastCharacter = pickSome();
  if (on('maxRepeating')) c.maxRepeating = 1 + below(3);
  if (on('maxSequential')) c.maxSequential = 1 + below(3);
  if (kind === 'maximums') {
    // Some classes at most 0 to length characters, a minimum beside some (never above the maximum).
    for (const name of present) {
      if (below(2) === 0) continue;
      c[MAX[name]] = below(length + 1);
      if (below(3) === 0) c[MIN[name]] = below((c[MAX[name]] as number) + 1);
      else if ((c[MAX[name]] as number) === 0) c[MIN[name]] = 0;
    }
    if (below(3) === 0) c.maxRepeating = 1 + below(3);
  }
  return c;
}

describe('password constraints: counts against enumeration', () => {
  const kinds: Kind[] = [
    'minLowercase',
    'minUppercase',
    'minNumbers',
    'minSymbols',
    'minClasses',
    'firstCharacter',
    'lastCharacter',
    'maxRepeating',
    'maxSequential',
    'all',
    'maximums',
  ];
  for (const kind of kinds) {
    it(`${kind}: 150 random small pools, the exact count and bits`, () => {
      let counted = 0;
      for (let i = 0; i < 150; i++) {
        const kept = randomPool();
        const pool = Object.values(kept).join('');
        const length = 2 + below(pool.length <= 3 ? 4 : 3);
        const o = optionsOf(kept, length, randomConstraints(kind, kept, length));
        const plan = planPassword(o);
        const expected = strings(pool, length).filter((s) => allowed(o, s)).length;
        const label = JSON.stringify(o);
        if (!isPlan(plan)) {
          assert.equal(expected, 0, `${label}: refused (${plan.error}) but ${expected} passwords exist`);
          continue;
        }
        assert.equal(plan.count, BigInt(expected), label);
        assert.equal(plan.bits, Math.log2(expected), label);
        counted++;
      }
      assert.ok(counted > 50, `${kind}: only ${counted} of 150 cases allowed a password`);
    });
  }
});

/** Chi-square of `n` passwords over every allowed string (expected uniform). */
function uniformity(plan: PasswordPlan, o: Options, draw: (p: PasswordPlan, n: number) => string[], n: number): number {
  const pool = plan.pool;
  const valid = strings(pool, o.length).filter((s) => allowed(o, s));
  const index = new Map(valid.map((s, i) => [s, i]));
  const counts = new Array<number>(valid.length).fill(0);
  for (const s of draw(plan, n)) {
    const i = index.get(s);
    assert.ok(i !== undefined, `drew ${s}, which the options do not allow`);
    counts[i]++;
  }
  return chiSquareTest(
    counts,
    counts.map(() => 1 / valid.length),
  ).p;
}

describe('password constraints: both samplers uniform, with teeth', () => {
  // Two numbers and a symbol at least, the first character a letter, no triple: 10,000 draws per
  // sampler over the few hundred allowed strings.
  const o = optionsOf({ lowercase: 'ab', numbers: '01', symbols: '!' }, 5, {
    minNumbers: 2,
    minSymbols: 1,
    firstCharacter: ['lowercase'],
    maxRepeating: 2,
  });
  const real = (p: PasswordPlan, n: number) => generatePasswords(p, defaultRandom, n);
  for (const sampler of ['rejection', 'exact'] as const) {
    it(`${sampler}: chi-square over every allowed string`, () => {
      const plan = planPassword(o, sampler);
      assert.ok(isPlan(plan) && plan.sampler === sampler);
      assert.ok(uniformity(plan, o, real, 10_000) > ALPHA);
    });
  }
  // Maximums: at most one digit and at most two symbols, a symbol at least.
  const capped = optionsOf({ lowercase: 'ab', numbers: '01', symbols: '!#' }, 4, {
    maxNumbers: 1,
    minSymbols: 1,
    maxSymbols: 2,
  });
  for (const sampler of ['rejection', 'exact'] as const) {
    it(`${sampler}, with maximums: chi-square over every allowed string`, () => {
      const plan = planPassword(capped, sampler);
      assert.ok(isPlan(plan) && plan.sampler === sampler);
      assert.ok(uniformity(plan, capped, real, 10_000) > ALPHA);
    });
  }
  it('teeth: placing the required characters first, then shuffling, fails', () => {
    const plan = planPassword(o);
    assert.ok(isPlan(plan));
    const placed = (p: PasswordPlan, n: number) => {
      const out: string[] = [];
      while (out.length < n) {
        const chars =
          ['0', '1'][below(2)] +
          ['0', '1'][below(2)] +
          '!' +
          p.pool[below(p.pool.length)] +
          p.pool[below(p.pool.length)];
        const shuffled = [...chars].sort(() => below(2) - 0.5);
        const s = shuffled.join('');
        if (allowed(o, s)) out.push(s);
      }
      return out;
    };
    assert.ok(uniformity(plan, o, placed, 10_000) < ALPHA);
  });
  it('teeth: a first character drawn by class, then uniform, fails', () => {
    const q = optionsOf({ lowercase: 'ab', numbers: '012' }, 4, { firstCharacter: ['lowercase', 'numbers'] });
    const plan = planPassword(q);
    assert.ok(isPlan(plan));
    const biased = (p: PasswordPlan, n: number) => {
      const out: string[] = [];
      while (out.length < n) {
        const head = below(2) === 0 ? 'ab'[below(2)] : '012'[below(3)];
        const s = head + Array.from({ length: 3 }, () => p.pool[below(p.pool.length)]).join('');
        if (allowed(q, s)) out.push(s);
      }
      return out;
    };
    assert.ok(uniformity(plan, q, real, 20_000) > ALPHA);
    assert.ok(uniformity(plan, q, biased, 20_000) < ALPHA);
  });
});

describe('the worked figures of docs/api.md and README.md, as the service counts them', () => {
  const plannedBits = (options: unknown) => {
    const r = validateRequest({ mode: 'password', options });
    assert.ok(r.ok && r.request.mode === 'password', JSON.stringify(options));
    const plan = planPassword(r.request.options);
    if (!isPlan(plan)) assert.fail(plan.error);
    return plan;
  };
  it('docs/api.md, Password constraints: each exact count is what the engine counts', () => {
    const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const table = doc.slice(doc.indexOf('<!-- constraint figures -->')).split('\n').slice(1);
    const rows = table
      .slice(
        0,
        table.findIndex((line) => !line.startsWith('|')),
      )
      .slice(2);
    assert.equal(rows.length, 3);
    for (const row of rows) {
      const [options, count, bits] = row
        .split(' | ')
        .map((cell) => cell.replace(/^\|\s*|\s*\|$/g, '').replace(/`/g, ''));
      const plan = plannedBits(JSON.parse(options));
      assert.equal(plan.count.toString(), count.replace(/,/g, ''), options);
      assert.equal(plan.bits.toFixed(2), bits, options);
    }
  });
  it('README.md: the curl example with constraints states the bits the engine counts', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const m = /-d '(\{"mode":"password","options":\{[^']*"minNumbers"[^']*\})' \\\n[^\n]*#=> ([\d.]+) bits/.exec(
      readme,
    );
    assert.ok(m);
    assert.equal(plannedBits((JSON.parse(m[1]) as { options: unknown }).options).bits.toFixed(2), m[2]);
  });
});
