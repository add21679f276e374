import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { freePort, PORT_RESERVATIONS, reservePort } from '../../../src/infra/free-port.js';

const run = promisify(execFile);

describe('freePort', () => {
  it('never hands out one port twice, also to calls made side by side (a cluster takes ~18 before any is bound)', async () => {
    // 1,500 ports drawn at random from ~17,700 would meet about 60 times.
    const ports: number[] = [];
    for (let round = 0; round < 75; round++) ports.push(...(await Promise.all(Array.from({ length: 20 }, freePort))));
    assert.equal(new Set(ports).size, ports.length);
  });

  it("notes each port for other processes: one a running process noted is not taken, one a gone process left is, and a process's notes go when it exits", async () => {
    const file = (port: number) => join(PORT_RESERVATIONS, String(port));
    const held = await freePort();
    assert.equal(readFileSync(file(held), 'utf8'), String(process.pid), 'the port is noted under this pid');
    writeFileSync(file(held), String(process.ppid)); // as if the parent, still running, had drawn it
    assert.equal(reservePort(held), false, "a running process's port is not taken");
    writeFileSync(file(held), String(process.pid)); // this process's again, removed when it exits

    const { stdout: gonePid } = await run(process.execPath, ['-e', 'console.log(process.pid)']);
    const left = await freePort();
    writeFileSync(file(left), gonePid.trim()); // as if a process killed before it could clean up had drawn it
    assert.equal(reservePort(left), true, 'a port noted by a process that has gone is taken over');
    assert.equal(readFileSync(file(left), 'utf8'), String(process.pid));

    const { stdout } = await run(process.execPath, [
      '--import',
      'tsx',
      '-e',
      "import('./src/infra/free-port.ts').then((m) => m.freePort()).then((p) => console.log(p))",
    ]);
    const childPort = Number(stdout.trim());
    assert.ok(childPort > 0, `the child drew a port (${stdout})`);
    assert.equal(existsSync(file(childPort)), false, "the child's note is gone with it");
  });
});
