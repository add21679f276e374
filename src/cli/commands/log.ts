import { readFile, rename, writeFile } from 'node:fs/promises';
import {
  CheckpointError,
  noteSignerFromSeed,
  parseVerifierKey,
  verifierKeyString,
} from '../../transparency/checkpoint.js';
import { defaultLogOrigin } from '../../config/config.js';
import { cosignerFromSeed } from '../../witness/cosigner.js';
import { createLogClient } from '../../transparency/log-client.js';
import { type MonitorState, monitorOnce } from '../../transparency/monitor.js';
import {
  auditLog,
  type AuditFinding,
  ledgerFactOf,
  type LedgerFact,
  type LoggedLeaf,
} from '../../transparency/log-audit.js';
import { LOG_STREAM, readAllBatches } from '../../transparency/log-stream.js';
import { checkResult } from '../../application/operator-checks.js';
import { recordCheck, recordCheckIfConnected } from '../check-record.js';
import { CliError, EXIT_FAILURE, EXIT_OK, UsageError } from '../cli-io.js';
import { openSession } from '../cli-session.js';
import { type CommandSpec, flagOpt, intOpt, stringOpt } from '../command-spec.js';

/** A verifier key given inline (`name+hash+key`) or as a file holding one. */
export async function readLogKey(
  value: string,
): Promise<{ text: string; verifier: ReturnType<typeof parseVerifierKey> }> {
  let text = value;
  if (!/^[^\s+]+\+[0-9a-f]{8}\+\S+$/.test(value)) {
    try {
      text = (await readFile(value, 'utf8')).trim();
    } catch {
      throw new UsageError(
        `--log-key is neither a verifier key (<origin>+<hex hash>+<base64 key>) nor a readable file: ${value}`,
      );
    }
  }
  try {
    return { text, verifier: parseVerifierKey(text) };
  } catch (err) {
    if (err instanceof CheckpointError) throw new UsageError(`--log-key: ${err.message}`);
    throw err;
  }
}

async function readState(path: string | undefined): Promise<MonitorState> {
  if (!path) return { checkpoints: [] };
  try {
    return JSON.parse(await readFile(path, 'utf8')) as MonitorState;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { checkpoints: [] };
    throw new CliError(`cannot read the monitor state ${path}: ${(err as Error).message}`);
  }
}

/** `log monitor`: follows a deployment's public log (src/transparency/monitor.ts). */
export const logMonitor: CommandSpec = {
  path: ['log', 'monitor'],
  summary: 'Follow the public transparency log: signatures, forks, consistency, tiles and captures.',
  description: `
Reads the log's latest checkpoint and checks it against every checkpoint seen before (kept in --state, and
--trusted-checkpoint): signed by the pinned --log-key; no two checkpoints of one size with different roots
(a fork); each newer tree an append-only extension of the older (consistency proof). With --rederive the whole
tree is rebuilt from the tiles and must give the checkpoint's root; with --capture-ids every listed capture
must have its leaf in the tree. Prints one JSON line per checkpoint checked; exits 1 with a message naming the
problem (FORK, INCONSISTENT, MISSING, …), 0 when all holds. Needs only HTTP access to the log.`,
  options: {
    'log-url': {
      type: 'string',
      value: 'URL',
      required: true,
      help: "the log's base URL, e.g. https://ledger.example.org/v1/log",
    },
    'log-key': {
      type: 'string',
      value: 'KEY|FILE',
      required: true,
      help: "the log's verifier key (GET /v1/log/key), pinned: inline or a file",
    },
    state: {
      type: 'string',
      value: 'FILE',
      help: 'JSON file of the checkpoints seen so far; read, and updated when all holds',
    },
    'trusted-checkpoint': {
      type: 'string',
      value: 'FILE',
      help: 'a checkpoint saved earlier (the text of GET /v1/log/checkpoint)',
    },
    rederive: { type: 'boolean', help: 'rebuild the tree from the tiles and compare its root' },
    'capture-ids': { type: 'string', value: 'FILE', help: 'capture IDs (one a line) whose leaves must be in the log' },
    follow: { type: 'boolean', help: 'keep checking every --interval-ms until stopped' },
    'interval-ms': { type: 'string', value: 'MS', help: 'pause between checks with --follow', default: '10000' },
  },
  examples: [
    'capture-ledger log monitor --log-url https://ledger.example.org/v1/log --log-key log.vkey --state seen.json --rederive',
    'capture-ledger log monitor --log-url https://ledger.example.org/v1/log --log-key log.vkey --trusted-checkpoint saved.txt --capture-ids mine.txt',
  ],
  async run(args, io) {
    const { verifier } = await readLogKey(stringOpt(args, 'log-key')!);
    const client = createLogClient(stringOpt(args, 'log-url')!);
    const statePath = stringOpt(args, 'state');
    const interval = intOpt(args, 'interval-ms', 100, 86_400_000) ?? 10_000;
    let state = await readState(statePath);
    const trustedPath = stringOpt(args, 'trusted-checkpoint');
    if (trustedPath) {
      const note = await readFile(trustedPath, 'utf8').catch((err: Error) => {
        throw new CliError(`cannot read ${trustedPath}: ${err.message}`);
      });
      const lines = note.split('\n');
      state = { checkpoints: [...state.checkpoints, { size: Number(lines[1]), rootHash: lines[2] ?? '', note }] };
    }
    const idsPath = stringOpt(args, 'capture-ids');
    const captureIds = idsPath
      ? (await readFile(idsPath, 'utf8'))
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean)
      : [];
    for (;;) {
      const started = new Date();
      const seenBefore = state.checkpoints.length;
      const result = await monitorOnce(client, verifier, state, { rederive: flagOpt(args, 'rederive'), captureIds });
      const covered =
        `${client.base}: ${result.checkpoint ? `the checkpoint of ${result.checkpoint.size} leaves` : 'no checkpoint could be read'}, ` +
        `against ${seenBefore} checkpoint${seenBefore === 1 ? '' : 's'} seen before` +
        `${flagOpt(args, 'rederive') ? '; tiles re-derived' : ''}${captureIds.length ? `; ${captureIds.length} captures looked up` : ''}`;
      await recordCheckIfConnected(
        io,
        checkResult('log-monitor', started, new Date(), result.findings, covered, 'cli'),
      );
      await io.stdout(
        `${JSON.stringify({ treeSize: result.checkpoint?.size ?? null, rootHash: result.checkpoint?.rootHash ?? null, findings: result.findings })}\n`,
      );
      if (result.findings.length > 0) {
        for (const f of result.findings) io.stderr(`capture-ledger log monitor: ${f.message}\n`);
        return EXIT_FAILURE;
      }
      state = result.state;
      if (statePath) {
        await writeFile(`${statePath}.tmp`, JSON.stringify(state, null, 2));
        await rename(`${statePath}.tmp`, statePath);
      }
      if (!flagOpt(args, 'follow') || io.signal?.aborted) return EXIT_OK;
      await new Promise((r) => setTimeout(r, interval));
      if (io.signal?.aborted) return EXIT_OK;
    }
  },
};

