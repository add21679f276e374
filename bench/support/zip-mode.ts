/**
 * One run of the zip benchmark in its own process (so peak RSS is this mode's alone):
 *   node --import tsx bench/support/zip-mode.ts <whole|streaming> <warcFile> <outFile>
 * Builds a WACZ-like zip (all members STORED) from a WARC file on disk, then reads it back and hashes every
 * member, and prints {ms, maxRssMb}.
 *   whole      the whole archive in memory: zipSync / unzipSync (how adm-zip works, and today's bundle code)
 *   streaming  fflate's Zip + ZipPassThrough from a file stream to a file, Unzip streaming back: 1 MB chunks
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { Unzip, UnzipPassThrough, Zip, ZipPassThrough, unzipSync, zipSync } from 'fflate';

const [mode, warcFile, outFile] = process.argv.slice(2) as [string, string, string];
const small = new TextEncoder().encode('{"profile":"data-package"}');

async function whole(): Promise<number> {
  const warc = await readFile(warcFile);
  const zipped = zipSync({ 'archive/data.warc.gz': warc, 'datapackage.json': small }, { level: 0 });
  await writeFile(outFile, zipped);
  const files = unzipSync(await readFile(outFile));
  return Object.values(files).filter((bytes) => createHash('sha256').update(bytes).digest().length === 32).length;
}

async function streaming(): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    const out = createWriteStream(outFile);
    const zip = new Zip((err, chunk, final) => {
      if (err) return reject(err);
      if (!out.write(chunk)) zipPaused = true;
      if (final) out.end(resolve);
    });
    let zipPaused = false;
    const warc = new ZipPassThrough('archive/data.warc.gz');
    zip.add(warc);
    const input = createReadStream(warcFile, { highWaterMark: 1024 * 1024 });
    out.on('drain', () => {
      zipPaused = false;
      input.resume();
    });
    input.on('data', (chunk) => {
      warc.push(chunk as Buffer);
      if (zipPaused) input.pause();
    });
    input.on('end', () => {
      warc.push(new Uint8Array(0), true);
      const dp = new ZipPassThrough('datapackage.json');
      zip.add(dp);
      dp.push(small, true);
      zip.end();
    });
    input.on('error', reject);
  });
  let hashed = 0;
  await new Promise<void>((resolve, reject) => {
    const unzip = new Unzip((file) => {
      const hash = createHash('sha256');
      file.ondata = (err, data, final) => {
        if (err) return reject(err);
        hash.update(data);
        if (final) {
          hash.digest();
          hashed++;
        }
      };
      file.start();
    });
    unzip.register(UnzipPassThrough);
    const input = createReadStream(outFile, { highWaterMark: 1024 * 1024 });
    input.on('data', (chunk) => unzip.push(chunk as Buffer));
    input.on('end', () => {
      unzip.push(new Uint8Array(0), true);
      resolve();
    });
    input.on('error', reject);
  });
  return hashed;
}

const t0 = performance.now();
const members = mode === 'whole' ? await whole() : await streaming();
const ms = performance.now() - t0;
process.stdout.write(
  `${JSON.stringify({ mode, members, ms: Math.round(ms), maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`,
);
