import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { type EmbeddedNats, startEmbeddedNats } from '../../../src/infra/embedded-nats.js';

/**
 * Not even the operator's user (make run's one user, the CLI, provisioning) may purge a stream or
 * delete a message; the server refuses, so a regression fails loudly instead of wiping evidence.
 */
describe("the operator's NATS user may not purge or delete messages", () => {
  let dir: string;
  let nats: EmbeddedNats;
  let nc: NatsConnection;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cl-nopurge-'));
    nats = await startEmbeddedNats(join(dir, 'nats'), { credentials: { user: 'operator', pass: 'secret-pass' } });
    nc = await connect({ servers: nats.url, user: 'operator', pass: 'secret-pass' });
  });
  after(async () => {
    await nc?.close().catch(() => undefined);
    await nats?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates streams and publishes, but a purge (filtered or not) and a message delete are refused', async () => {
    const jsm = await jetstreamManager(nc, { timeout: 5_000 });
    await jsm.streams.add({ name: 'PROBE', subjects: ['probe.>'] });
    const js = jetstream(nc);
    for (let i = 0; i < 4; i++) await js.publish(`probe.${i % 2}`, `m${i}`);
    await assert.rejects(jsm.streams.purge('PROBE', { filter: 'probe.0' }), /permission|timeout|no responders/i);
    await assert.rejects(jsm.streams.purge('PROBE'), /permission|timeout|no responders/i);
    await assert.rejects(jsm.streams.deleteMessage('PROBE', 1), /permission|timeout|no responders/i);
    assert.equal((await jsm.streams.info('PROBE')).state.messages, 4, 'nothing was removed');
  });
});
