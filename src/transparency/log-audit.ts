import { captureIdHash, decodeLeaf, encodeLeaf, leafOfEvent, type LeafRecord } from './leaf.js';

/**
 * The operator's comparison of the public log with the ledger (docs/transparency.md, The auditor): every bundle
 * signed in the ledger (capture.completed with a bundle), every key and TSA publication, has exactly one leaf in
 * the log with the same bytes; every leaf is one such ledger fact; and the leaves are the facts in ledger order.
 * Pure: the command (src/cli/commands/log.ts, `log audit`) reads LEDGER and TLOG and hands them here.
 *
 * The ledger is read only up to the last LEDGER sequence the log has read (`through` of its last batch): facts
 * after it are not logged yet, not missing.
 */

/** One logged event of the ledger, as the sequencer would turn it into a leaf. */
export interface LedgerFact {
  /** LEDGER stream sequence of its commit and its index in the commit. */
  seq: number;
  index: number;
  tenantId: string;
  /** For a capture leaf: the capture ID (the log holds only its hash). */
  captureId: string | null;
  /** The leaf data (RFC 8785 JSON) this event must be logged as. */
  leaf: string;
}

export interface LoggedLeaf {
  index: number;
  data: string;
}

export type AuditFindingKind =
  | 'MISSING'
  | 'UNKNOWN'
  | 'MISMATCH'
  | 'DUPLICATE'
  | 'SECOND BUNDLE'
  | 'ORDER'
  | 'NOT A RECORD'
  | 'NOT APPEND-ONLY';

export interface AuditFinding {
  kind: AuditFindingKind;
  captureId?: string;
  leafIndex?: number;
  message: string;
}

export interface LogAuditReport {
  ok: boolean;
  leaves: number;
  facts: number;
  captures: number;
  findings: AuditFinding[];
}

/** The facts of one ledger event (null when it is not logged). */
export function ledgerFactOf(stored: {
  seq: number;
  index: number;
  event: { type: string; tenantId: string; data: unknown };
}): LedgerFact | null {
  const record = leafOfEvent(stored.event);
  if (!record) return null;
  const captureId = record.kind === 'capture' ? (stored.event.data as { captureId: string }).captureId : null;
  return {
    seq: stored.seq,
    index: stored.index,
    tenantId: stored.event.tenantId,
    captureId,
    leaf: new TextDecoder().decode(encodeLeaf(record)),
  };
}

const parse = (data: string): LeafRecord | null => {
  try {
    return decodeLeaf(new TextEncoder().encode(data));
  } catch {
    return null;
  }
};

const describeRecord = (r: LeafRecord): string =>
  r.kind === 'capture'
    ? `bundle ${r.bundleHash}`
    : r.kind === 'signing-key'
      ? `signing key ${r.keyId}`
      : r.kind === 'diff'
        ? `diff record ${r.recordHash}`
        : r.kind === 'corroboration'
          ? `corroboration record ${r.recordHash}`
          : `TSA certificate ${r.fingerprint}`;

const where = (f: LedgerFact) =>
  `tenant ${f.tenantId}, LEDGER sequence ${f.seq}${f.index > 0 ? ` event ${f.index + 1}` : ''}`;

type CaptureLeaf = LoggedLeaf & { record: Extract<LeafRecord, { kind: 'capture' }> };

/** The leaves and facts indexed for the audit, the leaves a fact accounts for, and what was found so far. */
interface Audit {
  leavesByData: Map<string, LoggedLeaf[]>;
  leavesByCapture: Map<string, CaptureLeaf[]>;
  factsByCapture: Map<string, LedgerFact[]>;
  /** Leaf indexes a ledger fact accounts for (its own leaf, or the mismatching leaf of its capture). */
  explained: Set<number>;
  findings: AuditFinding[];
}

export function auditLog(facts: readonly LedgerFact[], leaves: readonly LoggedLeaf[]): LogAuditReport {
  const audit: Audit = {
    leavesByData: new Map(),
    leavesByCapture: new Map(),
    factsByCapture: new Map(),
    explained: new Set(),
    findings: [],
  };
  indexLeaves(audit, leaves);
  for (const fact of facts) {
    if (fact.captureId !== null) {
      const hash = captureIdHash(fact.captureId);
      audit.factsByCapture.set(hash, [...(audit.factsByCapture.get(hash) ?? []), fact]);
    }
  }
  for (const fact of facts) checkFact(audit, fact);
  for (const leaf of leaves) if (!audit.explained.has(leaf.index)) checkUnexplainedLeaf(audit, leaf);
  checkOneBundlePerCapture(audit);
  // With the same leaves, the order must be the ledger's (every process computes one tree).
  if (audit.findings.length === 0) checkOrder(audit, facts, leaves);
  return {
    ok: audit.findings.length === 0,
    leaves: leaves.length,
    facts: facts.length,
    captures: audit.factsByCapture.size,
    findings: audit.findings,
  };
}

