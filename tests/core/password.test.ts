import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generate } from '../../lib/request/generate.ts';
import { generatePasswords, isPlan, planPassword, type PasswordPlan } from '../../lib/core/password.ts';
import {
  passphraseOptionsKey as passphrasePlanKey,
  passwordOptionsKey as passwordPlanKey,
} from '../../lib/generated/options.generated.ts';
import { createRandom } from '../../lib/core/random.ts';
import { classBits } from '../helpers/pool-classes.ts';
import { validateRequest, type PassphraseOptions, type PasswordOptions } from '../../lib/request/validate.ts';
import { AMBIGUOUS_CHARACTERS, CHARACTER_CLASSES } from '../../lib/core/charsets.ts';
import { scriptedFill, seededFill, seededRandom } from '../helpers/seeded.ts';
import { requestSchema } from '../../lib/generated/schema.generated.ts';
import { planPassphrase } from '../../lib/core/passphrase.ts';
import { remember } from '../../lib/request/plan-store.ts';
import { mapStore } from '../helpers/map-store.ts';
import { countEachClassStrings } from '../helpers/each-class-count.ts';

/** Plans through a store, as generate() gets them with the server's memo. */
const store = mapStore();
const cachedPlanPassword = (o: PasswordOptions) => remember(store, passwordPlanKey(o), o, planPassword, () => 0);
const cachedPlanPassphrase = (o: PassphraseOptions) =>
  remember(store, passphrasePlanKey(o), o, planPassphrase, () => 0);

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
    assert.equal(p.pool, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789');
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
    assert.equal(p.pool.slice(62), '!@#$%^&*()-_=+[]{};:,.?');
  });

  it('leaves out 0O1Il5S8B with avoidAmbiguous', () => {
    const p = plan({ avoidAmbiguous: true });
    for (const c of AMBIGUOUS_CHARACTERS) assert.ok(!p.pool.includes(c), c);
    assert.deepEqual(
      p.metadata.classes.map((c) => c.size),
      [25, 22, 6],
    );
    assert.equal(p.metadata.poolSize, 53);
  });

  it('leaves out excludedCharacters, ignoring characters outside the pool and repeats', () => {
    const p = plan({ excludedCharacters: 'aaé€ 🙂Z9' });
    assert.deepEqual(
      p.metadata.classes.map((c) => c.size),
      [25, 25, 9],
    );
    for (const c of 'aZ9') assert.ok(!p.pool.includes(c));
  });

  it('uses only the enabled classes', () => {
    const p = plan({ includeLowercase: false, includeUppercase: false, includeSymbols: true });
    assert.deepEqual(
      p.metadata.classes.map((c) => c.name),
      ['numbers', 'symbols'],
    );
    assert.equal(p.pool.length, 33);
  });

  it('computes the exact each-class entropy into the plan', () => {
    assert.deepEqual({ ...plan({ length: 8 }).entropy }, { bits: 47.18, label: 'Weak', level: 0 });
    assert.deepEqual({ ...plan().entropy }, { bits: 142.88, label: 'Excellent', level: 4 });
  });

  it('reports errors as 400 bodies with the field', () => {
    assert.deepEqual(
      planPassword(options({ includeLowercase: false, includeUppercase: false, includeNumbers: false })),
      {
        error: 'options must enable at least one of includeLowercase, includeUppercase, includeNumbers, includeSymbols',
        status: 400,
        field: 'options',
      },
    );
    const symbolsGone = planPassword(options({ includeSymbols: true, excludedCharacters: CHARACTER_CLASSES[3].chars }));
    assert.equal(isPlan(symbolsGone), false);
    assert.equal((symbolsGone as { field: string }).field, 'options.excludedCharacters');
  });

  it('keys plans by option set: one plan for equal options, another for any change', () => {
    const o = options({ length: 33 });
    assert.equal(cachedPlanPassword(o), cachedPlanPassword({ ...o }));
    const before = store.size;
    for (let i = 0; i < 60; i++) cachedPlanPassword(options({ excludedCharacters: `${i}` }));
    assert.equal(store.size, before + 60);
    assert.ok(isPlan(cachedPlanPassword(o)));
    assert.ok(passwordPlanKey(o).startsWith('PasswordOptions '));
  });
});

