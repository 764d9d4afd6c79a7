/**
 * Mode password: the options compiled to the exact engine's spec (docs/engine.md, What a spec says:
 * each included class a set with its minimum and maximum, minClasses as k of the optional sets,
 * first and last as unions of classes), planned by the one plan path (sample.ts). Both samplers are
 * uniform over exactly the strings that meet it all; place-then-shuffle is not (docs/decisions.md).
 * @module
 */
import { AMBIGUOUS_CHARACTERS, CHARACTER_CLASSES, effectiveMinimum, type ClassName } from './charsets.ts';
import type { EngineSpec } from './engine.ts';
import { strength, type Entropy } from './entropy.ts';
import type { RandomSource } from './random.ts';
import { drawValues, isSpecPlan, planSpec, PLAN_WORK_BUDGET, type Sampler, type SpecPlan } from './sample.ts';
import { refuse, type ErrorBody } from './error-body.ts';
import type { PasswordOptions } from '../generated/options.generated.ts';

/** The options that constrain a password beyond its classes, in schema order. */
const CONSTRAINTS = Object.freeze([
  ...CHARACTER_CLASSES.map((c) => c.min),
  ...CHARACTER_CLASSES.map((c) => c.max),
  'minClasses',
  'firstCharacter',
  'lastCharacter',
  'maxRepeating',
  'maxSequential',
] as const satisfies readonly (keyof PasswordOptions)[]);

/** What a reviewer needs to recount a constrained plan; absent when no constraint was given. */
export interface PasswordConstraintsMetadata {
  readonly minimums: Readonly<Partial<Record<ClassName, number>>>;
  /** Present only when a maximum was given: those given. */
  readonly maximums?: Readonly<Partial<Record<ClassName, number>>>;
  readonly minClasses: number | null;
  readonly firstCharacter: readonly ClassName[] | null;
  readonly lastCharacter: readonly ClassName[] | null;
  readonly maxRepeating: number | null;
  readonly maxSequential: number | null;
}

export interface PasswordMetadata {
  readonly entropyMode: 'uniform-each-class';
  readonly poolSize: number;
  readonly length: number;
  readonly classes: readonly { readonly name: ClassName; readonly size: number }[];
  readonly constraints?: PasswordConstraintsMetadata;
}

/** A plan of mode password: the engine's plan (sample.ts) with the response's entropy and metadata. */
export interface PasswordPlan extends SpecPlan {
  readonly length: number;
  /** The pool's characters, class by class. */
  readonly pool: string;
  readonly entropy: Entropy;
  readonly metadata: PasswordMetadata;
}

const FIELD = 'options.excludedCharacters';
const codesOf = (chars: Iterable<string>) => Array.from(chars, (c) => c.charCodeAt(0));

/** The pool's codes in ascending order (the classes are ASCII). */
function ascending(pool: readonly number[]): number[] {
  const marked = new Uint8Array(128);
  for (const code of pool) {
    if (code > 127) throw new RangeError('password: a class character outside ASCII');
    marked[code] = 1;
  }
  const codes: number[] = [];
  for (let code = 0; code < 128; code++) if (marked[code] === 1) codes.push(code);
  return codes;
}

type Class = Readonly<{ name: ClassName; size: number; min: number; max: number | undefined; codes: number[] }>;
type Compiled = Readonly<{ pool: readonly number[]; spec: EngineSpec; classes: readonly Class[] }>;

