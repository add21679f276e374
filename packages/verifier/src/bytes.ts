/**
 * Byte helpers on WebCrypto and the standard globals only (no node: modules, no Buffer), so the same code
 * runs in Node ≥ 20 and in a browser.
 */

const subtle = (): SubtleCrypto => {
  const c = (globalThis as { crypto?: Crypto }).crypto;
  if (!c?.subtle) throw new Error('WebCrypto (globalThis.crypto.subtle) is not available');
  return c.subtle;
};

/** A copy as a plain ArrayBuffer: WebCrypto and pkijs want one, and a view's buffer may be larger. */
export function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

export async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await subtle().digest('SHA-256', toArrayBuffer(bytes)));
}

export function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

export function fromHex(text: string): Uint8Array {
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** `sha256:<hex>`, the form of WACZ resource hashes, `bundleHash` and `certificateHash`. */
export async function sha256Prefixed(bytes: Uint8Array): Promise<string> {
  return `sha256:${hex(await sha256(bytes))}`;
}

const PREFIXED_SHA256 = /^sha256:([0-9a-f]{64})$/;

/** The raw 32 bytes behind a `sha256:<hex>` string, or null if it is not one. */
export function digestBytesOf(prefixed: string): Uint8Array | null {
  const match = PREFIXED_SHA256.exec(prefixed);
  return match?.[1] ? fromHex(match[1]) : null;
}

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decodes standard padded base64; null when the text is not exactly that. */
export function fromBase64Strict(text: string): Uint8Array | null {
  if (!STRICT_BASE64.test(text)) return null;
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * A PDF's bytes as text, one UTF-16 code unit per byte (so a string index is a byte offset), by the platform's
 * native single-byte decoder: a MiB costs milliseconds where building the string in JavaScript costs hundreds. The
 * WHATWG label 'latin1' is windows-1252, which reads 0x80–0x9F as other characters in browsers (Node reads them as
 * ISO 8859-1); `latin1Bytes` maps either back, so text written back is byte for byte what was read.
 */
const singleByte = new TextDecoder('latin1');
export function latin1Text(bytes: Uint8Array): string {
  return singleByte.decode(bytes);
}

/** The byte each of 0x80–0x9F decodes from, by the character latin1Text makes of it. */
const HIGH_BYTES = new Map(
  [...singleByte.decode(Uint8Array.from({ length: 0x20 }, (_, i) => 0x80 + i))].map((c, i) => [
    c.charCodeAt(0),
    0x80 + i,
  ]),
);

/** The bytes of text made by latin1Text (or of plain ASCII): the inverse of latin1Text. */
export function latin1Bytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    out[i] = code < 0x80 ? code : (HIGH_BYTES.get(code) ?? code & 0xff);
  }
  return out;
}

/** The offset of the last occurrence of `needle` in `bytes` at or before `from`, or -1: a search on bytes, no text made. */
export function lastIndexOfBytes(bytes: Uint8Array, needle: Uint8Array, from = bytes.length - needle.length): number {
  const first = needle[0];
  if (first === undefined || from < 0) return -1;
  for (let at = bytes.lastIndexOf(first, from); at >= 0; at = at === 0 ? -1 : bytes.lastIndexOf(first, at - 1)) {
    let i = 1;
    while (i < needle.length && bytes[at + i] === needle[i]) i++;
    if (i === needle.length) return at;
  }
  return -1;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** keyId of a raw Ed25519 public key: the first 8 hex characters of its SHA-256 (spec 2.7). */
export async function keyIdOf(publicKey: Uint8Array): Promise<string> {
  return hex(await sha256(publicKey)).slice(0, 8);
}

/** Ed25519 with WebCrypto (Node ≥ 20, current Chromium); false for a key or signature it cannot use. */
export async function ed25519Verify(
  publicKey: Uint8Array,
  signature: Uint8Array,
  message: Uint8Array,
): Promise<boolean> {
  try {
    const key = await subtle().importKey('raw', toArrayBuffer(publicKey), { name: 'Ed25519' }, false, ['verify']);
    return await subtle().verify({ name: 'Ed25519' }, key, toArrayBuffer(signature), toArrayBuffer(message));
  } catch {
    return false;
  }
}