/** `log audit`: the log compared with the ledger it is made from (src/transparency/log-audit.ts). */
export const logAudit: CommandSpec = {
  path: ['log', 'audit'],
  summary: 'Compare the transparency log with the ledger: every signed bundle logged once, every leaf a ledger fact.',
  description: `
The operator's audit of the public log (docs/transparency.md): reads every leaf of TLOG and every event of
LEDGER up to the last sequence the log has read, and checks that each bundle signed in the ledger
(capture.completed with a bundle), each signing-key and TSA publication, has exactly one leaf with the same
bytes; that every leaf is such a ledger fact; and that the leaves are in ledger order. Prints a summary; exits 1
naming each problem — MISSING (a signed bundle without a leaf), UNKNOWN (a leaf for a capture the ledger never
signed), MISMATCH (a leaf whose bundle hash is not the ledger's), DUPLICATE, SECOND BUNDLE, ORDER,
NOT APPEND-ONLY — and 0 when all holds. Needs NATS (NATS_URL, or DATA_DIR of a running service).`,
  options: {
    limit: { type: 'string', value: 'N', help: 'print at most N problems', default: '50' },
  },
  examples: ['capture-ledger log audit', 'NATS_URL=nats://ledger-nats:4222 capture-ledger log audit --limit 500'],
  async run(args, io) {
    const limit = intOpt(args, 'limit', 1, 1_000_000) ?? 50;
    const session = openSession(io);
    const started = new Date();
    try {
      const { js, jsm } = await session.nats();
      try {
        await jsm.streams.info(LOG_STREAM);
      } catch {
        throw new CliError(
          `this NATS server holds no ${LOG_STREAM} stream: the deployment never ran the transparency log`,
          'Point NATS_URL at the deployment whose log you audit, or start a process with the sequencer role.',
        );
      }
      const leaves: LoggedLeaf[] = [];
      const broken: AuditFinding[] = [];
      const tail = await readAllBatches(js, jsm, (seq, batch) => {
        if (batch.first !== leaves.length && broken.length === 0) {
          broken.push({
            kind: 'NOT APPEND-ONLY',
            leafIndex: batch.first,
            message: `the TLOG batch at stream sequence ${seq} starts at leaf ${batch.first}, but the log before it holds ${leaves.length} leaves (written out of turn)`,
          });
        }
        for (const leaf of batch.leaves) leaves.push({ index: leaves.length, data: leaf.data });
      });
      const facts: LedgerFact[] = [];
      if (tail.through > 0) {
        await (await session.store()).replay(
          1,
          (stored) => {
            const fact = ledgerFactOf(stored);
            if (fact) facts.push(fact);
          },
          tail.through,
        );
      }
      const lastLedger = await (await session.store()).lastSeq();
      const report = auditLog(facts, leaves);
      const findings = [...broken, ...report.findings];
      const keys = facts.filter((f) => f.captureId === null).length;
      await io.stdout(
        `log audit: ${findings.length === 0 ? 'OK' : `${findings.length} problem${findings.length === 1 ? '' : 's'}`}\n` +
          `  log:    ${leaves.length} leaves in TLOG; it has read LEDGER through sequence ${tail.through}` +
          `${lastLedger > tail.through ? ` (the ledger is at ${lastLedger}: later events are not logged yet)` : ''}\n` +
          `  ledger: ${facts.length} logged events up to that sequence: ${facts.length - keys} signed bundles of ${report.captures} captures, ${keys} key and TSA publications\n`,
      );
      const covered =
        `${leaves.length} leaves of TLOG against LEDGER through sequence ${tail.through}: ` +
        `${facts.length - keys} signed bundles of ${report.captures} captures, ${keys} key and TSA publications`;
      await recordCheck(session, io, checkResult('log-audit', started, new Date(), findings, covered, 'cli'));
      for (const f of findings.slice(0, limit)) io.stderr(`capture-ledger log audit: ${f.kind}: ${f.message}\n`);
      if (findings.length > limit)
        io.stderr(`capture-ledger log audit: ${findings.length - limit} more problems; raise --limit to list them\n`);
      return findings.length === 0 ? EXIT_OK : EXIT_FAILURE;
    } finally {
      await session.close();
    }
  },
};

