import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../src/infra/free-port.js';
import { encodeJob } from '../../src/capture/capture-job.js';
import { openArtifactStore } from '../../src/storage/jetstream-artifact-store.js';
import { storedArtifactName } from '../support/stored-artifacts.js';
import { CAPTURE_JOB_SUBJECT, JOBS_STREAM } from '../../src/ledger/streams.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { startServiceProcess } from '../support/service-process.js';
import { ADMIN_KEY, assertProblem, startTestServer } from '../support/test-server.js';

const ADMIN = 'crash-admin-key-0123456789';
const json = { 'content-type': 'application/json' };

describe('a worker SIGKILLed mid-capture', () => {
  let site: FixtureSite;
  let dataDir: string;
  before(async () => {
    site = await startFixtureSite();
    dataDir = await mkdtemp(join(tmpdir(), 'cl-crash-'));
  });
  after(async () => {
    await site.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('has its capture redelivered after restart, and it completes (never stuck pending)', async () => {
    const env = {
      DATA_DIR: dataDir,
      ADMIN_KEY: ADMIN,
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: 'none',
      CAPTURE_TIMEOUT_MS: '5000',
    };
    const first = await startServiceProcess(env, await freePort());
    const keyRes = await fetch(`${first.baseUrl}/v1/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, ...json },
      body: JSON.stringify({ tenantId: 'crash', scopes: ['capture'], name: 'crash test' }),
    });
    const { key } = (await keyRes.json()) as { key: string };
    // /pending-fetch keeps a request open, so the settle phase runs to its 3 s cap: time to kill mid-capture.
    const sub = await fetch(`${first.baseUrl}/v1/captures`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, ...json },
      body: JSON.stringify({ url: site.url('/pending-fetch') }),
    });
    assert.equal(sub.status, 202);
    const { id } = (await sub.json()) as { id: string };
    // The worker's first capture launches its browser: on a busy host that alone can take tens of seconds.
    const deadline = Date.now() + 120_000;
    while (!site.requests.some((r) => r.path === '/pending-fetch')) {
      assert.ok(Date.now() < deadline, 'the worker never started rendering');
      await new Promise((r) => setTimeout(r, 50));
    }
    await first.kill('SIGKILL');
    const status1 = site.requests.filter((r) => r.path === '/pending-fetch').length;

    const second = await startServiceProcess(env, await freePort());
    try {
      let body: { status: string } = { status: 'pending' };
      const until = Date.now() + 90_000;
      while (body.status === 'pending' && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 500));
        body = (await (await fetch(`${second.baseUrl}/v1/captures/${id}/status`)).json()) as { status: string };
      }
      assert.equal(body.status, 'complete', JSON.stringify(body));
      assert.ok(
        site.requests.filter((r) => r.path === '/pending-fetch').length > status1,
        'rendered again after the crash',
      );
      const rec = (await (await fetch(`${second.baseUrl}/v1/captures/${id}`)).json()) as {
        artifacts: { screenshot: string };
      };
      assert.ok(rec.artifacts.screenshot);
    } finally {
      assert.equal(await second.kill('SIGTERM'), 0);
    }
  });
});

describe('a job delivered again for a capture that already has its outcome', () => {
  it('is dropped without rendering: the stored WACZ stays the one the logged bundleHash names', async () => {
    const site = await startFixtureSite();
    const s = await startTestServer({
      ROLES: 'api,projector,worker,signer',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      SIGNING_KEY: randomBytes(32).toString('base64'),
    });
    try {
      const key = (
        await s.call('POST', '/v1/admin/keys', {
          token: ADMIN_KEY,
          body: { tenantId: 'again', scopes: ['capture'], name: 'k' },
        })
      ).body.key;
      const sub = await s.call('POST', '/v1/captures', { token: key, body: { url: site.url('/simple') } });
      assert.equal(sub.status, 202);
      const id = sub.body.id as string;
      let status = 'pending';
      for (const until = Date.now() + 120_000; status === 'pending' && Date.now() < until; ) {
        await new Promise((r) => setTimeout(r, 250));
        status = (await s.call('GET', `/v1/captures/${id}/status`, { token: key })).body.status;
      }
      assert.equal(status, 'complete');
      const rendered = site.requests.filter((r) => r.path === '/simple').length;
      const artifacts = await openArtifactStore(s.server.nats.nc);
      const waczName = (await storedArtifactName(s.server, id, 'wacz'))!;
      const wacz = await artifacts.digest(waczName);
      assert.ok(wacz, 'the capture has a WACZ');

      // The job again, as after a worker that appended the outcome but died before its ack (a new msgID: the
      // stream's duplicate window would drop the same one).
      const { js, jsm } = s.server.nats;
      const job = {
        tenantId: 'again',
        captureId: id,
        url: site.url('/simple'),
        createdAt: new Date().toISOString(),
        correlationId: 'again',
      };
      await js.publish(CAPTURE_JOB_SUBJECT, encodeJob(job), { msgID: `again:${id}` });
      for (const until = Date.now() + 120_000; (await jsm.streams.info(JOBS_STREAM)).state.messages > 0; ) {
        assert.ok(Date.now() < until, 'the worker never took the job');
        await new Promise((r) => setTimeout(r, 250));
      }
      assert.equal(site.requests.filter((r) => r.path === '/simple').length, rendered, 'not rendered again');
      assert.equal(await storedArtifactName(s.server, id, 'wacz'), waczName, 'the logged names are unchanged');
      assert.equal(await artifacts.digest(waczName), wacz, 'the WACZ is the one that was logged');
      assert.equal((await s.call('GET', `/v1/captures/${id}/status`, { token: key })).body.status, 'complete');
    } finally {
      await s.stop();
      await site.close();
    }
  });
});

describe('capacity', () => {
  it('answers 503 with Retry-After when the job backlog reaches CAPTURE_BACKLOG_MAX', async () => {
    const s = await startTestServer({ ALLOW_PRIVATE_TARGETS: '127.0.0.1/32', CAPTURE_BACKLOG_MAX: '3' });
    try {
      const key = (
        await s.call('POST', '/v1/admin/keys', {
          token: ADMIN_KEY,
          body: { tenantId: 'busy', scopes: ['capture'], name: 'k' },
        })
      ).body.key;
      assert.equal(
        (await s.call('POST', '/v1/captures', { token: key, body: { url: 'http://127.0.0.1:9/' } })).status,
        202,
      );
      // No worker runs in this server: fill the work queue as a backlog would.
      for (let i = 0; i < 3; i++)
        await s.server.nats.js.publish(
          CAPTURE_JOB_SUBJECT,
          new TextEncoder().encode(JSON.stringify({ captureId: `cap_${i}` })),
        );
      await new Promise((r) => setTimeout(r, 1100)); // the backlog figure is cached for 1 s
      const busy = await s.call('POST', '/v1/captures', { token: key, body: { url: 'http://127.0.0.1:9/' } });
      assert.equal(busy.status, 503);
      assertProblem(busy.body, 503);
      assert.match(busy.headers.get('retry-after')!, /^\d+$/);
      const batch = await s.call('POST', '/v1/captures/batch', {
        token: key,
        body: { urls: [{ url: 'http://127.0.0.1:9/' }] },
      });
      assert.equal(batch.status, 503);
    } finally {
      await s.stop();
    }
  });
});
