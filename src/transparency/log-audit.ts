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

export function auditLog(facts: readonly LedgerFact[], leaves: readonly LoggedLeaf[]): LogAuditReport {
  const findings: AuditFinding[] = [];
  const leavesByData = new Map<string, LoggedLeaf[]>();
  const leavesByCapture = new Map<string, Array<LoggedLeaf & { record: Extract<LeafRecord, { kind: 'capture' }> }>>();
  for (const leaf of leaves) {
    const record = parse(leaf.data);
    if (!record) {
      findings.push({
        kind: 'NOT A RECORD',
        leafIndex: leaf.index,
        message: `leaf ${leaf.index} is not a capture-ledger log record: ${leaf.data.slice(0, 120)}`,
      });
      continue;
    }
    leavesByData.set(leaf.data, [...(leavesByData.get(leaf.data) ?? []), leaf]);
    if (record.kind === 'capture')
      leavesByCapture.set(record.captureIdHash, [
        ...(leavesByCapture.get(record.captureIdHash) ?? []),
        { ...leaf, record },
      ]);
  }

  const factsByCapture = new Map<string, LedgerFact[]>();
  for (const fact of facts) {
    if (fact.captureId !== null) {
      const hash = captureIdHash(fact.captureId);
      factsByCapture.set(hash, [...(factsByCapture.get(hash) ?? []), fact]);
    }
  }

  // Every ledger fact: exactly one leaf with its bytes.
  const explained = new Set<number>();
  for (const fact of facts) {
    const record = parse(fact.leaf)!;
    const same = leavesByData.get(fact.leaf) ?? [];
    for (const l of same) explained.add(l.index);
    if (same.length === 1) continue;
    const subject =
      fact.captureId !== null
        ? `capture ${fact.captureId} (${where(fact)})`
        : `${describeRecord(record)} (${where(fact)})`;
    if (same.length > 1) {
      findings.push({
        kind: 'DUPLICATE',
        ...(fact.captureId ? { captureId: fact.captureId } : {}),
        leafIndex: same[1]!.index,
        message: `${subject}: ${describeRecord(record)} has ${same.length} leaves in the log (${same.map((l) => l.index).join(', ')}); it must have one`,
      });
      continue;
    }
    // No leaf with these bytes: a leaf of the same capture saying something else is a mismatch, none at all is missing.
    const others =
      fact.captureId !== null
        ? (leavesByCapture.get(captureIdHash(fact.captureId)) ?? []).filter((l) => l.data !== fact.leaf)
        : [];
    const unexplained = others.filter(
      (l) => !(factsByCapture.get(l.record.captureIdHash) ?? []).some((f) => f.leaf === l.data),
    );
    if (unexplained.length > 0) {
      const l = unexplained[0]!;
      for (const u of unexplained) explained.add(u.index);
      const what =
        l.record.bundleHash !== (record as { bundleHash: string }).bundleHash
          ? `the log's leaf ${l.index} says bundle ${l.record.bundleHash}, the ledger signed ${(record as { bundleHash: string }).bundleHash}`
          : `the log's leaf ${l.index} is ${l.data}, the ledger's event makes ${fact.leaf}`;
      findings.push({
        kind: 'MISMATCH',
        captureId: fact.captureId!,
        leafIndex: l.index,
        message: `${subject}: ${what}`,
      });
    } else {
      findings.push({
        kind: 'MISSING',
        ...(fact.captureId ? { captureId: fact.captureId } : {}),
        message: `${subject}: ${describeRecord(record)} has no leaf in the log`,
      });
    }
  }

  // Every leaf: one of the ledger's facts.
  for (const leaf of leaves) {
    if (explained.has(leaf.index)) continue;
    const record = parse(leaf.data);
    if (!record) continue;
    if (record.kind === 'capture') {
      const known = factsByCapture.get(record.captureIdHash);
      findings.push(
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
    } else {
      findings.push({
        kind: 'UNKNOWN',
        leafIndex: leaf.index,
        message: `leaf ${leaf.index} is ${describeRecord(record)}, which no ledger event publishes`,
      });
    }
  }

  // One capture, one signed bundle: a second one was written past the tenant actor (which refuses it).
  for (const [, list] of factsByCapture) {
    const bundles = new Set(list.map((f) => f.leaf));
    if (bundles.size > 1) {
      const [a, b] = list;
      findings.push({
        kind: 'SECOND BUNDLE',
        captureId: a!.captureId!,
        message: `capture ${a!.captureId}: the ledger signed ${bundles.size} different bundles for it (${where(a!)}; ${where(b!)}); a capture has one outcome`,
      });
    }
  }

  // With the same leaves, the order must be the ledger's (every process computes one tree).
  if (findings.length === 0) {
    const at = facts.findIndex((f, i) => leaves[i]?.data !== f.leaf);
    if (at >= 0) {
      const f = facts[at]!;
      findings.push({
        kind: 'ORDER',
        ...(f.captureId ? { captureId: f.captureId } : {}),
        leafIndex: at,
        message: `leaf ${at} is not the ledger's logged event number ${at + 1} (${f.captureId ? `capture ${f.captureId}, ` : ''}${where(f)}): the log is not in ledger order`,
      });
    }
  }

  return {
    ok: findings.length === 0,
    leaves: leaves.length,
    facts: facts.length,
    captures: factsByCapture.size,
    findings,
  };
}
