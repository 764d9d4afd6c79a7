/**
 * Issue 7, fuzzing over real sockets (fast slice of 5,000 cases; tests/soak/fuzz.soak.ts sends 20,000):
 * fuzzed requests and raw malformed HTTP against the real server process. 0 responses of 5xx,
 * no crash (health after every batch), every error body `{error, status, field?}` matching
 * the status line, well-formed requests' replies valid against openapi.json, and no generated
 * value in the server's output or any file written meanwhile. Seed printed; FUZZ_SEED replays;
 * FUZZ_HTTP_CASES overrides the count.
 */
import { it } from 'node:test';
import { fuzzRealServer } from '../helpers/http-fuzz.ts';

it('survives fuzzed and malformed HTTP over raw sockets: no 5xx, no crash, contract-shaped errors', () =>
  fuzzRealServer({ label: 'socket fuzz', cases: 5_000, batch: 1_000, lanes: 16 }));
