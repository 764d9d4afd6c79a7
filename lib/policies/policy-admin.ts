/**
 * The operator's policies command (`npm run policies -- check FILE`), in the keys CLI's style
 * (lib/keys/key-admin.ts): results on stdout, usage and refusals on stderr, exit 0 ok, 1
 * failed, 2 usage. `check` runs the server's own checks on every policy of FILE (the schema,
 * the request's rules, satisfiability and MIN_ENTROPY_BITS from the environment, as the server
 * would apply it) and prints one line per policy: its exact bits, or the field and the reason.
 * Nothing is generated. The server's trust rule for the file's owner and mode is checked by the
 * server when it loads the file, not here: the command also checks a file before it is put in
 * place.
 * @module
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { MAX_MIN_BITS, parseEntropyFloor } from '../request/index.ts';
import { terminalSafe } from '../log/shown-text.ts';
import { judgePolicies, shownName } from './policies.ts';

export interface PoliciesCliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** The command as the operator ran it, for the usage text (default `npm run policies --`). */
  readonly program?: string;
}

export const policiesUsage = (program: string): string => `usage: ${program} check FILE

  check FILE    check every policy of FILE as the server does at load (schema, options,
                satisfiability, MIN_ENTROPY_BITS of this environment); print each one's
                exact bits or its error; exit 0 only when all are valid
`;

/** Runs one command; returns the exit code (0 all valid, 1 not, 2 usage). */
export function runPoliciesCli(argv: readonly string[], cliIo: PoliciesCliIo): number {
  const io = terminalSafe(cliIo);
  const usage = policiesUsage(io.program ?? 'npm run policies --');
  const [command, file] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    io.stdout(usage);
    return 0;
  }
  if (command !== 'check' || argv.length !== 2) {
    io.stderr(usage);
    return 2;
  }
  const floorText = io.env.MIN_ENTROPY_BITS;
  const floor = floorText === undefined || floorText === '' ? 0 : parseEntropyFloor(floorText);
  if (floor === null) {
    io.stderr(`policies: MIN_ENTROPY_BITS must be a number of bits from 0 to ${MAX_MIN_BITS}\n`);
    return 2;
  }
  let text: string;
  try {
    text = readFileSync(resolve(io.cwd, file), 'utf8');
  } catch (error) {
    io.stderr(`policies: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})\n`);
    return 1;
  }
  const verdict = judgePolicies(text, floor);
  if (!verdict.ok) {
    io.stderr(`policies: ${file} ${verdict.error}\n`);
    return 1;
  }
  let failed = 0;
  for (const v of verdict.verdicts) {
    if (v.ok) {
      const { entropy, mode } = v.policy;
      io.stdout(`ok       ${shownName(v.name)} ${mode}: ${entropy.bits.toFixed(2)} bits (${entropy.label})\n`);
    } else {
      failed++;
      io.stdout(`invalid  ${shownName(v.name)} field ${v.field}: ${v.error}\n`);
    }
  }
  const floorNote = floor > 0 ? ` (MIN_ENTROPY_BITS ${String(floor)})` : '';
  io.stderr(
    failed === 0
      ? `policies: all ${verdict.verdicts.length} valid${floorNote}\n`
      : `policies: ${failed} of ${verdict.verdicts.length} invalid${floorNote}\n`,
  );
  return failed === 0 ? 0 : 1;
}
