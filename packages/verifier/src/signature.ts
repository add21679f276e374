import { bytesEqual, ed25519Verify, fromBase64Strict, keyIdOf } from './bytes.js';
import { fail, pass, type Check, type PublishedKey } from './format.js';

/**
 * An Ed25519 signature checked with the PUBLISHED key named by keyId: a key found only in the evidence is
 * never trusted, and an unknown keyId fails. `embeddedPublicKey` (informational in the evidence) must be
 * that same key when present.
 */
export async function checkPublishedSignature<N extends string>(
  name: N,
  input: { keyId: unknown; signature: unknown; embeddedPublicKey: unknown; message: Uint8Array; algorithm?: unknown },
  keys: PublishedKey[],
): Promise<Check<N>> {
  const { keyId } = input;
  if (input.algorithm !== undefined && input.algorithm !== 'Ed25519')
    return fail(name, `unsupported signature algorithm ${String(input.algorithm)}`);
  if (typeof keyId !== 'string' || keyId === '') return fail(name, 'the signature names no keyId');
  const published = keys.find((key) => key.keyId === keyId);
  if (!published) {
    return fail(
      name,
      keys.length === 0
        ? 'no published signing keys were given'
        : `keyId ${keyId} is not one of the published signing keys`,
    );
  }
  if (published.algorithm !== undefined && published.algorithm !== 'Ed25519')
    return fail(name, `published key ${keyId} is ${published.algorithm}, not Ed25519`);
  const publicKey = fromBase64Strict(published.publicKey);
  if (publicKey?.byteLength !== 32) return fail(name, `published key ${keyId} is not base64 of a 32-byte Ed25519 key`);
  if ((await keyIdOf(publicKey)) !== keyId) return fail(name, `published key ${keyId} does not hash to that keyId`);
  if (input.embeddedPublicKey !== undefined) {
    const embedded = typeof input.embeddedPublicKey === 'string' ? fromBase64Strict(input.embeddedPublicKey) : null;
    if (!embedded || !bytesEqual(embedded, publicKey))
      return fail(name, `the public key in the evidence is not published key ${keyId}`);
  }
  const signature = typeof input.signature === 'string' ? fromBase64Strict(input.signature) : null;
  if (signature?.byteLength !== 64) return fail(name, 'the signature is not base64 of a 64-byte Ed25519 signature');
  if (!(await ed25519Verify(publicKey, signature, input.message)))
    return fail(name, `Ed25519 signature does not verify with published key ${keyId}`);
  return pass(name, `Ed25519 signature by published key ${keyId}`);
}
