/**
 * The entropy floor: `minBits` in the request and the service's MIN_ENTROPY_BITS (the
 * `minEntropyBits` setting of generate()), decided from the plan's exact bits before anything
 * is drawn, in every mode; its message; and the parser shared by the variable and the page.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generate } from '../../lib/request/generate.ts';
import { floorError, MAX_MIN_BITS, parseEntropyFloor } from '../../lib/request/_entropy-floor.ts';
import { passphraseBits, log2BigInt } from '../../lib/core/entropy.ts';
import { countEachClassStrings } from '../helpers/each-class-count.ts';
import { createRandom } from '../../lib/core/random.ts';
import { requestSchema } from '../../lib/generated/schema.generated.ts';
import { scriptedFill, seededRandom } from '../helpers/seeded.ts';

/** A random source that fails the test if anything is drawn from it. */
const noDraws = () => createRandom(scriptedFill([]));

const PASSPHRASE_BITS = passphraseBits(7772, 4, false); // 51.70
const PASSWORD_8_BITS = log2BigInt(countEachClassStrings([26, 26, 10], 8)); // 47.18

describe('floorError', () => {
  it('passes at and above the floor, on the unrounded bits', () => {
    assert.equal(floorError(PASSPHRASE_BITS, PASSPHRASE_BITS, 0), null);
    assert.equal(floorError(PASSPHRASE_BITS, 0, PASSPHRASE_BITS), null);
    assert.equal(floorError(0, 0, 0), null);
    assert.notEqual(floorError(PASSPHRASE_BITS, PASSPHRASE_BITS + 1e-9, 0), null);
  });

  it("T31-floor: names the service's floor (without a minBits the client never sent) when it alone would refuse, else the request's", () => {
    assert.deepEqual(floorError(51.7, 60, 0), {
      error: 'minBits: these options give 51.70 bits, below the requested minimum of 60 bits',
      status: 400,
      field: 'minBits',
    });
    assert.deepEqual(floorError(51.7, 0, 60), {
      error: 'this service requires at least 60 bits; these options give 51.70 bits',
      status: 400,
      field: 'minBits',
    });
    assert.match(floorError(51.7, 60, 60)!.error, /^this service requires at least 60 bits; /);
    assert.match(floorError(51.7, 70, 60)!.error, /the requested minimum of 70 bits$/);
    assert.match(floorError(51.7, 60, 70)!.error, /^this service requires at least 70 bits; /);
  });

  it('never shows a figure that reads as reaching the floor: 47.996 bits against 48 is 47.99, not 48.00', () => {
    assert.match(floorError(47.996, 48, 0)!.error, /give 47\.99 bits/);
    assert.match(floorError(47.994, 48, 0)!.error, /give 47\.99 bits/);
    assert.match(
      floorError(47.996, 49, 0)!.error,
      /give 48\.00 bits/,
      'rounded as usual when that is still below the floor',
    );
    assert.match(floorError(0, 0.001, 0)!.error, /give 0\.00 bits, below the requested minimum of 0\.001 bits/);
  });
});

describe('parseEntropyFloor (MIN_ENTROPY_BITS and the page meta)', () => {
  it('takes decimal bits from 0 to the schema maximum of minBits', () => {
    assert.equal(MAX_MIN_BITS, requestSchema.properties.minBits.maximum);
    for (const [text, value] of [
      ['0', 0],
      ['64', 64],
      ['47.5', 47.5],
      ['080', 80],
      [String(MAX_MIN_BITS), MAX_MIN_BITS],
      ['100.125', 100.125],
    ] as const) {
      assert.equal(parseEntropyFloor(text), value, text);
    }
  });

  it('refuses anything else', () => {
    for (const text of [
      '',
      ' 64',
      '64 ',
      '-1',
      '257',
      '1000',
      '0x40',
      '1e2',
      'Infinity',
      'NaN',
      '64.',
      '.5',
      '6_4',
      '64bits',
      '1.1234567',
    ]) {
      assert.equal(parseEntropyFloor(text), null, JSON.stringify(text));
    }
  });
});

describe('the floor in generate()', () => {
  const cases: [string, unknown, number][] = [
    ['a password of the classes', { mode: 'password', options: { length: 8 } }, PASSWORD_8_BITS],
    [
      'a password to a rule',
      {
        mode: 'password',
        options: {
          length: 8,
          passwordRules: 'allowed: lower, upper, digit; required: lower; required: upper; required: digit',
        },
      },
      PASSWORD_8_BITS,
    ],
    ['a passphrase', { mode: 'passphrase' }, PASSPHRASE_BITS],
    [
      'a passphrase with digit separators',
      { mode: 'passphrase', options: { separator: 'digit' } },
      passphraseBits(7772, 4, false, 10),
    ],
  ];
  for (const [name, input, bits] of cases) {
    it(`${name}: refused below either floor before any draw, accepted at exactly its bits`, () => {
      const body = input as Record<string, unknown>;
      const shown = (Math.round(bits * 100) / 100).toFixed(2);
      const byRequest = generate({ ...body, minBits: bits + 0.01 }, noDraws());
      assert.deepEqual(byRequest, {
        status: 400,
        body: {
          error: `minBits: these options give ${shown} bits, below the requested minimum of ${bits + 0.01} bits`,
          status: 400,
          field: 'minBits',
        },
      });
      const byService = generate(body, noDraws(), { minEntropyBits: Math.ceil(bits) });
      assert.deepEqual(byService.body, {
        error: `this service requires at least ${Math.ceil(bits)} bits; these options give ${shown} bits`,
        status: 400,
        field: 'minBits',
      });
      assert.equal(generate({ ...body, minBits: bits }, seededRandom(1), { minEntropyBits: bits }).status, 200);
    });
  }

  it('without settings there is no service floor; minBits 0 and absent are the same', () => {
    assert.equal(generate({ mode: 'passphrase', minBits: 0 }).status, 200);
    assert.deepEqual(
      generate({ mode: 'passphrase', minBits: 0 }, seededRandom(5)),
      generate({ mode: 'passphrase' }, seededRandom(5)),
    );
    assert.equal(generate({ mode: 'passphrase' }, seededRandom(5), { minEntropyBits: 0 }).status, 200);
  });

  it('checks the request first: a bad option is named before the floor is looked at', () => {
    assert.deepEqual(
      generate({ mode: 'passphrase', options: { wordCount: 3 } }, noDraws(), { minEntropyBits: MAX_MIN_BITS }).body,
      {
        error: 'options.wordCount must be between 4 and 8',
        status: 400,
        field: 'options.wordCount',
      },
    );
  });

  it('the highest floor a request may ask for is still reachable (a 128-character password)', () => {
    assert.equal(generate({ mode: 'password', minBits: MAX_MIN_BITS, options: { length: 128 } }).status, 200);
  });
});