/** The options as the engine's spec, or the 400 that names the option nothing can be made for. */
function compileOptions(o: PasswordOptions): Compiled | ErrorBody {
  const removed = new Set<string>(o.excludedCharacters);
  if (o.avoidAmbiguous) for (const c of AMBIGUOUS_CHARACTERS) removed.add(c);
  const classes: Class[] = [];
  for (const cls of CHARACTER_CLASSES) {
    if (!o[cls.option]) continue;
    const codes = codesOf(removed.size === 0 ? cls.chars : Array.from(cls.chars).filter((c) => !removed.has(c)));
    const min = effectiveMinimum(o, cls);
    if (codes.length === 0 && min > 0)
      return refuse(`${FIELD} removes every character of the enabled class ${cls.name}`, FIELD);
    if (codes.length > 0) classes.push({ name: cls.name, size: codes.length, min, max: o[cls.max], codes });
  }
  if (!CHARACTER_CLASSES.some((cls) => o[cls.option]))
    return refuse(
      'options must enable at least one of includeLowercase, includeUppercase, includeNumbers, includeSymbols',
      'options',
    );
  const pool: number[] = [];
  for (const c of classes) pool.push(...c.codes);
  if (pool.length < 2) return refuse(`${FIELD} leaves fewer than 2 characters in the pool`, FIELD);
  if (o.minClasses !== undefined && o.minClasses > classes.length)
    return refuse(
      `options.minClasses ${o.minClasses} asks for more classes than the ${classes.length} left with characters after the exclusions`,
      'options.minClasses',
    );
  for (const option of ['firstCharacter', 'lastCharacter'] as const) {
    const empty = o[option]?.find((name) => !classes.some((c) => c.name === name));
    if (empty !== undefined)
      return refuse(`options.${option} names ${empty}, which has no characters left`, `options.${option}`);
  }
  const union = (names: readonly ClassName[] | undefined) =>
    names === undefined ? null : classes.filter((c) => names.includes(c.name)).flatMap((c) => c.codes);
  const mandatory = classes.filter((c) => c.min > 0).length;
  const spec: EngineSpec = {
    codes: ascending(pool),
    sets: classes.map((c) => ({ codes: c.codes, min: c.min, max: c.max ?? null })),
    minSets: Math.max(0, (o.minClasses ?? 0) - mandatory),
    first: union(o.firstCharacter),
    last: union(o.lastCharacter),
    length: o.length,
    maxRepeating: o.maxRepeating ?? null,
    maxSequential: o.maxSequential ?? null,
  };
  return { pool, spec, classes };
}

/** The option a refusal of the whole spec names: the last constraint given, else the length. */
function culprit(o: PasswordOptions): string {
  const given = CONSTRAINTS.filter((name) => o[name] !== undefined);
  return `options.${given.at(-1) ?? 'length'}`;
}

function constraintsOf(o: PasswordOptions, classes: Compiled['classes']): PasswordConstraintsMetadata | undefined {
  if (!CONSTRAINTS.some((name) => o[name] !== undefined)) return undefined;
  const maximums = classes.filter((c) => c.max !== undefined);
  return Object.freeze({
    minimums: Object.freeze(Object.fromEntries(classes.map((c) => [c.name, c.min]))),
    ...(maximums.length === 0
      ? {}
      : { maximums: Object.freeze(Object.fromEntries(maximums.map((c) => [c.name, c.max]))) }),
    minClasses: o.minClasses ?? null,
    firstCharacter: o.firstCharacter ? Object.freeze([...o.firstCharacter]) : null,
    lastCharacter: o.lastCharacter ? Object.freeze([...o.lastCharacter]) : null,
    maxRepeating: o.maxRepeating ?? null,
    maxSequential: o.maxSequential ?? null,
  });
}

/** The plan for an option set, or the 400 saying why none can be made; `sampler` forces one (tests). */
export function planPassword(o: PasswordOptions, sampler?: Sampler): PasswordPlan | ErrorBody {
  const compiled = compileOptions(o);
  if ('error' in compiled) return compiled;
  const { pool, spec, classes } = compiled;
  const plan = planSpec(spec, sampler, PLAN_WORK_BUDGET, pool);
  if (!isSpecPlan(plan)) {
    const field = culprit(o);
    return refuse(
      plan.kind === 'budget'
        ? `${field}: these options take more than the budget of ${PLAN_WORK_BUDGET} work units to plan and draw; lower the minimums or the length`
        : `${field}: no password of length ${o.length} satisfies these options together`,
      field,
    );
  }
  const constraints = constraintsOf(o, classes);
  return Object.freeze({
    ...plan,
    length: o.length,
    pool: String.fromCharCode(...pool),
    entropy: strength(plan.bits),
    metadata: Object.freeze({
      entropyMode: 'uniform-each-class',
      poolSize: pool.length,
      length: o.length,
      classes: Object.freeze(classes.map(({ name, size }) => Object.freeze({ name, size }))),
      ...(constraints === undefined ? {} : { constraints }),
    }),
  });
}

export function isPlan(p: PasswordPlan | ErrorBody): p is PasswordPlan {
  return 'pool' in p;
}

/** `count` passwords for the plan, each uniform over the strings the options allow (sample.ts). */
export function generatePasswords(plan: PasswordPlan, random: RandomSource, count: number): string[] {
  return drawValues(plan, random, count);
}
