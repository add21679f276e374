import type { Logger } from 'pino';
import { parseWitnessKey, verifiedCosigners } from '../../packages/verifier/src/witnesses.js';
import type { ConfiguredWitness } from '../config/log-witnesses.js';
import { checkpointCosignatures, witnessCosignings } from '../observability/metrics.js';
import { addCheckpointBody } from '../witness/add-checkpoint.js';
import type { Hash } from './merkle.js';

/**
 * The log's side of C2SP tlog-witness: before a checkpoint is published, each configured witness is asked to
 * cosign it (POST <url>/add-checkpoint with a consistency proof from the size it last cosigned), all at once and
 * for at most `timeoutMs`. A 409 with text/x.tlog.size tells the size the witness holds: the request is made again
 * from there (the log remembers nothing durable about witnesses; after a restart the first 409 teaches it). The
 * checkpoint goes out with the cosignatures that came back and verified under the witness's configured key —
 * a witness that is down, slow or refusing never holds a checkpoint back (docs/transparency.md, "Witnesses").
 */
export interface Cosigning {
  /** `note` with the verified cosignature lines of the witnesses that answered in time appended. */
  cosign(note: string, size: number): Promise<string>;
}

const CONFLICT_RETRIES = 2;

export function createCosigning(opts: {
  witnesses: readonly ConfiguredWitness[];
  /** RFC 6962 consistency proof between two sizes of the tree being checkpointed. */
  consistencyProof(first: number, second: number): Hash[];
  timeoutMs: number;
  quorum: number;
  log: Logger;
  fetch?: typeof globalThis.fetch;
}): Cosigning {
  const doFetch = opts.fetch ?? globalThis.fetch;
  const { log } = opts;
  /** The size each witness last cosigned, as far as this process knows (0 until it learns). */
  const known = new Map<string, number>();

  async function ask(w: ConfiguredWitness, note: string, size: number, signal: AbortSignal): Promise<string | null> {
    for (let attempt = 0; attempt <= CONFLICT_RETRIES; attempt++) {
      const old = known.get(w.name) ?? 0;
      if (old > size) {
        log.info({ witness: w.name, old, size }, 'transparency log: the witness has cosigned a larger checkpoint');
        witnessCosignings.inc({ witness: w.name, outcome: 'ahead' });
        return null;
      }
      const body = addCheckpointBody(old, opts.consistencyProof(old, size), note);
      const res = await doFetch(`${w.url}/add-checkpoint`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
        signal,
      });
      const text = await res.text();
      if (res.status === 200) {
        known.set(w.name, size);
        const line = await verifiedLines(w, note, text);
        witnessCosignings.inc({ witness: w.name, outcome: line ? 'cosigned' : 'invalid' });
        return line;
      }
      if (res.status === 409 && (res.headers.get('content-type') ?? '').startsWith('text/x.tlog.size')) {
        const latest = /^(\d+)\n$/.exec(text);
        if (!latest) throw new Error(`${w.name} answered 409 with a size that is not a decimal line`);
        known.set(w.name, Number(latest[1]));
        continue;
      }
      // 409 without a size (the same size with another root) or 422: the witness says this log is not consistent.
      const level = res.status === 409 || res.status === 422 ? 'error' : 'warn';
      log[level](
        { witness: w.name, status: res.status, answer: text.trim() },
        'transparency log: the witness refused the checkpoint',
      );
      witnessCosignings.inc({ witness: w.name, outcome: 'refused' });
      return null;
    }
    // Still a 409 after learning its size twice: its record is moving under us (another sequencer); next time.
    witnessCosignings.inc({ witness: w.name, outcome: 'refused' });
    return null;
  }

  /** The lines of `answer` that are the witness's valid cosignature on `note` (the client ignores unknown keys). */
  async function verifiedLines(w: ConfiguredWitness, note: string, answer: string): Promise<string | null> {
    const key = await parseWitnessKey(w.vkey);
    const lines = answer.split('\n').filter((l) => l.startsWith(`\u2014 ${w.name} `));
    for (const line of lines) {
      if ((await verifiedCosigners(`${note}${line}\n`, [key])).length > 0) return `${line}\n`;
    }
    log.warn({ witness: w.name }, 'transparency log: the witness answered no valid cosignature of its configured key');
    return null;
  }

  return {
    async cosign(note, size) {
      const signal = AbortSignal.timeout(opts.timeoutMs);
      const answers = await Promise.all(
        opts.witnesses.map((w) =>
          ask(w, note, size, signal).catch((err: Error) => {
            log.warn({ witness: w.name, err: err.message }, 'transparency log: no cosignature from the witness');
            witnessCosignings.inc({ witness: w.name, outcome: 'unavailable' });
            return null;
          }),
        ),
      );
      const lines = answers.filter((l): l is string => l !== null);
      checkpointCosignatures.set(lines.length);
      if (lines.length < opts.quorum)
        log.warn(
          { size, cosigned: lines.length, quorum: opts.quorum },
          'transparency log: checkpoint published below the witness quorum',
        );
      return `${note}${lines.join('')}`;
    },
  };
}
