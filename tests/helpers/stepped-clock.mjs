/**
 * Preload (`--import`, see startServer's `steppedClock`) that puts a server's monotonic clock
 * in the test's hands: `performance.now()` stands still from the moment this module loads and
 * moves only when the test sets it, to exactly the value the test names. The rate limiter
 * reads that clock (lib/rate-limit/token-bucket.ts), so its answers stop depending on how fast
 * a busy machine gets the test's requests through: a refill happens when the test steps the
 * clock, never between two requests on its own.
 *
 * Only `performance.now()` is replaced. Node's timers (keep-alive, header and request
 * timeouts, the limiter's sweep interval) run on libuv's clock and keep real time.
 *
 * Control: the test writes the offset it wants (milliseconds since the clock stood still, a
 * decimal number) to the file STEPPED_CLOCK_FILE names and sends SIGUSR2; this module reads
 * it, sets the clock, and prints one line, {"msg":"stepped clock","ms":<offset>}, which the
 * test waits for before its next request.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const file = process.env.STEPPED_CLOCK_FILE;
if (file === undefined) throw new Error('STEPPED_CLOCK_FILE is not set');
const origin = performance.now();
let offset = 0;
performance.now = () => origin + offset;
process.on('SIGUSR2', () => {
  const wanted = Number(readFileSync(file, 'utf8'));
  if (!Number.isFinite(wanted) || wanted < offset)
    throw new Error(`stepped clock: cannot go from ${offset} to ${wanted} ms`);
  offset = wanted;
  process.stdout.write(`${JSON.stringify({ msg: 'stepped clock', ms: offset })}\n`);
});
