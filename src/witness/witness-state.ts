import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { WitnessedCheckpoint } from './add-checkpoint.js';

/**
 * What a witness keeps, on its own disk and nowhere else: per log origin, the latest checkpoint it cosigned
 * (DATA_DIR/witness-state.json), written to a temporary file, synced and renamed over the old one so a crash
 * leaves either the old or the new record, never half of one. Refused checkpoints that were validly signed but
 * contradict the record — evidence of a split view — are appended to DATA_DIR/witness-conflicts.jsonl.
 */
export const WITNESS_STATE_FILE = 'witness-state.json';
export const WITNESS_CONFLICTS_FILE = 'witness-conflicts.jsonl';

interface StateFile {
  v: 1;
  logs: Record<string, WitnessedCheckpoint & { cosignedAt: string }>;
}

export interface WitnessState {
  get(origin: string): WitnessedCheckpoint | undefined;
  /** Records a cosigned checkpoint durably; resolves once it is on disk. */
  put(origin: string, record: WitnessedCheckpoint, at: Date): Promise<void>;
  recordConflict(entry: { origin: string; reason: string; note: string; oldSize: number; at: Date }): Promise<void>;
  origins(): string[];
}

export async function openWitnessState(dataDir: string): Promise<WitnessState> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, WITNESS_STATE_FILE);
  let state: StateFile = { v: 1, logs: {} };
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as StateFile;
    if (parsed?.v !== 1 || typeof parsed.logs !== 'object') throw new Error(`${path} is not a witness state file`);
    state = parsed;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }

  async function save(next: StateFile): Promise<void> {
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(next, null, 2)}\n`, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  }

  return {
    get: (origin) => {
      const r = state.logs[origin];
      return r ? { size: r.size, rootHash: r.rootHash } : undefined;
    },
    async put(origin, record, at) {
      const next: StateFile = { v: 1, logs: { ...state.logs, [origin]: { ...record, cosignedAt: at.toISOString() } } };
      await save(next);
      state = next;
    },
    async recordConflict(entry) {
      const line = JSON.stringify({ ...entry, at: entry.at.toISOString() });
      await appendFile(join(dataDir, WITNESS_CONFLICTS_FILE), `${line}\n`, { mode: 0o600 });
    },
    origins: () => Object.keys(state.logs),
  };
}
