/**
 * The shared token bucket as GCRA (generic cell rate algorithm) in one Redis Lua script.
 *
 * A bucket of capacity C refilled at C per 60 s is the same thing as one "theoretical arrival
 * time" (TAT) per client: each granted request pushes the TAT one emission interval
 * T = 60 s / C further, and the bucket holds C - (TAT - now) / T tokens (C when TAT <= now).
 * A request is granted when at least one token is there, i.e. when TAT + T <= now + C * T.
 * So one number per key replaces the in-process bucket's (tokens, timestamp) pair, with the
 * same decisions, and `stateFromTokens` (lib/rate-limit/token-bucket.ts) turns it into the same
 * header numbers (docs/redis-rate-limit.md).
 *
 * Exact arithmetic: Lua in Redis has only doubles, and the TAT in microseconds since the epoch
 * is about 1.8e15, where a double's step is 0.25 us. T = 60e6 / C us is rarely whole (C = 7:
 * 8571428.571... us; C = 1e9: 0.06 us, which would vanish entirely when added), so the TAT is
 * kept as whole microseconds `a` plus a remainder `b` in units of 1/C us (0 <= b < C), and T as
 * q + r / C us with q = floor(60e6 / C), r = 60e6 mod C. Every value stays an integer below
 * 2^53 (a < 2^51, b < 1e9), so Lua computes it exactly and the bucket never drifts.
 *
 * The stored value is the text "<a>:<b>:<C>". C is kept so that a value written under another
 * limit (a rolling change of RATE_LIMIT_PER_MINUTE) is read as whole microseconds rounded up,
 * never with the wrong denominator.
 * @module
 */
import { createHash } from 'node:crypto';
import { snapTokens, stateFromTokens, type RateLimitState } from './token-bucket.ts';

/** The bucket window: a full bucket refills in exactly this many microseconds. */
export const WINDOW_MICROS = 60_000_000;

/**
 * KEYS[#KEYS]: the bucket's key; with two keys, KEYS[1] is a gate: the call is refused, with
 * the gate's numbers and nothing written, when the gate bucket holds no token (the failed-key
 * gate of lib/rate-limit/client-limits.ts, checked in the same atomic call as the charge).
 * ARGV: C, q, r (T = q + r / C microseconds), '1' to take a token or '0' to only look.
 * Returns {granted (1/0), a, b, now, gate (1/0)}: the deciding bucket's TAT after the call as
 * a + b / C us (for a refusal or a look, the current one, not earlier than now), the Redis time
 * used, and whether the deciding bucket is the gate (a refusal by the gate) or the key.
 *
 * - Time comes from TIME, so the instances sharing the bucket need no clock agreement.
 * - A refusal and a look write nothing; a grant writes the new TAT and sets the key to expire
 *   at the TAT, the moment the bucket would be full again and the key carries no information.
 * - A stored TAT more than a window ahead of TIME can only come from Redis's clock stepping
 *   back (the script never writes one): it is read as a full bucket rather than blocking the
 *   client for the length of the step.
 * - A value that is not ours (another type, or text in another format) reads as a full bucket
 *   and is overwritten at the next grant.
 * - redis.replicate_commands() lets Redis 3.2 to 4 replicate the writes of a script that read
 *   TIME; from Redis 5 it is the default and the call does nothing.
 * - SET then PEXPIREAT rather than SET ... PXAT, which needs Redis 6.2.
 */
export const GCRA_SCRIPT = `if redis.replicate_commands then redis.replicate_commands() end
local limit = tonumber(ARGV[1])
local q = tonumber(ARGV[2])
local r = tonumber(ARGV[3])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local horizon = now + ${WINDOW_MICROS}
local function tat(key)
  local a, b = now, 0
  local stored = redis.pcall('GET', key)
  if type(stored) == 'string' then
    local sa, sb, sc = string.match(stored, '^(%d+):(%d+):(%d+)$')
    if sa then
      a, b = tonumber(sa), tonumber(sb)
      if a > horizon then
        a, b = now, 0
      elseif tonumber(sc) ~= limit then
        if b > 0 then a = a + 1 end
        b = 0
      end
    end
  end
  if a < now then a, b = now, 0 end
  return a, b
end
local function step(a, b)
  local na, nb = a + q, b + r
  if nb >= limit then na, nb = na + 1, nb - limit end
  return na, nb, na < horizon or (na == horizon and nb == 0)
end
if #KEYS == 2 then
  local ga, gb = tat(KEYS[1])
  local _, _, open = step(ga, gb)
  if not open then return {0, ga, gb, now, 1} end
end
local key = KEYS[#KEYS]
local a, b = tat(key)
local na, nb, granted = step(a, b)
if not granted then return {0, a, b, now, 0} end
if ARGV[4] ~= '1' then return {1, a, b, now, 0} end
redis.call('SET', key, string.format('%.0f:%.0f:%.0f', na, nb, limit))
local expire = na
if nb > 0 then expire = expire + 1 end
redis.call('PEXPIREAT', key, math.ceil(expire / 1000))
return {1, na, nb, now, 0}
`;

/** What EVALSHA asks for: the script's SHA-1 (Redis names scripts by it; not a security use). */
export const GCRA_SHA1 = createHash('sha1').update(GCRA_SCRIPT).digest('hex');

