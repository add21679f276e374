/**
 * Corroborated captures: the same URL captured from two or three vantage points, and a record of
 * whether what they saw agrees. Pure: the observations are read from each member's stored artifacts elsewhere
 * (src/vantages/corroboration-service.ts); here they are compared and the verdict is decided.
 *
 * What is compared, and when it agrees:
 * - visibleText: the page's visible text, normalised (tags, scripts and styles dropped, entities decoded,
 *   whitespace collapsed, one block per line, Unicode NFC), hashed; equal hashes agree, else the blocks not seen
 *   by every member are listed (at most MAX_DIFFERING_BLOCKS).
 * - mainDocumentBody: the WARC payload digest of the main document; equal digests agree.
 * - tlsLeafPublicKey: SHA-256 of the leaf certificate's SubjectPublicKeyInfo as the egress proxy saw it for the
 *   final URL's host (null for plain http); equal values agree.
 * - resources: the set of URLs each member archived; agree when the sets are equal (overlap = Jaccard index).
 * - screenshots: the share of pixels whose channels differ by at most PIXEL_TOLERANCE, over the larger canvas,
 *   for every pair; agree when every pair reaches PIXEL_AGREEMENT.
 * A failed member makes the verdict DIVERGE with `members` among the fields that differ: one vantage did not see
 * the page at all.
 *
 * How they were made counts too (distinct vantages, by distinct workers, within a bounded window):
 * - window: the complete members' browsers started within CORROBORATION_WINDOW_MS of each other (each provenance
 *   record's `startedAt`); a member retried or picked up late still renders, and the record names `window`.
 * - workers: every complete member names the worker process that rendered it (provenance `worker`) and no two
 *   share one. Workers give a member back while they hold another of its set (memberPlacement), so this holds
 *   wherever more than one worker runs; with one worker the set still completes, and the record names `workers`.
 * AGREE needs all of it: every member complete, started within the window, on distinct workers, every comparison
 * agreeing. Otherwise DIVERGE, `differing` naming each reason.
 */

export const CORROBORATION_FORMAT = 'capture-ledger-corroboration/1';

/** Where a set and its members are kept (KV keys; src/vantages/corroboration-service.ts writes them at admission). */
export const corroborationKeys = {
  set: (id: string) => `corroboration.${id}.set`,
  record: (id: string) => `corroboration.${id}.record`,
  member: (captureId: string) => `corroboration.member.${captureId}`,
};
export const CORROBORATION_WINDOW_MS = 30_000;
/**
 * How long after submission a worker holding another member of the set gives a member back for another worker to
 * take (a third of the window, so a member given back still starts well within it), and after how long each time.
 */
export const DISTINCT_WORKER_WAIT_MS = 10_000;
export const GIVE_BACK_DELAY_MS = 500;
export const MAX_DIFFERING_BLOCKS = 20;
export const PIXEL_TOLERANCE = 24;
export const PIXEL_AGREEMENT = 0.98;

/** What can make a record DIVERGE: our extension's own names (not a spec enumeration). */
export type CorroboratedField =
  | 'members'
  | 'window'
  | 'workers'
  | 'visibleText'
  | 'mainDocumentBody'
  | 'tlsLeafPublicKey'
  | 'resources'
  | 'screenshots';

export interface RgbaImage {
  width: number;
  height: number;
  /** width × height × 4 bytes, row by row. */
  data: Uint8Array;
}

export interface MemberObservation {
  captureId: string;
  vantage: { id: string; label: string; region: string } | null;
  exitAddress: string | null;
  status: 'complete' | 'failed';
  startedAt: string | null;
  completedAt: string | null;
  failureReason: string | null;
  error: string | null;
  bundleHash: string | null;
  /** The worker process that rendered it (provenance `worker`), when known. */
  worker: string | null;
  /** The rest only for a complete member. */
  textBlocks?: string[];
  mainBodyDigest?: string | null;
  tlsLeafKeyHash?: string | null;
  resources?: string[];
  screenshot?: RgbaImage | null;
}

