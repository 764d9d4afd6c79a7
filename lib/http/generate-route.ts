/**
 * POST /generate, as named steps in the order the checks run (docs/decisions.md, HTTP):
 *
 *   authenticate   the key: hashed, then compared with every stored digest in constant
 *                  time (lib/keys/api-keys.ts matchKey); or no key / none configured
 *   charge         the bucket that outcome belongs to (lib/rate-limit/client-limits.ts): 429
 *   admit          503 without configured keys, 401 without a valid key
 *   checkHead      Content-Type (400, also when sent twice), Content-Length (413)
 *   readBody       at most BODY_LIMIT_BYTES (413), UTF-8 (400), JSON (400, with the position
 *                  of the error), no member name twice in one object (400 naming it)
 *   respond        the core's generate(): the schema, the option rules and the entropy
 *                  floor (400), or the credentials (200), written by outcomeJson
 *
 * Every attempt costs a token of one bucket whatever its outcome, except one answered 429.
 * @module
 */
import { isUtf8 } from 'node:buffer';
import { defaultRandom } from '../core/index.ts';
import { generate, type GenerateSettings } from '../request/index.ts';
import { BODY_LIMIT_BYTES } from '../service/limits.ts';
import { PlanMemo } from './plan-memo.ts';
import type { KeyVerifier } from '../keys/key-store.ts';
import { NO_METRICS, type KeyCheckFailure, type RequestMetrics } from '../metrics/service-metrics.ts';
import type { Authentication, ClientLimits } from '../rate-limit/client-limits.ts';
import type { RateLimitState } from '../rate-limit/token-bucket.ts';
import { readBody, type BodyResult } from './body.ts';
import { outcomeJson } from './response-json.ts';
import { WWW_AUTHENTICATE } from './headers.ts';
import { ERRORS, badJsonBody, duplicateMemberBody, rateLimitedBody } from './errors.ts';
import { checkJsonText, repeatsAMember } from './json-text.ts';
import { headerCount, jsonContentType } from './request-checks.ts';
import type { Exchange, Responder } from './responder.ts';

const UNAUTHORIZED_EXTRA = ['WWW-Authenticate', WWW_AUTHENTICATE] as const;

export class GenerateRoute {
  private readonly keys: KeyVerifier;
  private readonly limits: ClientLimits;
  private readonly reply: Responder;
  /** Anything unexpected: a 500, and the error in the log. */
  private readonly fail: (x: Exchange, error: unknown) => void;
  /** The service's policy for the generator: its entropy floor, and the plan memo. */
  private readonly settings: GenerateSettings;
  private readonly metrics: RequestMetrics;

  constructor(options: {
    keys: KeyVerifier;
    limits: ClientLimits;
    responder: Responder;
    fail: (x: Exchange, error: unknown) => void;
    settings: GenerateSettings;
    metrics?: RequestMetrics;
  }) {
    this.keys = options.keys;
    this.limits = options.limits;
    this.reply = options.responder;
    this.fail = options.fail;
    // The one memo of the process's plans (plan-memo.ts), unless the caller brings its own.
    this.settings =
      options.settings.plans === undefined ? { ...options.settings, plans: new PlanMemo() } : options.settings;
    this.metrics = options.metrics ?? NO_METRICS;
  }

  /** The one place the limiter is asked: at once when its buckets are in this process, else
   * whichever store decides, in process or shared, when it answers. */
  handle(x: Exchange): void {
    try {
      const auth = this.authenticate(x);
      if (this.limits.chargeNow !== undefined) {
        this.decided(x, auth, this.limits.chargeNow(x.client, auth));
        return;
      }
      this.limits.charge(x.client, auth).then(
        (rl) => {
          this.decided(x, auth, rl);
        },
        (error: unknown) => {
          this.fail(x, error);
        },
      );
    } catch (error) {
      this.fail(x, error);
    }
  }

  private decided(x: Exchange, auth: Authentication, rl: RateLimitState): void {
    try {
      this.metrics.decision(auth, rl.allowed);
      this.admit(x, auth, rl);
    } catch (error) {
      this.fail(x, error);
    }
  }

  /** No key (or none configured), a key that fails, or a valid one (its id goes to the log).
   * A duplicated X-Api-Key fails: node would join the two values. A key that is not accepted
   * is counted by reason, which is also the reason of the 401's log line. */
  private authenticate(x: Exchange): Authentication {
    const presented = x.req.headers['x-api-key'];
    if (!this.keys.configured) return 'none';
    if (presented === undefined) return this.refused(x, 'missingKey', 'none');
    if (typeof presented !== 'string' || headerCount(x.req.rawHeaders, 'x-api-key') !== 1) {
      return this.refused(x, 'duplicateKey', 'failed');
    }
    const match = this.keys.check(presented);
    if (match.kind === 'unknown') return this.refused(x, 'invalidKey', 'failed');
    x.keyId = match.id;
    // A revoked key gets the same 401 as any other failing key; only the log line and the
    // metric name it, so an operator can tell its holder to stop (docs/deploy.md, Keys).
    if (match.kind === 'revoked') return this.refused(x, 'revoked', 'failed');
    return 'valid';
  }

