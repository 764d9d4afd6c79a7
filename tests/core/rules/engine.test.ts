/**
 * The prototype exact engine (lib/core/rules/engine.ts) against brute force: for each
 * constraint kind, 1,000 random small cases whose every string is enumerated and judged by the
 * independent checker (tests/helpers/rules-checker.ts); the engine's count must equal the
 * number of valid strings, and on the smaller ones its unranking must be a bijection onto them.
 * Also equal to the service's counts (plan.ts's spec, counted by ../engine.ts) on every case.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { countTables } from '../../../lib/core/engine.ts';
import { compile, countMachine, unrankMachine, type EngineSpec } from '../../../lib/core/rules/engine.ts';
import { ruleSpec } from '../../../lib/core/rules/plan.ts';
import { violation, type CheckerRule } from '../../helpers/rules-checker.ts';
import { seededRandom } from '../../helpers/seeded.ts';

/** Chains of letters and digits to make sequences, and two characters outside every range. */
const UNIVERSE = 'abcdxyzABC0189#!';
const CLASSES = ['abcdxyz', 'ABC', '0189', '#!'];

const random = seededRandom(29);
const below = (n: number) => random.below(n);

function pick(pool: string, most: number): string {
  const chars = [...pool].filter(() => below(2) === 0);
  while (chars.length > most) chars.splice(below(chars.length), 1);
  return chars.sort().join('');
}

function strings(alphabet: string, length: number): string[] {
  let out = [''];
  for (let i = 0; i < length; i++) out = out.flatMap((s) => [...alphabet].map((c) => s + c));
  return out;
}

interface Case {
  readonly alphabet: string;
  readonly required: readonly string[];
  readonly length: number;
  readonly maxRepeating: number | null;
  readonly maxSequential: number | null;
}

function check(c: Case): number {
  const spec: EngineSpec = {
    codes: [...c.alphabet].map((ch) => ch.charCodeAt(0)),
    required: c.required.map((set) => [...set].map((ch) => ch.charCodeAt(0))),
    length: c.length,
    maxRepeating: c.maxRepeating,
    maxSequential: c.maxSequential,
  };
  const checker: CheckerRule = {
    allowed: new Set(c.alphabet),
    required: c.required.map((set) => new Set(set)),
    minLength: 0,
    maxLength: Infinity,
    maxRepeating: c.maxRepeating ?? Infinity,
    maxSequential: c.maxSequential ?? Infinity,
  };
  const valid = strings(c.alphabet, c.length).filter((s) => violation(checker, s) === null);
  const tables = countMachine(compile(spec));
  const label = JSON.stringify(c);
  assert.equal(tables.count, BigInt(valid.length), label);
  const service = countTables(
    ruleSpec(
      {
        allowed: c.alphabet,
        required: c.required,
        minLength: null,
        maxLength: null,
        maxRepeating: c.maxRepeating,
        maxSequential: c.maxSequential,
        text: '',
        unicodeAsAsciiPrintable: false,
      },
      c.length,
    ),
  );
  assert.equal(service.count, tables.count, `${label}: the service's count`);
  // The last rank walks past every other move at every step, so it weighs them all.
  if (tables.count > 0n) {
    const s = String.fromCharCode(...unrankMachine(tables, tables.count - 1n));
    assert.equal(violation(checker, s), null, `${label}: the last rank gave ${s}`);
  }
  if (valid.length <= 300) {
    const drawn = new Set<string>();
    for (let r = 0n; r < tables.count; r++) {
      const s = String.fromCharCode(...unrankMachine(tables, r));
      assert.equal(violation(checker, s), null, `${label}: rank ${r} gave ${s}`);
      drawn.add(s);
    }
    assert.equal(drawn.size, valid.length, `${label}: unranking is one to one`);
  }
  return valid.length;
}

/** A length that keeps the enumeration under about 1,000 strings. */
const lengthFor = (n: number) => Math.max(1, Math.min(5, Math.floor(Math.log(1000) / Math.log(Math.max(n, 2)))));

