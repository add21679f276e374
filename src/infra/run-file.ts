import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * DATA_DIR/run.json: where a running `make run` (src/main.ts) can be reached, so the operator CLI finds the
 * embedded nats-server and Postgres without NATS_URL/DATABASE_URL. Written after start (mode 0600: the
 * database URL carries its password), removed on a clean stop; a SIGKILL leaves it behind, so readers check
 * that `pid` is alive.
 */
export interface RunInfo {
  natsUrl: string;
  /** The embedded nats-server's one user (it accepts no anonymous client). */
  natsUser?: string;
  natsPassword?: string;
  /** null: the process runs no role that uses Postgres (a signer alone). */
  databaseUrl: string | null;
  pid: number;
  startedAt?: string;
}

export const RUN_FILE_NAME = 'run.json';

export async function writeRunFile(dataDir: string, info: RunInfo): Promise<void> {
  const path = join(dataDir, RUN_FILE_NAME);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, path);
}

/** Remove the file if it is still ours (another instance may have started on the same DATA_DIR since). */
export async function removeRunFile(dataDir: string, pid = process.pid): Promise<void> {
  const current = await readRunFile(dataDir).catch(() => null);
  if (current && current.pid !== pid) return;
  await unlink(join(dataDir, RUN_FILE_NAME)).catch(() => undefined);
}

/** The run file, or null when there is none. Throws when it exists but cannot be understood. */
export async function readRunFile(dataDir: string): Promise<RunInfo | null> {
  let text: string;
  try {
    text = await readFile(join(dataDir, RUN_FILE_NAME), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const info = JSON.parse(text) as Partial<RunInfo>;
  if (
    typeof info.natsUrl !== 'string' ||
    (typeof info.databaseUrl !== 'string' && info.databaseUrl !== null) ||
    typeof info.pid !== 'number'
  ) {
    throw new Error(`${join(dataDir, RUN_FILE_NAME)} lacks natsUrl, databaseUrl or pid`);
  }
  return info as RunInfo;
}

/** True when a process with this pid exists (EPERM: it exists but is not ours). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
