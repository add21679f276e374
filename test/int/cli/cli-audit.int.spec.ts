import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { type EventEnvelope, seal } from '../../../src/ledger/envelope.js';
import { encodeCommit, type StoredEvent } from '../../../src/ledger/event-store.js';
import { type ActorSnapshot, encodeSnapshot, sealSnapshot } from '../../../src/actors/actor-snapshot.js';
import { openSnapshotStore } from '../../../src/actors/snapshot-store.js';
import { createTenantActors } from '../../../src/actors/tenant-actors.js';
import { TENANT_STATE_VERSION } from '../../../src/domain/tenant/index.js';
import { startTestServer, type TestServer } from '../../support/test-server.js';
import { cli, writeTenantHistory } from './cli-fixtures.js';

const COPY = 'LEDGER_COPY';

describe('capture-ledger audit', () => {
  let s: TestServer;
  let env: Record<string, string>;
  let events: StoredEvent[];

  /** Copy the tenant's commits into LEDGER_COPY under `subject`, letting `alter` change commits; returns the copy's sequences. */
  async function copyTenant(
    subject: string,
    alter: (commit: EventEnvelope[], i: number) => EventEnvelope[] = (c) => c,
  ): Promise<number[]> {
    const commits = new Map<number, EventEnvelope[]>();
    for (const e of events) commits.set(e.seq, [...(commits.get(e.seq) ?? []), e.event]);
    const seqs: number[] = [];
    let i = 0;
    for (const commit of commits.values()) {
      const ack = await s.server.nats.js.publish(subject, encodeCommit(alter(structuredClone(commit), i++)));
      seqs.push(ack.seq);
    }
    return seqs;
  }

  before(async () => {
    s = await startTestServer();
    env = { NATS_URL: s.infra.nats.url, DATABASE_URL: s.databaseUrl };
    await writeTenantHistory(s.server.ctx.tenants, 'good', 9);
    await writeTenantHistory(s.server.ctx.tenants, 'other', 3);
    await s.server.ctx.waiter.waitFor(await s.server.store!.lastSeq());
    events = await s.server.store!.readSubject('ledger.tenant.good');
    await s.server.nats.jsm.streams.add({
      name: COPY,
      subjects: ['copy.>'],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
    });
  });
  after(async () => s.stop());

  it('passes on an intact log whose projection matches, with a summary', async () => {
    const r = await cli(['audit', '--tenant', 'good'], env);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^audit of tenant good: OK$/m);
    assert.match(r.stdout, new RegExp(`ledger: +${events.length} events in \\d+ commits on ledger\\.tenant\\.good`));
    assert.match(
      r.stdout,
      /keys 2 \(1 revoked\), captures 10 \(pending 3, complete 4, failed 3\), usage periods 1, webhooks 2 \(1 deleted\), schedules 3 \(1 deleted\)/,
    );
    assert.match(r.stdout, /hash chain intact; projection matches the log/);

    const json = JSON.parse((await cli(['audit', '--tenant', 'good', '--json'], env)).stdout);
    assert.equal(json.ok, true);
    assert.equal(json.events, events.length);
    assert.equal(json.headHash, events.at(-1)!.event.hash);
    assert.equal(json.divergenceCount, 0);
  });

  it('an unaltered copy of the log passes too (the copy mechanism itself is sound)', async () => {
    await copyTenant('copy.clean.good');
    const r = await cli(['audit', '--tenant', 'good', '--stream', COPY, '--subject', 'copy.clean.good'], env);
    assert.equal(r.code, 0, r.stdout + r.stderr);
  });

  it('names the stored event whose payload was altered in a copy of the log', async () => {
    const target = events.findIndex((e, i) => i > 10 && e.event.type === 'capture.submitted');
    const victim = events[target]!;
    let commitIndex = -1;
    const seqs = await copyTenant('copy.tampered.good', (commit, i) => {
      if (commit.some((e) => e.id === victim.event.id)) {
        commitIndex = i;
        const e = commit.find((x) => x.id === victim.event.id) as any;
        e.data.captures[0].url = 'https://evil.example/';
      }
      return commit;
    });
    const r = await cli(['audit', '--tenant', 'good', '--stream', COPY, '--subject', 'copy.tampered.good'], env);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^audit of tenant good: DIVERGENCE$/m);
    assert.match(
      r.stdout,
      new RegExp(
        `first divergence at sequence ${seqs[commitIndex]} \\(event ${victim.index + 1} of its commit\\), event ${victim.event.id}, capture\\.submitted`,
      ),
    );
    assert.match(
      r.stdout,
      /hash chain broken: hash [0-9a-f]{64} does not match the recomputed [0-9a-f]{64} \(the stored event was altered/,
    );

    const json = JSON.parse(
      (
        await cli(
          ['audit', '--tenant', 'good', '--stream', COPY, '--subject', 'copy.tampered.good', '--json', '--all'],
          env,
        )
      ).stdout,
    );
    assert.equal(json.ok, false);
    assert.equal(json.divergences[0].ref.eventId, victim.event.id);
    // Only that event breaks the chain; the altered URL also shows against the projection's captures row.
    assert.equal(json.divergences.filter((d: any) => d.kind === 'hash-chain').length, 1);
    assert.ok(
      json.divergences.some(
        (d: any) =>
          d.kind === 'projection-mismatch' &&
          d.detail.table === 'captures' &&
          d.detail.field === 'url' &&
          d.detail.log === 'https://evil.example/',
      ),
    );
  });

  it('catches an altered event whose hash was recomputed, through the projection', async () => {
    const last = events.at(-1)!;
    assert.equal(last.event.type, 'usage.api_calls_recorded');
    await copyTenant('copy.resealed.good', (commit) =>
      commit.map((e) => {
        if (e.id !== last.event.id) return e;
        const { hash: _h, prevHash, ...rest } = e as any;
        rest.data.count = 1_000;
        return seal(rest, prevHash);
      }),
    );
    const r = await cli(
      ['audit', '--tenant', 'good', '--stream', COPY, '--subject', 'copy.resealed.good', '--all'],
      env,
    );
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      new RegExp(
        `first divergence at sequence \\d+ \\(event 1 of its commit\\), event ${last.event.id}, usage\\.api_calls_recorded`,
      ),
    );
    assert.match(r.stdout, /usage_monthly \d{4}-\d{2}: api_call_count is 17 in the projection but 1000 from the log/);
    assert.match(r.stdout, /tenants good: last_hash is/);
  });

  it('names the event behind a projection row that was changed, and rows no event explains', async () => {
    const failed = events.find((e) => e.event.type === 'capture.failed')!;
    const captureId = (failed.event as any).data.captureId;
    const pool = s.server.ctx.pool;
    await pool.query(`UPDATE captures SET status = 'complete' WHERE capture_id = $1`, [captureId]);
    await pool.query(
      `INSERT INTO api_keys (key_hash, tenant_id, scopes, name, created_at, created_by) VALUES ($1, 'good', '{read}', 'ghost', now(), 'admin')`,
      ['f'.repeat(64)],
    );
    try {
      const r = await cli(['audit', '--tenant', 'good', '--all'], env);
      assert.equal(r.code, 1);
      assert.match(
        r.stdout,
        new RegExp(
          `first divergence at sequence ${failed.seq} \\(event 1 of its commit\\), event ${failed.event.id}, capture\\.failed`,
        ),
      );
      assert.match(
        r.stdout,
        new RegExp(`captures ${captureId}: status is "complete" in the projection but "failed" from the log`),
      );
      assert.match(
        r.stdout,
        /in the projection, explained by no event\n +api_keys f{64}: the projection has this row but no event of the tenant creates it/,
      );
      const first = await cli(['audit', '--tenant', 'good'], env);
      assert.match(first.stdout, /\d+ more divergences?; run with --all to list them/);
    } finally {
      await pool.query(`UPDATE captures SET status = 'failed' WHERE capture_id = $1`, [captureId]);
      await pool.query(`DELETE FROM api_keys WHERE key_hash = $1`, ['f'.repeat(64)]);
    }
    assert.equal((await cli(['audit', '--tenant', 'good'], env)).code, 0);
  });

  it('checks the tenant actor snapshot against the fold: a good one passes, a bad one is named', async () => {
    const snapshots = await openSnapshotStore(s.server.nats.nc);
    const none = await cli(['audit', '--tenant', 'good'], env);
    assert.equal(none.code, 0, none.stdout);
    assert.match(none.stdout, /snapshot: +none \(the actor folds the whole log\)/);

    // A runtime that snapshots after a few events writes a true one.
    const writer = createTenantActors(s.server.store!, { snapshots, snapshotEvery: 5 });
    await writer.read('good');
    writer.close();
    const head = events.at(-1)!;
    const deadline = Date.now() + 30_000;
    while (!(await snapshots.get('good'))) {
      if (Date.now() > deadline) throw new Error('no snapshot written');
      await new Promise((r) => setTimeout(r, 20));
    }
    const good = await cli(['audit', '--tenant', 'good'], env);
    assert.equal(good.code, 0, good.stdout);
    assert.match(
      good.stdout,
      new RegExp(`snapshot: +at sequence ${head.seq}, matches the fold of the log; 0 later events`),
    );

    const stored = JSON.parse(new TextDecoder().decode((await snapshots.get('good'))!)) as ActorSnapshot;
    const { format: _f, digest: _d, ...fields } = stored;
    const state = stored.state as { usage: { captures: number } };
    try {
      // Sealed, at the right sequence and hash, but its state is not the fold: only the audit can tell.
      await snapshots.put(
        'good',
        encodeSnapshot(sealSnapshot({ ...fields, state: { ...state, usage: { ...state.usage, captures: 0 } } })),
      );
      const lying = await cli(['audit', '--tenant', 'good', '--all'], env);
      assert.equal(lying.code, 1, lying.stdout);
      assert.match(lying.stdout, /snapshot: +BAD \(the state differs from the fold of the log in state\.usage\)/);
      assert.match(
        lying.stdout,
        new RegExp(
          `at sequence ${head.seq} .*\n +actor snapshot of good: state\\.usage is \\{"period":"\\d{4}-\\d{2}","captures":0,`,
        ),
      );

      await snapshots.put('good', encodeSnapshot({ ...stored, lastHash: events[0]!.event.hash }));
      const altered = await cli(['audit', '--tenant', 'good', '--json'], env);
      assert.equal(altered.code, 1);
      const json = JSON.parse(altered.stdout);
      assert.equal(json.snapshot.status, 'bad');
      assert.match(json.divergences[0].message, /digest .* does not match/);
      assert.equal(json.divergences[0].kind, 'snapshot');

      await snapshots.put('good', encodeSnapshot(sealSnapshot({ ...fields, lastHash: events[0]!.event.hash })));
      const wrongHash = await cli(['audit', '--tenant', 'good'], env);
      assert.equal(wrongHash.code, 1);
      assert.match(wrongHash.stdout, /lastHash \w+ does not match the hash \w+ of the event at sequence/);

      await snapshots.put('good', encodeSnapshot(sealSnapshot({ ...fields, stateVersion: TENANT_STATE_VERSION - 1 })));
      const stale = await cli(['audit', '--tenant', 'good'], env);
      assert.equal(stale.code, 0, stale.stdout);
      assert.match(stale.stdout, /snapshot: +stale, ignored by actors/);
    } finally {
      await snapshots.put('good', encodeSnapshot(stored));
    }
  });

  it('says so for a tenant without events, and refuses bad arguments', async () => {
    const none = await cli(['audit', '--tenant', 'nobody'], env);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /tenant 'nobody' has no events on ledger\.tenant\.nobody/);
    assert.equal((await cli(['audit'], env)).code, 2);
    const noStream = await cli(['audit', '--tenant', 'good', '--stream', 'NOPE'], env);
    assert.equal(noStream.code, 1);
    assert.match(noStream.stderr, /no stream NOPE/);
  });
});
