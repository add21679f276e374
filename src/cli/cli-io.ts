/**
 * What a command may touch of its process: the environment, the two output streams and a stop signal.
 * `main.ts` wires these to the real process; tests pass their own and read what was written.
 */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  /** Results (JSON lines, CSV, tables). Awaited so large outputs respect back-pressure. */
  stdout(text: string): void | Promise<void>;
  /** Progress, notes and errors. */
  stderr(text: string): void;
  /** True when stderr is a terminal: progress redraws one line instead of printing a line every few seconds. */
  stderrIsTTY?: boolean;
  /** Aborted on SIGINT/SIGTERM: long-running commands (events tail) stop cleanly and exit 0. */
  signal?: AbortSignal;
  /** Reads a local file (verify); default the file system. */
  readFile?(path: string): Promise<Uint8Array>;
}

/** Exit codes of every command. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** Bad arguments or environment: exit 2, message plus the command's usage line. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The command could not do its job: exit 1. `hint` says what to do about it. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    public readonly hint?: string,
  ) {
    super(message);
  }
}
