/**
 * Request bodies read off the request schema itself (tests/request/validate.test.ts, the in-process
 * fuzz): for every field of the top level and of every options object in $defs, values at and
 * around what the schema states (bounds, enum members, defaults, maxLength, lists of enum
 * members) and of every other JSON type; keys the schema knows and keys it does not. Adding or
 * changing an option in the schema changes what is generated, with no list here to update.
 */
import fc from 'fast-check';
import { requestSchema } from '../../lib/generated/schema.generated.ts';

type Node = { readonly [key: string]: unknown };

const OTHER_VALUES: readonly unknown[] = [null, true, false, 0, -1, 1.5, '', 'x', [], {}, { a: 1 }, [1]];
const ODD_KEYS = ['__proto__', 'constructor', 'toString', 'extra', ''];

/** Values the field's schema accepts: its default, enum members, bounds and a middle value. */
function validFor(node: Node): unknown[] {
  const out: unknown[] = [];
  if ('default' in node) out.push(node.default);
  if (Array.isArray(node.enum)) out.push(...(node.enum as unknown[]));
  else if (node.type === 'boolean') out.push(true, false);
  else if (node.type === 'integer' && typeof node.minimum === 'number' && typeof node.maximum === 'number') {
    out.push(node.minimum, node.maximum, Math.floor((node.minimum + node.maximum) / 2));
  } else if (node.type === 'string')
    out.push('', 'abc', typeof node.maxLength === 'number' ? 'a'.repeat(node.maxLength) : 'abcdef');
  else if (node.type === 'array') {
    // A list of enum members: one, two, all of them (each once).
    const members = ((node.items as Node | undefined)?.enum ?? []) as unknown[];
    out.push(members.slice(0, 1), members.slice(1, 3), [...members].reverse());
  }
  return out.length > 0 ? out : [null];
}

/** Values of the field's type just outside what its schema accepts (bounds, enum, length, list). */
function outsideOf(node: Node): unknown[] {
  const out: unknown[] = [];
  if (Array.isArray(node.enum)) for (const v of node.enum) out.push(`${String(v)} `, String(v).toUpperCase());
  for (const key of ['minimum', 'maximum'] as const) {
    const bound = node[key];
    if (typeof bound === 'number') out.push(bound - 1, bound + 1, bound + 0.5, String(bound));
  }
  if (typeof node.maxLength === 'number') out.push('a'.repeat(node.maxLength + 1), '🙂'.repeat(node.maxLength));
  if (node.type === 'array') {
    // A member twice, a member misspelt, and the items of another type.
    const [first] = ((node.items as Node | undefined)?.enum ?? ['x']) as unknown[];
    out.push([first, first], [`${String(first)} `], [null], ['x', first], first);
  }
  return out;
}

/**
 * A value for the field: mostly one it accepts; else one just outside its schema (twice as
 * often) or one of every other JSON type. Drawn apart, so that a field's bounds are not drowned
 * by the dozen values of other types (a validator without one bound must be caught:
 * tests/request/validate.test.ts, "has teeth": with seed 1, 5 of 50,000 bodies tell the validator
 * without options.length's maximum from the schema's, where the earlier draw had 1).
 */
function valueFor(node: Node): fc.Arbitrary<unknown> {
  const outside = outsideOf(node);
  return fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...validFor(node)) },
    { weight: outside.length > 0 ? 2 : 0, arbitrary: fc.constantFrom(...(outside.length > 0 ? outside : [null])) },
    { weight: 1, arbitrary: fc.constantFrom(...OTHER_VALUES) },
  );
}

/** How many of an object's keys a body holds on average, at most half of them: an options object
 * of many keys with half of them present would nearly always hold an invalid one, or one that
 * passwordRules refuses, and leave the others' checks unreached. */
const KEYS_PER_OBJECT = 4;

/** A required key is left out of one body in ten (its error is then the first). */
const REQUIRED_SHARE = 0.9;

function objectArbitrary(
  properties: Record<string, Node>,
  required: readonly string[] = [],
): fc.Arbitrary<Record<string, unknown>> {
  const known = Object.keys(properties);
  const share = Math.min(1 / 2, KEYS_PER_OBJECT / known.length);
  const chosenKeys = fc
    .tuple(
      ...known.map((key) => {
        const p = required.includes(key) ? REQUIRED_SHARE : share;
        return fc.oneof(
          { weight: Math.round(p * 100), arbitrary: fc.constant(key) },
          { weight: Math.round((1 - p) * 100), arbitrary: fc.constant(null) },
        );
      }),
    )
    .map((keys) => keys.filter((key): key is string => key !== null));
  const odd = fc.oneof(
    { weight: 9, arbitrary: fc.constant([] as [string, unknown][]) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...ODD_KEYS), fc.constantFrom(...OTHER_VALUES)).map((e) => [e]) },
  );
  return (
    fc
      .tuple(chosenKeys, odd)
      .chain(([chosen, extra]) =>
        fc
          .tuple(...chosen.map((key) => valueFor(properties[key]).map((value) => [key, value] as [string, unknown])))
          .map((entries) => [...entries, ...extra]),
      )
      // JSON.parse semantics: `__proto__` becomes an own key, as in a request body.
      .map((entries) => JSON.parse(JSON.stringify(Object.fromEntries(entries))) as Record<string, unknown>)
  );
}

const defs = requestSchema.$defs as unknown as Record<string, Node>;
const optionObjects = Object.values(defs)
  .filter((def) => def.type === 'object' && typeof def.properties === 'object')
  .map((def) => objectArbitrary(def.properties as Record<string, Node>));

/** mode -> the options object of its branch of the request union (the branch's `const` and `$ref`). */
const optionsOfMode = new Map(
  (requestSchema.oneOf as unknown as { properties: { mode: { const: string }; options: { $ref: string } } }[]).map(
    (branch) => [
      branch.properties.mode.const,
      objectArbitrary(defs[branch.properties.options.$ref.replace('#/$defs/', '')].properties as Record<string, Node>),
    ],
  ),
);

/** Options for a body: mostly those of its own mode (whose checks are then reached), else of
 * any mode (an option of the other mode is an error to reach too). */
function optionsFor(body: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> {
  const own = typeof body.mode === 'string' ? optionsOfMode.get(body.mode) : undefined;
  const any = fc.oneof(...optionObjects);
  return own === undefined ? any : fc.oneof({ weight: 3, arbitrary: own }, { weight: 1, arbitrary: any });
}

// `policy` is drawn on its own, in a few bodies: the schema refuses options and minBits beside
// it, so in half the bodies it would leave the options' own checks mostly unexercised.
const { options: _options, policy, ...topLevel } = requestSchema.properties as unknown as Record<string, Node>;
const REQUIRED = requestSchema.required as readonly string[];

/** Bodies built from the schema: mostly objects with schema keys, options mostly of their mode. */
export const schemaRequest: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 12,
    arbitrary: objectArbitrary(topLevel, REQUIRED).chain((body) =>
      fc
        .tuple(optionsFor(body), fc.boolean())
        .map(([options, withOptions]) => (withOptions ? { ...body, options } : body)),
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(objectArbitrary(topLevel, REQUIRED), valueFor(policy), fc.oneof(...optionObjects), fc.boolean())
      .map(([body, name, options, withOptions]) =>
        withOptions ? { ...body, policy: name, options } : { ...body, policy: name },
      ),
  },
  { weight: 1, arbitrary: fc.constantFrom(...OTHER_VALUES) },
);
