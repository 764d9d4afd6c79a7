/**
 * Contract checks: a response the server really sent is valid only if `spec/openapi.json`
 * documents its path, method and status, its Content-Type is a documented media type, its body
 * validates (ajv, JSON Schema 2020-12, strict) against that status's schema, and every header
 * the document marks `required` is present and valid.
 *
 *   import { assertContract } from '../helpers/contract.ts';
 *   const res = await fetch(url + '/generate', { method: 'POST', ... });
 *   const body = await res.json();
 *   assertContract({ method: 'POST', path: '/generate', status: res.status, headers: res.headers, body });
 *
 * Paths and methods with no operation: an unknown path is checked against
 * `components.responses.NotFound`, a known path with an undocumented method against
 * `components.responses.MethodNotAllowed` (see the scope note in spec/openapi.ts). HEAD is
 * checked as GET without a body.
 * @module
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

type Json = { [key: string]: unknown };

export const OPENAPI_PATH = new URL('../../spec/openapi.json', import.meta.url);
const DOC_ID = 'openapi.json';

export const openapi: Json = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')) as Json;

const ajv = new Ajv2020({ strict: true, allErrors: true });
// The document is added whole so that `#/components/...` refs resolve inside it; its top-level
// OpenAPI fields are declared as annotations so strict mode accepts the root.
ajv.addVocabulary([
  'openapi',
  'info',
  'jsonSchemaDialect',
  'servers',
  'tags',
  'paths',
  'components',
  'security',
  'webhooks',
  'externalDocs',
]);
ajv.addSchema(openapi, DOC_ID);
const compiled = new Map<string, ValidateFunction>();

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** The validator of the schema at a JSON pointer of the document (refs resolve in the document). */
export function validatorAt(pointer: string): ValidateFunction {
  let v = compiled.get(pointer);
  if (v === undefined) {
    v = ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
    compiled.set(pointer, v);
  }
  return v;
}

function at(pointer: string): unknown {
  let node: unknown = openapi;
  for (const part of pointer.split('/').slice(1)) {
    node = (node as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

/** Follows a `$ref` (document-local) to its target, returning the target and its pointer. */
function deref(node: unknown, pointer: string): { node: Json; pointer: string } {
  let current = node as Json;
  let where = pointer;
  while (current && typeof current.$ref === 'string') {
    where = current.$ref.slice(1);
    current = at(where) as Json;
  }
  return { node: current, pointer: where };
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The documented path template matching a concrete path (query ignored), or undefined. */
export function matchPath(path: string): string | undefined {
  const bare = path.split('?')[0];
  const paths = openapi.paths as Json;
  if (bare in paths) return bare;
  for (const template of Object.keys(paths)) {
    if (!template.includes('{')) continue;
    const re = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^/]+\}/g, '[^/]+')}$`);
    if (re.test(bare)) return template;
  }
  return undefined;
}

/** A 200 body of POST /generate, as far as the peers' tests (tests/bench) read it. */
export interface GenerateReply {
  value: string;
  entropy: unknown;
  metadata: unknown;
  results: { value: string }[];
}

export interface DocumentedResponse {
  /** JSON pointer of the response object in openapi.json (after following $refs). */
  pointer: string;
  response: Json;
}

/** The response object the document gives for this method, path and status, or an error text. */
export function documentedResponse(method: string, path: string, status: number): DocumentedResponse | string {
  const template = matchPath(path);
  const responses = (openapi.components as Json).responses as Json;
  if (template === undefined) {
    if (status !== 404) return `${method} ${path}: path not documented (only 404 is, got ${status})`;
    return { pointer: '/components/responses/NotFound', response: responses.NotFound as Json };
  }
  const item = (openapi.paths as Json)[template] as Json;
  let m = method.toLowerCase();
  if (m === 'head' && !('head' in item) && 'get' in item) m = 'get';
  if (!METHODS.includes(m) || !(m in item)) {
    if (status !== 405) return `${method} ${template}: method not documented (only 405 is, got ${status})`;
    return { pointer: '/components/responses/MethodNotAllowed', response: responses.MethodNotAllowed as Json };
  }
  const opPointer = `/paths/${escapePointer(template)}/${m}/responses`;
  const ops = (item[m] as Json).responses as Json;
  const key =
    String(status) in ops
      ? String(status)
      : `${String(status)[0]}XX` in ops
        ? `${String(status)[0]}XX`
        : 'default' in ops
          ? 'default'
          : undefined;
  if (key === undefined)
    return `${method} ${template}: status ${status} not documented (documented: ${Object.keys(ops).join(', ')})`;
  const { node, pointer } = deref(ops[key], `${opPointer}/${escapePointer(key)}`);
  return { pointer, response: node };
}

export type HeaderInput = Headers | Record<string, string | string[] | number | undefined>;

function headerMap(headers: HeaderInput): Map<string, string> {
  const out = new Map<string, string>();
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    (headers as Headers).forEach((value, name) => out.set(name.toLowerCase(), value));
  } else {
    for (const [name, value] of Object.entries(headers)) {
      if (value !== undefined) out.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : String(value));
    }
  }
  return out;
}

function ajvText(v: ValidateFunction): string {
  return (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`).join('; ');
}

