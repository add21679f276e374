import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { checkWitnessQuorum } from '../../packages/verifier/src/index.js';
import { cosignatures, runLogFailover } from '../support/log-cluster-scenario.js';

/**
 * The transparency log on the 3-node NATS cluster, every role in its own process (test/support/log-cluster-scenario.ts):
 * the log keeps appending across a SIGKILL of a sequencer process (the other carries on), of both (one restarted
 * resumes where the log stopped) and of the nats-server leading TLOG; every
 * logged ledger event is one leaf, in ledger order; every root either API process served, and the root each
 * computes from its own view, is the root of that one tree at that size; `log audit` agrees. Two witnesses, each its
 * own process, cosign the checkpoints throughout: with one SIGKILLed the log goes on with the other's cosignature,
 * and the witnesses' records are of the same one tree.
 */
describe('transparency log on a 3-node NATS cluster', () => {
  let dir: string;
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  });

  it('keeps appending across a sequencer SIGKILL and a NATS node SIGKILL, one tree in every process', async () => {
    dir = await mkdtemp(join(tmpdir(), 'cl-tlog-cluster-'));
    const r = await runLogFailover(dir, { log: (line) => process.stdout.write(`# ${line}\n`) });
    process.stdout.write(
      `# leaves: ${r.leavesAtSequencerKill} at the sequencer kill (grew again after ${r.sequencerResumeMs} ms), ${r.leavesAtAllSequencersKilled} with both killed (grew ${r.restartResumeMs} ms after a restart began), ${r.leavesAtNatsKill} at the kill of ${r.natsNodeKilled} (after ${r.natsResumeMs} ms), ${r.finalLeaves} in all; API trees held them ${r.viewCatchUpMs.join(', ')} ms after the last checkpoint; ${r.samples.length} checkpoints sampled; ${r.writeErrors} ledger writes failed during failover; ${r.seconds} s\n`,
    );
    assert.ok(
      r.finalLeaves > r.leavesAtNatsKill &&
        r.leavesAtNatsKill > r.leavesAtAllSequencersKilled &&
        r.leavesAtAllSequencersKilled > r.leavesAtSequencerKill,
      'the log grew after each kill',
    );
    assert.equal(r.logged.length, r.expected.length, 'no leaf lost or duplicated');
    assert.deepEqual(r.logged, r.expected, 'every logged ledger event once, in ledger order');
    assert.equal(new Set(r.logged).size, r.logged.length, 'every leaf appears once');
    for (const s of r.samples)
      assert.equal(
        s.rootHash,
        r.rootAt(s.size),
        `API ${s.api} served a checkpoint of ${s.size} whose root is not the tree's`,
      );
    for (const api of [0, 1])
      assert.ok(
        r.samples.some((s) => s.api === api),
        `API process ${api} served checkpoints`,
      );
    assert.ok(r.viewRoots.length >= 3, `only ${r.viewRoots.length} sizes compared`);
    for (const { size, roots } of r.viewRoots) {
      assert.deepEqual(
        roots,
        roots.map(() => r.rootAt(size)),
        `the API processes' own trees at size ${size}`,
      );
    }
    assert.equal(r.audit.code, 0, r.audit.stdout + r.audit.stderr);
    assert.match(r.audit.stdout, /^log audit: OK\n/);

    // Witnesses: the last checkpoint, after every kill and restart, is cosigned by both.
    const last = r.samples.reduce((a, b) => (b.size > a.size ? b : a));
    const both = await checkWitnessQuorum(last.note, r.witnessKeys, 2);
    assert.equal(both.status, 'pass', both.detail);
    // With witness-1 down the log went on, its checkpoints cosigned by witness-2 alone: below a quorum of 2.
    assert.ok(r.samplesWhileWitnessDown.length > 0, 'checkpoints were served while witness-1 was down');
    const down = await checkWitnessQuorum(r.samplesWhileWitnessDown[0]!.note, r.witnessKeys, 2);
    assert.equal(down.status, 'fail');
    assert.deepEqual(
      down.witnessed.map((w) => w.name),
      ['witness-2.cluster.local/witness'],
    );
    // Every cosignature served verifies, and each witness recorded a checkpoint of the one tree.
    for (const s of r.samples.filter((_, i) => i % 10 === 0)) {
      const report = await checkWitnessQuorum(s.note, r.witnessKeys, 1).catch(() => null);
      assert.equal(
        report?.witnessed.length ?? 0,
        cosignatures(s.note),
        `a cosignature on the checkpoint of ${s.size} does not verify`,
      );
    }
    for (const record of r.witnessRecords) {
      assert.ok(record && record.size > 0, 'the witness cosigned');
      assert.equal(record.rootHash, r.rootAt(record.size), 'the witness recorded a root of the one tree');
    }
    process.stdout.write(
      `# witnesses: ${r.samplesWhileWitnessDown.length} checkpoints served with witness-1 down (from ${r.leavesAtWitnessKill} leaves); last checkpoint of ${last.size} cosigned by ${both.witnessed.map((w) => w.name).join(', ')}\n`,
    );
  });
});
