import {
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type StoredMsg,
} from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/transport-node';
import { BUCKETS, bucketStream, STREAMS } from '../infra/topology.js';
import { ARCHIVE_KEY_WRAP, type ArchiveRecord } from '../../packages/verifier/src/archive-segment.js';

/**
 * What the archive copies, as the topology declares it (`archive:` in src/infra/topology.ts): the immutable
 * streams, read with ordered consumers from a sequence, and KV buckets, read entry by entry with direct gets (a
 * KV bucket keeps only each key's last revisions, so its sequences have gaps).
 */
export interface ArchiveSource {
  stream: string;
  kind: 'stream' | 'kv';
  /** The subjects read (a KV bucket's `$KV.<name>.>`). */
  filter: string;
  /** Each value is sealed again under the archive's key-wrapping key (docs/operators.md, The archive). */
  sealed: boolean;
}

export const ARCHIVE_SOURCES: readonly ArchiveSource[] = [
  ...Object.values(STREAMS)
    .filter((s) => s.archive)
    .map((s) => ({ stream: s.name, kind: 'stream' as const, filter: '>', sealed: false })),
  ...Object.values(BUCKETS)
    .filter((b) => b.kind === 'kv' && b.archive)
    .map((b) => ({
      stream: bucketStream(b),
      kind: 'kv' as const,
      filter: `$KV.${b.name}.>`,
      sealed: b.archive === 'sealed',
    })),
];

/** A message read from a source, before it is sealed into a record. */
export interface SourceMessage {
  stream: string;
  seq: number;
  subject: string;
  time: string;
  headers?: Record<string, string[]>;
  data: Uint8Array;
}

/** The record of a message, its value sealed when the source says so (a delete marker has none to seal). */
export function recordOf(
  source: ArchiveSource,
  m: SourceMessage,
  seal: (subject: string, value: Uint8Array) => string,
): ArchiveRecord {
  const sealIt = source.sealed && m.data.byteLength > 0;
  return {
    stream: m.stream,
    seq: m.seq,
    subject: m.subject,
    time: m.time,
    ...(m.headers ? { headers: m.headers } : {}),
    data: sealIt ? seal(m.subject, m.data) : Buffer.from(m.data).toString('base64'),
    ...(sealIt ? { sealed: ARCHIVE_KEY_WRAP } : {}),
  };
}

/** What a direct get's answer adds about the stored message: not part of the message itself. */
const DIRECT_GET_HEADERS = new Set([
  'Nats-Stream',
  'Nats-Sequence',
  'Nats-Time-Stamp',
  'Nats-Subject',
  'Nats-Last-Sequence',
]);

const headersOf = (h: MsgHdrs | undefined): Record<string, string[]> | undefined => {
  if (!h) return undefined;
  const keys = h.keys().filter((k) => !DIRECT_GET_HEADERS.has(k));
  return keys.length ? Object.fromEntries(keys.map((k) => [k, h.values(k)])) : undefined;
};

const notFound = (err: unknown) => err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound;

/** The stream's last sequence (0 when it does not exist yet: a bucket nobody has opened). */
export async function lastSequence(jsm: JetStreamManager, stream: string): Promise<number> {
  try {
    return (await jsm.streams.info(stream)).state.last_seq;
  } catch (err) {
    if (notFound(err)) return 0;
    throw err;
  }
}

/** Up to `max` messages of the source after sequence `after`, in order, up to its last sequence now. */
export async function readSource(
  nats: { js: JetStreamClient; jsm: JetStreamManager },
  source: ArchiveSource,
  after: number,
  max: number,
): Promise<SourceMessage[]> {
  const last = await lastSequence(nats.jsm, source.stream);
  if (last <= after || max <= 0) return [];
  return source.kind === 'stream'
    ? readStream(nats.js, source.stream, after, Math.min(max, last - after))
    : readKv(nats.jsm, source, after, last, max);
}

async function readStream(js: JetStreamClient, stream: string, after: number, count: number): Promise<SourceMessage[]> {
  const consumer = await js.consumers.get(stream, {
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: after + 1,
  });
  // An ordered consumer is ephemeral: the server drops it once idle (no role may delete a consumer).
  const out: SourceMessage[] = [];
  while (out.length < count) {
    const batch = await consumer.fetch({ max_messages: Math.min(count - out.length, 1000), expires: 2_000 });
    let got = 0;
    for await (const m of batch) {
      got++;
      out.push(fromJsMsg(stream, m));
      if (out.length >= count) break;
    }
    if (got === 0) break;
  }
  return out;
}

const fromJsMsg = (stream: string, m: JsMsg): SourceMessage => ({
  stream,
  seq: m.seq,
  subject: m.subject,
  time: new Date(Math.floor(m.info.timestampNanos / 1e6)).toISOString(),
  ...withHeaders(headersOf(m.headers)),
  data: m.data,
});

async function readKv(
  jsm: JetStreamManager,
  source: ArchiveSource,
  after: number,
  last: number,
  max: number,
): Promise<SourceMessage[]> {
  const out: SourceMessage[] = [];
  let seq = after + 1;
  while (seq <= last && out.length < max) {
    const m: StoredMsg | null = await jsm.direct.getMessage(source.stream, { seq, next_by_subj: source.filter });
    if (!m || m.seq > last) break;
    out.push({
      stream: source.stream,
      seq: m.seq,
      subject: m.subject,
      time: m.time.toISOString(),
      ...withHeaders(headersOf(m.header)),
      data: m.data,
    });
    seq = m.seq + 1;
  }
  return out;
}

const withHeaders = (headers: Record<string, string[]> | undefined) => (headers ? { headers } : {});
