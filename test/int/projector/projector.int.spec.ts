import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { createTenantActors } from '../../../src/actors/tenant-actors.js';
import { newId } from '../../../src/domain/ids.js';
import { connectNats, type NatsHandles } from '../../../src/infra/nats.js';
import { createPool } from '../../../src/infra/postgres.js';
import { createEventStore } from '../../../src/ledger/event-store.js';
import { migrate } from '../../../projections/migrate.js';
import { createProjector } from '../../../src/projector/projector.js';
import { type Infra, startInfra } from '../../support/harness.js';

const log = pino({ level: 'silent' });
const ctx = { correlationId: 'test', causedBy: { kind: 'admin' as const } };
const TABLES = [
  'tenants',
  'api_keys',
  'captures',
  'capture_counts',
  'usage_monthly',
  'usage_daily',
  'projector_checkpoint',
];

async function dump(pool: ReturnType<typeof createPool>) {
  const out: Record<string, unknown[]> = {};
  for (const t of TABLES) out[t] = (await pool.query(`SELECT * FROM ${t} ORDER BY 1, 2`)).rows;
  return out;
}

describe('projector', () => {
  let infra: Infra;
  let nats: NatsHandles;
  let dbUrl: string;
  before(async () => {
    infra = await startInfra();
    nats = await connectNats(infra.nats.url, 'test');
    dbUrl = await infra.freshDatabase();
    // Some history: keys, revocations, captures and outcomes over several tenants.
    const tenants = createTenantActors(createEventStore(nats.js, nats.jsm));
    for (const t of ['t1', 't2', 't3']) {
      for (let k = 0; k < 3; k++) {
        const keyHash = `${t}-${k}`.padEnd(64, '0');
        await tenants.execute(t, { type: 'CreateKey', data: { keyHash, scopes: ['read'], name: `k${k}` } }, ctx);
        if (k === 1) await tenants.execute(t, { type: 'RevokeKey', data: { keyHash } }, ctx);
      }
      for (let c = 0; c < 20; c++) {
        const captureId = newId('cap');
        await tenants.execute(
          t,
          {
            type: 'SubmitCaptures',
            data: { captures: [{ captureId: captureId, url: `https://example.org/${c}` }], source: 'single' },
          },
          ctx,
        );
        if (c % 2 === 0) {
          await tenants.execute(
            t,
            {
              type: 'CompleteCapture',
              data: {
                captureId,
                completedAt: new Date().toISOString(),
                renderQuality: 'full',
                render: { waitUntilReached: 'load', timedOut: false, durationMs: c },
                artifacts: { screenshot: 's', html: 'h' },
                storedBytes: 100 + c,
                attempts: 1,
              },
            },
            ctx,
          );
        }
      }
    }
    tenants.close();
  });
  after(async () => {
    await nats.nc.close();
    await infra.stop();
  });

  it('a rebuild from sequence 1 equals the live projection', async () => {
    const live = createPool(dbUrl, 'live');
    await migrate(live, 'live');
    const projector = createProjector({ js: nats.js, pool: live, log, batchSize: 7 });
    await projector.start();
    const lastSeq = (await nats.jsm.streams.info('LEDGER')).state.last_seq;
    while (projector.checkpoint() < lastSeq) await new Promise((r) => setTimeout(r, 20));
    await projector.stop();

    const rebuilt = createPool(dbUrl, 'rebuilt');
    await migrate(rebuilt, 'rebuilt');
    await createProjector({ js: nats.js, pool: rebuilt, log, batchSize: 1000 }).catchUp(lastSeq);

    const [a, b] = [await dump(live), await dump(rebuilt)];
    assert.equal((a.captures as unknown[]).length, 60);
    assert.deepEqual(b, a);
    await live.end();
    await rebuilt.end();
  });

  it('a projector killed mid-batch resumes without double-applying', async () => {
    const pool = createPool(dbUrl, 'crashy');
    await migrate(pool, 'crashy');
    const lastSeq = (await nats.jsm.streams.info('LEDGER')).state.last_seq;
    let batches = 0;
    const crashing = createProjector({
      js: nats.js,
      pool,
      log,
      batchSize: 10,
      beforeCommit: async () => {
        if (++batches === 3) throw new Error('simulated crash inside the third batch');
      },
    });
    await assert.rejects(crashing.catchUp(lastSeq), /simulated crash/);
    const mid = (await pool.query('SELECT seq FROM projector_checkpoint')).rows[0].seq;
    assert.ok(mid > 0 && mid < lastSeq, `checkpoint ${mid} is after the committed batches only`);

    await createProjector({ js: nats.js, pool, log, batchSize: 10 }).catchUp(lastSeq);
    const usage = await pool.query(
      'SELECT tenant_id, captures_submitted, captures_completed, storage_bytes FROM usage_monthly ORDER BY tenant_id',
    );
    assert.deepEqual(
      usage.rows.map((r) => [r.tenant_id, r.captures_submitted, r.captures_completed]),
      [
        ['t1', 20, 10],
        ['t2', 20, 10],
        ['t3', 20, 10],
      ],
    );
    assert.equal(
      usage.rows[0].storage_bytes,
      Array.from({ length: 10 }, (_, i) => 100 + i * 2).reduce((x, y) => x + y),
    );
    await pool.end();
  });
});
