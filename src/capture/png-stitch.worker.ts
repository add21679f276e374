/** Worker-thread side of stitchOffThread: stitches each set of slices it is sent and posts the PNG back. */
import { parentPort } from 'node:worker_threads';
import { stitchPngsVertically } from './png-stitch.js';

export interface StitchRequest {
  id: number;
  slices: Uint8Array[];
}
export type StitchReply = { id: number; png: Uint8Array } | { id: number; error: string };

parentPort!.on('message', async ({ id, slices }: StitchRequest) => {
  try {
    const png = await stitchPngsVertically(slices.map((s) => Buffer.from(s.buffer, s.byteOffset, s.byteLength)));
    // A copy of its own (no pool, nothing shared), so it is transferred rather than cloned.
    const out = new Uint8Array(png);
    parentPort!.postMessage({ id, png: out } satisfies StitchReply, [out.buffer]);
  } catch (error) {
    parentPort!.postMessage({
      id,
      error: error instanceof Error ? error.message : String(error),
    } satisfies StitchReply);
  }
});