describe('generatePassword', () => {
  it('gives the same output for the same seed (vectors, re-pinned for one draw per character)', () => {
    const vectors: [unknown, string[]][] = [
      [{ mode: 'password' }, ['hHLPDIxUckvKFT0XFZNYy7Kt']],
      [
        { mode: 'password', count: 3, options: { length: 8, includeSymbols: true } },
        ['w(+}GYL5', 'Xh[7]*st', 'i#G0:NHP'],
      ],
      [
        {
          mode: 'password',
          options: { length: 12, avoidAmbiguous: true, includeSymbols: true, excludedCharacters: '{}[]' },
        },
        ['hKUFZ+NHH7zN'],
      ],
    ];
    for (const [input, expected] of vectors) {
      const a = generate(input, seededRandom(42));
      const b = generate(input, seededRandom(42));
      assert.equal(a.status, 200);
      assert.deepEqual(a, b);
      assert.deepEqual(a.status === 200 && a.body.results.map((r) => r.value), expected);
    }
    assert.notDeepEqual(
      generate({ mode: 'password' }, seededRandom(43)),
      generate({ mode: 'password' }, seededRandom(42)),
    );
  });

  /**
   * The draw order written out independently of the generator: each character is the low k
   * bits of the next word (2^k the smallest power of two >= N), redrawn when N or more; a
   * password missing a class is drawn again, whole.
   */
  function decodeWords(pool: string, length: number, words: Iterator<number>, valid: (s: string) => boolean): string {
    const bits = Math.ceil(Math.log2(pool.length));
    for (;;) {
      let value = '';
      while (value.length < length) {
        const v = words.next().value! % 2 ** bits;
        if (v < pool.length) value += pool[v];
      }
      if (valid(value)) return value;
    }
  }

  function* seededWords(seed: number): Generator<number> {
    const fill = seededFill(seed);
    const buffer = new Uint32Array(64);
    for (;;) {
      fill(buffer);
      yield* buffer;
    }
  }

  const POOL_62 = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const hasAll = (s: string) => /[a-z]/.test(s) && /[A-Z]/.test(s) && /[0-9]/.test(s);

  it('is one draw per character: the output matches an independent decoding of the seeded words', () => {
    for (const length of [8, 9, 24, 128]) {
      const rng = seededRandom(7);
      const words = seededWords(7);
      const p = plan({ length });
      for (let i = 0; i < 20; i++)
        assert.equal(
          generatePasswords(p, rng, 1)[0],
          decodeWords(POOL_62, length, words, hasAll),
          `length ${length}, #${i}`,
        );
    }
  });

  it('gives a batch the draws of one password after another', () => {
    for (const length of [24, 9]) {
      const p = plan({ length });
      const single = seededRandom(5);
      const expected = Array.from({ length: 20 }, () => generatePasswords(p, single, 1)[0]);
      assert.deepEqual(generatePasswords(p, seededRandom(5), 20), expected);
    }
  });

  it('maps each draw to the pool character of that index', () => {
    // Pool "0123456789!@#..." (numbers + symbols, 33: 6 bits per draw, 33 to 63 redrawn).
    const p = plan({ includeLowercase: false, includeUppercase: false, includeSymbols: true, length: 8 });
    const random = createRandom(scriptedFill([0, 10, 33, 63, 32, 1, 2, 3, 64 + 4, 5]), 10);
    assert.equal(generatePasswords(p, random, 1)[0], '0!?12345');
  });

  it('redraws the whole password when a class is missing (never patches it)', () => {
    const p = plan({ includeLowercase: false, includeUppercase: false, includeSymbols: true, length: 8 });
    const digitsOnly = [0, 1, 2, 3, 4, 5, 6, 7];
    const mixed = [10, 1, 2, 3, 4, 5, 6, 7];
    const random = createRandom(scriptedFill([...digitsOnly, ...mixed]), 16);
    assert.equal(generatePasswords(p, random, 1)[0], '!1234567');
  });

  it('always holds every enabled class, only pool characters, and the exact length', () => {
    const rng = seededRandom(1);
    for (const given of [
      {},
      { includeSymbols: true, length: 8 },
      { avoidAmbiguous: true, length: 128 },
      { includeLowercase: false, excludedCharacters: 'ABCDEFGHIJKLMNOPQRSTUVWXY' },
      { length: 9, includeSymbols: true },
      { length: 11 },
    ]) {
      const p = plan(given);
      for (const v of [
        ...generatePasswords(p, rng, 20),
        ...Array.from({ length: 100 }, () => generatePasswords(p, rng, 1)[0]),
      ]) {
        assert.equal(v.length, p.length);
        const classesSeen = new Set<number>();
        for (const ch of v) {
          const j = p.pool.indexOf(ch);
          assert.ok(j >= 0, `character outside the pool: ${ch}`);
          classesSeen.add(classBits(p)[j]);
        }
        assert.equal(classesSeen.size, p.metadata.classes.length);
      }
    }
  });
});

