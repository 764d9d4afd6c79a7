import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generate } from '../../lib/core/generate.ts';
import { cachedPlanPassword, generatePassword, isPlan, planPassword, type PasswordPlan } from '../../lib/core/password.ts';
import { createRandom } from '../../lib/core/random.ts';
import { validateRequest, type PasswordOptions } from '../../lib/core/validate.ts';
import { AMBIGUOUS_CHARACTERS, CHARACTER_CLASSES } from '../../lib/core/charsets.ts';
import { scriptedFill, seededRandom } from '../helpers/seeded.ts';

function options(given: Partial<PasswordOptions> = {}): PasswordOptions {
  const r = validateRequest({ mode: 'password', options: given });
  assert.ok(r.ok && r.request.mode === 'password');
  return r.request.options;
}

function plan(given: Partial<PasswordOptions> = {}): PasswordPlan {
  const p = planPassword(options(given));
  assert.ok(isPlan(p));
  return p;
}

describe('password pool', () => {
  it('is a-z A-Z 0-9 by default (62), in class order', () => {
    const p = plan();
    assert.equal(p.pool.join(''), 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789');
    assert.deepEqual(p.metadata, {
      entropyMode: 'uniform-each-class',
      poolSize: 62,
      length: 24,
      classes: [
        { name: 'lowercase', size: 26 },
        { name: 'uppercase', size: 26 },
        { name: 'numbers', size: 10 },
      ],
    });
  });

  it('adds the 23 contract symbols with includeSymbols (85)', () => {
    const p = plan({ includeSymbols: true });
    assert.equal(p.pool.length, 85);
    assert.equal(p.pool.slice(62).join(''), '!@#$%^&*()-_=+[]{};:,.?');
  });

  it('leaves out 0O1Il5S8B with avoidAmbiguous', () => {
    const p = plan({ avoidAmbiguous: true });
    for (const c of AMBIGUOUS_CHARACTERS) assert.ok(!p.pool.includes(c), c);
    assert.deepEqual(p.metadata.classes.map((c) => c.size), [25, 22, 6]);
    assert.equal(p.metadata.poolSize, 53);
  });

  it('leaves out excludedCharacters, ignoring characters outside the pool and repeats', () => {
    const p = plan({ excludedCharacters: 'aaé€ 🙂Z9' });
    assert.deepEqual(p.metadata.classes.map((c) => c.size), [25, 25, 9]);
    for (const c of 'aZ9') assert.ok(!p.pool.includes(c));
  });

  it('uses only the enabled classes', () => {
    const p = plan({ includeLowercase: false, includeUppercase: false, includeSymbols: true });
    assert.deepEqual(p.metadata.classes.map((c) => c.name), ['numbers', 'symbols']);
    assert.equal(p.pool.length, 33);
  });

  it('computes the exact each-class entropy into the plan', () => {
    assert.deepEqual({ ...plan({ length: 8 }).entropy }, { bits: 47.18, label: 'Weak', level: 0 });
    assert.deepEqual({ ...plan().entropy }, { bits: 142.88, label: 'Excellent', level: 4 });
  });

  it('reports errors as 400 bodies with the field', () => {
    assert.deepEqual(planPassword(options({ includeLowercase: false, includeUppercase: false, includeNumbers: false })), {
      error: 'options must enable at least one of includeLowercase, includeUppercase, includeNumbers, includeSymbols',
      status: 400,
      field: 'options',
    });
    const symbolsGone = planPassword(options({ includeSymbols: true, excludedCharacters: CHARACTER_CLASSES[3].chars }));
    assert.equal(isPlan(symbolsGone), false);
    assert.equal((symbolsGone as { field: string }).field, 'options.excludedCharacters');
  });

  it('caches plans per option set and stays bounded', () => {
    const o = options({ length: 33 });
    assert.equal(cachedPlanPassword(o), cachedPlanPassword({ ...o }));
    for (let i = 0; i < 600; i++) cachedPlanPassword(options({ excludedCharacters: `${i}` }));
    assert.ok(isPlan(cachedPlanPassword(o)));
  });
});

describe('generatePassword', () => {
  it('gives the same output for the same seed (vectors)', () => {
    const vectors: [unknown, string[]][] = [
      [{ mode: 'password' }, ['2sHXgKeLYZ5wYRDFpwBmUUAy']],
      [{ mode: 'password', count: 3, options: { length: 8, includeSymbols: true } }, ['Pne5r3]a', '?mU,N3qO', '3opeQ.bU']],
      [
        { mode: 'password', options: { length: 12, avoidAmbiguous: true, includeSymbols: true, excludedCharacters: '{}[]' } },
        ['R4P4Pt?gL^,N'],
      ],
    ];
    for (const [input, expected] of vectors) {
      const a = generate(input, seededRandom(42));
      const b = generate(input, seededRandom(42));
      assert.equal(a.status, 200);
      assert.deepEqual(a, b);
      assert.deepEqual(a.status === 200 && a.body.results.map((r) => r.value), expected);
    }
    assert.notDeepEqual(generate({ mode: 'password' }, seededRandom(43)), generate({ mode: 'password' }, seededRandom(42)));
  });

  it('is one uniform draw per character: the vector matches an independent pool lookup', () => {
    const rng = seededRandom(7);
    const ref = seededRandom(7);
    const p = plan({ length: 16 });
    const pool = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
    const value = generatePassword(p, rng);
    let expected = '';
    for (;;) {
      expected = '';
      for (let i = 0; i < 16; i++) expected += pool[ref.below(62)];
      if (/[a-z]/.test(expected) && /[A-Z]/.test(expected) && /[0-9]/.test(expected)) break;
    }
    assert.equal(value, expected);
  });

  it('redraws the whole password when a class is missing (never patches it)', () => {
    // Pool "0123456789!@#..." (numbers + symbols, 33): first draw all digits, second mixed.
    const p = plan({ includeLowercase: false, includeUppercase: false, includeSymbols: true, length: 8 });
    const digitsOnly = [0, 1, 2, 3, 4, 5, 6, 7];
    const mixed = [10, 1, 2, 3, 4, 5, 6, 7];
    const random = createRandom(scriptedFill([...digitsOnly, ...mixed]), 16);
    assert.equal(generatePassword(p, random), '!1234567');
  });

  it('always holds every enabled class, only pool characters, and the exact length', () => {
    const rng = seededRandom(1);
    for (const given of [{}, { includeSymbols: true, length: 8 }, { avoidAmbiguous: true, length: 128 }, { includeLowercase: false, excludedCharacters: 'ABCDEFGHIJKLMNOPQRSTUVWXY' }]) {
      const p = plan(given);
      for (let i = 0; i < 300; i++) {
        const v = generatePassword(p, rng);
        assert.equal(v.length, p.length);
        const classesSeen = new Set<number>();
        for (const ch of v) {
          const j = p.pool.indexOf(ch);
          assert.ok(j >= 0, `character outside the pool: ${ch}`);
          classesSeen.add(p.classBit[j]);
        }
        assert.equal(classesSeen.size, p.metadata.classes.length);
      }
    }
  });
});
