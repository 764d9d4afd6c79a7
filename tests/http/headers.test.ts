/**
 * The two ways a reply's head is made (lib/http/headers.ts): HeadTemplate's filled copy, the
 * hot path of most JSON replies, and withRateLimit's appended fields, every other reply. They
 * must write the same fields in the same order with the same values.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { HeadTemplate, headerSets, policyOf, withRateLimit } from '../../lib/http/headers.ts';
import type { RateLimitState } from '../../lib/rate-limit/token-bucket.ts';

describe('HeadTemplate', () => {
  it('fills in the same head as withRateLimit plus Content-Length and X-Request-Id', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.integer({ min: 1, max: 1_000_000_000 }),
        fc.nat(),
        fc.nat(),
        fc.nat({ max: 1 << 20 }),
        fc.stringMatching(/^[A-Za-z0-9_-]{16}$/),
        (tls, limit, remaining, reset, length, id) => {
          const base = headerSets(tls).json;
          const policy = policyOf(limit);
          const rl: RateLimitState = { allowed: true, limit, remaining, resetSeconds: reset, retryAfterSeconds: 0 };
          const template = new HeadTemplate(base, limit, policy);
          const expected = [
            ...withRateLimit(base, rl, policy, 200),
            'Content-Length',
            String(length),
            'X-Request-Id',
            id,
          ];
          assert.deepEqual(template.fill(rl, length, id), expected);
          // Each fill is a fresh array: the template itself is never written.
          assert.deepEqual(template.fill(rl, length, id), expected);
        },
      ),
    );
  });

  it('writes the contract rate-limit fields with the draft fields after them', () => {
    const rl: RateLimitState = { allowed: true, limit: 20, remaining: 7, resetSeconds: 39, retryAfterSeconds: 0 };
    const head = new HeadTemplate([], 20, policyOf(20)).fill(rl, 12, 'abc');
    assert.deepEqual(head, [
      'X-RateLimit-Limit',
      '20',
      'X-RateLimit-Remaining',
      '7',
      'X-RateLimit-Reset',
      '39',
      'RateLimit-Policy',
      '"client";q=20;w=60',
      'RateLimit',
      '"client";r=7;t=39',
      'Content-Length',
      '12',
      'X-Request-Id',
      'abc',
    ]);
  });
});
