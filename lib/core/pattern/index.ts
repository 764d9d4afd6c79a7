/** Passwords to a system's own regular expression, `options.pattern` (HTML `pattern` semantics), uniform
 * over every match of the length with exact bits; browser-safe. docs/engine.md, The pattern. @module */
export { planPattern, drawPattern, isPatternPlan, DEFAULT_PATTERN_LENGTH, type PatternPlan } from './plan.ts';
