import { bytesEqual, ed25519Verify, fromBase64Strict, fromHex, hex, sha256, utf8 } from './bytes.js';
import { fail, isObject, pass, skip, type Check } from './format.js';

/**
 * The transparency-log proof a certificate carries (the service's docs/transparency.md): the bundle's leaf in the
 * public Merkle log, the signed checkpoint (C2SP tlog-checkpoint in a C2SP signed note) of the first published
 * tree that contains it, and the RFC 9162 inclusion proof from the leaf to that checkpoint's root. Pure and
 * WebCrypto-only, like the rest of the package, so a court checks inclusion with the certificate alone — and the
 * log's verifier key, which (like every trust anchor here) the caller gives, never the evidence.
 */
export interface CertificateTransparency {
  /** The leaf's index in the log. */
  leafIndex: number;
  /** The leaf data as logged: RFC 8785 JSON of {bundleHash, captureIdHash, genTime, keyId, kind:"capture", v:1}. */
  leaf: string;
  /** The signed checkpoint note of the first published checkpoint whose tree holds the leaf. */
  checkpoint: string;
  /** The checkpoint's RFC 3161 token (over SHA-256 of the note's bytes), as published beside it; null when it has none. */
  checkpointTimestamp: { token: string; genTime: string; tsa: string } | null;
  /** Inclusion proof of leafIndex in the checkpoint's tree: hex SHA-256 hashes, from the leaf up (RFC 9162 2.1.3). */
  inclusionProof: string[];
  /** The log's verifier key as the service published it (`<origin>+<hex key hash>+<base64 key>`); informational. */
  logKey: string;
}

const SIG_PREFIX = '\u2014 ';
const ED25519_TYPE = 0x01;

async function sha256Of(...parts: Uint8Array[]): Promise<Uint8Array> {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return sha256(all);
}

/** RFC 9162 2.1.3.2: does `proof` lead from `leafHash` at `index` to `root` of a tree of `size` leaves? */
export async function verifyInclusionProof(
  index: number,
  size: number,
  leafHash: Uint8Array,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): Promise<boolean> {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = await sha256Of(Uint8Array.of(1), p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = await sha256Of(Uint8Array.of(1), r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && bytesEqual(r, root);
}

export interface NoteKey {
  name: string;
  keyHash: Uint8Array;
  publicKey: Uint8Array;
}

/** A verifier key `<name>+<hex key hash>+<base64(0x01 ‖ Ed25519 key)>` (the Go note package's form); throws saying what is wrong. */
export async function parseNoteKey(text: string): Promise<NoteKey> {
  const m = /^([^+\s]+)\+([0-9a-f]{8})\+(\S+)$/.exec(text.trim());
  if (!m) throw new Error('a log verifier key is <name>+<hex key hash>+<base64 key>');
  const [, name, hashHex, keyB64] = m as unknown as [string, string, string, string];
  const key = fromBase64Strict(keyB64);
  if (key?.length !== 33 || key[0] !== ED25519_TYPE) throw new Error('the log verifier key is not an Ed25519 note key');
  const publicKey = key.subarray(1);
  const keyHash = await noteKeyHash(name, publicKey);
  if (hex(keyHash) !== hashHex) throw new Error('the log verifier key hash does not match its name and key');
  return { name, keyHash, publicKey };
}

async function noteKeyHash(name: string, publicKey: Uint8Array): Promise<Uint8Array> {
  return (await sha256Of(utf8(`${name}\n`), Uint8Array.of(ED25519_TYPE), publicKey)).subarray(0, 4);
}

export interface OpenedCheckpoint {
  origin: string;
  size: number;
  rootHash: Uint8Array;
}

/** The checkpoint's text (origin, size, root), without checking any signature; throws when it is malformed. */
export function parseCheckpointNote(note: string): OpenedCheckpoint & { body: string; signatures: string[] } {
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n'))
    throw new Error('the checkpoint is not a signed note (no blank line before the signatures)');
  const body = note.slice(0, split + 1);
  const lines = body.slice(0, -1).split('\n');
  const [origin, sizeText, rootText] = lines;
  if (lines.length < 3 || !origin || !sizeText || !rootText)
    throw new Error('the checkpoint has no origin, tree size and root hash');
  if (!/^(0|[1-9]\d*)$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText)))
    throw new Error(`the checkpoint's tree size ${JSON.stringify(sizeText)} is not a decimal number`);
  const rootHash = fromBase64Strict(rootText);
  if (rootHash?.length !== 32) throw new Error("the checkpoint's root hash is not base64 of 32 bytes");
  return { origin, size: Number(sizeText), rootHash, body, signatures: note.slice(split + 2, -1).split('\n') };
}

