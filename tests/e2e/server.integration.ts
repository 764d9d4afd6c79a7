/**
 * The contract suite (tests/helpers/service-suite.ts) against the real server process, started
 * with `node server.ts` (TypeScript loaded as the tests load it), over real sockets.
 */
import { serviceSuite } from '../helpers/service-suite.ts';
import { startServer } from '../helpers/server.ts';

serviceSuite(startServer);
