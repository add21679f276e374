import { createHash } from 'node:crypto';

/** Small byte helpers shared by the writer, signer and verifier. */

export function sha256(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(bytes).digest());
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** `sha256:<hex>`, the form used by WACZ resource hashes and by `bundleHash`. */
export function sha256Prefixed(bytes: Uint8Array): string {
  return `sha256:${sha256Hex(bytes)}`;
}

const PREFIXED_SHA256 = /^sha256:([0-9a-f]{64})$/;

/** The raw 32 bytes behind a `sha256:<hex>` string, or null if it is not one. */
export function digestBytesOf(prefixed: string): Uint8Array | null {
  const match = PREFIXED_SHA256.exec(prefixed);
  if (!match?.[1]) return null;
  return new Uint8Array(Buffer.from(match[1], 'hex'));
}

export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decodes standard padded base64; null when the text is not exactly that. */
export function fromBase64Strict(text: string): Uint8Array | null {
  if (!STRICT_BASE64.test(text)) return null;
  return new Uint8Array(Buffer.from(text, 'base64'));
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