const KINDS: Record<string, () => Case> = {
  'required sets (site rules)': () => {
    const alphabet = pick(UNIVERSE, 6) || 'ab';
    const required = Array.from({ length: 1 + below(3) }, () => pick(alphabet, 3)).filter((r) => r !== '');
    return {
      alphabet,
      required,
      length: 1 + below(lengthFor(alphabet.length)),
      maxRepeating: null,
      maxSequential: null,
    };
  },
  'each class at least once, with exclusions (the password mode)': () => {
    const classes = CLASSES.filter(() => below(3) > 0)
      .map((cls) => pick(cls, 2))
      .filter((k) => k !== '');
    const alphabet = [...classes.join('')].sort().join('') || 'a';
    return {
      alphabet,
      required: classes,
      length: 1 + below(lengthFor(alphabet.length)),
      maxRepeating: null,
      maxSequential: null,
    };
  },
  'max-repeating': () => {
    const alphabet = pick(UNIVERSE, 5) || 'a';
    const required = below(2) === 0 ? [pick(alphabet, 2)].filter((r) => r !== '') : [];
    return {
      alphabet,
      required,
      length: 1 + below(lengthFor(alphabet.length)),
      maxRepeating: 1 + below(3),
      maxSequential: null,
    };
  },
  'max-sequential (and max-repeating)': () => {
    const alphabet = pick('abcdeABC0129#', 6) || 'ab';
    const required = below(2) === 0 ? [pick(alphabet, 2)].filter((r) => r !== '') : [];
    return {
      alphabet,
      required,
      length: 1 + below(lengthFor(alphabet.length)),
      maxRepeating: below(2) === 0 ? 1 + below(3) : null,
      maxSequential: 1 + below(3),
    };
  },
  'max-sequential with several required sets cutting the chains': () => {
    const alphabet = pick('abcdeABCD0123#', 7) || 'ab';
    const required = Array.from({ length: 1 + below(3) }, () => pick(alphabet, 2)).filter((r) => r !== '');
    return {
      alphabet,
      required,
      length: 1 + below(lengthFor(alphabet.length)),
      maxRepeating: below(2) === 0 ? 1 + below(3) : null,
      maxSequential: 1 + below(3),
    };
  },
  'long chains under max-sequential 2 to 4 (runs longer than what is left to place)': () => {
    const alphabet = ['abcde', 'abcdef', 'bcdefg', 'abcd01', 'abcde9', 'cdef123'][below(6)];
    const required = below(2) === 0 ? [pick(alphabet, 2)].filter((r) => r !== '') : [];
    return {
      alphabet,
      required,
      length: 1 + below(lengthFor(alphabet.length)),
      maxRepeating: below(2) === 0 ? 1 + below(3) : null,
      maxSequential: 2 + below(3),
    };
  },
};

describe('the prototype exact engine against brute force', () => {
  for (const [kind, make] of Object.entries(KINDS)) {
    it(`${kind}: 1,000 random small cases, counts equal to enumeration and to the service's, unranking one to one`, () => {
      let strings = 0;
      for (let i = 0; i < 1000; i++) strings += check(make());
      process.stdout.write(`engine, ${kind}: 1,000 cases, ${strings} valid strings\n`);
    });
  }

  it("prices a rule before any BigInt work and stops as soon as the multisets found exceed the budget (T4's first rule)", () => {
    const lower = 'abcdefghijklmnopqrstuvwxyz';
    const allowed = [...`0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ${lower}`].map((c) => c.charCodeAt(0));
    const spec: EngineSpec = {
      codes: allowed,
      required: [...'bejsCHP5'].map((c) => [c.charCodeAt(0)]),
      length: 128,
      maxRepeating: 2,
      maxSequential: 1,
    };
    const full = compile(spec);
    assert.ok(full.countWork > 500_000 && Number.isFinite(full.countWork));
    const priced = compile(spec, 500_000);
    assert.equal(priced.countWork, Infinity);
    assert.deepEqual(priced.terms, []);
    // Under a budget it fits, the same terms as with none.
    assert.deepEqual(compile(spec, full.countWork).terms, full.terms);
  });

  it('has teeth: a machine that forgets one limit or one required set counts differently', () => {
    const base = { codes: [...'abc0'].map((c) => c.charCodeAt(0)), required: [[0x30]], length: 4 };
    const full = countMachine(compile({ ...base, maxRepeating: 1, maxSequential: 1 })).count;
    assert.notEqual(countMachine(compile({ ...base, maxRepeating: null, maxSequential: 1 })).count, full);
    assert.notEqual(countMachine(compile({ ...base, maxRepeating: 1, maxSequential: null })).count, full);
    assert.notEqual(countMachine(compile({ ...base, required: [], maxRepeating: 1, maxSequential: 1 })).count, full);
    assert.throws(
      () => unrankMachine(countMachine(compile({ ...base, maxRepeating: 1, maxSequential: 1 })), full),
      RangeError,
    );
  });
});
