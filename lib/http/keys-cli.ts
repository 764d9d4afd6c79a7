/**
 * Entry point of `npm run keys -- ...` (and `node dist/lib/http/keys-cli.js ...` where only
 * the built files are installed). The logic lives in key-admin.ts.
 * @module
 */
import { runKeysCli } from './key-admin.ts';

process.exitCode = runKeysCli(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
});
