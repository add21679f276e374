/** Memory of a process tree from /proc (Linux): VmRSS from status, Pss from smaps_rollup. */
import { readdir, readFile } from 'node:fs/promises';

interface ProcInfo {
  pid: number;
  ppid: number;
  comm: string;
}

async function procInfo(pid: number): Promise<ProcInfo | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // comm is in parentheses and may contain spaces: the fields after the last ')' are fixed.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    return { pid, ppid, comm };
  } catch {
    return null; // exited meanwhile
  }
}

/** Every live descendant of `root` (children, grandchildren …). */
export async function descendants(root: number): Promise<ProcInfo[]> {
  const all: ProcInfo[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const info = await procInfo(Number(name));
    if (info) all.push(info);
  }
  const children = new Map<number, ProcInfo[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const out: ProcInfo[] = [];
  const stack = [root];
  while (stack.length) {
    for (const child of children.get(stack.pop()!) ?? []) {
      out.push(child);
      stack.push(child.pid);
    }
  }
  return out;
}

/** Bytes of a /proc file's `<field>: <n> kB` line; 0 when the process is gone. */
async function kbField(path: string, field: string): Promise<number> {
  try {
    const text = await readFile(path, 'utf8');
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export const rssOf = (pid: number) => kbField(`/proc/${pid}/status`, 'VmRSS');
export const pssOf = (pid: number) => kbField(`/proc/${pid}/smaps_rollup`, 'Pss');

export interface TreeMemory {
  /** VmRSS of the root process. */
  rootRss: number;
  /** Sum of VmRSS of the matching descendants. */
  childRss: number;
  /** Root + matching descendants; shared pages are counted once per process (RSS overstates). */
  totalRss: number;
  /** The same set by Pss (shared pages split among their users): the tree's fair share of RAM. */
  totalPss: number;
  children: number;
}

/** Memory of `root` plus its descendants whose command name passes `include` (e.g. Chromium's). */
export async function treeMemory(root: number, include: (comm: string) => boolean): Promise<TreeMemory> {
  const kids = (await descendants(root)).filter((p) => include(p.comm));
  const rootRss = await rssOf(root);
  const childRss = (await Promise.all(kids.map((p) => rssOf(p.pid)))).reduce((a, b) => a + b, 0);
  const pss = (await Promise.all([root, ...kids.map((p) => p.pid)].map(pssOf))).reduce((a, b) => a + b, 0);
  return { rootRss, childRss, totalRss: rootRss + childRss, totalPss: pss, children: kids.length };
}
