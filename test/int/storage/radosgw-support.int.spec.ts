import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { type Radosgw, startRadosgw } from '../../support/radosgw.js';

/** The test S3 server itself (test/support/radosgw.ts): what the S3 artifact-store tests rely on it for. */
describe('radosgw test cluster', () => {
  let gw: Radosgw;
  let s3: S3Client;
  before(async () => {
    gw = await startRadosgw();
    s3 = new S3Client({
      endpoint: gw.endpoint,
      region: gw.region,
      forcePathStyle: true,
      credentials: { accessKeyId: gw.accessKeyId, secretAccessKey: gw.secretAccessKey },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 1,
    });
  });
  after(async () => {
    s3?.destroy();
    await gw?.stop();
  });

  it('serves S3 on loopback: ranged reads, and Object Lock refuses deleting a retained version', async () => {
    assert.match(gw.endpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
    await s3.send(new CreateBucketCommand({ Bucket: 'support-check', ObjectLockEnabledForBucket: true }));
    const put = await s3.send(
      new PutObjectCommand({
        Bucket: 'support-check',
        Key: 'k',
        Body: 'hello world',
        ObjectLockMode: 'COMPLIANCE',
        ObjectLockRetainUntilDate: new Date(Date.now() + 86_400_000),
      }),
    );
    const part = await s3.send(new GetObjectCommand({ Bucket: 'support-check', Key: 'k', Range: 'bytes=2-5' }));
    assert.equal(await part.Body?.transformToString(), 'llo ');
    await assert.rejects(
      s3.send(new DeleteObjectCommand({ Bucket: 'support-check', Key: 'k', VersionId: put.VersionId })),
      (err: { $metadata?: { httpStatusCode?: number } }) => err.$metadata?.httpStatusCode === 403,
    );
  });

  it('stops and starts the gateway alone, keeping what the cluster stores', async () => {
    await gw.stopGateway();
    await assert.rejects(fetch(gw.endpoint));
    await gw.startGateway();
    const got = await s3.send(new GetObjectCommand({ Bucket: 'support-check', Key: 'k' }));
    assert.equal(await got.Body?.transformToString(), 'hello world');
  });

  it('stops every daemon it started and removes its directory', async () => {
    const other = await startRadosgw();
    const pids = other.pids();
    assert.equal(pids.length, 3);
    await other.stop();
    for (const pid of pids) assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
    assert.equal(existsSync(other.dir), false);
  });

  it('stops the daemons of a test killed before it stopped its cluster, at the next start', async () => {
    // A process that starts a cluster, says where, and is then killed outright.
    const module = new URL('../../support/radosgw.ts', import.meta.url).href;
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const { startRadosgw } = await import(${JSON.stringify(module)}); const g = await startRadosgw(); console.log(JSON.stringify({ dir: g.dir, pids: g.pids() })); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.once('exit', (code) => reject(new Error(`the child exited ${code} before starting its cluster`)));
    });
    const left: { dir: string; pids: number[] } = JSON.parse(line);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    for (const pid of left.pids) assert.doesNotThrow(() => process.kill(pid, 0), 'its daemons outlive it');
    const next = await startRadosgw();
    try {
      // Gone, or a zombie nobody reaps (here PID 1 does not reap orphans): either way no longer running.
      for (const pid of left.pids) assert.equal(running(pid), false, `daemon ${pid} still runs`);
      assert.equal(existsSync(left.dir), false);
    } finally {
      await next.stop();
    }
  });
});

/** Whether the process runs: it exists and is not a zombie (/proc/<pid>/stat state Z). */
function running(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