export interface ObservedResponse {
  method: string;
  /** The request path (a query string is ignored). */
  path: string;
  status: number;
  headers: HeaderInput;
  /** Parsed JSON for JSON responses, the text otherwise; ignored for HEAD. */
  body?: unknown;
}

/** Every way the response departs from openapi.json; empty when it matches. */
export function contractErrors(r: ObservedResponse): string[] {
  const found = documentedResponse(r.method, r.path, r.status);
  if (typeof found === 'string') return [found];
  const where = `${r.method} ${r.path} ${r.status}`;
  const errors: string[] = [];
  const headers = headerMap(r.headers);

  // Headers: every required one present and valid against its schema.
  const documented = (found.response.headers ?? {}) as Json;
  for (const [name, spec] of Object.entries(documented)) {
    const { node, pointer } = deref(spec, `${found.pointer}/headers/${escapePointer(name)}`);
    const value = headers.get(name.toLowerCase());
    if (value === undefined) {
      if (node.required === true) errors.push(`${where}: header ${name} missing`);
      continue;
    }
    const schema = node.schema as Json;
    const typed =
      schema.type === 'integer' || schema.type === 'number'
        ? /^-?\d+(\.\d+)?$/.test(value)
          ? Number(value)
          : value
        : value;
    const v = validatorAt(`${pointer}/schema`);
    if (!v(typed)) errors.push(`${where}: header ${name}: ${JSON.stringify(value)} ${ajvText(v)}`);
  }

  // Body: the Content-Type must be documented; the body must match its schema.
  const content = found.response.content as Json | undefined;
  if (content === undefined) return errors;
  const contentType = (headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (!(contentType in content)) {
    errors.push(
      `${where}: Content-Type ${JSON.stringify(contentType)} not documented (${Object.keys(content).join(', ')})`,
    );
    return errors;
  }
  if (r.method.toUpperCase() === 'HEAD') return errors;
  const v = validatorAt(`${found.pointer}/content/${escapePointer(contentType)}/schema`);
  if (!v(r.body)) errors.push(`${where}: body ${ajvText(v)}`);
  return errors;
}

/** Throws an AssertionError listing every departure from openapi.json. */
export function assertContract(r: ObservedResponse): void {
  const errors = contractErrors(r);
  if (errors.length > 0) {
    const err = new Error(`response does not match spec/openapi.json:\n  ${errors.join('\n  ')}`);
    err.name = 'AssertionError';
    throw err;
  }
}

/** Every (method, path template, status) the document lists, e.g. `POST /generate 429`. */
export function documentedStatuses(): string[] {
  const out: string[] = [];
  for (const [template, item] of Object.entries(openapi.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      if (!METHODS.includes(method)) continue;
      for (const status of Object.keys((op as Json).responses as Json))
        out.push(`${method.toUpperCase()} ${template} ${status}`);
    }
  }
  return out;
}

/**
 * Fetches `path` from a running server and checks the reply against the contract.
 * Returns the response, its parsed body and the contract errors (for tests that expect some).
 */
export async function fetchChecked(
  baseUrl: string,
  path: string,
  init: RequestInit = {},
): Promise<{ res: Response; body: unknown; errors: string[] }> {
  const res = await fetch(baseUrl + path, init);
  const method = (init.method ?? 'GET').toUpperCase();
  const text = await res.text();
  const isJson = /^application\/([\w.+-]+\+)?json/i.test(res.headers.get('content-type') ?? '');
  const body = method === 'HEAD' ? undefined : isJson ? JSON.parse(text) : text;
  return { res, body, errors: contractErrors({ method, path, status: res.status, headers: res.headers, body }) };
}
