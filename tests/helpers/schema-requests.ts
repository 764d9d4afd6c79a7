/**
 * Request bodies read off the request schema itself (tests/core/validate.test.ts, the in-process
 * fuzz): for every field of the top level and of every options object in $defs, values at and
 * around what the schema states (bounds, enum members, defaults, maxLength) and of every other
 * JSON type; keys the schema knows and keys it does not. Adding or changing an option in the
 * schema changes what is generated, with no list here to update.
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
  return out.length > 0 ? out : [null];
}

/** Values just outside what the field's schema accepts, and values of every other JSON type. */
function invalidFor(node: Node): unknown[] {
  const out: unknown[] = [...OTHER_VALUES];
  if (Array.isArray(node.enum)) for (const v of node.enum) out.push(`${String(v)} `, String(v).toUpperCase());
  for (const key of ['minimum', 'maximum'] as const) {
    const bound = node[key];
    if (typeof bound === 'number') out.push(bound - 1, bound + 1, bound + 0.5, String(bound));
  }
  if (typeof node.maxLength === 'number') out.push('a'.repeat(node.maxLength + 1), '🙂'.repeat(node.maxLength));
  return out;
}

function valueFor(node: Node): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...validFor(node)) },
    { weight: 1, arbitrary: fc.constantFrom(...invalidFor(node)) },
  );
}

function objectArbitrary(properties: Record<string, Node>): fc.Arbitrary<Record<string, unknown>> {
  const known = Object.keys(properties);
  const odd = fc.oneof(
    { weight: 9, arbitrary: fc.constant([] as [string, unknown][]) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...ODD_KEYS), fc.constantFrom(...OTHER_VALUES)).map((e) => [e]) },
  );
  return (
    fc
      .tuple(fc.subarray(known), odd)
      .chain(([chosen, extra]) =>
        fc
          .tuple(...chosen.map((key) => valueFor(properties[key]).map((value) => [key, value] as [string, unknown])))
          .map((entries) => [...entries, ...extra]),
      )
      // JSON.parse semantics: `__proto__` becomes an own key, as in a request body.
      .map((entries) => JSON.parse(JSON.stringify(Object.fromEntries(entries))) as Record<string, unknown>)
  );
}

const optionObjects = Object.values(requestSchema.$defs as unknown as Record<string, Node>)
  .filter((def) => def.type === 'object' && typeof def.properties === 'object')
  .map((def) => objectArbitrary(def.properties as Record<string, Node>));

// `policy` is drawn on its own, in a few bodies: the schema refuses options and minBits beside
// it, so in half the bodies it would leave the options' own checks mostly unexercised.
const { options: _options, policy, ...topLevel } = requestSchema.properties as unknown as Record<string, Node>;

/** Bodies built from the schema: mostly objects with schema keys, options of any mode. */
export const schemaRequest: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .tuple(objectArbitrary(topLevel), fc.oneof(...optionObjects), fc.boolean())
      .map(([body, options, withOptions]) => (withOptions ? { ...body, options } : body)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(objectArbitrary(topLevel), valueFor(policy), fc.oneof(...optionObjects), fc.boolean())
      .map(([body, name, options, withOptions]) =>
        withOptions ? { ...body, policy: name, options } : { ...body, policy: name },
      ),
  },
  { weight: 1, arbitrary: fc.constantFrom(...OTHER_VALUES) },
);