/** A base64 32-byte seed from the environment, or a usage error naming the variable. */
function seedFromEnv(env: NodeJS.ProcessEnv, name: string): Uint8Array {
  const text = env[name]?.trim();
  if (!text) throw new UsageError(`${name} is not set`);
  const seed = Buffer.from(text, 'base64');
  if (seed.length !== 32 || seed.toString('base64') !== text)
    throw new UsageError(`${name} must be the base64 encoding of a 32-byte Ed25519 seed`);
  return new Uint8Array(seed);
}

/**
 * `log public-keys`: the public keys a deployment's log and its witness are known by, derived from their seeds as
 * the sequencer and the witness role derive them — for LOG_WITNESSES and WITNESS_LOG_KEYS before anything runs
 * (docker-compose.yml).
 */
export const logPublicKeys: CommandSpec = {
  path: ['log', 'public-keys'],
  summary: "Print the log's verifier key and a witness's vkey, derived from their seeds (no connection needed).",
  description: `
Derives, from the environment, the public keys that wire a witness to the log: LOG_KEY, the log's verifier key
(LOG_SIGNING_KEY, named by LOG_ORIGIN or else PUBLIC_BASE_URL's host and path + /v1/log, as the sequencer names it),
which the witness is given as WITNESS_LOG_KEYS; and WITNESS_VKEY, the witness's vkey (WITNESS_SIGNING_KEY, named
by WITNESS_NAME), which the sequencers and API processes are given in LOG_WITNESSES. Prints them as KEY=value
lines (a .env file for docker compose); either is left out when its seed is not set. Reads no file and connects
to nothing; the keys printed are public.`,
  options: {},
  examples: [
    'LOG_SIGNING_KEY=… WITNESS_SIGNING_KEY=… WITNESS_NAME=witness.example.org/w1 PUBLIC_BASE_URL=https://ledger.example.org capture-ledger log public-keys >> .env',
  ],
  async run(_args, io) {
    const env = io.env;
    const lines: string[] = [];
    if (env.LOG_SIGNING_KEY?.trim()) {
      // As loadConfig names the log: LOG_ORIGIN, else PUBLIC_BASE_URL (default http://localhost:PORT).
      const base = env.PUBLIC_BASE_URL?.trim() || `http://localhost:${env.PORT?.trim() || '8080'}`;
      const origin = env.LOG_ORIGIN?.trim() || defaultLogOrigin(base);
      lines.push(`LOG_KEY=${verifierKeyString(noteSignerFromSeed(origin, seedFromEnv(env, 'LOG_SIGNING_KEY')))}`);
    }
    if (env.WITNESS_SIGNING_KEY?.trim()) {
      const name = env.WITNESS_NAME?.trim();
      if (!name) throw new UsageError('WITNESS_NAME must name the witness whose WITNESS_SIGNING_KEY is given');
      lines.push(`WITNESS_VKEY=${cosignerFromSeed(name, seedFromEnv(env, 'WITNESS_SIGNING_KEY')).vkey}`);
    }
    if (lines.length === 0)
      throw new UsageError('set LOG_SIGNING_KEY, WITNESS_SIGNING_KEY (with WITNESS_NAME), or both');
    await io.stdout(`${lines.join('\n')}\n`);
    return EXIT_OK;
  },
};
