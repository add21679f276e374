/**
 * Calls `stop` once this process's parent is gone: the kernel then hands the process to another parent (init or a
 * subreaper), which `process.ppid` shows. Checked every `everyMs`; the timer keeps no process alive.
 */
export function whenParentGone(stop: () => void, everyMs = 1000): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop();
  }, everyMs);
  timer.unref();
}
