/**
 * Issue 7, faults on the real server process, at the integration run's size (the soak repeats
 * them bigger): 1,000 clients aborting mid-body; SIGTERM with 20 slow-body requests in flight
 * and 8 clients generating; key file chaos under 4 clients. What each checks:
 * tests/helpers/faults-suite.ts.
 */
import { describeFaults } from '../helpers/faults-suite.ts';

describeFaults({ name: 'faults', aborts: 1_000, inFlight: 20, sigtermLanes: 8, chaosLanes: 4 });
