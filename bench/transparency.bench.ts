import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { connectNats } from '../src/infra/nats.js';
import { createEventStore } from '../src/ledger/event-store.js';
import { captureLeaf, encodeLeaf } from '../src/transparency/leaf.js';
import { ensureLogStream, LOG_STREAM } from '../src/transparency/log-stream.js';
import { startLogView } from '../src/transparency/log-view.js';
import { MerkleTree, verifyInclusion, leafHash } from '../src/transparency/merkle.js';
import { startSequencer } from '../src/transparency/sequencer.js';
import { startNatsOnly } from '../test/support/harness.js';
import { appendCommit, completed } from '../test/support/log-events.js';
import { runLogFailover } from '../test/support/log-cluster-scenario.js';
import type { BenchLine } from './registry.js';

/**
 * The transparency log (docs/transparency.md, Figures):
 *  - sequencing: capture.completed events appended to LEDGER by concurrent writers (the baseline: how fast
 *    captures can complete at all, far above the ≈ 1.4 captures/s the browser workers reach) against leaves the
 *    sequencer appends to TLOG per second while catching up on them; storage of TLOG per leaf;
 *  - the tree at 1,000,000 leaves: append rate, memory of the hashes per leaf, inclusion and consistency
 *    proof time and size;
 *  - failover on the 3-node NATS cluster, every role in its own process (test/support/log-cluster-scenario.ts):
 *    leaves when one sequencer, then both, then the nats-server leading TLOG were SIGKILLed, and how long until
 *    the served checkpoint grew again (it is signed every second, so ≈ 1 s is the floor); the baseline is the same
 *    median time between two growths with nothing killed (the writer's pace and the checkpoint cadence).
 */
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function sequencing(): Promise<BenchLine> {
  const nats = await startNatsOnly();
  const h = await connectNats(nats.nats.url, 'bench');
  try {
    await ensureLogStream(h.jsm);
    const store = createEventStore(h.js, h.jsm);
    const captures = 20_000;
    const writers = 32;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        for (let i = w; i < captures; i += writers)
          await appendCommit(store, `bench${w}`, [completed(`cap_${randomBytes(16).toString('hex')}`)]);
      }),
    );
    const ledgerSeconds = (performance.now() - t0) / 1000;
    const view = await startLogView(h.js, h.jsm, pino({ level: 'silent' }));
    const t1 = performance.now();
    const seq = await startSequencer(h.js, h.jsm, pino({ level: 'silent' }));
    await view.waitForSize(captures, 600_000);
    const logSeconds = (performance.now() - t1) / 1000;
    await seq.stop();
    await view.stop();
    const info = await h.jsm.streams.info(LOG_STREAM);
    return {
      case: 'sequencing',
      captures,
      capturesCompletedPerSec: Math.round(captures / ledgerSeconds),
      leavesAppendedPerSec: Math.round(captures / logSeconds),
      ratio: Number((captures / logSeconds / (captures / ledgerSeconds)).toFixed(2)),
      tlogBytesPerLeaf: Math.round(info.state.bytes / captures),
    };
  } finally {
    await h.nc.close();
    await nats.stop();
  }
}

function treeAtOneMillion(): BenchLine {
  const n = 1_000_000;
  const leaves = Array.from({ length: 1000 }, (_, i) =>
    encodeLeaf(
      captureLeaf(
        `cap_${i.toString(16).padStart(32, '0')}`,
        `sha256:${'ab'.repeat(32)}`,
        '1a2b3c4d',
        '2026-11-24T23:51:02.123Z',
      ),
    ),
  );
  const tree = new MerkleTree();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) tree.appendLeaf(leaves[i % leaves.length]!);
  const appendSeconds = (performance.now() - t0) / 1000;
  const root = tree.root();
  const times: number[] = [];
  let size = 0;
  for (let k = 0; k < 1000; k++) {
    const index = Math.floor(Math.random() * n);
    const t = performance.now();
    const proof = tree.inclusionProof(index);
    times.push(performance.now() - t);
    size = proof.length * 32;
    if (k < 10 && !verifyInclusion(index, n, leafHash(leaves[index % leaves.length]!), proof, root))
      throw new Error('proof does not verify');
  }
  const vt = performance.now();
  const proof = tree.inclusionProof(123_456);
  for (let k = 0; k < 1000; k++) verifyInclusion(123_456, n, leafHash(leaves[123_456 % leaves.length]!), proof, root);
  const verifyMs = (performance.now() - vt) / 1000;
  const ct = performance.now();
  const consistency = tree.consistencyProof(654_321, n);
  const consistencyMs = performance.now() - ct;
  return {
    case: 'tree-1M',
    leaves: n,
    leafBytes: leaves[0]!.byteLength,
    treeAppendsPerSec: Math.round(n / appendSeconds),
    hashBytesPerLeaf: Number((tree.hashBytes / n).toFixed(1)),
    inclusionProofMsP50: Number(pct(times, 50).toFixed(3)),
    inclusionProofMsP99: Number(pct(times, 99).toFixed(3)),
    inclusionProofBytes: size,
    inclusionVerifyMs: Number(verifyMs.toFixed(3)),
    consistencyProofMs: Number(consistencyMs.toFixed(3)),
    consistencyProofBytes: consistency.length * 32,
  };
}

async function clusterFailover(): Promise<BenchLine> {
  const dir = await mkdtemp(join(tmpdir(), 'cl-bench-tlog-cluster-'));
  try {
    const r = await runLogFailover(dir);
    const badSamples = r.samples.filter((x) => x.rootHash !== r.rootAt(x.size));
    const badViews = r.viewRoots.filter((v) => v.roots.some((root) => root !== r.rootAt(v.size)));
    return {
      case: 'cluster-failover',
      natsNodes: 3,
      apiProcesses: 2,
      sequencers: 2,
      leavesAtSequencerKill: r.leavesAtSequencerKill,
      resumeMsAfterOneSequencerKilled: r.sequencerResumeMs,
      leavesWhenBothSequencersKilled: r.leavesAtAllSequencersKilled,
      resumeMsAfterSequencerRestart: r.restartResumeMs,
      leavesAtNatsLeaderKill: r.leavesAtNatsKill,
      resumeMsAfterNatsLeaderKilled: r.natsResumeMs,
      baselineMsBetweenGrowthsNothingKilled: r.baselineGrowthMs,
      apiTreeCatchUpMsAfterFinalCheckpoint: Math.max(...r.viewCatchUpMs),
      finalLeaves: r.finalLeaves,
      leavesLostOrDuplicated:
        r.logged.length === r.expected.length && r.logged.every((l, i) => l === r.expected[i])
          ? 0
          : Math.abs(r.logged.length - r.expected.length) || -1,
      checkpointsSampled: r.samples.length,
      checkpointsWithAnotherRoot: badSamples.length,
      viewRootsCompared: r.viewRoots.length,
      viewRootsDiffering: badViews.length,
      ...(badSamples.length + badViews.length > 0
        ? { firstDifference: JSON.stringify(badSamples[0] ?? badViews[0]) }
        : {}),
      logAuditExit: r.audit.code,
      seconds: r.seconds,
    };
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

export async function transparencyBench(): Promise<BenchLine[]> {
  return [treeAtOneMillion(), await sequencing(), await clusterFailover()];
}
