import canonicalize from 'canonicalize';

/**
 * RFC 8785 (JCS) canonical JSON. datapackage.json is written with these exact bytes so that
 * `bundleHash` can be recomputed by anyone (DESIGN decision 7).
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) {
    throw new TypeError('value has no JSON representation');
  }
  return text;
}

/** UTF-8 bytes of the RFC 8785 serialisation of `value`. */
export function canonicalJsonBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(canonicalJson(value));
}