  private refused(x: Exchange, reason: KeyCheckFailure, auth: Authentication): Authentication {
    x.reason = reason;
    this.metrics.keyCheckFailed(reason);
    return auth;
  }

  private admit(x: Exchange, auth: Authentication, rl: RateLimitState): void {
    if (!rl.allowed) {
      // A valid key was checked before its own bucket refused: the log names it, so an operator
      // sees whose client runs over. Refused by the no-key or failed-key bucket, no key was
      // accepted, and the log names none (not even a revoked record's).
      if (auth !== 'valid') x.keyId = null;
      x.reason = 'rateLimited';
      this.reply.refuseWith(x, rateLimitedBody(rl.retryAfterSeconds), rl);
      return;
    }
    if (auth === 'none' && !this.keys.configured) {
      this.reply.refuse(x, 'noKeyConfigured', rl);
      return;
    }
    if (auth !== 'valid') {
      // The hint depends only on which headers were sent: without X-Api-Key the outcome is
      // 'missing key' whatever Authorization carries, so no key's validity shows through.
      const hint = x.req.headers['x-api-key'] === undefined && x.req.headers.authorization !== undefined;
      this.reply.refuse(x, hint ? 'unauthorizedBearer' : 'unauthorized', rl, UNAUTHORIZED_EXTRA);
      return;
    }
    this.checkHead(x, rl);
  }

  private checkHead(x: Exchange, rl: RateLimitState): void {
    const { req } = x;
    const contentType = req.headers['content-type'];
    const media = contentType === undefined ? 'other' : jsonContentType(contentType);
    if (media !== 'json') {
      this.reply.refuse(x, media === 'charset' ? 'badCharset' : 'badContentType', rl);
      return;
    }
    if (headerCount(req.rawHeaders, 'content-type') !== 1) {
      this.reply.refuse(x, 'duplicateContentType', rl);
      return;
    }
    const length = req.headers['content-length'];
    if (length !== undefined && Number(length) > BODY_LIMIT_BYTES) {
      x.close = true;
      this.reply.error(x, 'tooLarge', rl);
      return;
    }
    // Only now is the body wanted: tell an `Expect: 100-continue` client to send it.
    if (req.headers.expect !== undefined) x.res.writeContinue();
    readBody(req, BODY_LIMIT_BYTES, (result) => {
      this.respond(x, rl, result);
    });
  }

  private respond(x: Exchange, rl: RateLimitState, result: BodyResult): void {
    try {
      if (result.kind === 'aborted') {
        this.reply.log(x, 0);
        return;
      } // no one left to answer
      if (result.kind === 'too-large') {
        x.close = true;
        this.reply.error(x, 'tooLarge', rl);
        return;
      }
      // JSON on the wire is UTF-8 (RFC 8259 8.1); toString would silently mangle anything else.
      // It writes U+FFFD for every byte sequence that is not UTF-8, so a text without one came
      // from valid UTF-8, and only a text with one needs the check (a body may also send
      // U+FFFD itself): one scan of the body fewer on every request (docs/benchmark.md, "The
      // request path against the lean limit").
      const text = result.body.toString('utf8');
      if (text.includes('\uFFFD') && !isUtf8(result.body)) {
        this.reply.error(x, 'badEncoding', rl);
        return;
      }
      let input: unknown;
      try {
        input = JSON.parse(text);
      } catch {
        // Where it went wrong, from the edge's own scan: V8's message quotes the text. (The scan
        // and JSON.parse agree on validity, tests/http/actionable-errors.test.ts, so the plain
        // message is only a fallback.)
        const scan = checkJsonText(text);
        x.reason = 'badJson';
        /* c8 ignore next -- the fallback: the scan finds an error wherever JSON.parse does */
        this.reply.errorWith(x, scan.kind === 'syntax' ? badJsonBody(scan.line, scan.column) : ERRORS.badJson, rl);
        return;
      }
      // Parsed, but JSON.parse kept the last of two equal names: such a body is refused.
      const scan = repeatsAMember(text, input) ? checkJsonText(text) : null;
      if (scan?.kind === 'duplicate') {
        const body = duplicateMemberBody(scan.path, scan.unnamed === true);
        x.reason = 'duplicateMember';
        x.field = body.field ?? null;
        this.reply.errorWith(x, body, rl);
        return;
      }
      const outcome = generate(input, defaultRandom, this.settings);
      if (outcome.status === 200) {
        this.metrics.generated(outcome.body.mode, outcome.body.count);
      } else {
        x.reason = 'invalidRequest';
        x.field = outcome.body.field ?? null;
      }
      this.reply.send(x, outcome.status, this.reply.sets.json, outcomeJson(outcome), rl);
    } catch (error) {
      this.fail(x, error);
    }
  }
}
