/**
 * The server's plan memo (security finding T4): bounded in bytes, and one client cycling costly
 * rules does not flush the plans the others use.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isRulesPlan, planRulesRequest } from '../../lib/request/password-rules.ts';
import { PLAN_MEMO_BYTES, PlanMemo } from '../../lib/http/plan-memo.ts';

describe('T4: the plan memo', () => {
  it('T4: one client cycling costly rules, each requested as often as the other client asks for its own, does not flush that plan', () => {
    // A digit and a letter required among digits and lower-case letters, no character repeated or
    // next to its neighbour, 60 long: rejection would keep about 1 draw in 200 (it needs 1 in 32),
    // so each plan holds the exact sampler's tables (about 1 MB by the memo's estimate): twenty of
    // them are more than the memo's 16 MB (PLAN_MEMO_BYTES).
    const costly = (c: string) => ({
      text: `allowed: digit, lower; required: [1]; required: [${c}]; max-consecutive: 1`,
      length: 60,
    });
    const memo = new PlanMemo();
    const mine = costly('a');
    const first = planRulesRequest(mine, memo);
    assert.ok(isRulesPlan(first) && first.sampler === 'exact');
    assert.equal(planRulesRequest(mine, memo), first);
    for (const c of 'bcdefghijklmnopqrstu') {
      const other = costly(c);
      assert.ok(isRulesPlan(planRulesRequest(other, memo)));
      planRulesRequest(other, memo);
    }
    assert.equal(planRulesRequest(mine, memo), first, 'the plan requested as often survives');
    assert.ok(memo.bytes <= PLAN_MEMO_BYTES && memo.bytes > PLAN_MEMO_BYTES / 2);
  });
});

describe('PlanMemo', () => {
  const A = { a: 1 };
  const B = { b: 1 };

  it('keeps what fits, and a new key displaces only entries used less often than it was requested', () => {
    const memo = new PlanMemo(100, 16, 1000);
    assert.equal(memo.get('a'), undefined);
    assert.ok(memo.offer('a', A, 60));
    assert.equal(memo.get('a'), A);
    assert.equal(memo.frequency('a'), 2);
    // b is new (requested once): it would have to evict a (used twice), so it is not kept.
    assert.equal(memo.get('b'), undefined);
    assert.equal(memo.offer('b', B, 60), false);
    assert.equal(memo.get('a'), A);
    // Requested more often than a was used, b takes its place.
    for (let i = 0; i < 3; i++) memo.get('b');
    assert.ok(memo.offer('b', B, 60));
    assert.equal(memo.get('a'), undefined);
    assert.equal(memo.get('b'), B);
    assert.equal(memo.bytes, 60);
    assert.equal(memo.size, 1);
    // Too big for the bound, or already there: not kept.
    assert.equal(memo.offer('c', {}, 101), false);
    assert.equal(memo.offer('b', B, 10), false);
  });

  it('evicts the oldest of the entries used less often, only as many as it needs, and none when they do not free enough', () => {
    const memo = new PlanMemo(30, 16, 1000);
    for (const k of ['x', 'y', 'z']) {
      memo.get(k);
      assert.ok(memo.offer(k, { k }, 10));
    }
    memo.get('x'); // x used twice now, y and z once
    memo.get('w');
    memo.get('w');
    assert.ok(memo.offer('w', { k: 'w' }, 10)); // y is the oldest used less than twice
    assert.equal(memo.frequency('y'), 0);
    assert.deepEqual(memo.get('x'), { k: 'x' });
    assert.deepEqual(memo.get('z'), { k: 'z' });
    assert.equal(memo.size, 3);
    // v needs 20 bytes, and only entries used less than twice may go: none is, so nothing goes.
    memo.get('v');
    memo.get('v');
    assert.equal(memo.offer('v', {}, 20), false);
    assert.equal(memo.size, 3);
  });

  it('ages its counts: halved every window of misses, and the table of missed keys stays bounded', () => {
    const memo = new PlanMemo(10, 16, 8);
    for (let i = 0; i < 4; i++) memo.get('a');
    assert.equal(memo.frequency('a'), 4);
    for (let i = 0; i < 4; i++) memo.get('b'); // the 8th lookup halves a to 2
    assert.equal(memo.frequency('a'), 2);
    assert.ok(memo.offer('b', B, 5));
    for (let i = 0; i < 8; i++) memo.get('b'); // hits: counted, and no halving
    assert.equal(memo.frequency('b'), 10); // 2 when kept (its misses, halved once), then 8 hits
    for (let i = 0; i < 8; i++) memo.get(`miss ${i}`); // a window of misses halves b's uses too
    assert.equal(memo.frequency('b'), 5);
    const many = new PlanMemo(10, 2, 1000);
    for (let i = 0; i < 3; i++) many.get('p');
    for (let i = 0; i < 3; i++) many.get('q');
    many.get('r'); // full: halving leaves p and q at 1, so r is not counted
    assert.equal(many.frequency('r'), 0);
    assert.equal(many.frequency('p'), 1);
    many.get('s'); // full again: halving forgets p and q, s is counted
    assert.equal(many.frequency('s'), 1);
    assert.equal(many.frequency('p'), 0);
  });
});