export interface CorroborationRecord {
  format: typeof CORROBORATION_FORMAT;
  id: string;
  url: string;
  createdAt: string;
  window: { ms: number; startedWithin: boolean; spreadMs: number | null; distinctWorkers: boolean };
  members: Array<
    Omit<MemberObservation, 'textBlocks' | 'mainBodyDigest' | 'tlsLeafKeyHash' | 'resources' | 'screenshot'>
  >;
  comparisons: {
    visibleText: {
      agree: boolean;
      hashes: Record<string, string>;
      differingBlocks: Array<{ block: string; seenBy: string[] }>;
    };
    mainDocumentBody: { agree: boolean; digests: Record<string, string | null> };
    tlsLeafPublicKey: { agree: boolean; hashes: Record<string, string | null> };
    resources: { agree: boolean; overlap: number; notSeenByAll: Array<{ url: string; seenBy: string[] }> };
    screenshots: { agree: boolean; pairs: Array<{ a: string; b: string; pixelAgreement: number }> };
  } | null;
  verdict: 'AGREE' | 'DIVERGE';
  differing: CorroboratedField[];
  failedMembers: string[];
}

/** The visible text of an HTML document, one normalised block per line (see above). */
export function visibleTextBlocks(html: string): string[] {
  const withoutHidden = html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style|noscript|template|head)\b[\s\S]*?<\/\1\s*>/gi, ' ');
  const blocked = withoutHidden.replace(
    /<\/?(p|div|h[1-6]|li|ul|ol|tr|td|th|table|br|hr|section|article|header|footer|nav|aside|main|pre|blockquote|figure|figcaption|dd|dt|dl|form|fieldset|legend|details|summary|option|button|label)\b[^>]*>/gi,
    '\n',
  );
  const text = decodeEntities(blocked.replace(/<[^>]*>/g, ' '));
  return text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim().normalize('NFC'))
    .filter((line) => line.length > 0);
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return named[ref.toLowerCase()] ?? whole;
  });
}

/** Share of pixels of the larger canvas on which both images agree within PIXEL_TOLERANCE per channel. */
export function pixelAgreement(a: RgbaImage, b: RgbaImage): number {
  const width = Math.min(a.width, b.width);
  const height = Math.min(a.height, b.height);
  const total = Math.max(a.width, b.width) * Math.max(a.height, b.height);
  if (total === 0) return 1;
  let agreeing = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * a.width + x) * 4;
      const j = (y * b.width + x) * 4;
      if (
        Math.abs(a.data[i]! - b.data[j]!) <= PIXEL_TOLERANCE &&
        Math.abs(a.data[i + 1]! - b.data[j + 1]!) <= PIXEL_TOLERANCE &&
        Math.abs(a.data[i + 2]! - b.data[j + 2]!) <= PIXEL_TOLERANCE
      )
        agreeing++;
    }
  }
  return Math.round((agreeing / total) * 10_000) / 10_000;
}

/** Compares the members' observations; `hash` is SHA-256 of UTF-8 text as `sha256:<hex>`. */
export function corroborate(input: {
  id: string;
  url: string;
  createdAt: string;
  members: MemberObservation[];
  hash: (text: string) => string;
}): CorroborationRecord {
  const { members, hash } = input;
  const complete = members.filter((m) => m.status === 'complete');
  const failedMembers = members.filter((m) => m.status === 'failed').map((m) => m.captureId);
  const starts = members.map((m) => (m.startedAt ? Date.parse(m.startedAt) : Number.NaN)).filter(Number.isFinite);
  // Over the members that started (a failed member may never have): how far apart their browsers started.
  const spreadMs = starts.length >= 2 ? Math.max(...starts) - Math.min(...starts) : null;
  const startedWithin = startedWithinWindow(complete);
  const workersDistinct = distinctWorkers(complete);
  const comparisons = complete.length >= 2 ? compare(complete, hash) : null;
  const differing: CorroboratedField[] = [];
  if (failedMembers.length > 0) differing.push('members');
  if (!startedWithin) differing.push('window');
  if (!workersDistinct) differing.push('workers');
  if (comparisons)
    for (const field of ['visibleText', 'mainDocumentBody', 'tlsLeafPublicKey', 'resources', 'screenshots'] as const)
      if (!comparisons[field].agree) differing.push(field);
  return {
    format: CORROBORATION_FORMAT,
    id: input.id,
    url: input.url,
    createdAt: input.createdAt,
    window: { ms: CORROBORATION_WINDOW_MS, startedWithin, spreadMs, distinctWorkers: workersDistinct },
    members: members.map(
      ({ textBlocks: _t, mainBodyDigest: _b, tlsLeafKeyHash: _k, resources: _r, screenshot: _s, ...kept }) => kept,
    ),
    comparisons,
    verdict: differing.length === 0 ? 'AGREE' : 'DIVERGE',
    differing,
    failedMembers,
  };
}

