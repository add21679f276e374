import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { freePort } from '../../../src/infra/free-port.js';
import { connectNats, type NatsHandles } from '../../../src/infra/nats.js';
import { createEventStore, type EventStore } from '../../../src/ledger/event-store.js';
import { noteSignerFromSeed, openCheckpoint } from '../../../src/transparency/checkpoint.js';
import { ensureLogStream, latestCheckpoint } from '../../../src/transparency/log-stream.js';
import { type LogView, startLogView } from '../../../src/transparency/log-view.js';
import { verifyConsistency } from '../../../src/transparency/merkle.js';
import { requestCheckpoint, startCheckpointer, startSequencer } from '../../../src/transparency/sequencer.js';
import { startNatsOnly } from '../../support/harness.js';
import { appendCommit, completed, expectedLeaves, keyRotated, usageRecorded } from '../../support/log-events.js';
import { startServiceProcess } from '../../support/service-process.js';

/**
 * The sequencer decides the order once: with rival sequencers, restarts and SIGKILLs at any point the log holds
 * every logged ledger event exactly once, in ledger order (docs/transparency.md, Sequencer).
 */

const log = pino({ level: 'silent' });
const decode = (b: Uint8Array) => new TextDecoder().decode(b);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('transparency log sequencer', () => {
  let nats: Awaited<ReturnType<typeof startNatsOnly>>;
  let h: NatsHandles;
  let store: EventStore;
  let view: LogView;
  let written = 0;

  /** `n` commits over a few tenants and ledger.system: capture leaves, bundle-less captures, other events. */
  async function writeSome(n: number) {
    for (let i = 0; i < n; i++) {
      const k = written++;
      const tenant = `t${k % 4}`;
      if (k % 7 === 0) await appendCommit(store, null, [keyRotated(`k${k}`)]);
      else if (k % 5 === 0) await appendCommit(store, tenant, [usageRecorded()]);
      else if (k % 11 === 0)
        await appendCommit(store, tenant, [completed(`cap_${randomBytes(16).toString('hex')}`, false)]);
      else
        await appendCommit(store, tenant, [
          completed(`cap_${randomBytes(16).toString('hex')}`),
          completed(`cap_${randomBytes(16).toString('hex')}`),
        ]);
    }
  }

  async function assertLogEqualsLedger() {
    const expected = await expectedLeaves(store);
    await view.waitForSize(expected.length, 120_000);
    assert.equal(view.problem(), null);
    assert.equal(view.size(), expected.length, 'no duplicate leaf');
    const actual = (await view.leafData(0, expected.length)).map(decode);
    assert.deepEqual(actual, expected, 'every logged ledger event once, in ledger order');
  }

  before(async () => {
    nats = await startNatsOnly();
    h = await connectNats(nats.nats.url, 'test');
    await ensureLogStream(h.jsm);
    store = createEventStore(h.js, h.jsm);
    view = await startLogView(h.js, h.jsm, log);
  });

  after(async () => {
    await view?.stop();
    await h?.nc.close();
    await nats?.stop();
  });

  it('rival sequencers and restarts leave no gap and no duplicate', async () => {
    const a = await startSequencer(h.js, h.jsm, log);
    const b = await startSequencer(h.js, h.jsm, log);
    await writeSome(60);
    await a.stop(); // stopped mid-stream; b carries on, then a third joins
    await writeSome(40);
    const c = await startSequencer(h.js, h.jsm, log);
    await writeSome(40);
    await assertLogEqualsLedger();
    await b.stop();
    await c.stop();
  });

  it('signs checkpoints that verify and are consistent with each other, at a cadence and on demand', async () => {
    const signer = noteSignerFromSeed('test.example/v1/log', new Uint8Array(32).fill(3));
    const seq = await startSequencer(h.js, h.jsm, log);
    const cps = await startCheckpointer({
      nc: h.nc,
      js: h.js,
      jsm: h.jsm,
      view,
      signer,
      notary: null,
      intervalMs: 200,
      log,
    });
    try {
      const first = openCheckpoint((await requestCheckpoint(h.nc))!.note, signer);
      assert.equal(first.size, view.size());
      assert.deepEqual(first.rootHash, view.tree.root(first.size));
      await writeSome(20);
      await assertLogEqualsLedger();
      // the cadence publishes the grown tree without being asked
      const deadline = Date.now() + 60_000;
      let latest = openCheckpoint((await latestCheckpoint(h.jsm))!.note, signer);
      while (latest.size < view.size() && Date.now() < deadline) {
        await sleep(100);
        latest = openCheckpoint((await latestCheckpoint(h.jsm))!.note, signer);
      }
      assert.equal(latest.size, view.size());
      assert.ok(
        verifyConsistency(
          first.size,
          latest.size,
          first.rootHash,
          latest.rootHash,
          view.tree.consistencyProof(first.size, latest.size),
        ),
      );
      assert.equal((await latestCheckpoint(h.jsm))!.timestamp, null, 'no notary: no timestamp');
    } finally {
      await cps.stop();
      await seq.stop();
    }
  });

  it('a sequencer process SIGKILLed at any point resumes without a gap or a duplicate', async () => {
    const env = {
      NATS_URL: nats.nats.url,
      ROLES: 'sequencer',
      DATA_DIR: `${nats.dir}/seq`,
      SIGNING_KEY: 'none',
      TSA_URL: 'none',
      LOG_CHECKPOINT_INTERVAL_MS: '300',
    };
    for (let round = 0; round < 3; round++) {
      const proc = await startServiceProcess(env, await freePort());
      const writing = writeSome(30);
      // killed while the ledger is being written, at a point that differs each round
      await sleep(50 + round * 150);
      await proc.kill('SIGKILL');
      await writing;
    }
    const last = await startServiceProcess(env, await freePort());
    try {
      await assertLogEqualsLedger();
    } finally {
      await last.kill('SIGTERM');
    }
  });
});
