/**
 * The program. With no argument (or `serve`) it runs the service (lib/server/main.ts composes
 * it: configuration -> key store -> rate limiter -> app -> server -> listen), printing one line with the URL it listens on
 * (always, even with LOG_LEVEL=silent, because with PORT=0 it is the only way to learn the
 * port), with the version and the single file's SHA-256; SIGTERM/SIGINT drain and exit 0.
 * `keys <command>` manages the key file (see lib/keys/key-admin.ts), `policies check FILE`
 * checks a policies file (lib/policies/policy-admin.ts); `--version` prints the
 * version and the SHA-256 (lib/server/build-info.ts). The same code runs as `node --import tsx server.ts`, as
 * `dist/server.js` and bundled into the single file `dist/credential-generator.mjs`.
 * @module
 */
import { relative, isAbsolute } from 'node:path';
import { projectRoot, readFromEmbedded, readFromProject } from './lib/http/assets.ts';
import { EMBEDDED_ASSETS } from './lib/http/embedded-assets.ts';
import { checkNodeInternals, internalsRefusal } from './lib/http/node-internals.ts';
import { runKeysCli } from './lib/keys/key-admin.ts';
import { escapeForTerminal } from './lib/log/shown-text.ts';
import { runPoliciesCli } from './lib/policies/policy-admin.ts';
import { buildOf, versionLine } from './lib/server/build-info.ts';
import { parseConfig } from './lib/server/config.ts';
import { ConfigError } from './lib/server/env.ts';
import { probeHealth } from './lib/server/health-probe.ts';
import { variablesHelp } from './lib/server/variables.ts';
import { startService, StartError, type RunningService } from './lib/server/main.ts';
import { nodeSupport } from './lib/server/node-support.ts';
import { keepYoungGenerationSmall } from './lib/server/young-generation.ts';

/** The one line of a refused start, with any character a terminal could act on escaped (a
 * refusal may quote a name from a file). */
function die(message: string): never {
  process.stderr.write(`${escapeForTerminal(message)}\n`);
  process.exit(1);
}

/** How the operator started this program, for usage texts and hints: `npm run keys --`,
 * `npm start --`, or `node <path as short as it can be said from here>`. */
function invokedAs(): string {
  const script = process.env.npm_lifecycle_event;
  if (script === 'start') return 'npm start --';
  if (script !== undefined && script !== '') return `npm run ${script} --`;
  const file = process.argv[1] ?? 'server.js';
  const shown = relative(process.cwd(), file);
  return `node ${shown !== '' && !shown.startsWith('..') && !isAbsolute(shown) ? shown : file}`;
}

/** The `keys` word after the program, unless npm already ran the `keys` script. */
function keysCommand(): string {
  return process.env.npm_lifecycle_event === 'keys' ? invokedAs() : `${invokedAs()} keys`;
}

function usage(): string {
  const program = invokedAs();
  return `usage: ${program} [serve]            run the service (configured by environment variables)
       ${program} keys <command>     manage API keys (${program} keys --help)
       ${program} policies check FILE  check a policies file: each policy's bits or its error
       ${program} health             exit 0 if the service configured here answers /health
       ${program} --version          the version and the SHA-256 of the single file
`;
}

/** --help: the usage, then every environment variable `serve` reads, with its meaning. */
function help(): string {
  return `${usage()}
environment (an empty value counts as unset; docs/deploy.md, Configuration, has every limit):
${variablesHelp()}`;
}

/** SIGTERM/SIGINT drain and exit 0 (lib/server/service.ts, shutdown); a second signal exits 1. */
/** The configuration the health probe reads (the server's own variables). */
function healthConfig(): ReturnType<typeof parseConfig> {
  try {
    return parseConfig(process.env, process.cwd());
  } catch (error) {
    if (error instanceof ConfigError) die(`configuration error: ${error.message}`);
    throw error;
  }
}

function stopOnSignals(service: RunningService): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(1);
    stopping = true;
    void service
      .stop(() => {
        service.logger.info('shutting down', { signal, accepting: false });
      })
      .then(() => {
        process.exit(0); // the stop logged its own last line ("shutdown complete")
      });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function serve(): Promise<void> {
  // Builds with known HTTP parser or TLS vulnerabilities are refused before anything listens.
  const runtime = nodeSupport(process.version, new Date());
  if (!runtime.ok) die(runtime.message);
  // The Node internals the HTTP edge's protections rely on: each must still exist and work on
  // this build, or the start is refused naming it (lib/http/node-internals.ts).
  const missing = await checkNodeInternals(process.env.HOST);
  if (missing !== null) die(internalsRefusal(missing));
  keepYoungGenerationSmall();
  const service = await startService({
    env: process.env,
    cwd: process.cwd(),
    readAsset:
      EMBEDDED_ASSETS !== null ? readFromEmbedded(EMBEDDED_ASSETS) : readFromProject(projectRoot(import.meta.url)),
    keysCommand: keysCommand(),
    build: buildOf(import.meta.url),
  }).catch((error: unknown) => {
    if (error instanceof StartError) die(error.message);
    throw error;
  });
  const { logger, url, build, metricsUrl } = service;
  // Request lines are written in batches (lib/log/logger.ts); whatever is pending goes out on any exit.
  process.on('exit', () => {
    logger.flush();
  });
  // Before the URL is announced: whoever reads that line may signal at once, and a SIGTERM
  // that arrives before node has a handler kills the process outright.
  stopOnSignals(service);
  if (runtime.warning !== null) logger.warn(runtime.warning);
  logger.flush(); // the start-up lines first, then the one that announces the URL
  const line = {
    time: new Date().toISOString(),
    level: 'info',
    msg: `listening on ${url}`,
    url,
    version: build.version,
    build: build.sha256 === null ? 'sources' : 'single file',
    sha256: build.sha256,
    ...(metricsUrl === null ? {} : { metrics: metricsUrl }),
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

const command = process.argv.at(2);
const rest = process.argv.slice(3);
switch (command) {
  case undefined:
  case 'serve':
    if (rest.length > 0) {
      process.stderr.write(`unexpected argument "${escapeForTerminal(rest[0])}"\n${usage()}`);
      process.exitCode = 2;
      break;
    }
    serve().catch((error: unknown) => {
      process.stderr.write(`fatal: ${escapeForTerminal(error instanceof Error ? error.message : String(error))}\n`);
      process.exit(1);
    });
    break;
  case 'keys':
    process.exitCode = runKeysCli(rest, {
      env: process.env,
      cwd: process.cwd(),
      stdout: (text) => void process.stdout.write(text),
      stderr: (text) => void process.stderr.write(text),
      program: keysCommand(),
    });
    break;
  case 'policies':
    process.exitCode = runPoliciesCli(rest, {
      env: process.env,
      cwd: process.cwd(),
      stdout: (text) => void process.stdout.write(text),
      stderr: (text) => void process.stderr.write(text),
      program: process.env.npm_lifecycle_event === 'policies' ? invokedAs() : `${invokedAs()} policies`,
    });
    break;
  case 'health':
    void probeHealth(healthConfig()).then((problem) => {
      if (problem !== null) process.stderr.write(`unhealthy: ${escapeForTerminal(problem)}\n`);
      process.exitCode = problem === null ? 0 : 1;
    });
    break;
  case '--version':
    process.stdout.write(`${versionLine(buildOf(import.meta.url))}\n`);
    break;
  case 'help':
  case '--help':
  case '-h':
    process.stdout.write(help());
    break;
  default:
    process.stderr.write(`unknown command "${escapeForTerminal(command)}"\n${usage()}`);
    process.exitCode = 2;
}
