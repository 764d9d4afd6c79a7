/**
 * The known names nearest to a mistyped one ("did you mean length?"): folded (ASCII case, `-` and
 * `_` ignored), by optimal string alignment distance (a swap of neighbours costs 1), within a
 * reach that grows with the name, so a far name gets no guess. Only known names come out.
 * @module
 */

/** Case and separators ignored: ASCII only, as the names are. */
function fold(name: string): string {
  return name.replace(/[-_]/g, '').replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
}

/** The longest name compared: the rest of a longer one is not worth a suggestion. */
const MAX_COMPARED = 64;

/** Optimal string alignment distance between a and b (each at most MAX_COMPARED long). */
function distance(a: string, b: string): number {
  // Three rows of the table: the one before the previous (for a swap), the previous, this one.
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1);
      row.push(d);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length];
}

/** How far a name of this folded length may be from a known one and still get a suggestion. */
const reach = (length: number): number => (length <= 2 ? 0 : length <= 4 ? 1 : 2);

/**
 * The known names nearest to `name` (several when tied, in the order given), or none when the
 * nearest is out of reach. A name that folds to a known one gets that one.
 */
export function nearestNames(name: string, known: Iterable<string>): string[] {
  const folded = fold(name);
  if (folded.length === 0 || folded.length > MAX_COMPARED) return [];
  // The farthest a name may be to join `found`: the reach, then the nearest distance so far.
  let best = reach(folded.length);
  let found: string[] = [];
  for (const candidate of known) {
    const other = fold(candidate);
    // A length difference alone is a lower bound of the distance.
    if (Math.abs(other.length - folded.length) > best || other.length > MAX_COMPARED) continue;
    const d = distance(folded, other);
    if (d < best) {
      best = d;
      found = [candidate];
    } else if (d === best) found.push(candidate);
  }
  return found;
}

/** `did you mean length?`, `did you mean minLength or maxLength?`; '' for none. */
export function didYouMean(names: readonly string[]): string {
  return names.length === 0 ? '' : `did you mean ${names.join(' or ')}?`;
}
