import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  CORROBORATION_WINDOW_MS,
  corroborate,
  DISTINCT_WORKER_WAIT_MS,
  GIVE_BACK_DELAY_MS,
  type MemberObservation,
  memberPlacement,
  pixelAgreement,
  type RgbaImage,
  visibleTextBlocks,
} from '../../../src/vantages/corroboration-rules.js';

const hash = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
const image = (w: number, h: number, rgb: [number, number, number]): RgbaImage => {
  const data = new Uint8Array(w * h * 4);
  for (let i = 0; i < w * h; i++) data.set([...rgb, 255], i * 4);
  return { width: w, height: h, data };
};
const member = (id: string, over: Partial<MemberObservation> = {}): MemberObservation => ({
  captureId: id,
  vantage: { id: `v-${id}`, label: id, region: 'DE' },
  exitAddress: null,
  status: 'complete',
  startedAt: '2026-11-26T10:00:00.000Z',
  completedAt: '2026-11-26T10:00:02.000Z',
  failureReason: null,
  error: null,
  bundleHash: null,
  worker: `wrk_${id}`,
  textBlocks: ['Title', 'Body'],
  mainBodyDigest: 'sha256:aa',
  tlsLeafKeyHash: 'sha256:kk',
  resources: ['https://a/', 'https://a/x.css'],
  screenshot: image(10, 10, [10, 20, 30]),
  ...over,
});
const run = (members: MemberObservation[]) =>
  corroborate({ id: 'cor_1', url: 'https://a/', createdAt: '2026-11-26T10:00:00.000Z', members, hash });

