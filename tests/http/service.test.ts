/**
 * The contract suite (tests/helpers/service-suite.ts) against the service started in this
 * process (lib/server/main.ts), over real loopback sockets.
 */
import { serviceSuite } from '../helpers/service-suite.ts';
import { startInProcess } from '../helpers/in-process.ts';

serviceSuite(startInProcess);
