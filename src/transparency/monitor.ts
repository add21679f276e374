import { type Checkpoint, CheckpointError, type NoteVerifier, openCheckpoint } from './checkpoint.js';
import { captureIdHash, decodeLeaf } from './leaf.js';
import type { LogClient } from './log-client.js';
import { HASH_SIZE, leafHash, MerkleTree, verifyConsistency, verifyInclusion } from './merkle.js';
import { TILE_WIDTH, tilesForSize } from './tiles.js';

/**
 * The log monitor (`capture-ledger log monitor`, docs/transparency.md): reads the latest checkpoint and checks,
 * against every checkpoint it has seen before (its state), that
 *   - the checkpoint is signed by the pinned log key;
 *   - no two checkpoints of one size have different roots (a fork);
 *   - the log never goes back, and each newer tree is an append-only extension of the older (consistency proof);
 *   - optionally, the tiles and entries re-derive exactly the checkpoint's root, and no capture has two leaves (`rederive`);
 *   - optionally, every given capture ID has its leaf in the tree (a dropped capture is found).
 * Each problem is a finding with a kind and a sentence; the caller exits non-zero when there is any.
 */
export type FindingKind =
  | 'signature'
  | 'fork'
  | 'rollback'
  | 'inconsistent'
  | 'tiles'
  | 'missing-capture'
  | 'duplicate-capture'
  | 'unreachable';

export interface Finding {
  kind: FindingKind;
  message: string;
}

export interface SeenCheckpoint {
  size: number;
  rootHash: string;
  note: string;
}

export interface MonitorState {
  checkpoints: SeenCheckpoint[];
}

export interface MonitorResult {
  checkpoint: SeenCheckpoint | null;
  findings: Finding[];
  /** The state to keep: the new checkpoint added when nothing was found. */
  state: MonitorState;
}

const b64 = (h: Uint8Array) => Buffer.from(h).toString('base64');
const fromB64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));

export async function monitorOnce(
  client: LogClient,
  verifier: NoteVerifier,
  state: MonitorState,
  opts: { rederive?: boolean; captureIds?: string[] } = {},
): Promise<MonitorResult> {
  let cp: Checkpoint;
  let note: string;
  try {
    note = await client.checkpoint();
    cp = openCheckpoint(note, verifier);
  } catch (err) {
    const kind: FindingKind = err instanceof CheckpointError ? 'signature' : 'unreachable';
    return {
      checkpoint: null,
      findings: [{ kind, message: `the latest checkpoint cannot be trusted: ${(err as Error).message}` }],
      state,
    };
  }
  const seen: SeenCheckpoint = { size: cp.size, rootHash: b64(cp.rootHash), note };
  const findings = forkFindings(state, seen);
  if (findings.length === 0) findings.push(...(await growthFindings(client, state, seen)));
  let entries: Uint8Array[] | null = null;
  if (opts.rederive) {
    const checked = await tileFindings(client, seen);
    entries = checked.entries;
    findings.push(...checked.findings);
  }
  for (const captureId of opts.captureIds ?? []) {
    const problem = await checkCapture(client, cp, captureId, entries).catch(
      (err: Error) => `cannot be checked: ${err.message}`,
    );
    if (problem) findings.push({ kind: 'missing-capture', message: `MISSING: capture ${captureId} ${problem}` });
  }
  const nextState =
    findings.length === 0 && !state.checkpoints.some((c) => c.size === seen.size)
      ? { checkpoints: [...state.checkpoints, seen] }
      : state;
  return { checkpoint: seen, findings, state: nextState };
}

/** Two signed checkpoints of one size with different roots. */
function forkFindings(state: MonitorState, seen: SeenCheckpoint): Finding[] {
  return state.checkpoints
    .filter((old) => old.size === seen.size && old.rootHash !== seen.rootHash)
    .map((old) => ({
      kind: 'fork' as const,
      message: `FORK: two signed checkpoints of tree size ${seen.size} have different roots (${old.rootHash} before, ${seen.rootHash} now)`,
    }));
}

/** Against the largest checkpoint seen before: the log went back, or the larger tree does not extend the smaller. */
async function growthFindings(client: LogClient, state: MonitorState, seen: SeenCheckpoint): Promise<Finding[]> {
  const largest = state.checkpoints.reduce<SeenCheckpoint | null>((a, c) => (!a || c.size > a.size ? c : a), null);
  if (!largest) return [];
  const findings: Finding[] = [];
  const [first, second] = seen.size >= largest.size ? [largest, seen] : [seen, largest];
  if (seen.size < largest.size)
    findings.push({
      kind: 'rollback',
      message: `the log went back: its checkpoint is of ${seen.size} leaves, but one of ${largest.size} was seen before`,
    });
  if (first.size === second.size) return findings;
  try {
    const proof = (await client.consistency(first.size, second.size)).map(fromB64);
    if (!verifyConsistency(first.size, second.size, fromB64(first.rootHash), fromB64(second.rootHash), proof)) {
      findings.push({
        kind: 'inconsistent',
        message: `INCONSISTENT: the tree of ${second.size} leaves is not an append-only extension of the tree of ${first.size} seen before (the consistency proof fails): leaves were changed or removed`,
      });
    }
  } catch (err) {
    findings.push({
      kind: 'inconsistent',
      message: `INCONSISTENT: the log gives no consistency proof from ${first.size} to ${second.size}: ${(err as Error).message}`,
    });
  }
  return findings;
}

