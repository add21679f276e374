import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { GetObjectCommand, GetObjectRetentionCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { makeBundle } from '../../../src/archive/bundle.js';
import type { Caller } from '../../../src/application/caller.js';
import { createCaptureDiffs } from '../../../src/watch/capture-diff-service.js';
import { digestOf } from '../../../src/storage/artifact-store.js';
import { openArtifactStore } from '../../../src/storage/jetstream-artifact-store.js';
import { nameKey, openS3ArtifactStore, s3Client } from '../../../src/storage/s3-artifact-store.js';
import { artifactObjectName } from '../../../src/domain/artifacts.js';
import { newId } from '../../../src/domain/ids.js';
import { openCertificateStore } from '../../../src/evidence/certificate.js';
import { certificateObjectName } from '../../../src/evidence/certificate-storage.js';
import { corroborationObjectName } from '../../../src/vantages/corroboration-storage.js';
import { corroborationKeys } from '../../../src/vantages/corroboration-rules.js';
import { findCapture } from '../../../projections/read-models/captures.js';
import { sampleCapture } from '../../unit/archive/bundle-fixture.js';
import { cli, jsonLines } from '../cli/cli-fixtures.js';
import { completeWithBundle } from '../../support/logged-capture.js';
import { type Radosgw, startRadosgw } from '../../support/radosgw.js';
import { startTestServer, type TestServer } from '../../support/test-server.js';

const byOperator = { correlationId: 'storage-s3-cli', causedBy: { kind: 'admin' as const } };
const certificatePdf = Buffer.from('%PDF-1.7 issued on JetStream\n');
const corroborationId = newId('cor');
const corroborationRecord = Buffer.from(JSON.stringify({ record: { id: corroborationId } }));

/** `capture-ledger storage migrate | verify | hold | release` with S3. */
describe('capture-ledger storage with S3', () => {
  let gw: Radosgw;
  let s: TestServer;
  let nats: Record<string, string>;
  let s3: Record<string, string>;
  const seqs: number[] = [];
  const captures: string[] = [];
  const completedAts: number[] = [];
  /** Two signed captures compared on the JetStream source: the newer one, its completion, what the diff made. */
  const compared = {
    captureId: '',
    completedAt: 0,
    certificate: new Uint8Array() as Uint8Array,
    evidence: new Uint8Array() as Uint8Array,
  };
  const s3Settings = () => ({
    endpoint: gw.endpoint,
    region: 'us-east-1',
    bucket: 'migrated',
    forcePathStyle: true,
    credentials: { accessKeyId: gw.accessKeyId, secretAccessKey: gw.secretAccessKey },
    presignedDownloads: false,
    presignSeconds: 60,
  });

  async function complete(artifacts: Record<string, string>) {
    const captureId = newId('cap');
    const tenants = s.server.ctx.tenants;
    await tenants.execute(
      'mig',
      {
        type: 'SubmitCaptures',
        data: { captures: [{ captureId, url: 'https://example.com/' }], source: 'single' },
      } as never,
      byOperator,
    );
    await tenants.execute(
      'mig',
      {
        type: 'CompleteCapture',
        data: {
          captureId,
          completedAt: new Date(completedAts[completedAts.push(Date.now()) - 1]!).toISOString(),
          renderQuality: 'full',
          render: { waitUntilReached: 'load', timedOut: false, durationMs: 1 },
          artifacts,
          storedBytes: 1,
          attempts: 1,
        },
      } as never,
      byOperator,
    );
    seqs.push(await s.server.store!.lastSeq());
    captures.push(captureId);
    return captureId;
  }

  before(async () => {
    [gw, s] = await Promise.all([
      startRadosgw(),
      startTestServer({ ROLES: 'api,projector,signer', SIGNING_KEY: randomBytes(32).toString('base64'), TSA_URL: '' }),
    ]);
    nats = { NATS_URL: s.infra.nats.url, DATABASE_URL: s.databaseUrl };
    s3 = {
      S3_ENDPOINT: gw.endpoint,
      S3_BUCKET: 'migrated',
      S3_ACCESS_KEY_ID: gw.accessKeyId,
      S3_SECRET_ACCESS_KEY: gw.secretAccessKey,
    };
    const store = await openArtifactStore(s.server.nats.nc);
    for (let i = 0; i < 3; i++) {
      const id = `cap_${String(i + 1).repeat(32)}`;
      const shot = artifactObjectName(id, 'a1', 'screenshot');
      const html = artifactObjectName(id, 'a1', 'html');
      await store.put(shot, new Uint8Array(200_000 + i).fill(i + 1));
      // The last capture's html never reached storage.
      if (i < 2) await store.put(html, Buffer.from(`<p>${i}</p>`));
      await complete({ screenshot: shot, html });
    }
    // The first capture's certificate, and a corroboration record of the first two (issued later), made while
    // the deployment ran on JetStream: in its KV bucket.
    const kv = await openCertificateStore(s.server.nats.nc);
    await kv.create(captures[0]!, certificatePdf);
    await kv.create(corroborationKeys.record(corroborationId), corroborationRecord);
    await s.server.ctx.tenants.execute(
      'mig',
      {
        type: 'RecordCorroborationAttestation',
        data: {
          corroborationId,
          captureIds: captures.slice(0, 2),
          recordHash: 'sha256:00',
          keyId: 'k',
          genTime: null,
        },
      },
      byOperator,
    );
    // A change certificate and diff evidence of two signed captures, made by the service on JetStream: stored
    // under diffs/<newer capture>/, named with a hash of the diff options, which the ledger does not record.
    const signed: string[] = [];
    for (const edition of ['first', 'second']) {
      const captureId = newId('cap');
      const html = `<html><body><p>The ${edition} edition.</p></body></html>`;
      const capture = sampleCapture({ captureId, url: 'https://example.com/', page: { html } });
      const bundle = (await makeBundle(capture, s.server.evidence.notary!))!;
      await completeWithBundle(s.server, 'mig', captureId, bundle, 'storage-s3-cli', undefined, undefined, html);
      signed.push(captureId);
    }
    const [base, next] = signed as [string, string];
    const deadline = Date.now() + 120_000;
    for (;;) {
      const rows = await Promise.all(signed.map((id) => findCapture(s.server.ctx.pool, id)));
      if (rows.every((r) => r?.status === 'complete' && r.bundle)) {
        compared.completedAt = rows[1]!.completed_at!.getTime();
        break;
      }
      assert.ok(Date.now() < deadline, 'the signed captures were not projected complete');
      await new Promise((r) => setTimeout(r, 200));
    }
    const caller: Caller = {
      principal: { tenantId: 'mig', scopes: ['read'], keyHash: null },
      correlationId: 'storage-s3-cli',
      log: { info() {}, error() {} },
    };
    const diffs = createCaptureDiffs(s.server.ctx, store, s.server.evidence.notary);
    compared.captureId = next;
    compared.certificate = await diffs.certificate(caller, next, { base });
    compared.evidence = await diffs.evidence(caller, next, { base });
  });
  after(async () => {
    await s?.stop();
    await gw?.stop();
  });

  it('migrates resumably: up to a sequence, then from the next one; names what the source lacks', async () => {
    const first = await cli(['storage', 'migrate', '--until', String(seqs[0])], {
      ...nats,
      ...s3,
      RETENTION_DEFAULT_DAYS: '2',
    });
    assert.equal(first.code, 0, first.stderr);
    const one = jsonLines(first.stdout).at(-1).summary;
    assert.equal(one.captures, 1);
    assert.equal(one.copied, 3, 'the two artifacts and the certificate');
    // Copied under the retention new captures get: locked until completion + 2 days, the certificate too.
    const target = await openS3ArtifactStore(s3Settings());
    const until = new Date(completedAts[0]! + 2 * 86_400_000).toISOString();
    const state = await target.lock!.state(artifactObjectName(`cap_${'1'.repeat(32)}`, 'a1', 'screenshot'));
    assert.equal(state?.retainUntil?.toISOString(), until);
    const certificate = certificateObjectName(captures[0]!);
    assert.deepEqual(Buffer.from((await target.get(certificate))!), certificatePdf);
    assert.equal((await target.lock!.state(certificate))?.retainUntil?.toISOString(), until);
    const rest = await cli(['storage', 'migrate', '--from', String(seqs[0]! + 1)], {
      ...nats,
      ...s3,
      RETENTION_DEFAULT_DAYS: '2',
    });
    assert.equal(rest.code, 1, 'an object missing in the source fails the run');
    const lines = jsonLines(rest.stdout);
    assert.deepEqual(
      lines.filter((l) => !l.summary).map((l) => [l.captureId, l.artifact, l.status]),
      [[captures[2], 'html', 'missing']],
    );
    const summary = lines.at(-1).summary;
    assert.equal(summary.captures, 4);
    assert.equal(
      summary.copied,
      13,
      'three artifacts, the corroboration record under each of its two members, the signed captures’ six artifacts, the change certificate and the diff evidence',
    );
    assert.equal(summary.complete, true);
    // Locked until the latest of its members' dates the target holds under their ids: the first's (its certificate).
    const migrated = await openS3ArtifactStore(s3Settings());
    for (const captureId of captures.slice(0, 2)) {
      const object = corroborationObjectName(captureId, corroborationId);
      assert.deepEqual(Buffer.from((await migrated.get(object))!), corroborationRecord);
      assert.equal(
        (await migrated.lock!.state(object))?.retainUntil?.toISOString(),
        new Date(completedAts[0]! + 2 * 86_400_000).toISOString(),
      );
    }
    // The change certificate and the diff evidence: byte-identical, locked COMPLIANCE until the newer capture's date.
    const made = await migrated.list!(`diffs/${compared.captureId}/`);
    assert.equal(made.length, 2, made.join(' '));
    const raw = s3Client(s3Settings());
    for (const [ext, bytes] of [
      ['.pdf', compared.certificate],
      ['.json', compared.evidence],
    ] as const) {
      const object = made.find((name) => name.endsWith(ext))!;
      assert.ok(object, `${ext}: ${made.join(' ')}`);
      assert.ok(Buffer.from((await migrated.get(object))!).equals(Buffer.from(bytes)), object);
      const named = await raw.send(new GetObjectCommand({ Bucket: 'migrated', Key: nameKey(object) }));
      const record = JSON.parse(await named.Body!.transformToString()) as { blob: string; version?: string };
      for (const [Key, VersionId] of [
        [nameKey(object), named.VersionId],
        [record.blob, record.version],
      ] as const) {
        const held = await raw.send(new GetObjectRetentionCommand({ Bucket: 'migrated', Key, VersionId }));
        assert.equal(held.Retention?.Mode, 'COMPLIANCE', Key);
        assert.equal(
          held.Retention?.RetainUntilDate?.toISOString(),
          new Date(compared.completedAt + 2 * 86_400_000).toISOString(),
          Key,
        );
      }
    }
    raw.destroy();
    assert.match(rest.stderr, /storage migrate/);
  });

  it('is idempotent: a second run copies nothing', async () => {
    const again = await cli(['storage', 'migrate'], { ...nats, ...s3 });
    const summary = jsonLines(again.stdout).at(-1).summary;
    assert.equal(summary.copied, 0);
    assert.equal(summary.present, 16);
    assert.equal(summary.missing, 1);
  });

  it('verifies the S3 store against the ledger, naming the missing and the corrupt', async () => {
    const raw = s3Client({
      endpoint: gw.endpoint,
      region: 'us-east-1',
      bucket: 'migrated',
      forcePathStyle: true,
      credentials: { accessKeyId: gw.accessKeyId, secretAccessKey: gw.secretAccessKey },
      presignedDownloads: false,
      presignSeconds: 60,
    });
    // Damage one: its name record now points at other bytes.
    const object = artifactObjectName(`cap_${'2'.repeat(32)}`, 'a1', 'html');
    await raw.send(
      new PutObjectCommand({ Bucket: 'migrated', Key: 'blobs/sha256/damaged', Body: Buffer.from('<p>X</p>') }),
    );
    await raw.send(
      new PutObjectCommand({
        Bucket: 'migrated',
        Key: nameKey(object),
        Body: JSON.stringify({ digest: digestOf(Buffer.from('<p>1</p>')), size: 8, blob: 'blobs/sha256/damaged' }),
      }),
    );
    raw.destroy();
    const r = await cli(['storage', 'verify'], { ...nats, ...s3, ARTIFACT_STORE: 's3' });
    assert.equal(r.code, 1);
    const problems = jsonLines(r.stdout).filter((l) => !l.summary);
    assert.deepEqual(
      problems.map((p) => [p.captureId, p.artifact, p.status]),
      [
        [captures[1], 'html', 'corrupt'],
        [captures[2], 'html', 'missing'],
      ],
    );
    assert.equal(
      jsonLines(r.stdout).at(-1).summary.ok,
      15,
      'the migrated certificate, records, change certificate and diff evidence are checked too',
    );
  });

  it('places and lifts a legal hold from the CLI, recorded with who and why', async () => {
    const env = { ...nats, ...s3, ARTIFACT_STORE: 's3' };
    const held = await cli(['storage', 'hold', captures[0]!, '--by', 'counsel', '--reason', 'subpoena'], env);
    assert.equal(held.code, 0, held.stderr);
    const view = jsonLines(held.stdout)[0];
    assert.equal(view.legalHold.active, true);
    assert.equal(view.legalHold.by, 'counsel');
    const released = await cli(['storage', 'release', captures[0]!, '--by', 'counsel', '--reason', 'done'], env);
    assert.equal(jsonLines(released.stdout)[0].legalHold.active, false);
    const unknown = await cli(['storage', 'hold', newId('cap'), '--by', 'a', '--reason', 'b'], env);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /No capture/);
    const jetstream = await cli(['storage', 'hold', captures[0]!, '--by', 'a', '--reason', 'b'], nats);
    assert.notEqual(jetstream.code, 0);
    assert.match(jetstream.stderr, /Object Lock/);
  });
});
