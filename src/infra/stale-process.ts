import { readFile } from 'node:fs/promises';

/**
 * A SIGKILLed parent leaves its nats-server / postgres children running on our data directory. Before
 * starting a new child we stop the one named in the pid file, but only if it really is that program.
 */
export async function stopStaleProcess(
  pidFile: string,
  programName: string,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<boolean> {
  let pid: number;
  try {
    pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]!.trim());
  } catch {
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 1 || !(await isProgram(pid, programName))) return false;
  process.kill(pid, signal);
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 100));
    if (!(await isProgram(pid, programName))) return true;
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* gone meanwhile */
  }
  for (let i = 0; i < 50 && (await isProgram(pid, programName)); i++) await new Promise((r) => setTimeout(r, 100));
  return true;
}

async function isProgram(pid: number, programName: string): Promise<boolean> {
  try {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    if (/\) Z /.test(stat)) return false; // zombie: already dead
    return cmdline.includes(programName);
  } catch {
    return false;
  }
}
