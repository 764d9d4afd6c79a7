// The lean limit of the HTTP figures: the leanest node:http server we could write that does the
// contract work of POST /generate, measured beside the service in the same rounds
// (bench/http.ts). A measuring instrument, not product code: it imports nothing of lib/ and
// serves only what the benchmark sends (mode password with its options; a passphrase is a 400).
// The work, per request:
//   - the route (POST /generate, exact path; anything else 404);
//   - the API key: SHA-256 of X-Api-Key compared with the configured digest by timingSafeEqual
//     (401 without a match);
//   - a token bucket per client address in a Map: capacity RATE_LIMIT_PER_MINUTE, refilled
//     continuously over 60 s, a hard cap on tracked clients; X-RateLimit-Limit/-Remaining/-Reset
//     on every reply, Retry-After on a 429;
//   - Content-Type application/json (400) and the 16 KB cap (413 on Content-Length, and on what
//     arrives);
//   - JSON.parse, and the request's validation: mode, count 1-20 and the password options
//     (length 8-128, the four classes, avoidAmbiguous, excludedCharacters), no unknown field,
//     no type coercion;
//   - a uniform generator with the each-class rule: characters drawn by rejection sampling from
//     crypto.getRandomValues words (no modulo bias), the whole password redrawn while a class is
//     missing; and the exact bits: log2 of the count of valid passwords by inclusion-exclusion in
//     BigInt (once per option set: a plan cached in a Map, as the service's memo caches plans);
//   - Content-Type and X-Api-Key each given once (a second Content-Type is a 400; node joins two
//     X-Api-Key values into one that no key digest matches, a 401), and no member name twice in
//     one object of the body (a 400: parsers disagree on which of two wins);
//   - the reply: the contract's body (the service's bytes for the same credential), with the
//     headers the contract puts on every JSON reply: Cache-Control: no-store,
//     X-Content-Type-Options: nosniff, Referrer-Policy: no-referrer, the JSON
//     Content-Security-Policy, and the rate-limit fields (the X-RateLimit trio, and the IETF
//     draft's RateLimit-Policy and RateLimit with the same numbers);
//   - with LOG_LEVEL info (the default) one JSON line per request on stdout (time, level, msg,
//     method, route, status, ms, key id, masked client address), collected in a buffer and written
//     in batches of 16 KB or every 100 ms, as the service writes its request log.
//
//   API_KEY=... RATE_LIMIT_PER_MINUTE=20 LOG_LEVEL=info PORT=0 HOST=127.0.0.1 node bench/lean-server.mjs
//
// Prints the same listening line as server.ts, with the URL, and exits 0 on SIGTERM/SIGINT
// (writing what the log has pending).
import { getRandomValues, hash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setTimeout } from 'node:timers';
import { serve } from './listening.mjs';
import { PASSWORD_DEFAULTS as DEFAULTS } from './password-defaults.mjs';

const BODY_LIMIT = 16_384;
const KEY_DIGEST = hash('sha256', process.env.API_KEY ?? '', 'buffer');
const LIMIT = Number(process.env.RATE_LIMIT_PER_MINUTE ?? 20);
const MS_PER_TOKEN = 60_000 / LIMIT;
const POLICY = `"client";q=${LIMIT};w=60`;
const MAX_CLIENTS = 100_000;
const LOGGING = ['info', 'debug'].includes(process.env.LOG_LEVEL ?? 'info');

// --- random words and uniform draws ------------------------------------------------------

const WORDS = new Uint32Array(16_384); // 64 KiB per getRandomValues call
let nextWord = WORDS.length;

/** A uniform integer below n: a word below the largest multiple of n is kept, any other redrawn. */
function below(n, accept) {
  for (;;) {
    if (nextWord === WORDS.length) {
      getRandomValues(WORDS);
      nextWord = 0;
    }
    const w = WORDS[nextWord++];
    if (w < accept) return w % n;
  }
}

// --- plans: pool, class of each character, exact bits ------------------------------------

