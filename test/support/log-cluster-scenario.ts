import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { projectRoot } from '../../src/infra/project-root.js';
import type { LocalCluster } from '../../src/infra/local-cluster.js';
import { cliArgs } from './service-entry.js';
import { startTestCluster } from './test-cluster.js';
import { createEventStore } from '../../src/ledger/event-store.js';
import { readAllBatches } from '../../src/transparency/log-stream.js';
import { MerkleTree } from '../../src/transparency/merkle.js';
import { appendCommit, completed, expectedLeaves } from './log-events.js';

/**
 * The transparency log on the 3-node NATS cluster with every role in its own process, shared by
 * the e2e test (test/e2e/transparency-cluster.e2e.spec.ts) and BENCH=transparency: while bundles are written to the
 * ledger, one of the two sequencer processes is SIGKILLed (the other carries on), then the other too (the log
 * stops until one is restarted), then the nats-server leading TLOG; the log must keep appending, and at
 * the end hold every logged ledger event once, in ledger order, with every root any API process served equal to the
 * root of that one tree at that size. Two witnesses, each its own process, cosign the checkpoints; one is
 * SIGKILLed and restarted meanwhile.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const b64 = (h: Uint8Array) => Buffer.from(h).toString('base64');

export interface CheckpointSample {
  api: number;
  at: number;
  size: number;
  rootHash: string;
  /** The signed note as served: the log's signature and the witnesses' cosignatures. */
  note: string;
}

export interface LogFailoverResult {
  /** Leaves in the latest checkpoint when the sequencer process was killed, and how long until a larger one was served. */
  leavesAtSequencerKill: number;
  sequencerResumeMs: number;
  /** Both sequencers SIGKILLed: leaves then, and how long from restarting one until a larger checkpoint was served. */
  leavesAtAllSequencersKilled: number;
  restartResumeMs: number;
  leavesAtNatsKill: number;
  natsResumeMs: number;
  /** With nothing killed (before the first kill): the median time between two growths of the served checkpoint. */
  baselineGrowthMs: number;
  natsNodeKilled: string;
  finalLeaves: number;
  /** What the ledger's logged events say the log must hold, in order. */
  expected: string[];
  /** What TLOG holds, read back in order. */
  logged: string[];
  /** Every checkpoint either API served while sampling. */
  samples: CheckpointSample[];
  /** Roots each API process computes from its own view for some sizes (proof/consistency firstRootHash). */
  viewRoots: Array<{ size: number; roots: string[] }>;
  /** After the checkpoint of the whole log was served: how long until each API process's own tree held it. */
  viewCatchUpMs: number[];
  /** Root of the tree of `expected` at each size. */
  rootAt(size: number): string;
  audit: { code: number; stdout: string; stderr: string };
  /** The two witness processes: their keys, and what each recorded as the last checkpoint it cosigned. */
  witnessKeys: string[];
  witnessRecords: Array<{ size: number; rootHash: string } | undefined>;
  /** Leaves when witness-1 was SIGKILLed; checkpoints served larger than that, cosigned by witness-2 alone. */
  leavesAtWitnessKill: number;
  samplesWhileWitnessDown: CheckpointSample[];
  writeErrors: number;
  seconds: number;
}

/** The median time between successive growths of the largest checkpoint served, over `samples` so far. */
function medianGrowthInterval(samples: readonly CheckpointSample[]): number {
  const growths: number[] = [];
  let size = 0;
  for (const s of [...samples].sort((a, b) => a.at - b.at)) {
    if (s.size > size) {
      if (size > 0) growths.push(s.at);
      size = s.size;
    }
  }
  const gaps = growths
    .slice(1)
    .map((at, i) => at - growths[i]!)
    .sort((a, b) => a - b);
  return gaps.length > 0 ? gaps[Math.floor(gaps.length / 2)]! : 0;
}

async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
  return Date.now() - start;
}

/** How many witnesses cosigned a checkpoint note: the signature lines after the log's own. */
export const cosignatures = (note: string): number => (note.split('\n\n')[1]?.trim().split('\n').length ?? 1) - 1;