describe('corroboration', () => {
  it('normalises visible text: no scripts, styles or head; entities decoded; one block per line', () => {
    const blocks = visibleTextBlocks(
      '<html><head><title>T</title><style>p{}</style></head><body><h1>A &amp;  B</h1><script>x()</script><p>one<br>two</p><!-- c --><span>&#233;t&eacute;</span></body></html>',
    );
    assert.deepEqual(blocks, ['A & B', 'one', 'two', 'ét&eacute;']);
  });

  it('agrees when everything agrees', () => {
    const record = run([member('a'), member('b', { startedAt: '2026-11-26T10:00:05.000Z' })]);
    assert.equal(record.verdict, 'AGREE');
    assert.deepEqual(record.differing, []);
    assert.deepEqual(record.window, { ms: 30_000, startedWithin: true, spreadMs: 5000, distinctWorkers: true });
    assert.equal(record.comparisons!.resources.overlap, 1);
    assert.equal((record.members[0] as Record<string, unknown>)['screenshot'], undefined, 'no pixels in the record');
  });

  it('names every field that differs', () => {
    const record = run([
      member('a'),
      member('b', {
        textBlocks: ['Title', 'Other body'],
        mainBodyDigest: 'sha256:bb',
        tlsLeafKeyHash: 'sha256:zz',
        resources: ['https://a/'],
        screenshot: image(10, 10, [200, 20, 30]),
      }),
    ]);
    assert.equal(record.verdict, 'DIVERGE');
    assert.deepEqual(record.differing, [
      'visibleText',
      'mainDocumentBody',
      'tlsLeafPublicKey',
      'resources',
      'screenshots',
    ]);
    assert.deepEqual(record.comparisons!.visibleText.differingBlocks, [
      { block: 'Body', seenBy: ['a'] },
      { block: 'Other body', seenBy: ['b'] },
    ]);
    assert.equal(record.comparisons!.resources.overlap, 0.5);
    assert.equal(record.comparisons!.screenshots.pairs[0]!.pixelAgreement, 0);
  });

  it('AGREE needs distinct workers: members rendered by one worker, or by one that is not named, are workers', () => {
    const shared = run([member('a'), member('b', { worker: 'wrk_a' })]);
    assert.equal(shared.verdict, 'DIVERGE');
    assert.deepEqual(shared.differing, ['workers']);
    assert.equal(shared.window.distinctWorkers, false);
    assert.deepEqual(run([member('a'), member('b', { worker: null })]).differing, ['workers']);
    // A third member on the first one's worker is enough.
    assert.deepEqual(run([member('a'), member('b'), member('c', { worker: 'wrk_a' })]).differing, ['workers']);
  });

  it('AGREE needs the window: members whose browsers started more than 30 s apart are window', () => {
    const edge = new Date(Date.parse('2026-11-26T10:00:00.000Z') + CORROBORATION_WINDOW_MS).toISOString();
    const within = run([member('a'), member('b', { startedAt: edge })]);
    assert.equal(within.verdict, 'AGREE', 'exactly the window is within it');
    assert.equal(within.window.spreadMs, CORROBORATION_WINDOW_MS);
    const late = run([member('a'), member('b', { startedAt: '2026-11-26T10:00:30.001Z' })]);
    assert.equal(late.verdict, 'DIVERGE');
    assert.deepEqual(late.differing, ['window']);
    assert.deepEqual(late.window, { ms: 30_000, startedWithin: false, spreadMs: 30_001, distinctWorkers: true });
    // A complete member whose start is not stated cannot show it started within the window.
    const unknown = run([member('a'), member('b', { startedAt: null })]);
    assert.deepEqual(unknown.differing, ['window']);
    assert.equal(unknown.window.spreadMs, null);
  });

  it('names every reason at once: a failed member, the window, the workers and what differs', () => {
    const record = run([
      member('a'),
      member('b', { worker: 'wrk_a', startedAt: '2026-11-26T10:01:00.000Z', mainBodyDigest: 'sha256:bb' }),
      member('c', { status: 'failed', startedAt: null, worker: null }),
    ]);
    assert.equal(record.verdict, 'DIVERGE');
    assert.deepEqual(record.differing, ['members', 'window', 'workers', 'mainDocumentBody']);
  });

  it('a failed member makes the verdict DIVERGE on members; the others are still compared', () => {
    const record = run([
      member('a'),
      member('b'),
      member('c', { status: 'failed', failureReason: 'vantage_unavailable', error: 'down', startedAt: null }),
    ]);
    assert.equal(record.verdict, 'DIVERGE');
    assert.deepEqual(record.differing, ['members']);
    assert.deepEqual(record.failedMembers, ['c']);
    assert.ok(record.comparisons);
    assert.equal(run([member('a'), member('c', { status: 'failed' })]).comparisons, null);
  });

  it('a failed member is judged on members alone: the window and workers are over the complete ones', () => {
    const record = run([member('a'), member('c', { status: 'failed', startedAt: null, worker: null })]);
    assert.deepEqual(record.differing, ['members']);
    assert.equal(record.window.startedWithin, true);
  });

  it('places members: a worker holding another member of the set gives this one back, until the wait is over', () => {
    assert.deepEqual(memberPlacement({ holdsAnotherMember: false, waitedMs: 0 }), { kind: 'render' });
    assert.deepEqual(memberPlacement({ holdsAnotherMember: true, waitedMs: 0 }), {
      kind: 'give-back',
      delayMs: GIVE_BACK_DELAY_MS,
    });
    // Never given back past the wait, so it starts at once (and the window stays within reach).
    assert.deepEqual(memberPlacement({ holdsAnotherMember: true, waitedMs: DISTINCT_WORKER_WAIT_MS - 100 }), {
      kind: 'give-back',
      delayMs: 100,
    });
    assert.deepEqual(memberPlacement({ holdsAnotherMember: true, waitedMs: DISTINCT_WORKER_WAIT_MS }), {
      kind: 'render',
    });
    // Picked up late (a backlog): rendered at once, wherever.
    assert.deepEqual(memberPlacement({ holdsAnotherMember: true, waitedMs: 5 * 60_000 }), { kind: 'render' });
    assert.ok(
      DISTINCT_WORKER_WAIT_MS + GIVE_BACK_DELAY_MS < CORROBORATION_WINDOW_MS,
      'a member given back starts within the window',
    );
  });

  it('counts pixels outside the smaller screenshot as disagreeing', () => {
    assert.equal(pixelAgreement(image(10, 10, [0, 0, 0]), image(10, 20, [10, 10, 10])), 0.5);
  });
});