/** Is the note signed by `key` (a signature line of its name and key hash that verifies)? Other keys' lines (witnesses) are ignored. */
export async function noteSignedBy(note: string, key: NoteKey): Promise<boolean> {
  const { body, signatures, origin } = parseCheckpointNote(note);
  if (origin !== key.name) return false;
  for (const line of signatures) {
    if (!line.startsWith(SIG_PREFIX)) continue;
    const [name, b64] = line.slice(SIG_PREFIX.length).split(' ');
    if (name !== key.name || !b64) continue;
    const raw = fromBase64Strict(b64);
    if (raw?.length !== 68 || !bytesEqual(raw.subarray(0, 4), key.keyHash)) continue;
    if (await ed25519Verify(key.publicKey, raw.subarray(4), utf8(body))) return true;
  }
  return false;
}

/** RFC 8785 for the JSON values used here (objects, arrays, strings, safe integers, null). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The digest a certificate's signed PDF states (Info key CaptureLedgerTransparency) for the transparency block of
 * its envelope: `sha256:` + hex of the block's RFC 8785 JSON. It binds the block to the signed document, so the
 * proof can neither be removed from nor swapped in a signed certificate.
 */
export async function transparencyDigest(block: CertificateTransparency): Promise<string> {
  return `sha256:${hex(await sha256(utf8(canonicalJson(block))))}`;
}

/** The capture leaf a certificate must be logged as: its captureId hashed, its bundleHash. */
export interface CertifiedCapture {
  captureId: string;
  bundleHash: string;
}

/**
 * The `transparency` check of a certificate: the embedded leaf is this capture's (SHA-256 of its captureId, its
 * bundleHash), the inclusion proof leads from it to the embedded checkpoint's root, and the checkpoint is signed
 * by one of the log keys the caller trusts. `fail` when any of that is false; `skip` when the proof holds but no
 * log key was given, so who signed the checkpoint is unknown.
 */
export async function checkCertificateTransparency(
  block: unknown,
  capture: CertifiedCapture,
  logKeys: readonly string[],
): Promise<Check<'transparency'>> {
  if (!isObject(block)) return fail('transparency', 'the transparency block of the envelope is not an object');
  const { leafIndex, leaf, checkpoint, inclusionProof } = block;
  if (
    typeof leafIndex !== 'number' ||
    typeof leaf !== 'string' ||
    typeof checkpoint !== 'string' ||
    !Array.isArray(inclusionProof)
  ) {
    return fail('transparency', 'the transparency block needs leafIndex, leaf, checkpoint and inclusionProof');
  }
  let record: unknown;
  try {
    record = JSON.parse(leaf);
  } catch {
    return fail('transparency', 'the logged leaf is not JSON');
  }
  const expectedIdHash = hex(await sha256(utf8(capture.captureId)));
  if (!isObject(record) || record['kind'] !== 'capture' || record['captureIdHash'] !== expectedIdHash) {
    return fail(
      'transparency',
      `the logged leaf is not the leaf of capture ${capture.captureId} (its captureIdHash must be ${expectedIdHash})`,
    );
  }
  if (record['bundleHash'] !== capture.bundleHash) {
    return fail(
      'transparency',
      `the logged leaf names bundle ${String(record['bundleHash'])}, the certificate ${capture.bundleHash}`,
    );
  }
  if (canonicalJson(record) !== leaf) return fail('transparency', 'the logged leaf is not RFC 8785 canonical JSON');
  let cp;
  try {
    cp = parseCheckpointNote(checkpoint);
  } catch (error) {
    return fail('transparency', (error as Error).message);
  }
  const proof = inclusionProof.map((h) => (typeof h === 'string' && /^[0-9a-f]{64}$/.test(h) ? fromHex(h) : null));
  if (proof.some((h) => h === null))
    return fail('transparency', 'the inclusion proof holds a value that is not a hex SHA-256 hash');
  const leafHash = await sha256Of(Uint8Array.of(0), utf8(leaf));
  if (!(await verifyInclusionProof(leafIndex, cp.size, leafHash, proof as Uint8Array[], cp.rootHash))) {
    return fail(
      'transparency',
      `the inclusion proof does not lead from leaf ${leafIndex} to the root of the checkpoint's tree of ${cp.size}`,
    );
  }
  const included = `leaf ${leafIndex} is included in the tree of ${cp.size} leaves of ${cp.origin}`;
  if (logKeys.length === 0)
    return skip(
      'transparency',
      `${included}, but no log key was given to check who signed that checkpoint (--log-key)`,
    );
  for (const text of logKeys) {
    const key = await parseNoteKey(text);
    if (await noteSignedBy(checkpoint, key))
      return pass(
        'transparency',
        `${included}, whose checkpoint is signed by the log key ${key.name}+${hex(key.keyHash)}`,
      );
  }
  return fail('transparency', `${included}, but the checkpoint is not signed by the log key given`);
}

