/**
 * The costliest password options a person can reach on the Requirements panel, one change at a
 * time: from the defaults, each step takes the single change whose plan costs the most work
 * units (the engine's price of a plan) and is still served, until no change costs more. Used by
 * the page's speed test and by the bench's plan at the budget, with the planner they measure.
 */

export type Value = number | boolean | string;
export type Move = readonly [name: string, value: Value];
export type Options = Record<string, Value | string[]>;

const CLASSES = ['Lowercase', 'Uppercase', 'Numbers', 'Symbols'] as const;

/** The options given as arrays of class names; a move ticks one. */
export const ARRAY_OPTIONS: ReadonlySet<string> = new Set(['firstCharacter', 'lastCharacter']);

/** The single changes, from the cheap to the costly end of each option's range. */
const MOVES: readonly Move[] = [
  ...[32, 64, 96, 128].map((n): Move => ['length', n]),
  ...CLASSES.map((c): Move => [`include${c}`, true]),
  ...CLASSES.flatMap((c) => [0, 2, 3, 4].map((n): Move => [`min${c}`, n])),
  ...[2, 3, 4].flatMap((n): Move[] => [
    ['maxRepeating', n],
    ['maxSequential', n],
  ]),
  ...CLASSES.flatMap((c): Move[] => [
    ['firstCharacter', c.toLowerCase()],
    ['lastCharacter', c.toLowerCase()],
  ]),
];

export function withMove(options: Options, [name, value]: Move): Options {
  return { ...options, [name]: ARRAY_OPTIONS.has(name) ? [value as string] : value };
}

/**
 * The path of single changes from the defaults to the costliest served options found, and that
 * plan's work. `workOf` gives the work of the options' plan, or -1 when they are refused.
 */
export function costliestPath(workOf: (options: Options) => number): { path: Move[]; options: Options; work: number } {
  const path: Move[] = [];
  let options: Options = {};
  let work = workOf(options);
  for (;;) {
    let best: { move: Move; work: number } | null = null;
    for (const move of MOVES) {
      if (ARRAY_OPTIONS.has(move[0]) && options[move[0]] !== undefined) continue;
      if (options[move[0]] === move[1]) continue;
      const w = workOf(withMove(options, move));
      if (w > (best?.work ?? work)) best = { move, work: w };
    }
    if (best === null) return { path, options, work };
    path.push(best.move);
    options = withMove(options, best.move);
    work = best.work;
  }
}
