import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { eventually } from '../../support/eventually.js';

const WATCH = new URL('../../../src/infra/parent-watch.ts', import.meta.url).pathname;

describe('whenParentGone', () => {
  it('stops a process whose parent was killed, and not while the parent lives', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cl-parent-'));
    try {
      const mark = join(dir, 'mark');
      const child = join(dir, 'child.ts');
      // The child says it runs, then marks when its parent is gone; it would otherwise run for two minutes.
      await writeFile(
        child,
        [
          `import { writeFileSync } from 'node:fs';`,
          `import { whenParentGone } from ${JSON.stringify(WATCH)};`,
          `writeFileSync(${JSON.stringify(mark)}, 'running');`,
          `whenParentGone(() => { writeFileSync(${JSON.stringify(mark)}, 'stopped'); process.exit(0); }, 100);`,
          'setTimeout(() => {}, 120_000);',
        ].join('\n'),
      );
      const parentCode = `
        const { spawn } = require('node:child_process');
        const c = spawn(process.execPath, ['--import', 'tsx', ${JSON.stringify(child)}], { stdio: 'ignore', detached: true });
        console.log(c.pid);
        setInterval(() => {}, 1000);`;
      const parent = spawn(process.execPath, ['-e', parentCode], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      parent.stdout!.on('data', (d) => (out += d));
      const childPid = Number(await eventually('the child pid', () => out.trim().split('\n')[0]));
      try {
        await eventually('the child running', async () => (await readFile(mark, 'utf8').catch(() => '')) === 'running');
        await new Promise((r) => setTimeout(r, 500));
        assert.equal(await readFile(mark, 'utf8'), 'running', 'stopped while its parent lived');
        parent.kill('SIGKILL');
        await eventually('the child stopped', async () => (await readFile(mark, 'utf8')) === 'stopped');
      } finally {
        parent.kill('SIGKILL');
        try {
          process.kill(childPid, 'SIGKILL');
        } catch {}
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