describe('plan caches follow the schema', () => {
  /** The other valid values of one option worth trying, read off its schema node. */
  function otherValues(node: Record<string, unknown>): unknown[] {
    if (Array.isArray(node.enum)) return node.enum.filter((v) => v !== node.default);
    if (node.type === 'boolean') return [!node.default];
    if (node.type === 'integer') return [node.minimum, node.maximum].filter((v) => v !== node.default);
    if (node.type === 'string') return ['abc'];
    const items = node.items as { enum?: unknown[] } | undefined;
    if (node.type === 'array' && Array.isArray(items?.enum)) return [items.enum.slice(0, 1), items.enum.slice(0, 2)];
    return [];
  }

  for (const [def, key] of [
    ['PasswordOptions', passwordPlanKey],
    ['PassphraseOptions', passphrasePlanKey],
  ] as const) {
    it(`${def}: the store key, generated from the schema, changes with every one option`, () => {
      const properties = requestSchema.$defs[def].properties as Record<string, Record<string, unknown>>;
      const defaults = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, v.default]));
      const base = (key as (o: unknown) => string)(defaults);
      assert.ok(base.startsWith(`${def} `));
      for (const [name, node] of Object.entries(properties)) {
        for (const value of [...otherValues(node), ...(node.type === 'string' && !node.enum ? ['a b', ''] : [])]) {
          if (value === defaults[name]) continue;
          assert.notEqual((key as (o: unknown) => string)({ ...defaults, [name]: value }), base, `${def}.${name}`);
        }
      }
    });
  }

  it('free text cannot make two option sets share a key (it is length-prefixed)', () => {
    const o = options();
    assert.notEqual(
      passwordPlanKey({ ...o, excludedCharacters: 'a', passwordRules: 'b' }),
      passwordPlanKey({ ...o, excludedCharacters: 'a 1:b', passwordRules: undefined }),
    );
  });

  for (const [def, cached, plain] of [
    ['PasswordOptions', cachedPlanPassword, planPassword],
    ['PassphraseOptions', cachedPlanPassphrase, planPassphrase],
  ] as const) {
    it(`${def}: changing any one option gives the plan planning would give (no stale cache hit)`, () => {
      const properties = requestSchema.$defs[def].properties as Record<string, Record<string, unknown>>;
      const defaults = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, v.default]));
      (cached as (o: unknown) => unknown)(defaults);
      for (const [key, node] of Object.entries(properties)) {
        const values = otherValues(node);
        assert.ok(values.length > 0, `no other value known for ${def}.${key}: extend otherValues`);
        for (const value of values) {
          const changed = { ...defaults, [key]: value };
          assert.deepEqual(
            (cached as (o: unknown) => unknown)(changed),
            (plain as (o: unknown) => unknown)(changed),
            `${def}.${key} = ${JSON.stringify(value)}`,
          );
        }
      }
    });
  }
});

/** The plan of the four classes cut to the given sizes (a prefix of each class's characters). */
function planOfSizes(sizes: readonly number[], length: number): PasswordPlan {
  const names = ['includeLowercase', 'includeUppercase', 'includeNumbers', 'includeSymbols'] as const;
  const excluded = CHARACTER_CLASSES.slice(0, sizes.length)
    .map((c, i) => c.chars.slice(sizes[i]))
    .join('');
  const given: Partial<PasswordOptions> = { length, excludedCharacters: excluded };
  names.forEach((name, i) => (given[name] = i < sizes.length));
  const plan = planPassword(options(given));
  if (!isPlan(plan)) assert.fail(plan.error);
  return plan;
}

describe('the password count (the engine) against inclusion-exclusion and enumeration', () => {
  for (const [sizes, length] of [
    [[2, 3], 8],
    [[1, 1, 1], 8],
    [[3, 2, 1, 2], 8],
    [[4, 1], 9],
    [[2, 2, 2, 2], 8],
  ] as [number[], number][]) {
    it(`classes ${JSON.stringify(sizes)} at length ${length}`, () => {
      assert.equal(planOfSizes(sizes, length).count, countEachClassStrings(sizes, length));
    });
  }
  it('is exact far past 2^53 and as inclusion-exclusion at 128 characters of all four classes', () => {
    const plan = planOfSizes([26, 26, 10, 23], 128);
    assert.equal(plan.count, countEachClassStrings([26, 26, 10, 23], 128));
    assert.ok(plan.count < 85n ** 128n && plan.count > 84n ** 128n);
    assert.equal(plan.bits.toFixed(2), '820.40');
  });
  it('gives 47.18 bits for 8 characters of a-z A-Z 0-9 (naive 8 log2 62 = 47.63 over-counts)', () => {
    assert.equal(planOfSizes([26, 26, 10], 8).bits.toFixed(2), '47.18');
    assert.equal((8 * Math.log2(62)).toFixed(2), '47.63');
  });
  it('gives 142.88 bits for the default 24 characters, and L log2 N for a single class', () => {
    assert.equal(planOfSizes([26, 26, 10], 24).bits.toFixed(2), '142.88');
    assert.ok(Math.abs(planOfSizes([26], 8).bits - 8 * Math.log2(26)) < 1e-12);
  });
});
