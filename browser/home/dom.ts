/**
 * Small DOM helpers. No innerHTML anywhere: every text goes through textContent or
 * `append(string)`, so no value (a generated password included) is ever parsed as markup.
 * @module
 */

type Attrs = Record<string, string | number | boolean | undefined>;

/** An element with attributes (`true` -> present and empty; `false`/undefined -> absent). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  el.append(...children);
  return el;
}

/** An element index.html must contain; its absence is a build mistake, so it throws. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the element type it knows index.html has; a checked cast per id would repeat index.html here
export function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`home page: #${id} is missing from index.html`);
  return el as T;
}

/** `options.length` in mode password -> `error-password-options-length`. */
export const errorId = (mode: string, field: string): string =>
  `error-${mode}-${field.replace(/[^A-Za-z0-9_-]/g, '-')}`;

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
