/**
 * The entropy floor (docs/decisions.md, Entropy floor): a request whose options give fewer
 * bits than the higher of its own `minBits` and the service's floor (MIN_ENTROPY_BITS) is a
 * 400 naming `minBits`, decided from the plan's exact, unrounded bits before anything is
 * drawn. The bounds of both figures are the schema's bounds of `minBits`. Internal (the `_`
 * prefix): the rest of the program reaches it through lib/request/index.ts.
 * @module
 */
import { requestSchema } from '../generated/schema.generated.ts';
import type { ErrorBody } from './validate.ts';

export const MIN_BITS_FIELD = 'minBits';

/**
 * The name of the home page's `<meta>` that carries the service's floor: the server writes its
 * MIN_ENTROPY_BITS into it when it loads the page (lib/http/assets.ts), and the page's
 * ServiceAPI reads it once (browser/entry.ts), so the page applies the server's floor with no
 * network request.
 */
export const ENTROPY_FLOOR_META = 'min-entropy-bits';

/** The highest floor a request or an operator may set (the schema's maximum of minBits). */
export const MAX_MIN_BITS: number = requestSchema.properties.minBits.maximum;

/**
 * A floor written as text (the MIN_ENTROPY_BITS variable, the page's `<meta>`): decimal digits
 * with an optional fraction, 0 to MAX_MIN_BITS; null for anything else. Digits only, because
 * Number() would also take "0x40", "1e2", " 64 " and "Infinity".
 */
export function parseEntropyFloor(text: string): number | null {
  if (!/^[0-9]{1,3}(\.[0-9]{1,6})?$/.test(text)) return null;
  const value = Number(text);
  return value <= MAX_MIN_BITS ? value : null;
}

/**
 * The figure a refusal shows for `bits`: rounded to 2 decimals like `entropy.bits`, unless that
 * would read as reaching the floor (47.996 bits against a floor of 48 would show 48.00); then
 * cut to 2 decimals instead, which is never above the bits and so stays below the floor.
 */
function shownBelow(bits: number, floor: number): string {
  const rounded = Math.round(bits * 100) / 100;
  return (rounded < floor ? rounded : Math.floor(bits * 100) / 100).toFixed(2);
}

/**
 * The 400 for options whose exact entropy `bits` is below the request's `requested` floor or
 * the service's `service` floor, or null when it is not. The message names the floor that
 * refused: the service's when it is at least the request's (it would refuse on its own). A
 * refusal on the service's floor does not open with `minBits:`, since the client may never
 * have sent one: it says what the service requires. `field` stays `minBits` either
 * way: it names the rule that refused.
 */
export function floorError(bits: number, requested: number, service: number): ErrorBody | null {
  const floor = Math.max(requested, service);
  if (bits >= floor) return null;
  const shown = shownBelow(bits, floor);
  return {
    error:
      service >= requested
        ? `this service requires at least ${String(floor)} bits; these options give ${shown} bits`
        : `${MIN_BITS_FIELD}: these options give ${shown} bits, below the requested minimum of ${String(floor)} bits`,
    status: 400,
    field: MIN_BITS_FIELD,
  };
}