/**
 * The charge-back of an outage (docs/redis-rate-limit.md, When Redis comes back): what this
 * instance granted on its own while Redis was out, written to the shared bucket in one call.
 *
 * KEYS[1]: the bucket's key. ARGV: C, then n * T as whole microseconds and a remainder in 1/C
 * us (n: the grants of the fallback since this instance last saw the bucket full), then
 * `ahead`: whole microseconds until this instance's own bucket is full again.
 * Returns the GCRA script's shape, {1, a, b, now, 0}: the TAT after the call (not earlier than
 * now).
 *
 * The new TAT is max(stored + n * T, now + ahead): granting n forced tokens at times t_i to a
 * TAT x gives max(x + n * T, f), where f is what those grants give a full bucket, and this
 * instance's own bucket started from the last state Redis gave it, so `ahead` covers f and
 * that state (even when the key expired meanwhile), and the stored TAT covers what other
 * instances took. It is capped at an empty bucket (now + one window): the script reads a TAT
 * further ahead as a clock step back, a full bucket. Time, the stored format, a value under
 * another limit and the expiry are as in GCRA_SCRIPT.
 */
export const CHARGE_SCRIPT = `if redis.replicate_commands then redis.replicate_commands() end
local limit = tonumber(ARGV[1])
local nq = tonumber(ARGV[2])
local nb = tonumber(ARGV[3])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local horizon = now + ${WINDOW_MICROS}
local a, b = now + tonumber(ARGV[4]), 0
local stored = redis.pcall('GET', KEYS[1])
if type(stored) == 'string' then
  local sa, sb, sc = string.match(stored, '^(%d+):(%d+):(%d+)$')
  if sa and tonumber(sa) <= horizon then
    local xa, xb = tonumber(sa), tonumber(sb)
    if tonumber(sc) ~= limit then
      if xb > 0 then xa = xa + 1 end
      xb = 0
    end
    xa, xb = xa + nq, xb + nb
    if xb >= limit then xa, xb = xa + 1, xb - limit end
    if xa > a or (xa == a and xb > b) then a, b = xa, xb end
  end
end
if a > horizon or (a == horizon and b > 0) then a, b = horizon, 0 end
if a < now or (a == now and b == 0) then return {1, now, 0, now, 0} end
redis.call('SET', KEYS[1], string.format('%.0f:%.0f:%.0f', a, b, limit))
local expire = a
if b > 0 then expire = expire + 1 end
redis.call('PEXPIREAT', KEYS[1], math.ceil(expire / 1000))
return {1, a, b, now, 0}
`;

export const CHARGE_SHA1 = createHash('sha1').update(CHARGE_SCRIPT).digest('hex');

/** ARGV of CHARGE_SCRIPT: n grants (1 to C) and `aheadMicros` of this instance's own bucket.
 * n * T = n * q + n * r / C us; n * r can pass 2^53 (C up to 1e9), so it is split exactly. */
export function chargeArgs(limit: number, grants: number, aheadMicros: number): [string, string, string, string] {
  const [, q, r] = gcraArgs(limit);
  const n = BigInt(grants);
  const spill = n * BigInt(r);
  const whole = n * BigInt(q) + spill / BigInt(limit);
  return [String(limit), String(whole), String(spill % BigInt(limit)), String(Math.max(0, Math.ceil(aheadMicros)))];
}

/** The script's answer, decoded. */
export interface GcraReply {
  readonly granted: boolean;
  /** TAT = tatMicros + tatRemainder / limit microseconds since the epoch (Redis's clock). */
  readonly tatMicros: number;
  readonly tatRemainder: number;
  /** The Redis time the script used, microseconds since the epoch. */
  readonly nowMicros: number;
  /** The deciding bucket is the gate (KEYS[1] of two): the call was refused by it. */
  readonly byGate: boolean;
}

/** The per-limit script arguments ARGV[1..3], computed once. */
export function gcraArgs(limit: number): [string, string, string] {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1e9)
    throw new RangeError(`limit must be an integer from 1 to 1e9 (got ${limit})`);
  const q = Math.floor(WINDOW_MICROS / limit);
  const r = WINDOW_MICROS - q * limit;
  return [String(limit), String(q), String(r)];
}

function safeInteger(value: unknown): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  throw new TypeError('unexpected reply from the rate-limit script');
}

/** Checks the shape of the script's reply; anything else is treated as a Redis failure. */
export function decodeGcraReply(reply: unknown): GcraReply {
  if (!Array.isArray(reply) || reply.length !== 5) throw new TypeError('unexpected reply from the rate-limit script');
  return {
    granted: safeInteger(reply[0]) === 1,
    tatMicros: safeInteger(reply[1]),
    tatRemainder: safeInteger(reply[2]),
    nowMicros: safeInteger(reply[3]),
    byGate: safeInteger(reply[4]) === 1,
  };
}

/**
 * Tokens in the bucket at the script's time: C - (TAT - now) / T, with T = 60e6 / C us, i.e.
 * C - ((a - now) * C + b) / 60e6. (a - now) * C + b is an integer, exact in a double up to
 * 2^53 (C up to 1.5e8 for a full window), so the only rounding is the final division. The
 * exact count is then a multiple of 1/60e6, never within the bucket's 1e-9 snapping distance
 * of a whole number without being one: the snap is applied only so that the rule is literally
 * the bucket's (it can matter above 6e7 per minute, where a double's step exceeds 1e-9).
 */
export function tokensAt(reply: GcraReply, limit: number): number {
  const ahead = (reply.tatMicros - reply.nowMicros) * limit + reply.tatRemainder;
  return ahead <= 0 ? limit : snapTokens(limit - ahead / WINDOW_MICROS);
}

/** The reply's header numbers, by the in-process bucket's own derivation. */
export function gcraState(reply: GcraReply, limit: number, out?: RateLimitState): RateLimitState {
  return stateFromTokens(reply.granted, tokensAt(reply, limit), limit, out);
}
