/**
 * The exact engine (lib/core/engine.ts) on the 434-rule corpus, straight from the parsed rule
 * (not through the planner): at each accepted rule's shortest and longest length, the first,
 * the last and a seeded rank unrank to passwords the independent checker
 * (tests/helpers/rules-checker.ts) accepts. The counts at every length are checked against the
 * counts pinned before the engine existed by tests/core/corpus-lengths.integration.ts.
 * Integration, not npm test: about 860 table sets, some of the costliest.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import corpus from '../fixtures/password-rules/password-rules.json' with { type: 'json' };
import { compile, type EngineSpec } from '../../lib/core/engine.ts';
import { tablesOf, unrank } from '../../lib/core/unrank.ts';
import { parsePasswordRules } from '../../lib/core/rules/index.ts';
import { lengthBounds } from '../helpers/rule-plans.ts';
import { checkPasswordRules } from '../../lib/core/rules/plan.ts';
import { readRule, violation } from '../helpers/rules-checker.ts';
import { seededRandom } from '../helpers/seeded.ts';

it('the engine unranks passwords the checker accepts for every accepted corpus rule at its shortest and longest length', () => {
  const random = seededRandom(29);
  let sites = 0;
  for (const [site, v] of Object.entries(corpus as Record<string, { 'password-rules': string }>)) {
    const text = v['password-rules'];
    const parsed = parsePasswordRules(text);
    if (!parsed.ok || checkPasswordRules(parsed.rule) !== null) continue;
    const rule = parsed.rule;
    const checker = readRule(text);
    const { min, max } = lengthBounds(rule);
    for (const L of new Set([min, max])) {
      const spec: EngineSpec = {
        codes: [...rule.allowed].map((c) => c.charCodeAt(0)),
        sets: rule.required.map((set) => ({ codes: [...set].map((c) => c.charCodeAt(0)), min: 1 })),
        length: L,
        maxRepeating: rule.maxRepeating,
        maxSequential: rule.maxSequential,
      };
      const tables = tablesOf(compile(spec));
      const middle = BigInt(random.below(2 ** 30)) % tables.count;
      for (const rank of [0n, middle, tables.count - 1n]) {
        const password = String.fromCharCode(...unrank(tables, rank));
        assert.equal(password.length, L);
        assert.equal(violation(checker, password), null, `${site} at ${L}: rank ${rank}`);
      }
    }
    sites++;
  }
  process.stdout.write(`engine on the corpus: ${sites} sites\n`);
  assert.ok(sites > 400);
});
