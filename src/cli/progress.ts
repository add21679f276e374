import type { CliIo } from './cli-io.js';
import { duration } from './output-format.js';

/** A progress bar with rate and ETA on stderr: redrawn in place on a terminal, a line every few seconds otherwise. */

export interface ProgressSnapshot {
  label: string;
  unit: string;
  done: number;
  total: number;
  /** Where `done` stood when timing started, so the rate counts only this run's work. */
  from: number;
  elapsedMs: number;
}

export function renderProgress(p: ProgressSnapshot, width = 30): string {
  const span = Math.max(1, p.total - p.from);
  const fraction = p.done >= p.total ? 1 : Math.min(1, Math.max(0, (p.done - p.from) / span));
  const filled = Math.round(fraction * width);
  const rate = p.elapsedMs > 0 ? ((p.done - p.from) * 1000) / p.elapsedMs : 0;
  const eta = rate > 0 ? (p.total - p.done) / rate : Infinity;
  return (
    `${p.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(fraction * 100).toFixed(1).padStart(5)}% ` +
    `${p.done}/${p.total} ${p.unit} ${Math.round(rate)}/s ETA ${fraction >= 1 ? '0s' : duration(eta)}`
  );
}

export interface Progress {
  update(done: number): void;
  finish(): void;
}

export function createProgress(
  io: CliIo,
  opts: { label: string; unit: string; from: number; total: number; now?: () => number },
): Progress {
  const now = opts.now ?? Date.now;
  const started = now();
  let last = started; // first drawn after one interval: a short run prints only its final line
  let done = opts.from;
  const draw = (final: boolean) => {
    const text = renderProgress({
      label: opts.label,
      unit: opts.unit,
      done,
      total: opts.total,
      from: opts.from,
      elapsedMs: now() - started,
    });
    if (io.stderrIsTTY) io.stderr(`\r${text}\x1b[K${final ? '\n' : ''}`);
    else io.stderr(`${text}\n`);
  };
  return {
    update(value) {
      done = Math.max(done, value);
      const interval = io.stderrIsTTY ? 100 : 2000;
      if (now() - last >= interval) {
        last = now();
        draw(false);
      }
    },
    finish() {
      draw(true);
    },
  };
}