/** The tree re-derived from the tiles must have the checkpoint's root and one leaf per capture; its entries, when read. */
async function tileFindings(
  client: LogClient,
  seen: SeenCheckpoint,
): Promise<{ entries: Uint8Array[] | null; findings: Finding[] }> {
  let derived: Awaited<ReturnType<typeof rederive>>;
  try {
    derived = await rederive(client, seen.size);
  } catch (err) {
    return {
      entries: null,
      findings: [{ kind: 'tiles', message: `the tiles cannot be read back: ${(err as Error).message}` }],
    };
  }
  const findings: Finding[] = [];
  if (derived.problem) findings.push({ kind: 'tiles', message: derived.problem });
  else if (b64(derived.root) !== seen.rootHash) {
    findings.push({
      kind: 'tiles',
      message: `the tiles do not re-derive the checkpoint: their root of ${seen.size} leaves is ${b64(derived.root)}, the checkpoint's ${seen.rootHash}`,
    });
  }
  findings.push(...secondBundleFindings(derived.entries));
  return { entries: derived.entries, findings };
}

/** One capture, one leaf: a second capture leaf for the same ID is a second bundle signed for it. */
function secondBundleFindings(entries: Uint8Array[]): Finding[] {
  const findings: Finding[] = [];
  const firstOf = new Map<string, number>();
  entries.forEach((e, i) => {
    let leaf;
    try {
      leaf = decodeLeaf(e);
    } catch {
      return;
    }
    if (leaf.kind !== 'capture') return;
    const first = firstOf.get(leaf.captureIdHash);
    if (first === undefined) firstOf.set(leaf.captureIdHash, i);
    else
      findings.push({
        kind: 'duplicate-capture',
        message: `SECOND BUNDLE: leaves ${first} and ${i} are two different bundles of one capture (captureIdHash ${leaf.captureIdHash})`,
      });
  });
  return findings;
}

/** The tree rebuilt from the level-0 tiles, each tile checked against the hashes of its entries bundle. */
async function rederive(
  client: LogClient,
  size: number,
): Promise<{ root: Uint8Array; entries: Uint8Array[]; problem: string | null }> {
  const tree = new MerkleTree();
  const entries: Uint8Array[] = [];
  let problem: string | null = null;
  for (const ref of tilesForSize(0, size)) {
    const tile = await client.tile(ref);
    if (tile.byteLength !== ref.width * HASH_SIZE)
      throw new Error(`tile 0/${ref.index} has ${tile.byteLength} bytes, not ${ref.width * HASH_SIZE}`);
    const bundle = await client.entries(ref.index, ref.width);
    if (bundle.length !== ref.width)
      throw new Error(`entries bundle ${ref.index} holds ${bundle.length} entries, not ${ref.width}`);
    for (let i = 0; i < ref.width; i++) {
      const h = tile.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE);
      if (!problem && !Buffer.from(leafHash(bundle[i]!)).equals(h))
        problem = `leaf ${ref.index * TILE_WIDTH + i}: the entries bundle and the hash tile disagree`;
      tree.appendLeafHash(h);
      entries.push(bundle[i]!);
    }
  }
  return { root: tree.root(), entries, problem };
}

/** null when the capture's leaf is in the checkpoint's tree; otherwise what is wrong. */
async function checkCapture(
  client: LogClient,
  cp: Checkpoint,
  captureId: string,
  entries: Uint8Array[] | null,
): Promise<string | null> {
  const proof = await client.inclusionByCapture(captureId, cp.size);
  if (!proof) return `has no leaf in the log of ${cp.size} leaves`;
  const index = proof.leafIndex;
  const data = entries
    ? entries[index]
    : (
        await client.entries(
          Math.floor(index / TILE_WIDTH),
          Math.min(TILE_WIDTH, cp.size - Math.floor(index / TILE_WIDTH) * TILE_WIDTH),
        )
      )[index % TILE_WIDTH];
  if (!data) return `is said to be leaf ${index}, which the log does not serve`;
  const leaf = decodeLeaf(data);
  if (leaf.kind !== 'capture' || leaf.captureIdHash !== captureIdHash(captureId))
    return `is said to be leaf ${index}, which is another record`;
  if (!verifyInclusion(index, cp.size, leafHash(data), proof.hashes.map(fromB64), cp.rootHash))
    return `has no valid inclusion proof for leaf ${index}`;
  return null;
}