function compare(
  members: MemberObservation[],
  hash: (text: string) => string,
): NonNullable<CorroborationRecord['comparisons']> {
  const ids = members.map((m) => m.captureId);
  const byId = <T>(f: (m: MemberObservation) => T): Record<string, T> =>
    Object.fromEntries(members.map((m) => [m.captureId, f(m)]));
  const allEqual = (values: unknown[]) => values.every((v) => v === values[0]);

  const textHashes = byId((m) => hash((m.textBlocks ?? []).join('\n')));
  const differingBlocks = notSeenByAll(members.map((m) => [m.captureId, m.textBlocks ?? []] as const)).map(
    ({ item, seenBy }) => ({ block: item, seenBy }),
  );
  const digests = byId((m) => m.mainBodyDigest ?? null);
  const keys = byId((m) => m.tlsLeafKeyHash ?? null);
  const sets = members.map((m) => new Set(m.resources ?? []));
  const union = new Set(sets.flatMap((s) => [...s]));
  const everywhere = [...union].filter((u) => sets.every((s) => s.has(u)));
  const overlap = union.size === 0 ? 1 : Math.round((everywhere.length / union.size) * 10_000) / 10_000;
  const pairs: Array<{ a: string; b: string; pixelAgreement: number }> = [];
  for (let i = 0; i < members.length; i++)
    for (let j = i + 1; j < members.length; j++) {
      const a = members[i]!.screenshot;
      const b = members[j]!.screenshot;
      pairs.push({ a: ids[i]!, b: ids[j]!, pixelAgreement: a && b ? pixelAgreement(a, b) : 0 });
    }
  return {
    visibleText: {
      agree: allEqual(Object.values(textHashes)),
      hashes: textHashes,
      differingBlocks: differingBlocks.slice(0, MAX_DIFFERING_BLOCKS),
    },
    mainDocumentBody: { agree: allEqual(Object.values(digests)), digests },
    tlsLeafPublicKey: { agree: allEqual(Object.values(keys)), hashes: keys },
    resources: {
      agree: everywhere.length === union.size,
      overlap,
      notSeenByAll: notSeenByAll(members.map((m) => [m.captureId, m.resources ?? []] as const))
        .slice(0, MAX_DIFFERING_BLOCKS)
        .map(({ item, seenBy }) => ({ url: item, seenBy })),
    },
    screenshots: { agree: pairs.every((p) => p.pixelAgreement >= PIXEL_AGREEMENT), pairs },
  };
}

/**
 * Whether the complete members' browsers started within the window of each other: each must state its start (an
 * unreadable provenance record cannot show it did). One complete member is within it; a failed one is `members`.
 */
function startedWithinWindow(members: MemberObservation[]): boolean {
  const starts = members.map((m) => (m.startedAt ? Date.parse(m.startedAt) : Number.NaN));
  if (!starts.every(Number.isFinite)) return false;
  return starts.length < 2 || Math.max(...starts) - Math.min(...starts) <= CORROBORATION_WINDOW_MS;
}

/**
 * Where a worker renders a member of a set: a worker that already took another member of the same
 * set gives this one back (a delayed nak: another worker takes it) until DISTINCT_WORKER_WAIT_MS after the set
 * was submitted, then renders it itself, so a deployment with one worker never waits longer. A member picked up
 * late — the wait already over — is rendered at once: it is never held back, and never dropped.
 */
export function memberPlacement(input: {
  /** This worker already took another member of the set (its claim names another capture). */
  holdsAnotherMember: boolean;
  /** Since the set was submitted. */
  waitedMs: number;
}): { kind: 'render' } | { kind: 'give-back'; delayMs: number } {
  if (!input.holdsAnotherMember || input.waitedMs >= DISTINCT_WORKER_WAIT_MS) return { kind: 'render' };
  return { kind: 'give-back', delayMs: Math.min(GIVE_BACK_DELAY_MS, DISTINCT_WORKER_WAIT_MS - input.waitedMs) };
}

/** Whether every complete member names its worker and no two share one. */
function distinctWorkers(members: MemberObservation[]): boolean {
  const workers = members.map((m) => m.worker);
  return workers.every((w) => w !== null) && new Set(workers).size === workers.length;
}

/** Items some but not all members have, in first-seen order, with who has them. */
function notSeenByAll(
  lists: ReadonlyArray<readonly [string, readonly string[]]>,
): Array<{ item: string; seenBy: string[] }> {
  const seen = new Map<string, Set<string>>();
  for (const [id, items] of lists)
    for (const item of items) {
      let who = seen.get(item);
      if (!who) seen.set(item, (who = new Set()));
      who.add(id);
    }
  return [...seen].filter(([, who]) => who.size < lists.length).map(([item, who]) => ({ item, seenBy: [...who] }));
}
