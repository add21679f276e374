import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { startEmbeddedPostgres } from '../../src/infra/embedded-postgres.js';

/**
 * An initialised Postgres data directory, made once and copied for every hermetic Postgres of the tests instead of
 * running initdb each time (initdb is most of what starting one costs). Each copy is a data directory of its own,
 * started on its own port: nothing runs or is written in common. ops/run-tests.sh names one template directory for
 * the whole run (CL_TEST_PG_TEMPLATE_DIR), which it removes at the end; a file run on its own makes one for its
 * process and removes it at exit.
 */
const run = promisify(execFile);

let template: Promise<string> | undefined;

/** Fills `dataDir` (which must not exist yet) with a copy of the initialised template. */
export async function copyPgTemplate(dataDir: string): Promise<void> {
  template ??= makeTemplate();
  await mkdir(dirname(dataDir), { recursive: true });
  // -a keeps the owner (the postgres user when tests run as root) and the data directory's mode 0700.
  await run('cp', ['-a', await template, dataDir]);
}

async function makeTemplate(): Promise<string> {
  const root = process.env.CL_TEST_PG_TEMPLATE_DIR ?? processTemplateRoot();
  const ready = join(root, 'pgdata');
  if (existsSync(join(ready, 'PG_VERSION'))) return ready;
  await mkdir(root, { recursive: true });
  // Made aside and renamed into place, so another test file of the run never copies a half-made template; when two
  // files make it at once, the first rename wins and the other copy is dropped.
  const making = await mkdtemp(join(root, 'making-'));
  try {
    const pg = await startEmbeddedPostgres(join(making, 'pgdata'));
    await pg.stop();
    await rename(join(making, 'pgdata'), ready).catch((err: NodeJS.ErrnoException) => {
      if (!existsSync(join(ready, 'PG_VERSION'))) throw err;
    });
  } finally {
    await rm(making, { recursive: true, force: true });
  }
  return ready;
}

function processTemplateRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'cl-pg-template-'));
  process.once('exit', () => rmSync(root, { recursive: true, force: true }));
  return root;
}
