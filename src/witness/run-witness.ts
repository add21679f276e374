import type { Logger } from 'pino';
import { type NoteVerifier, parseVerifierKey } from '../transparency/checkpoint.js';
import { loadCosigner } from './cosigner.js';
import { openWitnessState } from './witness-state.js';
import { startWitnessServer } from './witness-server.js';

/**
 * A witness, as its own process: the `witness` role (ROLES=witness) and `capture-ledger witness` both start it.
 * It needs only the logs' published verifier keys (GET /v1/log/key) and a directory of its own — no NATS, no
 * database, nothing of the operator's (docs/transparency.md, "Running a witness").
 */
export interface WitnessOptions {
  /** The witness's key name, e.g. witness.example.org/w1. */
  name: string;
  /** Log verifier keys to witness (`<origin>+<hex>+<base64>`), each for the origin its name says. */
  logKeys: string[];
  /** An origin other than the (single) log key's name. */
  origin?: string | undefined;
  seedBase64?: string | undefined;
  keyFile?: string | undefined;
  dataDir: string;
  port: number;
  host: string;
  log: Logger;
}

export interface RunningWitness {
  url: string;
  /** The witness's vkey, to give to the log and to relying parties. */
  vkey: string;
  close(): Promise<void>;
}

/** Trusted log keys by origin; throws naming a key that is not a log verifier key. */
export function witnessedLogs(logKeys: readonly string[], origin?: string): Map<string, NoteVerifier[]> {
  if (logKeys.length === 0) throw new Error('a witness needs at least one log verifier key to witness');
  if (origin !== undefined && logKeys.length !== 1) throw new Error('an origin goes with exactly one log key');
  const logs = new Map<string, NoteVerifier[]>();
  for (const text of logKeys) {
    const key = parseVerifierKey(text);
    const o = origin ?? key.name;
    logs.set(o, [...(logs.get(o) ?? []), key]);
  }
  return logs;
}

export async function startWitness(opts: WitnessOptions): Promise<RunningWitness> {
  const logs = witnessedLogs(opts.logKeys, opts.origin);
  const cosigner = await loadCosigner(opts.name, opts);
  const state = await openWitnessState(opts.dataDir);
  const log = opts.log.child({ role: 'witness' });
  const server = await startWitnessServer({ cosigner, logs, state, port: opts.port, host: opts.host, log });
  log.info({ url: server.url, vkey: cosigner.vkey, origins: [...logs.keys()] }, 'witness: listening');
  return { url: server.url, vkey: cosigner.vkey, close: () => server.close() };
}
