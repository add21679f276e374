import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { archiveKeys, manifestKeyOf } from '../../../src/ledger-archive/archive-keys.js';
import {
  type ArchiveHead,
  buildSegment,
  EMPTY_HEAD,
  headOf,
  segmentObjects,
} from '../../../src/ledger-archive/segment-builder.js';
import { verifyArchiveSegmentFiles } from '../../../packages/verifier/src/archive-files.js';
import { type ArchiveRecord, checkArchiveSegment } from '../../../packages/verifier/src/archive-segment.js';
import { verifierKeyString } from '../../../src/transparency/checkpoint.js';

const STREAMS = ['LEDGER', 'TLOG', 'KV_webhook-keys'];
const keys = archiveKeys('ledger.example/v1/log', randomBytes(32));
const record = (stream: string, seq: number): ArchiveRecord => ({
  stream,
  seq,
  subject: stream === 'LEDGER' ? 'ledger.tenant.t1' : 'tlog.leaves',
  time: new Date(1_700_000_000_000 + seq).toISOString(),
  data: Buffer.from(`message ${seq}`).toString('base64'),
});

function seal(head: ArchiveHead, records: ArchiveRecord[]) {
  const { body, manifest } = buildSegment(head, records, new Date(), manifestKeyOf(keys.logKey));
  const objects = segmentObjects(body, keys.sign(manifest));
  return { objects, head: headOf(keys.sign(manifest), objects.manifest, STREAMS) };
}

describe('archive segments (packages/verifier/src/archive-segment.ts)', () => {
  const first = seal(EMPTY_HEAD(STREAMS), [record('LEDGER', 1), record('LEDGER', 2), record('TLOG', 1)]);
  const second = seal(first.head, [record('LEDGER', 3)]);
  const check = (objects: typeof first.objects, previous: ArchiveHead, body = objects.body) =>
    checkArchiveSegment({ manifestBytes: objects.manifest, body }, previous, keys.logKey);

  it('accepts a chain of signed segments and states their ranges and cursor', async () => {
    const one = await check(first.objects, EMPTY_HEAD(STREAMS));
    assert.ok(one.ok, JSON.stringify(one));
    assert.deepEqual(one.manifest.sources, [
      { stream: 'LEDGER', first: 1, last: 2, records: 2 },
      { stream: 'TLOG', first: 1, last: 1, records: 1 },
    ]);
    const two = await check(second.objects, first.head);
    assert.ok(two.ok, JSON.stringify(two));
    assert.deepEqual(two.manifest.cursor, { LEDGER: 3, TLOG: 1, 'KV_webhook-keys': 0 });
  });

  it('refuses an altered body, a dropped segment and another key, naming the segment', async () => {
    const altered = Buffer.from(second.objects.body);
    altered[10] ^= 1;
    const bad = await check(second.objects, first.head, altered);
    assert.deepEqual([bad.ok, !bad.ok && bad.segment], [false, 2]);
    assert.match(!bad.ok ? bad.problem : '', /not the bytes its manifest states/);
    // Segment 2 checked as if it came right after nothing: its number and chain give it away.
    const dropped = await check(second.objects, EMPTY_HEAD(STREAMS));
    assert.equal(dropped.ok, false);
    const other = archiveKeys('ledger.example/v1/log', randomBytes(32));
    const foreign = await checkArchiveSegment(
      { manifestBytes: first.objects.manifest, body: first.objects.body },
      EMPTY_HEAD(STREAMS),
      other.logKey,
    );
    assert.match(!foreign.ok ? foreign.problem : '', /not the given log key/);
  });

  it('seals a webhook key so only the log seed opens it, bound to its subject', () => {
    const key = randomBytes(32);
    const sealed = keys.seal('$KV.webhook-keys.whk_1', key);
    assert.deepEqual(Buffer.from(keys.open('$KV.webhook-keys.whk_1', sealed)), key);
    assert.throws(() => keys.open('$KV.webhook-keys.whk_2', sealed));
  });

  it('is checked offline from files laid out as in S3, with the log key only', async () => {
    const files = new Map<string, Uint8Array>([
      ['copy/manifests/000000000001.json', first.objects.manifest],
      ['copy/segments/000000000001.ndjson', first.objects.body],
      ['copy/manifests/000000000002.json', second.objects.manifest],
      ['copy/segments/000000000002.ndjson', second.objects.body],
    ]);
    const read = async (path: string) => files.get(path) ?? null;
    const logKey = verifierKeyString(keys.logKey);
    const ok = await verifyArchiveSegmentFiles({ manifest: 'copy/manifests/000000000002.json', logKey }, read);
    assert.equal(ok.verified, true, JSON.stringify(ok));
    files.set('copy/manifests/000000000001.json', second.objects.manifest);
    const broken = await verifyArchiveSegmentFiles({ manifest: 'copy/manifests/000000000002.json', logKey }, read);
    assert.deepEqual([broken.verified, broken.segment], [false, 2]);
  });
});
