import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { connectNats, type NatsHandles } from '../../../src/infra/nats.js';
import { createEventStore, type EventStore } from '../../../src/ledger/event-store.js';
import { captureLeaf, encodeLeaf } from '../../../src/transparency/leaf.js';
import {
  encodeJson,
  ensureLogStream,
  type LeafBatch,
  LEAVES_SUBJECT,
  readTail,
} from '../../../src/transparency/log-stream.js';
import { type LogView, startLogView } from '../../../src/transparency/log-view.js';
import { type Sequencer, startSequencer } from '../../../src/transparency/sequencer.js';
import { cli } from '../cli/cli-fixtures.js';
import { startNatsOnly } from '../../support/harness.js';
import { appendCommit, completed, expectedLeaves, keyRotated, usageRecorded } from '../../support/log-events.js';

/**
 * `capture-ledger log audit` compares TLOG with LEDGER (docs/transparency.md, The auditor): clean after a sequencer
 * logged a busy ledger; then each tampering an operator holding the sequencer's credentials could do — a bundle
 * signed in the ledger that the log skipped, a leaf appended straight to TLOG for a capture the ledger never
 * signed, a leaf for a real capture with another bundle hash — is named, capture by capture, with exit 1.
 */

const log = pino({ level: 'silent' });
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe('capture-ledger log audit', () => {
  let nats: Awaited<ReturnType<typeof startNatsOnly>>;
  let h: NatsHandles;
  let store: EventStore;
  let view: LogView;
  let sequencer: Sequencer | null = null;
  let env: Record<string, string>;

  /** Append a batch to TLOG by hand, in turn (as someone holding the sequencer's credentials could). */
  async function appendBatchByHand(leaves: string[], through?: number) {
    const tail = await readTail(h.jsm);
    const batch: LeafBatch = {
      first: tail.size,
      through: through ?? tail.through,
      leaves: leaves.map((data) => ({ src: [0, 0], data })),
    };
    await h.js.publish(LEAVES_SUBJECT, encodeJson(batch), { expect: { lastSubjectSequence: tail.seq } });
    await view.waitForSize(tail.size + leaves.length, 60_000);
  }

  /** The completed event just written for `captureId`, and its LEDGER sequence. */
  async function completeInLedger(tenant: string, captureId: string) {
    await appendCommit(store, tenant, [completed(captureId)]);
    const last = (await store.last(`ledger.tenant.${tenant}`))!;
    return { seq: last.seq, bundle: (last.event.data as any).bundle };
  }

  before(async () => {
    nats = await startNatsOnly();
    h = await connectNats(nats.nats.url, 'test');
    await ensureLogStream(h.jsm);
    store = createEventStore(h.js, h.jsm);
    view = await startLogView(h.js, h.jsm, log);
    env = { NATS_URL: nats.nats.url };
  });
  after(async () => {
    await sequencer?.stop();
    await view?.stop();
    await h?.nc.close();
    await nats?.stop();
  });

  it('passes when the sequencer logged every bundle and publication of the ledger', async () => {
    sequencer = await startSequencer(h.js, h.jsm, log);
    for (let k = 0; k < 40; k++) {
      if (k % 9 === 0) await appendCommit(store, null, [keyRotated(`k${k}`)]);
      else if (k % 5 === 0) await appendCommit(store, `t${k % 3}`, [usageRecorded()]);
      else if (k % 7 === 0)
        await appendCommit(store, `t${k % 3}`, [completed(`cap_${randomBytes(16).toString('hex')}`, false)]);
      else
        await appendCommit(store, `t${k % 3}`, [
          completed(`cap_${randomBytes(16).toString('hex')}`),
          completed(`cap_${randomBytes(16).toString('hex')}`),
        ]);
    }
    const expected = await expectedLeaves(store);
    await view.waitForSize(expected.length, 120_000);
    const r = await cli(['log', 'audit'], env);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^log audit: OK\n/);
    assert.match(r.stdout, new RegExp(`${expected.length} leaves in TLOG`));
    await sequencer.stop();
    sequencer = null;
  });

  it('a bundle signed in the ledger that the log skipped: MISSING, naming the capture', async () => {
    const captureId = `cap_${randomBytes(16).toString('hex')}`;
    const { seq, bundle } = await completeInLedger('t1', captureId);
    // The log claims to have read the ledger past it, and logged nothing for it.
    await appendBatchByHand([], seq);
    const r = await cli(['log', 'audit'], env);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^log audit: 1 problem\n/);
    assert.match(
      r.stderr,
      new RegExp(
        `MISSING: capture ${captureId} \\(tenant t1, LEDGER sequence ${seq}\\): bundle ${bundle.bundleHash} has no leaf in the log`,
      ),
    );
  });

  it('a leaf appended straight to TLOG for a capture the ledger never signed: UNKNOWN, naming the leaf', async () => {
    const size = (await readTail(h.jsm)).size;
    const forged = text(
      encodeLeaf(
        captureLeaf(
          `cap_${randomBytes(16).toString('hex')}`,
          `sha256:${randomBytes(32).toString('hex')}`,
          'abcd1234',
          null,
        ),
      ),
    );
    await appendBatchByHand([forged]);
    const r = await cli(['log', 'audit'], env);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      new RegExp(`UNKNOWN: leaf ${size} is bundle sha256:[0-9a-f]{64} of a capture the ledger has no signed bundle of`),
    );
  });

  it('a leaf for a real capture with another bundle hash: MISMATCH, naming the capture and both hashes', async () => {
    const captureId = `cap_${randomBytes(16).toString('hex')}`;
    const { seq, bundle } = await completeInLedger('t2', captureId);
    const swapped = `sha256:${randomBytes(32).toString('hex')}`;
    await appendBatchByHand([text(encodeLeaf(captureLeaf(captureId, swapped, bundle.keyId, bundle.genTime)))], seq);
    const r = await cli(['log', 'audit'], env);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      new RegExp(
        `MISMATCH: capture ${captureId} \\(tenant t2, LEDGER sequence ${seq}\\): the log's leaf \\d+ says bundle ${swapped}, the ledger signed ${bundle.bundleHash}`,
      ),
    );
    assert.match(r.stdout, /^log audit: 3 problems\n/);
  });

  it('a second copy of a logged leaf: DUPLICATE', async () => {
    const first = text((await view.leafData(1, 2))[0]!);
    await appendBatchByHand([first]);
    const r = await cli(['log', 'audit'], env);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /DUPLICATE: .* has 2 leaves in the log \(1, \d+\); it must have one/);
  });
});
