import { readFile, rename, writeFile } from 'node:fs/promises';
import { CheckpointError, parseVerifierKey } from '../../transparency/checkpoint.js';
import { createLogClient } from '../../transparency/log-client.js';
import { type MonitorState, monitorOnce } from '../../transparency/monitor.js';
import { CliError, EXIT_FAILURE, EXIT_OK, UsageError } from '../cli-io.js';
import { type CommandSpec, flagOpt, intOpt, stringOpt } from '../command-spec.js';

/** A verifier key given inline (`name+hash+key`) or as a file holding one. */
export async function readLogKey(value: string): Promise<{ text: string; verifier: ReturnType<typeof parseVerifierKey> }> {
  let text = value;
  if (!/^[^\s+]+\+[0-9a-f]{8}\+\S+$/.test(value)) {
    try {
      text = (await readFile(value, 'utf8')).trim();
    } catch {
      throw new UsageError(`--log-key is neither a verifier key (<origin>+<hex hash>+<base64 key>) nor a readable file: ${value}`);
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
    'log-url': { type: 'string', value: 'URL', required: true, help: "the log's base URL, e.g. https://ledger.example.org/v1/log" },
    'log-key': { type: 'string', value: 'KEY|FILE', required: true, help: "the log's verifier key (GET /v1/log/key), pinned: inline or a file" },
    state: { type: 'string', value: 'FILE', help: 'JSON file of the checkpoints seen so far; read, and updated when all holds' },
    'trusted-checkpoint': { type: 'string', value: 'FILE', help: 'a checkpoint saved earlier (the text of GET /v1/log/checkpoint)' },
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
    const captureIds = idsPath ? (await readFile(idsPath, 'utf8')).split('\n').map((l) => l.trim()).filter(Boolean) : [];
    for (;;) {
      const result = await monitorOnce(client, verifier, state, { rederive: flagOpt(args, 'rederive'), captureIds });
      await io.stdout(`${JSON.stringify({ treeSize: result.checkpoint?.size ?? null, rootHash: result.checkpoint?.rootHash ?? null, findings: result.findings })}\n`);
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
