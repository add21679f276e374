/**
 * `make bench`: every benchmark prints JSON lines `{"bench": …, …figures, "ratio": …}`, each measured against
 * a baseline in the same run on the same machine. Select some with `BENCH=name1,name2`.
 */
import { benchmarks } from './registry.js';

const only = (process.env.BENCH ?? '').split(',').filter(Boolean);
for (const [name, run] of Object.entries(benchmarks)) {
  if (only.length && !only.includes(name)) continue;
  const started = Date.now();
  try {
    for (const line of await run()) process.stdout.write(`${JSON.stringify({ bench: name, ...line })}\n`);
  } catch (err) {
    process.stdout.write(`${JSON.stringify({ bench: name, error: String((err as Error).stack ?? err) })}\n`);
    process.exitCode = 1;
  }
  process.stderr.write(`bench ${name}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
process.exit();