export async function runLogFailover(
  dir: string,
  opts: { log?: (line: string) => void } = {},
): Promise<LogFailoverResult> {
  const t0 = Date.now();
  const say = opts.log ?? (() => undefined);
  let cluster: LocalCluster | null = null;
  try {
    // No browser workers: bundles are written to the ledger as facts, as a worker's completion would be.
    cluster = await startTestCluster({
      dir,
      workers: 0,
      signers: 1,
      witnesses: 2,
      env: {
        LOG_CHECKPOINT_INTERVAL_MS: '1000',
        LOG_WITNESS_TIMEOUT_MS: '3000',
        RATE_LIMIT_IP_PER_MIN: '1000000',
        RATE_LIMIT_TENANT_PER_MIN: '1000000',
      },
    });
    const c = cluster;
    say(`cluster up after ${Date.now() - t0} ms`);
    const nc = await connect({ servers: c.nats.url.split(','), maxReconnectAttempts: -1, ...c.operator });
    const js = jetstream(nc, { timeout: 10_000 });
    const jsm = await jetstreamManager(nc, { timeout: 10_000 });
    const store = createEventStore(js, jsm);

    let writing = true;
    let writeErrors = 0;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        try {
          await appendCommit(store, `tl${i % 4}`, [completed(`cap_${randomBytes(16).toString('hex')}`)]);
        } catch {
          writeErrors++; // a node or leader change: the next write goes on (one that timed out may still have landed)
          await sleep(200);
        }
        await sleep(40);
      }
    })();

    const samples: CheckpointSample[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        await Promise.all(
          c.apiUrls.map(async (base, api) => {
            const r = await fetch(`${base}/v1/log/checkpoint.json`, { signal: AbortSignal.timeout(3000) }).catch(
              () => null,
            );
            if (r?.status === 200) {
              const body = (await r.json()) as { treeSize: number; rootHash: string; note: string };
              samples.push({ api, at: Date.now(), size: body.treeSize, rootHash: body.rootHash, note: body.note });
            } else await r?.arrayBuffer().catch(() => undefined);
          }),
        );
        await sleep(250);
      }
    })();
    const latest = () => samples.reduce((n, s) => Math.max(n, s.size), 0);

    await waitUntil(() => latest() >= 30, 180_000, 'the log to reach 30 leaves');
    const leavesAtSequencerKill = latest();
    const baselineGrowthMs = medianGrowthInterval(samples);
    await c.kill('sequencer-1');
    const sequencerResumeMs = await waitUntil(
      () => latest() > leavesAtSequencerKill,
      120_000,
      'the log to grow after the sequencer SIGKILL',
    );
    say(`sequencer-1 killed at ${leavesAtSequencerKill} leaves; grew again after ${sequencerResumeMs} ms`);

    // A witness down never holds the log back: checkpoints go on, cosigned by the other one.
    await c.kill('witness-1');
    const leavesAtWitnessKill = latest();
    const witnessDownAt = Date.now();
    // Checkpoints cosigned after the kill, by witness-2 alone. One that witness-1 cosigned just before its kill
    // may still be served after it, with both cosignatures and a size above what had been served.
    const cosignedAloneSinceKill = (s: CheckpointSample) =>
      s.at >= witnessDownAt && s.size > leavesAtWitnessKill && cosignatures(s.note) === 1;
    await waitUntil(() => samples.some(cosignedAloneSinceKill), 120_000, 'the log to grow with witness-1 down');
    say(`witness-1 killed at ${leavesAtWitnessKill} leaves; the log grew again after ${Date.now() - witnessDownAt} ms`);
    const samplesWhileWitnessDown = samples.filter(cosignedAloneSinceKill);

    await c.kill('sequencer-2');
    const leavesAtAllSequencersKilled = latest();
    await sleep(2000); // the ledger grows meanwhile; nothing sequences it
    const restartAt = Date.now();
    await c.start('sequencer-1');
    await c.start('witness-1');
    await waitUntil(
      () => latest() > leavesAtAllSequencersKilled,
      120_000,
      'the log to grow after a sequencer was restarted',
    );
    const restartResumeMs = Date.now() - restartAt;
    say(
      `both sequencers killed at ${leavesAtAllSequencersKilled} leaves; sequencer-1 restarted, grew again ${restartResumeMs} ms after the restart began`,
    );

    const natsNodeKilled = (await c.nats.streamLeader('TLOG')) ?? c.nats.nodes[0]!.name;
    const leavesAtNatsKill = latest();
    await c.nats.kill(natsNodeKilled);
    const natsResumeMs = await waitUntil(
      () => latest() > leavesAtNatsKill,
      180_000,
      `the log to grow after ${natsNodeKilled} (TLOG leader) was SIGKILLed`,
    );
    say(`${natsNodeKilled} killed at ${leavesAtNatsKill} leaves; grew again after ${natsResumeMs} ms`);
    await c.nats.start(natsNodeKilled);
    await c.start('sequencer-2');

    writing = false;
    await writer;
    const expected = await expectedLeaves(store);
    // Both API processes serve a checkpoint of the whole ledger.
    await waitUntil(
      () => c.apiUrls.every((_, api) => samples.some((s) => s.api === api && s.size === expected.length)),
      180_000,
      `both API processes to serve a checkpoint of ${expected.length} leaves`,
    );
    sampling = false;
    await sampler;
    // Each API process's own tree (followed from TLOG in memory) reaches the whole log too.
    const viewHolds = async (base: string) =>
      (
        await fetch(`${base}/v1/log/proof/consistency?first=1&second=${expected.length}`, {
          signal: AbortSignal.timeout(5000),
        }).catch(() => null)
      )?.status === 200;
    const viewCatchUpMs = await Promise.all(
      c.apiUrls.map((base, api) =>
        waitUntil(() => viewHolds(base), 120_000, `API process ${api}'s tree to hold all ${expected.length} leaves`),
      ),
    );
    say(`API trees hold all ${expected.length} leaves after ${viewCatchUpMs.join(', ')} ms`);

    const logged: string[] = [];
    await readAllBatches(js, jsm, (_seq, batch) => {
      for (const l of batch.leaves) logged.push(l.data);
    });
    const tree = new MerkleTree();
    for (const leaf of expected) tree.appendLeaf(new TextEncoder().encode(leaf));

    const sizes = [...new Set(samples.map((s) => s.size))].filter((n) => n > 0 && n <= expected.length);
    const picked = sizes.filter((_, i) => i % Math.max(1, Math.floor(sizes.length / 12)) === 0);
    const viewRoots: LogFailoverResult['viewRoots'] = [];
    for (const size of picked) {
      const roots = await Promise.all(
        c.apiUrls.map(async (base) => {
          const r = await fetch(`${base}/v1/log/proof/consistency?first=${size}&second=${expected.length}`);
          return ((await r.json()) as { firstRootHash?: string }).firstRootHash ?? `HTTP ${r.status}`;
        }),
      );
      viewRoots.push({ size, roots });
    }

    const audit = await new Promise<LogFailoverResult['audit']>((resolve) => {
      execFile(
        process.execPath,
        [...cliArgs(), 'log', 'audit'],
        {
          cwd: projectRoot,
          env: {
            PATH: process.env.PATH ?? '',
            NATS_URL: c.nats.url,
            NATS_USER: c.operator.user,
            NATS_PASSWORD: c.operator.pass,
          },
          timeout: 300_000,
        },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    await nc.close();
    const witnessRecords = await Promise.all(
      c.processes
        .filter((p) => p.role === 'witness')
        .map(async (p) => {
          const state = JSON.parse(await readFile(join(p.dataDir, 'witness-state.json'), 'utf8')) as {
            logs: Record<string, { size: number; rootHash: string }>;
          };
          return Object.values(state.logs)[0];
        }),
    );
    return {
      witnessKeys: c.witnessKeys,
      witnessRecords,
      leavesAtWitnessKill,
      samplesWhileWitnessDown,
      leavesAtSequencerKill,
      sequencerResumeMs,
      leavesAtAllSequencersKilled,
      restartResumeMs,
      leavesAtNatsKill,
      natsResumeMs,
      natsNodeKilled,
      baselineGrowthMs,
      finalLeaves: expected.length,
      expected,
      logged,
      samples,
      viewRoots,
      viewCatchUpMs,
      rootAt: (size) => b64(tree.root(size)),
      audit,
      writeErrors,
      seconds: Math.round((Date.now() - t0) / 1000),
    };
  } finally {
    await cluster?.stop();
  }
}
