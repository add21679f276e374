import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { SEED_FILE_NAME } from '../../src/archive/signing-key.js';
import { runCli } from '../../src/cli/run-cli.js';
import { type LocalCluster, startLocalCluster } from '../../src/infra/local-cluster.js';
import { ConcurrencyConflictError, createEventStore } from '../../src/ledger/event-store.js';
import { tenantSubject } from '../../src/ledger/streams.js';
import { newId } from '../../src/domain/ids.js';
import { type ClusterClient, clusterClient } from '../support/cluster-client.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { checkEveryRequestAnswered, checkHttpEdges } from '../support/http-surface-checks.js';

/**
 * The scaled deployment (issue 10): three clustered nats-servers, Postgres, every role in its own OS process
 * with its own DATA_DIR, NATS_REPLICAS=3. Real processes, real SIGKILLs.
 */
describe('replicated deployment on a 3-node NATS cluster', () => {
  let dir: string;
  let cluster: LocalCluster;
  let client: ClusterClient;
  let site: FixtureSite;
  let nc: NatsConnection;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cl-cluster-'));
    site = await startFixtureSite();
    cluster = await startLocalCluster({
      dir,
      env: {
        ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
        RATE_LIMIT_IP_PER_MIN: '100000',
        RATE_LIMIT_TENANT_PER_MIN: '100000',
        CAPTURE_BACKLOG_MAX: '100000',
        CAPTURE_TIMEOUT_MS: '20000',
        WORKER_CONCURRENCY: '2',
      },
    });
    client = clusterClient(cluster);
    nc = await connect({ servers: cluster.nats.url.split(','), maxReconnectAttempts: -1, ...cluster.operator });
  });
  after(async () => {
    await nc?.close().catch(() => undefined);
    await cluster?.stop();
    await site?.close();
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  });

  it('keeps every stream, KV and object-store bucket on 3 replicas, and every role answers /health and /metrics', async () => {
    const jsm = await jetstreamManager(nc);
    for (const name of ['LEDGER', 'JOBS', 'DELIVERIES', 'KV_ratelimits', 'KV_actor-snapshots', 'KV_webhook-keys', 'OBJ_artifacts']) {
      const info = await jsm.streams.info(name);
      assert.equal(info.config.num_replicas, 3, name);
      assert.equal((info.cluster?.replicas?.length ?? 0) + 1, 3, `${name} has a leader and two replicas`);
    }
    for (const p of cluster.processes) {
      const health = await fetch(`${p.url}/health`);
      assert.equal(health.status, 200, p.name);
      assert.equal(((await health.json()) as { status: string }).status, 'ok');
      const metrics = await fetch(`${p.url}/metrics`);
      assert.equal(metrics.status, 200, p.name);
      assert.match(await metrics.text(), /process_cpu_seconds_total/);
    }
  });

  it('admits no anonymous client, and gives each role only its subjects', async () => {
    await assert.rejects(connect({ servers: cluster.nats.url.split(','), reconnect: false, timeout: 5000 }), /Authorization Violation/i);
    const as = (role: 'worker' | 'projector') => connect({ servers: cluster.nats.url.split(','), ...cluster.natsUserOf(role), reconnect: false, timeout: 5000 });
    const worker = await as('worker');
    try {
      const jsm = await jetstreamManager(worker, { timeout: 3000 });
      assert.equal((await jsm.streams.info('LEDGER')).config.name, 'LEDGER', 'a worker may inspect the ledger');
      // …but not delete it, nor read the webhook keys, nor write them.
      await assert.rejects(worker.request('$JS.API.STREAM.DELETE.LEDGER', '', { timeout: 3000 }));
      await assert.rejects(worker.request('$JS.API.DIRECT.GET.KV_webhook-keys.$KV.webhook-keys.x', '', { timeout: 3000 }));
      await assert.rejects(worker.request('$KV.webhook-keys.x', 'k', { timeout: 3000 }));
      // …nor forge a signing-key rotation on the system subject, nor answer in the signer's place.
      await assert.rejects(worker.request('ledger.system', '{}', { timeout: 3000 }));
      const impostor = worker.subscribe('notary.sign');
      await assert.rejects(impostor.closed.then((err) => Promise.reject(err ?? new Error('closed without error'))), /Permissions Violation/i);
    } finally {
      await worker.close().catch(() => undefined);
    }
    const projector = await as('projector');
    try {
      await assert.rejects(projector.request('ledger.tenant.intruder', '[]', { timeout: 3000 }), 'the projector appends nothing');
    } finally {
      await projector.close().catch(() => undefined);
    }
    assert.equal((await (await jetstreamManager(nc)).streams.info('LEDGER')).config.name, 'LEDGER');
  });

  it('lets a worker report capture outcomes and nothing else; stream configuration is provisioning\'s alone', async () => {
    const as = (role: 'worker' | 'api') => connect({ servers: cluster.nats.url.split(','), ...cluster.natsUserOf(role), reconnect: false, timeout: 5000 });
    const refused = (c: NatsConnection, subject: string, body = '') => assert.rejects(c.request(subject, body, { timeout: 10_000 }), /permission/i, `${subject} is refused`);
    const ledgerConfig = JSON.stringify((await (await jetstreamManager(nc)).streams.info('LEDGER')).config);
    const worker = await as('worker');
    try {
      const jsm = await jetstreamManager(worker, { timeout: 10_000 });
      // Allowed: what a worker needs — inspect its streams, read its consumer, report an outcome.
      assert.equal((await jsm.streams.info('JOBS')).config.name, 'JOBS');
      assert.equal((await jsm.consumers.info('JOBS', 'capture-workers')).name, 'capture-workers');
      const report = await worker.request(
        'capture.outcome',
        JSON.stringify({ tenantId: 'nobody', command: { type: 'FailCapture', data: { captureId: 'cap_nosuchcapture', error: 'x', retryable: false, attempts: 1 } }, correlationId: 'c' }),
        { timeout: 60_000 },
      );
      assert.deepEqual(report.json(), { ok: true, applied: false }, 'the api decides: no pending capture, nothing appended');
      const forged = await worker.request('capture.outcome', JSON.stringify({ tenantId: 'acme', command: { type: 'CreateKey', data: {} }, correlationId: 'c' }), { timeout: 60_000 });
      assert.equal((forged.json() as { ok: boolean; status: number }).status, 400, 'only outcome commands are taken');
      // Refused: tenant facts, system facts, stream configuration, other roles' queues.
      await refused(worker, 'ledger.tenant.acme', '{}');
      await refused(worker, 'ledger.system', '{}');
      await refused(worker, '$JS.API.STREAM.UPDATE.LEDGER', ledgerConfig);
      await refused(worker, '$JS.API.STREAM.CREATE.EVIL', JSON.stringify({ name: 'EVIL', subjects: ['evil.>'] }));
      await refused(worker, '$JS.API.CONSUMER.CREATE.DELIVERIES', JSON.stringify({ stream_name: 'DELIVERIES', config: { ack_policy: 'explicit' } }));
      await refused(worker, '$JS.API.STREAM.MSG.GET.DELIVERIES', JSON.stringify({ seq: 1 }));
      await refused(worker, '$KV.actor-snapshots.acme', '{}');
    } finally {
      await worker.close().catch(() => undefined);
    }
    const api = await as('api');
    try {
      assert.equal((await (await jetstreamManager(api, { timeout: 10_000 })).streams.info('LEDGER')).config.name, 'LEDGER', 'the api inspects the ledger');
      await refused(api, 'ledger.system', '{}');
      await refused(api, '$JS.API.STREAM.UPDATE.LEDGER', ledgerConfig);
      await refused(api, '$JS.API.STREAM.CREATE.EVIL', JSON.stringify({ name: 'EVIL', subjects: ['evil.>'] }));
    } finally {
      await api.close().catch(() => undefined);
    }
    const after = (await (await jetstreamManager(nc)).streams.info('LEDGER')).config;
    assert.equal(JSON.stringify(after), ledgerConfig, 'LEDGER is configured as provisioned');
  });

  it('answers every request at every API process as one process does (the security and malformed-request checks)', async () => {
    const key = await client.createTenantKey('answers');
    for (const base of cluster.apiUrls) {
      await checkHttpEdges(base);
      await checkEveryRequestAnswered(base, key);
    }
  });

  it('verifies a bundle made by any worker at every API process and offline, with the built-in TSA and nothing shared on disk', async () => {
    const key = await client.createTenantKey('evidence');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await client.submit(key, site.url(`/simple?n=${i}`), cluster.apiUrls[i % 2]!);
      assert.equal(r.status, 202, r.error);
      ids.push(r.id!);
    }
    const settled = await client.settle(key, ids, 300_000);
    assert.deepEqual([...settled.values()], ids.map(() => 'complete'));
    for (const id of ids) {
      for (const base of cluster.apiUrls) {
        const r = await fetch(`${base}/v1/verify/${id}`);
        const body = (await r.json()) as { verified: boolean; checks: Record<string, unknown> };
        assert.equal(r.status, 200);
        assert.equal(body.verified, true, `${id} at ${base}: ${JSON.stringify(body.checks)}`);
      }
      const bundle = new Uint8Array(await (await fetch(`${cluster.apiUrls[1]}/v1/captures/${id}/artifacts/wacz`, { headers: { authorization: `Bearer ${key}` } })).arrayBuffer());
      let out = '';
      const code = await runCli(
        ['verify', 'bundle.wacz', '--keys-url', `${cluster.apiUrls[0]}/.well-known/signing-keys`, '--tsa-ca-url', `${cluster.apiUrls[1]}/.well-known/tsa-certificates`],
        { env: {}, stdout: (t) => void (out += t), stderr: (t) => void (out += t), readFile: async () => bundle },
      );
      assert.equal(code, 0, out);
      assert.equal(JSON.parse(out).signing.timestamp.selfIssued, true, 'the built-in TSA is named as self-issued');
    }
    const tsa = (await (await fetch(`${cluster.apiUrls[0]}/.well-known/tsa-certificates`)).json()) as { certificates: unknown[] };
    assert.equal(tsa.certificates.length, 2, 'each signer published its built-in TSA certificate');
    // The browser workers never held the key: it lives with the signers, which render nothing.
    for (const p of cluster.processes.filter((x) => x.role === 'worker')) {
      assert.equal(existsSync(join(p.dataDir, SEED_FILE_NAME)), false, `${p.name} has no signing seed`);
      assert.equal(existsSync(join(p.dataDir, 'tsa')), false, `${p.name} runs no TSA`);
    }
  });

  it('never lets two commits take one ledger slot, although this nats-server accepts concurrent expected-sequence publishes', async () => {
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'OCC_PROBE', subjects: ['occ-probe.>'], num_replicas: 3 });
    let rawAccepted = 0;
    let rawRounds = 0;
    for (let round = 0; round < 30; round++) {
      const subject = `occ-probe.${round}`;
      const first = await js.publish(subject, 'x');
      const results = await Promise.allSettled(Array.from({ length: 9 }, () => js.publish(subject, 'y', { expect: { lastSubjectSequence: first.seq } })));
      rawAccepted += results.filter((r) => r.status === 'fulfilled').length;
      rawRounds++;
    }
    await jsm.streams.delete('OCC_PROBE');
    // Reported, not asserted: a fixed nats-server accepts exactly 1 of 9 (docs/scaling.md).
    process.stdout.write(`# raw expected-last-subject-sequence publishes on R3: ${(rawAccepted / rawRounds).toFixed(2)} of 9 accepted per round (${nc.info?.version})\n`);

    const store = createEventStore(js, jsm);
    for (let round = 0; round < 30; round++) {
      const subject = tenantSubject(`occ-${round}`);
      const unsealed = (n: number) => ({
        type: 'key.revoked' as const,
        data: { keyHash: `h${n}`, revokedAt: new Date().toISOString() },
        id: newId('evt'),
        schemaVersion: 1,
        tenantId: `occ-${round}`,
        occurredAt: new Date().toISOString(),
        causedBy: { kind: 'admin' as const },
        correlationId: 'occ',
      });
      const [head] = await store.append(subject, [unsealed(0) as never], { expectedLastSeq: 0, prevHash: null });
      const results = await Promise.allSettled(
        Array.from({ length: 9 }, (_, i) => store.append(subject, [unsealed(i + 1) as never], { expectedLastSeq: head!.seq, prevHash: head!.event.hash })),
      );
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, `round ${round}`);
      for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof ConcurrencyConflictError, String(r.reason));
      assert.equal((await store.readSubject(subject)).length, 2);
    }
  });

  it('admits exactly the quota of 1,000 concurrent submissions through two API processes on a 3-replica ledger', async () => {
    const key = await client.createTenantKey('exact-quota', 50);
    const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => client.submit(key, `http://127.0.0.1:9/q${i}`, cluster.apiUrls[i % 2]!)));
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 202).length, 50, JSON.stringify(results.filter((r) => r.status !== 202 && r.status !== 429).slice(0, 3)));
    assert.equal(statuses.filter((s) => s === 429).length, 950);
    const audit = await client.audit('exact-quota');
    assert.equal(audit.code, 0, audit.stdout + audit.stderr);
  });

  it('loses nothing acknowledged when the nats-server leading LEDGER is SIGKILLed under load, and submissions resume', async () => {
    const key = await client.createTenantKey('failover');
    const acked: string[] = [];
    const outcomes: Array<{ at: number; ok: boolean }> = [];
    let running = true;
    const load = (async () => {
      for (let i = 0; running; i++) {
        const r = await client.submit(key, site.url(`/simple?f=${i}`), cluster.apiUrls[i % 2]!);
        outcomes.push({ at: Date.now(), ok: r.status === 202 });
        if (r.status === 202) acked.push(r.id!);
        await new Promise((res) => setTimeout(res, 250));
      }
    })();
    await waitUntil(() => acked.length >= 5, 120_000, 'the first submissions');
    const leader = await cluster.nats.streamLeader('LEDGER');
    assert.ok(leader, 'LEDGER has a leader');
    const killedAt = Date.now();
    await cluster.nats.kill(leader!);
    await waitUntil(() => outcomes.some((o) => o.at > killedAt && o.ok) && outcomes.filter((o) => o.at > killedAt && o.ok).length >= 5, 180_000, 'submissions after the kill');
    const firstOkAfter = outcomes.find((o) => o.at > killedAt && o.ok)!.at;
    process.stdout.write(`# LEDGER leader ${leader} killed: submissions succeeded again after ${firstOkAfter - killedAt} ms\n`);
    await cluster.nats.start(leader!);
    running = false;
    await load;
    const settled = await client.settle(key, acked, 600_000);
    assert.equal(settled.size, acked.length, `every acknowledged capture reaches a terminal state (${settled.size} of ${acked.length})`);
    const audit = await client.audit('failover');
    assert.equal(audit.code, 0, audit.stdout + audit.stderr);
  });

  it('loses nothing when a worker mid-capture, the projector and one API process are SIGKILLed', async () => {
    const key = await client.createTenantKey('role-kills');
    const acked: string[] = [];
    // Pages whose settle phase runs to its cap keep the workers busy when the kill comes.
    for (let i = 0; i < 6; i++) {
      const r = await client.submit(key, site.url(`/pending-fetch?k=${i}`), cluster.apiUrls[i % 2]!);
      assert.equal(r.status, 202, r.error);
      acked.push(r.id!);
    }
    await waitUntil(() => site.requests.some((q) => q.path.startsWith('/pending-fetch')), 120_000, 'a worker to start a capture');
    await cluster.kill('worker-1');
    await cluster.kill('projector-1');
    await cluster.kill('api-1');
    // The surviving API keeps admitting while the others are down.
    for (let i = 0; i < 4; i++) {
      const r = await client.submit(key, site.url(`/simple?k=${i}`), cluster.apiUrls[1]!);
      assert.equal(r.status, 202, r.error);
      acked.push(r.id!);
    }
    await Promise.all([cluster.start('worker-1'), cluster.start('projector-1'), cluster.start('api-1')]);
    const settled = await client.settle(key, acked, 600_000);
    assert.equal(settled.size, acked.length, `every acknowledged capture reaches a terminal state (${settled.size} of ${acked.length})`);
    const audit = await client.audit('role-kills');
    assert.equal(audit.code, 0, audit.stdout + audit.stderr);
  });
});

async function waitUntil(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
