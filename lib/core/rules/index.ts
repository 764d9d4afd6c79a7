/** Passwords to a website's `passwordrules` (docs/password-rules.md): parse, plan, generate. @module */
export {
  parsePasswordRules,
  formatPasswordRules,
  MAX_RULES_LENGTH,
  RULES_FIELD,
  type PasswordRules,
  type RulesError,
  type RulesParse,
} from './parse.ts';
export { NAMED_SETS } from './charset.ts';
export {
  checkPasswordRules,
  resolveRulesLength,
  planPasswordRules,
  generateRulesPasswords,
  isRulesPlan,
  DEFAULT_RULES_LENGTH,
  MAX_REQUIRED_SETS,
  SERVICE_MIN_LENGTH,
  SERVICE_MAX_LENGTH,
  type RulesPlan,
  type RulesMetadata,
} from './plan.ts';
