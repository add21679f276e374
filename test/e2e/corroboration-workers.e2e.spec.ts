import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../src/infra/free-port.js';
import { PULL_EXPIRES_MS } from '../../src/ledger/streams.js';
import { type ServiceProcess, startServiceProcess } from '../support/service-process.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/test-server.js';
import { type LoopbackVantages, startLoopbackVantages } from '../support/vantage-fixtures.js';

/**
 * Corroborated captures on two worker processes: the members of a set land on distinct workers —
 * a worker holding one member of a set gives the other back until another worker takes it — so a stable page
 * says AGREE, and the address-varying page DIVERGEs on what differs, never on `workers`. Real NATS, Postgres and
 * Chromium: the API (with a worker) in this process, a second worker as its own OS process on the same NATS and
 * database, as a scaled deployment runs them. (One worker: test/e2e/vantages.e2e.spec.ts, where the record says
 * `workers` and the set still completes.)
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('corroborated captures on two worker processes', () => {
  let s: TestServer;
  let second: ServiceProcess;
  let secondDir: string;
  let loopback: LoopbackVantages;
  let token: string;
  const workersSeen = new Set<string>();

  before(async () => {
    loopback = await startLoopbackVantages();
    const shared = {
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      CAPTURE_TIMEOUT_MS: '8000',
      WORKER_CONCURRENCY: '2',
      VANTAGES: JSON.stringify(loopback.vantages),
    };
    // The API, the projector, the log, the signer (SIGNING_KEY: this process signs) and the first worker.
    s = await startTestServer({
      ...shared,
      ROLES: 'api,projector,worker,sequencer',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
    });
    // The second worker: its own process, DATA_DIR and browser; it asks this process's signer (SIGNER=remote).
    secondDir = await mkdtemp(join(tmpdir(), 'cl-corro-worker-'));
    second = await startServiceProcess(
      {
        ...shared,
        ROLES: 'worker',
        SIGNER: 'remote',
        NATS_URL: s.infra.nats.url,
        DATABASE_URL: s.databaseUrl,
        DATA_DIR: secondDir,
        CAPTURE_RETRY_DELAYS: '2,5,10,20,30',
      },
      await freePort(),
    );
    const created = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      body: { tenantId: 'corro-workers', scopes: ['capture', 'read'], name: 'two workers e2e' },
    });
    assert.equal(created.status, 201, created.text);
    token = created.body.key;
  });

  after(async () => {
    second?.child.kill('SIGCONT'); // a stopped process would not take the SIGTERM
    await second?.kill('SIGTERM');
    await s?.stop();
    await loopback?.close();
    if (secondDir) await rm(secondDir, { recursive: true, force: true });
  });

  async function submit(url: string, options: Record<string, unknown>): Promise<any> {
    const r = await s.call('POST', '/v1/captures', { token, body: { url, options } });
    assert.equal(r.status, 202, r.text);
    return r.body;
  }

  async function corroborated(url: string, options: Record<string, unknown>): Promise<{ accepted: any; answer: any }> {
    return settled(await submit(url, options));
  }

  async function settled(accepted: any): Promise<{ accepted: any; answer: any }> {
    const r = { body: accepted };
    const deadline = Date.now() + 240_000;
    for (;;) {
      const c = await s.call('GET', `/v1/captures/${r.body.id}/corroboration`);
      assert.equal(c.status, 200, c.text);
      if (c.body.status === 'complete') return { accepted: r.body, answer: c.body };
      if (Date.now() > deadline)
        throw new Error(`corroboration ${c.body.id} still pending: ${c.text}\n${second.output().slice(-3000)}`);
      await sleep(300);
    }
  }

  /** Each member's provenance names the worker process that rendered it. */
  async function workersOf(answer: any): Promise<string[]> {
    const workers: string[] = [];
    for (const m of answer.record.members) {
      const p = await s.call('GET', `/v1/captures/${m.captureId}/provenance`);
      assert.equal(p.status, 200, p.text);
      assert.equal(p.body.worker, m.worker, 'the record states the worker of the provenance record');
      workers.push(p.body.worker);
    }
    return workers;
  }

  /**
   * A set submitted while the second worker is stopped (SIGSTOP), once its pulls have expired on the server (its
   * job feeder's and its capture jobs'), so the first worker feeds and fetches both members: it renders one and
   * gives the other back; once it renders, the second worker is continued and takes the member given back.
   * Without the give-back the first would render both.
   */
  async function submittedWhileSecondStopped(url: string): Promise<{ accepted: any; answer: any }> {
    second.child.kill('SIGSTOP');
    try {
      await sleep(PULL_EXPIRES_MS + 2000); // the stopped worker's last pulls (at most PULL_EXPIRES_MS) are gone
      const asked = () => loopback.ten.asked.length + loopback.eleven.asked.length;
      const before = asked();
      const accepted = await submit(url, { corroborate: 2 });
      // The first worker renders a member: its vantage's exit probe goes through that vantage's proxy.
      for (const deadline = Date.now() + 120_000; asked() === before; ) {
        if (Date.now() > deadline) throw new Error('no member started rendering');
        await sleep(50);
      }
      second.child.kill('SIGCONT');
      return await settled(accepted);
    } finally {
      second.child.kill('SIGCONT');
    }
  }

  it('a stable page: the members render on distinct workers, within the window, and the set AGREEs', async () => {
    // Three sets one after the other, each fetched whole by the first worker while the second is stopped: the
    // members still land on both workers.
    for (let round = 1; round <= 3; round++) {
      const { accepted, answer } = await submittedWhileSecondStopped(loopback.site.url('/stable'));
      const record = answer.record;
      assert.equal(record.verdict, 'AGREE', `round ${round}: ${JSON.stringify(record, null, 1)}`);
      assert.deepEqual(record.differing, []);
      assert.deepEqual(
        record.members.map((m: any) => [m.vantage.id, m.exitAddress, m.status]),
        [
          ['de-ten', '127.0.0.10', 'complete'],
          ['fr-eleven', '127.0.0.11', 'complete'],
        ],
      );
      const workers = await workersOf(answer);
      for (const w of workers) assert.match(w, /^wrk_[0-9a-f]{16}$/);
      assert.notEqual(workers[0], workers[1], `round ${round}: distinct workers`);
      for (const w of workers) workersSeen.add(w);
      assert.equal(record.window.distinctWorkers, true);
      assert.equal(record.window.startedWithin, true);
      assert.ok(record.window.spreadMs <= record.window.ms, JSON.stringify(record.window));
      if (round === 1) {
        // The member's certificate names the verdict, the vantages with their exits, and the record's hash.
        const certificate = await s.call('GET', `/v1/captures/${accepted.corroboration.members[1].id}/certificate`);
        assert.equal(certificate.status, 200, certificate.text.slice(0, 300));
        const dir = await mkdtemp(join(tmpdir(), 'cl-corro-cert-'));
        try {
          await writeFile(join(dir, 'c.pdf'), certificate.raw);
          const { stdout } = await promisify(execFile)('pdftotext', [join(dir, 'c.pdf'), '-']);
          const flat = stdout.replace(/\s+/g, ' ');
          assert.match(flat, /Verdict AGREE/);
          assert.match(flat, /de-ten, Frankfurt \(test, 127\.0\.0\.10\) \(DE\); exit address 127\.0\.0\.10; complete/);
          assert.match(
            flat,
            /\(this capture\): fr-eleven, Paris \(test, 127\.0\.0\.11\) \(FR\); exit address 127\.0\.0\.11/,
          );
          assert.match(flat, /; distinct worker processes/);
          assert.ok(flat.includes(answer.recordHash), 'the record hash');
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      }
    }
    assert.equal(workersSeen.size, 2, 'two worker processes, each named');
  });

  it('the address-varying page: DIVERGE on what the vantages saw, not on workers or the window', async () => {
    const { answer } = await corroborated(loopback.site.url('/by-caller'), { corroborate: 2 });
    const record = answer.record;
    assert.equal(record.verdict, 'DIVERGE');
    assert.ok(record.differing.includes('visibleText'), record.differing);
    assert.ok(record.differing.includes('screenshots'), record.differing);
    assert.ok(!record.differing.includes('workers') && !record.differing.includes('window'), record.differing);
    const workers = await workersOf(answer);
    assert.notEqual(workers[0], workers[1]);
    for (const w of workers) assert.ok(workersSeen.has(w), 'the same two worker processes');
  });
});