/** Index the log's leaves by their bytes and by capture; a leaf that is no record is a finding. */
function indexLeaves(audit: Audit, leaves: readonly LoggedLeaf[]): void {
  for (const leaf of leaves) {
    const record = parse(leaf.data);
    if (!record) {
      audit.findings.push({
        kind: 'NOT A RECORD',
        leafIndex: leaf.index,
        message: `leaf ${leaf.index} is not a capture-ledger log record: ${leaf.data.slice(0, 120)}`,
      });
      continue;
    }
    audit.leavesByData.set(leaf.data, [...(audit.leavesByData.get(leaf.data) ?? []), leaf]);
    if (record.kind === 'capture')
      audit.leavesByCapture.set(record.captureIdHash, [
        ...(audit.leavesByCapture.get(record.captureIdHash) ?? []),
        { ...leaf, record },
      ]);
  }
}

/** A ledger fact has exactly one leaf with its bytes. */
function checkFact(audit: Audit, fact: LedgerFact): void {
  const record = parse(fact.leaf)!;
  const same = audit.leavesByData.get(fact.leaf) ?? [];
  for (const l of same) audit.explained.add(l.index);
  if (same.length === 1) return;
  const subject =
    fact.captureId !== null
      ? `capture ${fact.captureId} (${where(fact)})`
      : `${describeRecord(record)} (${where(fact)})`;
  if (same.length > 1) {
    audit.findings.push({
      kind: 'DUPLICATE',
      ...(fact.captureId ? { captureId: fact.captureId } : {}),
      leafIndex: same[1]!.index,
      message: `${subject}: ${describeRecord(record)} has ${same.length} leaves in the log (${same.map((l) => l.index).join(', ')}); it must have one`,
    });
    return;
  }
  // No leaf with these bytes: a leaf of the same capture saying something else is a mismatch, none at all is missing.
  const others =
    fact.captureId !== null
      ? (audit.leavesByCapture.get(captureIdHash(fact.captureId)) ?? []).filter((l) => l.data !== fact.leaf)
      : [];
  const unexplained = others.filter(
    (l) => !(audit.factsByCapture.get(l.record.captureIdHash) ?? []).some((f) => f.leaf === l.data),
  );
  if (unexplained.length > 0) {
    const l = unexplained[0]!;
    for (const u of unexplained) audit.explained.add(u.index);
    const what =
      l.record.bundleHash !== (record as { bundleHash: string }).bundleHash
        ? `the log's leaf ${l.index} says bundle ${l.record.bundleHash}, the ledger signed ${(record as { bundleHash: string }).bundleHash}`
        : `the log's leaf ${l.index} is ${l.data}, the ledger's event makes ${fact.leaf}`;
    audit.findings.push({
      kind: 'MISMATCH',
      captureId: fact.captureId!,
      leafIndex: l.index,
      message: `${subject}: ${what}`,
    });
  } else {
    audit.findings.push({
      kind: 'MISSING',
      ...(fact.captureId ? { captureId: fact.captureId } : {}),
      message: `${subject}: ${describeRecord(record)} has no leaf in the log`,
    });
  }
}

/** A leaf no ledger fact accounts for: a mismatch when its capture is known, else unknown. */
function checkUnexplainedLeaf(audit: Audit, leaf: LoggedLeaf): void {
  const record = parse(leaf.data);
  if (!record) return;
  if (record.kind !== 'capture') {
    audit.findings.push({
      kind: 'UNKNOWN',
      leafIndex: leaf.index,
      message: `leaf ${leaf.index} is ${describeRecord(record)}, which no ledger event publishes`,
    });
    return;
  }
  const known = audit.factsByCapture.get(record.captureIdHash);
  audit.findings.push(
    known
      ? {
          kind: 'MISMATCH',
          captureId: known[0]!.captureId!,
          leafIndex: leaf.index,
          message: `capture ${known[0]!.captureId} (${where(known[0]!)}): the log's leaf ${leaf.index} says ${describeRecord(record)}, which the ledger never signed for it`,
        }
      : {
          kind: 'UNKNOWN',
          leafIndex: leaf.index,
          message: `leaf ${leaf.index} is ${describeRecord(record)} of a capture the ledger has no signed bundle of (captureIdHash ${record.captureIdHash})`,
        },
  );
}

/** One capture, one signed bundle: a second one was written past the tenant actor (which refuses it). */
function checkOneBundlePerCapture(audit: Audit): void {
  for (const [, list] of audit.factsByCapture) {
    const bundles = new Set(list.map((f) => f.leaf));
    if (bundles.size > 1) {
      const [a, b] = list;
      audit.findings.push({
        kind: 'SECOND BUNDLE',
        captureId: a!.captureId!,
        message: `capture ${a!.captureId}: the ledger signed ${bundles.size} different bundles for it (${where(a!)}; ${where(b!)}); a capture has one outcome`,
      });
    }
  }
}

function checkOrder(audit: Audit, facts: readonly LedgerFact[], leaves: readonly LoggedLeaf[]): void {
  const at = facts.findIndex((f, i) => leaves[i]?.data !== f.leaf);
  if (at < 0) return;
  const f = facts[at]!;
  audit.findings.push({
    kind: 'ORDER',
    ...(f.captureId ? { captureId: f.captureId } : {}),
    leafIndex: at,
    message: `leaf ${at} is not the ledger's logged event number ${at + 1} (${f.captureId ? `capture ${f.captureId}, ` : ''}${where(f)}): the log is not in ledger order`,
  });
}