/** What a log answers for a bundle (GET <log>/checkpoint, then GET <log>/proof/inclusion?captureId=&treeSize=). */
export interface BundleInclusion {
  checkpoint: string;
  leafIndex: number;
  /** Base64 hashes, leaf to root, as the log serves them. */
  inclusionProof: string[];
}

/**
 * Fetches a bundle's inclusion proof from a deployment's log (`logUrl` = https://host/v1/log): the latest
 * checkpoint and the proof of the capture's leaf in its tree. Nothing fetched is trusted (checkBundleInclusion
 * checks it); null when the log has no leaf for the capture.
 */
export async function fetchBundleInclusion(
  logUrl: string,
  captureId: string,
  doFetch: typeof globalThis.fetch = globalThis.fetch,
): Promise<BundleInclusion | null> {
  const base = logUrl.replace(/\/+$/, '');
  const answer = await doFetch(`${base}/checkpoint`, { headers: { accept: 'text/plain' } });
  if (!answer.ok) throw new Error(`${base}/checkpoint answered HTTP ${answer.status}`);
  const checkpoint = await answer.text();
  const size = parseCheckpointNote(checkpoint).size;
  const url = `${base}/proof/inclusion?captureId=${encodeURIComponent(captureId)}&treeSize=${size}`;
  const proof = await doFetch(url, { headers: { accept: 'application/json' } });
  if (proof.status === 404) return null;
  if (!proof.ok) throw new Error(`${url} answered HTTP ${proof.status}`);
  const body = (await proof.json()) as { leafIndex?: unknown; hashes?: unknown };
  if (typeof body.leafIndex !== 'number' || !Array.isArray(body.hashes)) throw new Error(`${url} is not a proof`);
  return { checkpoint, leafIndex: body.leafIndex, inclusionProof: body.hashes.map(String) };
}

/** The facts of a verified bundle its log leaf is made of (the log's capture leaf, src/transparency/leaf.ts). */
export interface BundleLeafFacts {
  captureId: string;
  bundleHash: string;
  keyId: string;
  genTime: string | null;
}

/**
 * A bundle's `transparency` check: its leaf — rebuilt from the bundle's own statements, never taken from the log —
 * is included by the proof in the tree of a checkpoint signed by one of `logKeys`.
 */
export async function checkBundleInclusion(
  facts: BundleLeafFacts,
  inclusion: BundleInclusion | null,
  logKeys: readonly string[],
): Promise<Check<'transparency'>> {
  if (!inclusion) return fail('transparency', `the log has no leaf for capture ${facts.captureId} (yet)`);
  const leaf = canonicalJson({
    bundleHash: facts.bundleHash,
    captureIdHash: hex(await sha256(utf8(facts.captureId))),
    genTime: facts.genTime,
    keyId: facts.keyId,
    kind: 'capture',
    v: 1,
  });
  const proof = inclusion.inclusionProof.map((h) => fromBase64Strict(h));
  if (proof.some((h) => h?.length !== 32))
    return fail('transparency', 'the inclusion proof holds a value that is not base64 of a SHA-256 hash');
  let cp;
  try {
    cp = parseCheckpointNote(inclusion.checkpoint);
  } catch (error) {
    return fail('transparency', (error as Error).message);
  }
  const leafHash = await sha256Of(Uint8Array.of(0), utf8(leaf));
  if (!(await verifyInclusionProof(inclusion.leafIndex, cp.size, leafHash, proof as Uint8Array[], cp.rootHash)))
    return fail(
      'transparency',
      `the bundle's leaf is not at index ${inclusion.leafIndex} of the checkpoint's tree of ${cp.size} (another leaf is there, or the proof is wrong)`,
    );
  const included = `leaf ${inclusion.leafIndex} is included in the tree of ${cp.size} leaves of ${cp.origin}`;
  for (const text of logKeys) {
    const key = await parseNoteKey(text);
    if (await noteSignedBy(inclusion.checkpoint, key))
      return pass(
        'transparency',
        `${included}, whose checkpoint is signed by the log key ${key.name}+${hex(key.keyHash)}`,
      );
  }
  return fail('transparency', `${included}, but the checkpoint is not signed by the log key given`);
}
