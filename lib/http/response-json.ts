/**
 * The reply text of POST /generate: `JSON.stringify(outcome.body)`, byte for byte
 * (tests/http/response-json.test.ts and the fuzz test hold it to that).
 *
 * Why not JSON.stringify itself: a body repeats the same entropy and metadata objects once per
 * credential, and stringifying them each time costs more than the 3 % rule allows, most at
 * count=20 (docs/benchmark.md, The core and the 3 % rule: the reply writer and its cache).
 * Here they are stringified once per plan, and each value is quoted on its own.
 * @module
 */
import type { GenerateOutcome, GenerateResponse } from '../request/index.ts';

/**
 * What JSON.stringify escapes in a string: `"`, `\`, control characters and lone surrogates
 * (ES2019). Any surrogate is matched, a superset: such a value just takes the slow path.
 */
// eslint-disable-next-line no-control-regex -- the control characters are what is looked for
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function quote(value: string): string {
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/** The JSON of a plan's entropy and metadata (frozen objects), by the plan's metadata object. */
const sharedJson = new WeakMap<object, { readonly entropy: object; readonly json: string }>();

function entropyAndMetadata(body: GenerateResponse): string {
  const known = sharedJson.get(body.metadata);
  if (known?.entropy === body.entropy) return known.json;
  const json = `"entropy":${JSON.stringify(body.entropy)},"metadata":${JSON.stringify(body.metadata)}`;
  sharedJson.set(body.metadata, { entropy: body.entropy, json });
  return json;
}

export function outcomeJson(outcome: GenerateOutcome): string {
  if (outcome.status !== 200) return JSON.stringify(outcome.body);
  const body = outcome.body;
  const shared = entropyAndMetadata(body);
  let results = '';
  for (const r of body.results) {
    // Only what generate() builds takes the short cut: every credential shares the body's objects.
    if (r.entropy !== body.entropy || r.metadata !== body.metadata) return JSON.stringify(body);
    results += `${results === '' ? '' : ','}{"value":${quote(r.value)},${shared}}`;
  }
  return `{"mode":"${body.mode}","count":${body.count},"value":${quote(body.value)},${shared},"results":[${results}]}`;
}
