/**
 * The curl line under "The same generator over HTTP": the request the form makes, leaving out
 * options at their default (read from describe(), like every default on the page), with the
 * key left to the shell as $API_KEY so it never appears in the page.
 * @module
 */
import type { Description, FormRequest } from './description.ts';

/** POSIX single quoting: `it's` -> `'it'\''s'`. */
function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function curlCommand(d: Description, request: FormRequest, origin: string): string {
  const specs = d.modes[request.mode].options;
  const options: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(request.options)) {
    if (!Object.hasOwn(specs, name) || value !== specs[name].default) options[name] = value;
  }
  const body: Record<string, unknown> = { mode: request.mode };
  if (request.count !== d.request.count.default) body.count = request.count;
  if (Object.keys(options).length > 0) body.options = options;
  return [
    `curl -sS ${origin}/generate \\`,
    `  -H "X-Api-Key: $API_KEY" \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d ${shellQuote(JSON.stringify(body))}`,
  ].join('\n');
}
