import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startLocalCluster } from '../../../src/infra/local-cluster.js';

/** The pids of running nats-servers whose command line names a path under `dir`. */
async function natsServersUnder(dir: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes('nats-server') && cmdline.includes(dir)) pids.push(Number(entry));
  }
  return pids;
}

describe('local cluster', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cl-local-'));
  });
  after(async () => {
    for (const pid of await natsServersUnder(dir)) process.kill(pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('stops its nats-servers when provisioning the streams fails', async () => {
    // NATS allows at most 5 replicas: the first stream is refused at once.
    await assert.rejects(startLocalCluster({ dir, replicas: 6 }), /replicas/i);
    assert.deepEqual(await natsServersUnder(dir), []);
  });
});
