/**
 * The curl line under "The same generator over HTTP": exactly the request the page sent to
 * ServiceAPI.generate() (request.ts), with the key left to the shell as $CG_API_KEY, the
 * variable the README has people export, so it never appears in the page.
 * @module
 */
import type { FormRequest } from './description.ts';

/** POSIX single quoting: `it's` -> `'it'\''s'`. */
function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function curlCommand(request: FormRequest, origin: string): string {
  return [
    `curl -sS ${origin}/generate \\`,
    `  -H "X-Api-Key: $CG_API_KEY" \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d ${shellQuote(JSON.stringify(request))}`,
  ].join('\n');
}
