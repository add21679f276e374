import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ArtifactLockedError, type ArtifactStore } from '../../../src/storage/artifact-store.js';
import { openArtifactStore } from '../../../src/storage/jetstream-artifact-store.js';
import { newId } from '../../../src/domain/ids.js';
import { startNatsOnly } from '../../support/harness.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../support/test-server.js';

/**
 * The JetStream adapter implements the whole port: where it has nothing to do (it neither locks, presigns nor
 * is watched apart from NATS) each member answers as the port documents, so no caller asks which adapter it holds.
 */
describe('the JetStream artifact store answers every member of the port', () => {
  let infra: Awaited<ReturnType<typeof startNatsOnly>>;
  let nc: NatsConnection;
  let store: ArtifactStore;

  before(async () => {
    infra = await startNatsOnly();
    nc = await connect({ servers: infra.nats.url });
    store = await openArtifactStore(nc);
    await store.put('cap_p/a/wacz', new Uint8Array([1, 2, 3]), { retainUntil: new Date(Date.now() + 86_400_000) });
    await store.put('diffs/cap_p/cap_o/x.pdf', new Uint8Array([4]));
    await store.put('cap_q/a/wacz', new Uint8Array([5]));
  });
  after(async () => {
    await nc?.close();
    await infra?.stop();
  });

  it('says what it can do: no locks, made evidence stays in the KV buckets', () => {
    assert.equal(store.kind, 'jetstream');
    assert.equal(store.locks, false);
    assert.equal(store.keepsMadeEvidence, false);
    assert.match(store.lock.unavailable ?? '', /JetStream store cannot lock objects/);
  });

  it('hands out no presigned link and reports no health of its own', async () => {
    assert.equal(await store.presign('cap_p/a/wacz', { fileName: 'b.wacz', type: 'application/wacz+zip' }), null);
    assert.equal(store.health(), null);
  });

  it('reads no retention and no hold, changes none, and deletes nothing', async () => {
    assert.deepEqual(await store.lock.state('cap_p/a/wacz'), { retainUntil: null, legalHold: false });
    assert.equal(await store.lock.state('cap_p/none'), null);
    await store.lock.legalHold(['cap_p/a/wacz'], true);
    await store.lock.retain('cap_p/a/wacz', new Date(Date.now() + 2 * 86_400_000));
    assert.deepEqual(await store.lock.state('cap_p/a/wacz'), { retainUntil: null, legalHold: false });
    await assert.rejects(store.lock.remove('cap_p/a/wacz'), ArtifactLockedError);
    assert.deepEqual(Buffer.from((await store.get('cap_p/a/wacz'))!), Buffer.from([1, 2, 3]));
  });

  it('lists the stored names under a prefix', async () => {
    assert.deepEqual(await store.list('cap_p/'), ['cap_p/a/wacz']);
    assert.deepEqual(await store.list('diffs/cap_p/'), ['diffs/cap_p/cap_o/x.pdf']);
    assert.deepEqual(await store.list('cap_none/'), []);
  });
});

/** Through the service: what the port's answers mean for the API when the store is JetStream. */
describe('the service over the JetStream artifact store', () => {
  let s: TestServer;
  const admin = (method: string, path: string, body?: unknown) =>
    s.call(method, path, { token: ADMIN_KEY, from: '127.0.0.60', ...(body ? { body } : {}) });

  before(async () => {
    s = await startTestServer({ ROLES: 'api,projector' });
  });
  after(async () => {
    await s?.stop();
  });

  it('GET /health leaves storage out: no storage apart from NATS to report', async () => {
    const health = await s.call('GET', '/health');
    assert.equal(health.status, 200, health.text);
    assert.equal('storage' in health.body, false, health.text);
  });

  it('retention and legal hold answer 409 saying the JetStream store cannot lock objects', async () => {
    const tenant = await admin('GET', '/v1/admin/tenants/keep/retention');
    assert.equal(tenant.status, 200, tenant.text);
    assert.equal(tenant.body.locked, false);
    const hold = await admin('PUT', `/v1/admin/captures/${newId('cap')}/legal-hold`, {
      active: true,
      by: 'counsel@example.com',
      reason: 'Case 24-cv-0113',
    });
    assert.equal(hold.status, 409, hold.text);
    assert.match(hold.body.detail, /need S3 storage with Object Lock .*the JetStream store cannot lock objects/);
  });
});
