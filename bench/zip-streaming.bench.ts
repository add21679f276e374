/**
 * Why fflate and not adm-zip (README "Dependencies"): a 100 MB bundle (BENCH_ZIP_MB) built and read back
 * with the whole archive in memory — adm-zip's only model, and what zipSync/unzipSync do — against fflate's
 * streaming Zip/Unzip in 1 MB chunks. Each mode runs in its own process; peak RSS is the process's maxRSS.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { open, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BenchLine } from './registry.js';
import { envCount } from './support/bench-kit.js';

const run = promisify(execFile);

export async function zipStreamingBench(): Promise<BenchLine[]> {
  const sizeMb = envCount('BENCH_ZIP_MB', 100);
  const dir = await mkdtemp(join(tmpdir(), 'zip-bench-'));
  try {
    const warc = join(dir, 'data.warc.gz');
    const file = await open(warc, 'w');
    for (let i = 0; i < sizeMb; i++) await file.write(randomBytes(1024 * 1024)); // incompressible, like gzip
    await file.close();
    const one = async (mode: string) => {
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', 'bench/support/zip-mode.ts', mode, warc, join(dir, `${mode}.wacz`)],
        { maxBuffer: 1024 * 1024 },
      );
      return JSON.parse(stdout.trim().split('\n').at(-1)!) as { ms: number; maxRssMb: number; members: number };
    };
    const whole = await one('whole');
    const streaming = await one('streaming');
    return [
      {
        bundleMb: sizeMb,
        wholeArchive: whole,
        streaming,
        rssRatio: Number((whole.maxRssMb / streaming.maxRssMb).toFixed(2)),
        timeRatio: Number((whole.ms / streaming.ms).toFixed(2)),
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
