/**
 * Reading environment variables, shared by every parser of the configuration (config.ts,
 * redis-config.ts): empty counts as unset, integers are digits only, a bad value is one
 * ConfigError naming the variable, and a value is shown back shortened, never a secret.
 * @module
 */

import type { VariableName } from './variables.ts';

export type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {
  readonly variable: VariableName;
  constructor(variable: VariableName, message: string) {
    super(`${variable} ${message}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

/** Something the configuration allows but the operator should fix (a secret file others can
 * read): logged at warn level once the logger exists. */
export interface ConfigWarning {
  readonly message: string;
  readonly fields: Readonly<Record<string, string>>;
}

/** Throws the ConfigError for a variable; typed `never` so callers read as guards. */
export function fail(variable: VariableName, message: string): never {
  throw new ConfigError(variable, message);
}

/** Empty counts as unset: `PORT= npm start` should not be an error, nor silently port 0. */
export function read(env: Env, name: VariableName): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** Shows a bad value back to the operator, shortened; never used for secrets. */
export function shown(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
}

/** An integer variable from min to max, or `fallback` when unset. */
export function integer(env: Env, name: VariableName, fallback: number, min: number, max: number, unit = ''): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  // Digits only: Number() would accept "0x10", "1e3", " 5 " and "Infinity".
  if (!/^[0-9]{1,10}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    fail(name, `must be an integer from ${min} to ${max} (${unit}got ${shown(raw)})`);
  }
  return Number(raw);
}
