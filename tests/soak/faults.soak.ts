/**
 * Issue 7, faults at soak size: 10,000 clients aborting mid-body (50 at once); SIGTERM with 100
 * slow-body requests in flight and 16 clients generating flat out; key file chaos under 8
 * clients. The same assertions as tests/e2e/faults.integration.ts: tests/helpers/faults-suite.ts.
 */
import { describeFaults } from '../helpers/faults-suite.ts';

describeFaults({
  name: 'faults (soak)',
  aborts: 10_000,
  abortLanes: 50,
  inFlight: 100,
  sigtermLanes: 16,
  chaosLanes: 8,
});
