import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config/config.js';
import { StorageConfigError, storageSettings } from '../../../src/config/storage-config.js';

const base = { PORT: '0' };

describe('storage configuration (ARTIFACT_STORE, S3_*)', () => {
  it('is the JetStream object store unless told otherwise', () => {
    assert.deepEqual(storageSettings(loadConfig(base)), { kind: 'jetstream' });
  });

  it('reads the S3 settings: endpoint, region, bucket, path style, credentials, presigned downloads', () => {
    const s = storageSettings(
      loadConfig({
        ...base,
        ARTIFACT_STORE: 's3',
        S3_ENDPOINT: 'http://127.0.0.1:9000',
        S3_BUCKET: 'evidence',
        S3_ACCESS_KEY_ID: 'ak',
        S3_SECRET_ACCESS_KEY: 'sk',
        S3_PRESIGNED_DOWNLOADS: 'true',
      }),
    );
    assert.deepEqual(s, {
      kind: 's3',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      bucket: 'evidence',
      forcePathStyle: true,
      credentials: { accessKeyId: 'ak', secretAccessKey: 'sk' },
      credentialSource: 'S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY (access key ak)',
      allowUnlocked: false,
      presignedDownloads: true,
      presignSeconds: 300,
    });
    const aws = storageSettings(
      loadConfig({ ...base, ARTIFACT_STORE: 's3', S3_BUCKET: 'evidence', S3_REGION: 'eu-west-1' }),
    );
    assert.equal(aws.kind === 's3' && aws.forcePathStyle, false, 'AWS itself: virtual-hosted style');
    assert.equal(aws.kind === 's3' && aws.credentials, undefined, "the SDK's own credential chain");
    assert.match((aws.kind === 's3' && aws.credentialSource) || '', /the AWS SDK's default chain/);
    const unlocked = storageSettings(
      loadConfig({ ...base, ARTIFACT_STORE: 's3', S3_BUCKET: 'evidence', S3_ALLOW_UNLOCKED: 'true' }),
    );
    assert.equal(unlocked.kind === 's3' && unlocked.allowUnlocked, true);
    assert.throws(
      () => loadConfig({ ...base, ARTIFACT_STORE: 's3', S3_BUCKET: 'evidence', S3_ALLOW_UNLOCKED: 'yes' }),
      (err: Error) => err instanceof ConfigError && /S3_ALLOW_UNLOCKED must be true or false/.test(err.message),
    );
  });

  it('reads credentials from a file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cl-s3cfg-'));
    const file = join(dir, 's3.json');
    writeFileSync(file, JSON.stringify({ accessKeyId: 'fa', secretAccessKey: 'fs' }));
    const s = storageSettings(
      loadConfig({ ...base, ARTIFACT_STORE: 's3', S3_BUCKET: 'evidence', S3_CREDENTIALS_FILE: file }),
    );
    assert.deepEqual(s.kind === 's3' && s.credentials, { accessKeyId: 'fa', secretAccessKey: 'fs' });
    assert.equal(s.kind === 's3' && s.credentialSource, `S3_CREDENTIALS_FILE ${file} (access key fa)`);
    writeFileSync(file, '{"accessKeyId": 1}');
    assert.throws(
      () => loadConfig({ ...base, ARTIFACT_STORE: 's3', S3_BUCKET: 'evidence', S3_CREDENTIALS_FILE: file }),
      (err: Error) => err instanceof ConfigError && /S3_CREDENTIALS_FILE must hold/.test(err.message),
    );
  });

  it('names every bad variable', () => {
    assert.throws(
      () =>
        loadConfig({
          ...base,
          ARTIFACT_STORE: 'disk',
          S3_PRESIGNED_DOWNLOADS: 'yes',
          S3_BUCKET: 'No_Such',
          RETENTION_DEFAULT_DAYS: '-1',
        }),
      (err: Error) =>
        err instanceof ConfigError &&
        /ARTIFACT_STORE must be jetstream or s3/.test(err.message) &&
        /S3_PRESIGNED_DOWNLOADS must be true or false/.test(err.message) &&
        /S3_BUCKET must be a bucket name/.test(err.message) &&
        /RETENTION_DEFAULT_DAYS/.test(err.message),
    );
    // Checked at start with the rest: a process never starts half configured.
    assert.throws(
      () => loadConfig({ ...base, ARTIFACT_STORE: 's3' }),
      (err: Error) => err instanceof ConfigError && /S3_BUCKET is required/.test(err.message),
    );
    assert.throws(() => storageSettings(loadConfig(base) && { ARTIFACT_STORE: 's3' }), StorageConfigError);
    assert.throws(
      () =>
        storageSettings(loadConfig({ ...base, ARTIFACT_STORE: 's3', S3_BUCKET: 'evidence', S3_ACCESS_KEY_ID: 'a' })),
      /go together/,
    );
  });
});
