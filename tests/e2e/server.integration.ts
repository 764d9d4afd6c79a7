/**
 * The contract suite (tests/helpers/service-suite.ts) against the real server process, started
 * with `node --import tsx server.ts`, over real sockets.
 */
import { serviceSuite } from '../helpers/service-suite.ts';
import { startServer } from '../helpers/server.ts';

serviceSuite(startServer);
