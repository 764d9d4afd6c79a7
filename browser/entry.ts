/**
 * `window.ServiceAPI`: the generator of `POST /generate`, in the page, with no key and no
 * network (README, The API at a glance). It is the same `lib/request` and `lib/core` code the
 * server runs, with the same build-time-compiled validator, so the same input gives the same
 * body on both sides.
 *
 * Rollup turns this file (as emitted by tsc into dist/browser/entry.js) into the IIFE
 * dist/browser/service-api.js; see browser/rollup.config.mjs.
 * @module
 */
import { defaultRandom } from '../lib/core/index.ts';
import {
  ENTROPY_FLOOR_META,
  generate as generateCore,
  parseEntropyFloor,
  POLICIES_META,
} from '../lib/request/index.ts';
import type { ErrorBody, GenerateResponse, GenerateSettings, StoredPolicy } from '../lib/request/index.ts';
import type { PlanStore } from '../lib/request/plan-store.ts';
import { describe as describeService, type DescribedPolicy } from '../lib/service/describe.ts';

export type GenerateResult =
  { readonly ok: true; readonly data: GenerateResponse } | { readonly ok: false; readonly error: ErrorBody };

export interface ServiceApi {
  /** Same input as the body of `POST /generate`. Synchronous; never throws. */
  generate(input?: unknown): GenerateResult;
  /** The object `GET /generate` serves (default rate limit, the served entropy floor).
   * Synchronous; never throws. */
  describe(): Record<string, unknown>;
}

/**
 * What the caller gets is a plain JSON copy: exactly what the server would put on the wire,
 * and owned by the caller. The core hands out shared plan objects and, in `describe()`, arrays
 * of the request schema itself; a page script mutating those must not change what the next
 * call validates or returns.
 */
function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * The core never throws for any input, so this only fires on a broken environment (no Web
 * Crypto, say). It mirrors what the server does with an unexpected failure: a fixed message,
 * status 500, nothing echoed.
 */
const INTERNAL_ERROR: ErrorBody = Object.freeze({ error: 'internal error: the generator could not run', status: 500 });

/**
 * The service's entropy floor, read once as the script loads: the server writes its
 * MIN_ENTROPY_BITS into the page's `<meta name="min-entropy-bits">` when it serves the page
 * (lib/http/assets.ts), so `generate()` refuses what the server would refuse and `describe()`
 * publishes the same floor as `GET /generate`. Where there is no document (a worker, a bare
 * test context) or no such `<meta>` (the page opened from disk), there is no server floor: 0.
 * A `<meta>` the server did not write (anything but a number of bits) is ignored the same way.
 */
function servedFloor(): number {
  if (typeof document !== 'object') return 0;
  const content = document.querySelector(`meta[name="${ENTROPY_FLOOR_META}"]`)?.getAttribute('content');
  return content == null ? 0 : (parseEntropyFloor(content) ?? 0);
}

/** A policy as the server writes it into the page (lib/http/assets.ts, withPolicies). */
type ServedPolicy = StoredPolicy & DescribedPolicy;

function isServedPolicy(value: unknown): value is ServedPolicy {
  if (value === null || typeof value !== 'object') return false;
  const p = value as Record<string, unknown>;
  const entropy = p.entropy as Record<string, unknown> | null;
  return (
    typeof p.name === 'string' &&
    (p.mode === 'password' || p.mode === 'passphrase') &&
    p.options !== null &&
    typeof p.options === 'object' &&
    (p.minBits === undefined || typeof p.minBits === 'number') &&
    (p.description === null || typeof p.description === 'string') &&
    entropy !== null &&
    typeof entropy === 'object' &&
    typeof entropy.bits === 'number' &&
    typeof entropy.label === 'string' &&
    typeof entropy.level === 'number'
  );
}

/**
 * The server's named policies, read once as the script loads, like the floor: the server
 * writes them into `<meta name="policies">` when it serves the page, so `generate()` accepts
 * `{mode, policy}` as the server would. No such `<meta>`, or one the server did not write
 * (anything but a list of policies): none, and a request naming a policy is the 400 of a
 * service without policies.
 */
function servedPolicies(): readonly ServedPolicy[] {
  if (typeof document !== 'object') return [];
  const content = document.querySelector(`meta[name="${POLICIES_META}"]`)?.getAttribute('content');
  if (content == null) return [];
  try {
    const list: unknown = JSON.parse(content);
    return Array.isArray(list) && list.every(isServedPolicy) ? list : [];
  } catch {
    return [];
  }
}

const POLICIES = servedPolicies();

/**
 * The page's plans, so that generating again with the same options only draws (planning counts
 * the options exactly, up to the work budget: docs/engine.md, Cost and the work budget): at most
 * 32, each at most 1 MB by the core's estimate, the oldest dropped first. Plans hold no generated
 * value, only counts and the options' characters.
 */
function pagePlans(): PlanStore {
  const plans = new Map<string, object>();
  return {
    get: (key) => plans.get(key),
    offer: (key, value, bytes) => {
      if (bytes > 2 ** 20) return;
      if (plans.size >= 32) plans.delete(plans.keys().next().value as string);
      plans.set(key, value);
    },
  };
}

const SETTINGS: GenerateSettings = Object.freeze({
  plans: pagePlans(),
  minEntropyBits: servedFloor(),
  policies: POLICIES.length === 0 ? null : new Map(POLICIES.map((p) => [p.name, p])),
});

const ServiceAPI: ServiceApi = Object.freeze({
  generate(input?: unknown): GenerateResult {
    try {
      const outcome = generateCore(input, defaultRandom, SETTINGS);
      return outcome.status === 200
        ? { ok: true, data: jsonCopy(outcome.body) }
        : { ok: false, error: jsonCopy(outcome.body) };
    } catch {
      return { ok: false, error: { ...INTERNAL_ERROR } };
    }
  },
  describe(): Record<string, unknown> {
    try {
      return jsonCopy(describeService({ minEntropyBits: SETTINGS.minEntropyBits, policies: POLICIES }));
    } catch {
      /* c8 ignore next -- describe() reads only constants; kept so the API never throws */
      return {};
    }
  },
});

declare global {
  interface Window {
    ServiceAPI?: ServiceApi;
  }
}

// In a page `window` is the global object. In a bare vm context (tests/browser) the host
// provides a `window` object; fall back to the global object for workers and the like.
const host = (typeof window === 'object' ? window : globalThis) as { ServiceAPI?: ServiceApi };
host.ServiceAPI = ServiceAPI;