const CLASSES = [
  ['lowercase', 'includeLowercase', 'abcdefghijklmnopqrstuvwxyz'],
  ['uppercase', 'includeUppercase', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'],
  ['numbers', 'includeNumbers', '0123456789'],
  ['symbols', 'includeSymbols', '!@#$%^&*()-_=+[]{};:,.?'],
];
const AMBIGUOUS = '0O1Il5S8B';
const LEVELS = [
  [100, 4, 'Excellent'],
  [80, 3, 'Very strong'],
  [64, 2, 'Strong'],
  [50, 1, 'Fair'],
  [0, 0, 'Weak'],
];

function log2(big) {
  const shift = Math.max(0, big.toString(2).length - 60);
  return Math.log2(Number(big >> BigInt(shift))) + shift;
}

/** The plan of a password option set, or the 400 nothing can be made for. */
function planOf(o) {
  const chars = [];
  const classOf = [];
  const classes = [];
  for (const [name, option, set] of CLASSES) {
    if (!o[option]) continue;
    let kept = '';
    for (const c of set)
      if (!(o.avoidAmbiguous && AMBIGUOUS.includes(c)) && !o.excludedCharacters.includes(c)) kept += c;
    if (kept === '') return error(400, `options.excludedCharacters leaves no ${name}`, 'options.excludedCharacters');
    for (const c of kept) {
      chars.push(c);
      classOf.push(1 << classes.length);
    }
    classes.push({ name, size: kept.length });
  }
  if (classes.length === 0) return error(400, 'options must include at least one character class', 'options');
  if (chars.length < 2) return error(400, 'options leave fewer than 2 characters', 'options');
  // |V| = sum over subsets S of the classes of (-1)^|S| (N - sizes of S)^L
  let count = 0n;
  for (let s = 0; s < 1 << classes.length; s++) {
    let left = chars.length;
    let odd = false;
    for (let k = 0; k < classes.length; k++)
      if (s & (1 << k)) {
        left -= classes[k].size;
        odd = !odd;
      }
    const term = BigInt(left) ** BigInt(o.length);
    count += odd ? -term : term;
  }
  const bits = log2(count);
  const [, level, label] = LEVELS.find(([min]) => bits >= min);
  const entropy = { bits: Math.round(bits * 100) / 100, label, level };
  const metadata = { entropyMode: 'uniform-each-class', poolSize: chars.length, length: o.length, classes };
  const n = chars.length;
  return {
    chars,
    classOf,
    all: (1 << classes.length) - 1,
    n,
    accept: 2 ** 32 - (2 ** 32 % n),
    length: o.length,
    shared: `"entropy":${JSON.stringify(entropy)},"metadata":${JSON.stringify(metadata)}`,
  };
}

function password(plan) {
  for (;;) {
    let value = '';
    let seen = 0;
    for (let i = 0; i < plan.length; i++) {
      const k = below(plan.n, plan.accept);
      value += plan.chars[k];
      seen |= plan.classOf[k];
    }
    if (seen === plan.all) return value;
  }
}

const DEFAULT_PLAN = planOf(DEFAULTS);
const plans = new Map();

// --- validation --------------------------------------------------------------------------

function error(status, message, field) {
  return { error: message, status, ...(field === undefined ? {} : { field }) };
}

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const isBoolean = (v) => v === true || v === false;

/** The plan for a parsed body, or an error body. */
function requestPlan(input) {
  if (!isObject(input)) return error(400, 'the request body must be a JSON object');
  for (const name in input)
    if (name !== 'mode' && name !== 'count' && name !== 'options')
      return error(400, `${name} is not a field of the request`, name);
  if (input.mode !== 'password')
    return error(
      400,
      input.mode === 'passphrase' ? 'mode passphrase: not served here' : 'mode must be one of "password", "passphrase"',
      'mode',
    );
  const count = input.count ?? 1;
  if (!Number.isInteger(count) || count < 1 || count > 20)
    return error(400, 'count must be an integer between 1 and 20', 'count');
  const options = input.options;
  if (options === undefined) return { plan: DEFAULT_PLAN, count };
  if (!isObject(options)) return error(400, 'options must be an object', 'options');
  const o = { ...DEFAULTS };
  for (const name in options) {
    const v = options[name];
    if (name === 'length') {
      if (!Number.isInteger(v) || v < 8 || v > 128)
        return error(400, 'options.length must be between 8 and 128', 'options.length');
    } else if (name === 'excludedCharacters') {
      if (typeof v !== 'string' || v.length > 256)
        return error(
          400,
          'options.excludedCharacters must be a string of at most 256 characters',
          'options.excludedCharacters',
        );
    } else if (!(name in DEFAULTS))
      return error(400, `options.${name} is not an option of mode password`, `options.${name}`);
    else if (!isBoolean(v)) return error(400, `options.${name} must be true or false`, `options.${name}`);
    o[name] = v;
  }
  const key = `${o.length}|${+o.includeLowercase}${+o.includeUppercase}${+o.includeNumbers}${+o.includeSymbols}${+o.avoidAmbiguous}|${o.excludedCharacters}`;
  let plan = plans.get(key);
  if (plan === undefined) {
    plan = planOf(o);
    if (plans.size < 1000) plans.set(key, plan);
  }
  return plan.status === undefined ? { plan, count } : plan;
}

function body(plan, count) {
  const first = password(plan);
  let results = `{"value":"${first}",${plan.shared}}`;
  for (let i = 1; i < count; i++) results += `,{"value":"${password(plan)}",${plan.shared}}`;
  return `{"mode":"password","count":${count},"value":"${first}",${plan.shared},"results":[${results}]}`;
}

// --- token buckets: the time each is full again, by address ------------------------------

const buckets = new Map();

/** One request's decision for `client`, and the numbers of its reply. */
function take(client, now) {
  const fullAt = buckets.get(client);
  const debt = fullAt === undefined || fullAt < now ? 0 : fullAt - now; // ms of refill owed
  const tokens = LIMIT - debt / MS_PER_TOKEN;
  if (tokens < 1) {
    const wait = Math.max(1, Math.ceil(((1 - tokens) * MS_PER_TOKEN) / 1000));
    return { allowed: false, remaining: 0, reset: Math.ceil(debt / 1000), retryAfter: wait };
  }
  if (fullAt === undefined && buckets.size >= MAX_CLIENTS) buckets.delete(buckets.keys().next().value);
  buckets.set(client, now + debt + MS_PER_TOKEN);
  return {
    allowed: true,
    remaining: Math.floor(tokens - 1),
    reset: Math.ceil((debt + MS_PER_TOKEN) / 1000),
    retryAfter: 0,
  };
}

/** The numbers of a reply that takes no token (a 404). */
function peek(client, now) {
  const fullAt = buckets.get(client);
  const debt = fullAt === undefined || fullAt < now ? 0 : fullAt - now;
  return {
    allowed: true,
    remaining: Math.floor(LIMIT - debt / MS_PER_TOKEN),
    reset: Math.ceil(debt / 1000),
    retryAfter: 0,
  };
}

// --- the request log ---------------------------------------------------------------------

const batch = Buffer.allocUnsafe(32_768);
let used = 0;
let timer = null;
let lastSecond = Number.NaN;
let secondText = '';

function flush() {
  if (timer !== null) clearTimeout(timer);
  timer = null;
  if (used === 0) return;
  process.stdout.write(Buffer.from(batch.subarray(0, used)));
  used = 0;
}

function log(req, status, started, key) {
  // The time as the service writes it: the text up to the second once a second, then the ms.
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    secondText = new Date(second * 1000).toISOString().slice(0, -4);
  }
  const ms = now - second * 1000;
  const time = `${secondText}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
  const client = clientOf(req.socket.remoteAddress ?? 'unknown');
  const masked = client.includes('.') ? `${client.slice(0, client.lastIndexOf('.'))}.0/24` : client;
  const line = `{"time":"${time}","level":"info","msg":"request","method":"${req.method}","route":"${status === 404 ? 'unmatched' : '/generate'}","status":${status},"ms":${Math.round((performance.now() - started) * 100) / 100},"key":${key === null ? 'null' : `"${key}"`},"client":"${masked}"}\n`;
  used += batch.write(line, used, 'latin1');
  if (used >= 16_384) flush();
  else if (timer === null) {
    timer = setTimeout(flush, 100);
    timer.unref();
  }
}

// --- the server ---------------------------------------------------------------------------

/** Writes a reply and its log line. */
function answer(req, res, status, text, rl, started, key, close) {
  const headers = [
    'Cache-Control',
    'no-store',
    'X-Content-Type-Options',
    'nosniff',
    'Referrer-Policy',
    'no-referrer',
    'Content-Type',
    'application/json; charset=utf-8',
    'Content-Security-Policy',
    "default-src 'none'; frame-ancestors 'none'",
    'Content-Length',
    Buffer.byteLength(text),
    'X-RateLimit-Limit',
    LIMIT,
    'X-RateLimit-Remaining',
    rl.remaining,
    'X-RateLimit-Reset',
    rl.reset,
    'RateLimit-Policy',
    POLICY,
    'RateLimit',
    `"client";r=${rl.remaining};t=${rl.reset}`,
  ];
  if (!rl.allowed) headers.push('Retry-After', rl.retryAfter);
  if (close) headers.push('Connection', 'close');
  res.writeHead(status, headers);
  res.end(text);
  if (LOGGING) log(req, status, started, key);
}

function refuse(req, res, e, rl, started, key, close) {
  answer(req, res, e.status, JSON.stringify(e), rl, started, key, close);
}

/** How many Content-Type fields the request gave (node keeps the first and drops the rest). */
function typesGiven(raw) {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 12 && raw[i].toLowerCase() === 'content-type') n++;
  return n;
}

/** The colons outside strings of valid JSON: one per member as written. */
function colonsOutsideStrings(text) {
  let n = 0;
  for (let i = 0, inString = false; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x3a) n++;
  }
  return n;
}

/** The members JSON.parse kept: one per distinct name in each object, so fewer than written
 * exactly when a name was repeated. */
function membersOf(v) {
  if (typeof v !== 'object' || v === null) return 0;
  let n = 0;
  if (Array.isArray(v)) for (const item of v) n += membersOf(item);
  else for (const name in v) n += 1 + membersOf(v[name]);
  return n;
}

const clientOf = (address) => (address.startsWith('::ffff:') ? address.slice(7) : address);

const server = createServer((req, res) => {
  const started = performance.now();
  const client = clientOf(req.socket.remoteAddress ?? 'unknown');
  const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  const q = req.url.indexOf('?');
  if ((q === -1 ? req.url : req.url.slice(0, q)) !== '/generate' || req.method !== 'POST')
    return refuse(req, res, error(404, 'not found'), peek(client, started), started, null, hasBody);
  const rl = take(client, started);
  if (!rl.allowed) return refuse(req, res, error(429, 'rate limit exceeded'), rl, started, null, hasBody);
  const presented = req.headers['x-api-key'];
  if (typeof presented !== 'string' || !timingSafeEqual(hash('sha256', presented, 'buffer'), KEY_DIGEST))
    return refuse(req, res, error(401, 'missing or invalid API key'), rl, started, null, hasBody);
  if (req.headers['content-type'] !== 'application/json' || typesGiven(req.rawHeaders) > 1)
    return refuse(req, res, error(400, 'Content-Type must be application/json'), rl, started, 'env', hasBody);
  if (Number(req.headers['content-length']) > BODY_LIMIT)
    return refuse(req, res, error(413, 'request body larger than 16 KB'), rl, started, 'env', true);
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size <= BODY_LIMIT) chunks.push(chunk);
  });
  req.on('end', () => {
    if (size > BODY_LIMIT)
      return refuse(req, res, error(413, 'request body larger than 16 KB'), rl, started, 'env', true);
    const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
    let input;
    try {
      input = JSON.parse(text);
    } catch {
      return refuse(req, res, error(400, 'the request body is not valid JSON'), rl, started, 'env', false);
    }
    if (colonsOutsideStrings(text) !== membersOf(input))
      return refuse(req, res, error(400, 'the request body has a member name twice'), rl, started, 'env', false);
    const r = requestPlan(input);
    if (r.status !== undefined) return refuse(req, res, r, rl, started, 'env', false);
    answer(req, res, 200, body(r.plan, r.count), rl, started, 'env', false);
  });
});

serve(server, flush);
