import { ConfigError } from '../config/config.js';
import { CliError, type CliIo, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from './cli-io.js';
import { type CommandSpec, commandName, helpText, parseCommandArgs, PROGRAM, usageLine } from './command-spec.js';
import { audit } from './commands/audit.js';
import { eventsList, eventsTail } from './commands/events.js';
import { keysCreate } from './commands/keys.js';
import { projectionsRebuild, projectionsStatus } from './commands/projections.js';
import { restore } from './commands/restore.js';
import { signingRotate } from './commands/signing.js';
import { storageVerify } from './commands/storage.js';
import { storageHold, storageMigrate, storageRelease } from './commands/storage-s3.js';
import { usageReport } from './commands/usage.js';
import { verify } from './commands/verify.js';
import { logAudit, logMonitor, logPublicKeys } from './commands/log.js';
import { witness } from './commands/witness.js';

/** The operator CLI: finds the command named by the leading words, parses its options and runs it. */

export const COMMANDS: CommandSpec[] = [
  eventsList,
  eventsTail,
  projectionsStatus,
  projectionsRebuild,
  usageReport,
  keysCreate,
  signingRotate,
  verify,
  logMonitor,
  logAudit,
  logPublicKeys,
  audit,
  storageVerify,
  witness,
  storageMigrate,
  storageHold,
  storageRelease,
  restore,
];

export function topLevelHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => commandName(c).length));
  return [
    `${PROGRAM}: the operator CLI of Capture Ledger`,
    '',
    `usage: ${PROGRAM} <command> [options]`,
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${commandName(c).padEnd(width)}  ${c.summary}`),
    '',
    'connection: NATS_URL and DATABASE_URL, as for the service; when unset, DATA_DIR/run.json written by a',
    'running `make run` (DATA_DIR defaults to ./data).',
    'exit codes: 0 success, 1 failure (the message says what to do), 2 bad arguments or environment.',
    `Run \`${PROGRAM} <command> --help\` for a command's options; docs/operators.md has the procedures.`,
    '',
  ].join('\n');
}

function groupHelp(word: string): string {
  const members = COMMANDS.filter((c) => c.path[0] === word);
  const width = Math.max(...members.map((c) => commandName(c).length));
  return [
    `usage: ${PROGRAM} ${word} <${members.map((c) => c.path[1]).join('|')}> [options]`,
    '',
    ...members.map((c) => `  ${commandName(c).padEnd(width)}  ${c.summary}`),
    '',
    `Run \`${PROGRAM} ${word} <subcommand> --help\` for its options.`,
    '',
  ].join('\n');
}

const isHelp = (w: string | undefined) => w === '--help' || w === '-h' || w === 'help';

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  if (argv.length === 0) {
    io.stderr(topLevelHelp());
    return EXIT_USAGE;
  }
  if (isHelp(argv[0])) {
    await io.stdout(topLevelHelp());
    return EXIT_OK;
  }
  const spec = COMMANDS.find((c) => c.path.every((w, i) => argv[i] === w));
  if (!spec) {
    const group = COMMANDS.some((c) => c.path.length > 1 && c.path[0] === argv[0]);
    if (group && (argv.length === 1 || isHelp(argv[1]))) {
      if (argv.length === 1) {
        io.stderr(groupHelp(argv[0]!));
        return EXIT_USAGE;
      }
      await io.stdout(groupHelp(argv[0]!));
      return EXIT_OK;
    }
    const what = group ? `${argv[0]} ${argv[1]}` : argv[0];
    io.stderr(
      `${PROGRAM}: unknown command '${what}'\n${group ? groupHelp(argv[0]!) : `Run \`${PROGRAM} --help\` to list the commands.\n`}`,
    );
    return EXIT_USAGE;
  }
  const name = commandName(spec);
  try {
    const args = parseCommandArgs(spec, argv.slice(spec.path.length));
    if (!args) {
      await io.stdout(helpText(spec));
      return EXIT_OK;
    }
    return await spec.run(args, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(
        `${PROGRAM} ${name}: ${err.message}\n${usageLine(spec)}\nRun \`${PROGRAM} ${name} --help\` for details.\n`,
      );
      return EXIT_USAGE;
    }
    if (err instanceof ConfigError) {
      io.stderr(
        `${PROGRAM} ${name}: ${err.message}\nFix the environment variable named above (the CLI reads the same ones as the service).\n`,
      );
      return EXIT_USAGE;
    }
    if (err instanceof CliError) {
      io.stderr(`${PROGRAM} ${name}: ${err.message}\n${err.hint ? `  ${err.hint}\n` : ''}`);
      return EXIT_FAILURE;
    }
    io.stderr(
      `${PROGRAM} ${name}: ${(err as Error)?.message ?? String(err)}\n${io.env.CLI_DEBUG ? `${(err as Error)?.stack}\n` : ''}`,
    );
    return EXIT_FAILURE;
  }
}
