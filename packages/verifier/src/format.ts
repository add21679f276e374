/**
 * What a verifier reads of a Capture Ledger bundle (the full layout is in the service's
 * src/archive/bundle-format.ts): a WACZ whose datapackage.json (RFC 8785 bytes) is hashed into `bundleHash`
 * and whose datapackage-digest.json carries the Ed25519 signature and, for v0.2.0, an RFC 3161 token.
 */
export const BUNDLE_VERSION_SIGNED = '0.1.0';
export const BUNDLE_VERSION_TIMESTAMPED = '0.2.0';
export type BundleVersion = typeof BUNDLE_VERSION_SIGNED | typeof BUNDLE_VERSION_TIMESTAMPED;

export const DATAPACKAGE_PATH = 'datapackage.json';
export const DIGEST_PATH = 'datapackage-digest.json';

export function isBundleVersion(value: unknown): value is BundleVersion {
  return value === BUNDLE_VERSION_SIGNED || value === BUNDLE_VERSION_TIMESTAMPED;
}

export type CheckStatus = 'pass' | 'fail' | 'skip';

export interface Check<Name extends string = string> {
  name: Name;
  status: CheckStatus;
  detail?: string;
}

/** One entry of GET /.well-known/signing-keys (spec 2.7, 4.10). */
export interface PublishedKey {
  keyId: string;
  publicKey: string;
  algorithm?: string;
  archivedAt?: string;
}

/** The trust a verification is given: published keys and TSA roots (never taken from the evidence itself). */
export interface TrustAnchors {
  keys: PublishedKey[];
  tsaCaCertsPem: string[];
  /**
   * CAs of a deployment's built-in local TSA (a subset of tsaCaCertsPem). A timestamp chaining to one of them
   * is valid but self-issued — not the independent third party a public TSA is — and says so.
   */
  selfIssuedTsaCaCertsPem?: string[];
  /** Verifier keys of transparency logs (`<origin>+<hex key hash>+<base64 key>`, GET /v1/log/key) trusted to sign checkpoints. */
  logKeys?: string[];
}

/** True only when no check failed (spec 2.6: pass or skip). */
export function verdict(checks: ReadonlyArray<Check>): boolean {
  return checks.every((check) => check.status !== 'fail');
}

export function pass<N extends string>(name: N, detail?: string): Check<N> {
  return detail === undefined ? { name, status: 'pass' } : { name, status: 'pass', detail };
}

export function fail<N extends string>(name: N, detail: string): Check<N> {
  return { name, status: 'fail', detail };
}

export function skip<N extends string>(name: N, because: string): Check<N> {
  return { name, status: 'skip', detail: `skipped: ${because}` };
}

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
