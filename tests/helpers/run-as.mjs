/**
 * Preload (`NODE_OPTIONS=--import <this file>`) that makes a process started by root continue
 * as another user before any other module loads, so a test can run the real server as
 * `nobody` through the usual startServer(): RUN_AS_USER="<uid>:<gid>". Supplementary groups
 * are dropped first (root's would otherwise stay), then the group, then the user, the order
 * in which each step is still permitted.
 */
import { isMainThread } from 'node:worker_threads';

// Node 22 and later also run NODE_OPTIONS' --import files in the module-hooks thread (tsx's),
// where changing the user throws, and the main thread then waits for that thread forever. The
// user is the process's, so the main thread alone changes it.
if (isMainThread) {
  const spec = process.env.RUN_AS_USER ?? '';
  const match = /^(\d+):(\d+)$/.exec(spec);
  if (match === null) throw new Error(`RUN_AS_USER must be "<uid>:<gid>" (got ${JSON.stringify(spec)})`);
  process.setgroups([]);
  process.setgid(Number(match[2]));
  process.setuid(Number(match[1]));
}
