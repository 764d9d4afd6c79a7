/** The class of each character of a password plan's pool, as a bit (the pool lists the classes
 * with characters left one after another, in metadata.classes order): what the statistics tests
 * count classes by. */
import type { PasswordPlan } from '../../lib/core/password.ts';

export function classBits(p: PasswordPlan): number[] {
  return p.metadata.classes.flatMap((c, i) => new Array<number>(c.size).fill(1 << i));
}

/** Every class's bit: a password holding all of them hit every class. */
export const allClasses = (p: PasswordPlan): number => (1 << p.metadata.classes.length) - 1;
