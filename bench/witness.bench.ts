import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { checkWitnessQuorum } from '../packages/verifier/src/index.js';
import { parseLogWitnesses } from '../src/config/log-witnesses.js';
import { noteSignerFromSeed, signCheckpoint, verifierKeyString } from '../src/transparency/checkpoint.js';
import { leafHash, MerkleTree } from '../src/transparency/merkle.js';
import { createCosigning } from '../src/transparency/witness-cosigning.js';
import { startWitnessProcess } from '../test/support/witness-process.js';
import type { BenchLine } from './registry.js';

/**
 * Witnessed checkpoints (docs/transparency.md, Witnesses): what asking two witness processes to cosign adds to
 * publishing a checkpoint — the baseline is signing the note alone — and what a witness that is down (connection
 * refused) or hung (accepts, never answers; bounded by LOG_WITNESS_TIMEOUT_MS) costs; and how long a relying party's
 * quorum check of a cosigned checkpoint takes.
 */
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const ms = (t: bigint) => Number(t) / 1e6;

export async function witnessBench(): Promise<BenchLine[]> {
  const dir = await mkdtemp(join(tmpdir(), 'wit-bench-'));
  const signer = noteSignerFromSeed('bench.test/v1/log', randomBytes(32));
  const args = (name: string) => [
    '--log-key',
    verifierKeyString(signer),
    '--name',
    name,
    '--port',
    '0',
    '--data-dir',
    join(dir, name.split('.')[0]!),
  ];
  const [w1, w2] = await Promise.all([
    startWitnessProcess(args('w1.bench/w')),
    startWitnessProcess(args('w2.bench/w')),
  ]);
  const hung = createServer(() => undefined);
  await new Promise<void>((r) => hung.listen(0, '127.0.0.1', () => r()));
  const hungUrl = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
  const tree = new MerkleTree();
  const grow = (n: number) => {
    for (let i = 0; i < n; i++) tree.appendLeafHash(leafHash(randomBytes(64)));
  };
  const note = () =>
    signCheckpoint({ origin: signer.name, size: tree.size, rootHash: tree.root(), extensions: [] }, signer);
  const log = pino({ level: 'silent' });
  const parsed = parseLogWitnesses(`${w1.vkey} ${w1.url},${w2.vkey} ${w2.url}`);
  if (!('witnesses' in parsed)) throw new Error(parsed.errors.join('; '));
  const cosigning = (witnesses = parsed.witnesses, timeoutMs = 5_000) =>
    createCosigning({ witnesses, consistencyProof: (a, b) => tree.consistencyProof(a, b), timeoutMs, quorum: 1, log });
  try {
    const rounds = 200;
    const sign: number[] = [];
    const both: number[] = [];
    const check: number[] = [];
    const two = cosigning();
    let last = '';
    for (let i = 0; i < rounds; i++) {
      grow(5);
      let t = process.hrtime.bigint();
      const n = note();
      sign.push(ms(process.hrtime.bigint() - t));
      t = process.hrtime.bigint();
      last = await two.cosign(n, tree.size);
      both.push(ms(process.hrtime.bigint() - t));
      t = process.hrtime.bigint();
      await checkWitnessQuorum(last, [w1.vkey, w2.vkey], 2);
      check.push(ms(process.hrtime.bigint() - t));
    }
    const witnessed = (await checkWitnessQuorum(last, [w1.vkey, w2.vkey], 2)).witnessed.length;
    const down = await w2.stop().then(() => cosigning());
    const downMs: number[] = [];
    for (let i = 0; i < 20; i++) {
      grow(5);
      const t = process.hrtime.bigint();
      await down.cosign(note(), tree.size);
      downMs.push(ms(process.hrtime.bigint() - t));
    }
    const timeoutMs = 1_000;
    const withHung = cosigning([parsed.witnesses[0]!, { ...parsed.witnesses[1]!, url: hungUrl }], timeoutMs);
    grow(5);
    const t = process.hrtime.bigint();
    await withHung.cosign(note(), tree.size);
    const hungMs = ms(process.hrtime.bigint() - t);
    return [
      {
        figure:
          'checkpoint cosigned by two witness processes (each add-checkpoint verifies the log signature and a consistency proof, persists, signs)',
        rounds,
        treeSize: tree.size,
        baselineSignOnlyP50Ms: +pct(sign, 50).toFixed(3),
        cosignP50Ms: +pct(both, 50).toFixed(2),
        cosignP99Ms: +pct(both, 99).toFixed(2),
        quorumCheckP50Ms: +pct(check, 50).toFixed(3),
        lastWitnessedBy: witnessed,
        ratio: +(pct(both, 50) / pct(sign, 50)).toFixed(1),
      },
      {
        figure: 'one witness down (connection refused): publication waits for the other only',
        cosignP50Ms: +pct(downMs, 50).toFixed(2),
        ratio: +(pct(downMs, 50) / pct(both, 50)).toFixed(2),
      },
      {
        figure: 'one witness hung (accepts, never answers): publication waits LOG_WITNESS_TIMEOUT_MS, no longer',
        timeoutMs,
        cosignMs: Math.round(hungMs),
        ratio: +(hungMs / timeoutMs).toFixed(2),
      },
    ];
  } finally {
    hung.closeAllConnections();
    hung.close();
    await w1.stop();
    await w2.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
