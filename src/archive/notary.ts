import type { BundleVersion, SignedData, TimestampInfo } from './bundle-format.js';
import { signBundleHash } from './bundle-signer.js';
import { pdfSigningIdentity, type PdfSigningIdentity } from './pdf-signer.js';
import { NotaryRefusal } from './errors.js';
import type { SigningKey } from './signing-key.js';
import type { Timestamper, TimestampResult } from './tsa-client.js';
import {
  certificateMessage,
  digestBytesOf,
  fromBase64Strict,
  toBase64,
  type CertificateEnvelope,
} from '../../packages/verifier/src/index.js';

/**
 * What a bundle needs from whoever holds the signing key: the key id and whether bundles are time-stamped
 * (both are stated in datapackage.json before it is hashed), an RFC 3161 timestamp of the bundle hash, and
 * the Ed25519 signature over it. The browser worker never holds the key: in a deployment it reaches the
 * signer role through `remoteNotary` (notary-service.ts), so a compromised renderer cannot take the key
 * away — at most it can ask for signatures while it runs, each of which names the capture it was for.
 */
export interface Notary {
  /** null: this deployment makes no bundles (SIGNING_KEY=none at the signer). */
  describe(): Promise<NotaryDescription | null>;
  timestamp(digest: Uint8Array): Promise<TimestampResult>;
  sign(request: SignRequest): Promise<SignedData>;
  /**
   * Signs (and, when this notary time-stamps, time-stamps) a capture certificate's hash: the Ed25519 signature is
   * over certificateMessage(…), whose context string keeps it from ever passing for a bundle signature.
   */
  certify(request: CertifyRequest): Promise<CertificateAttestation>;
  /**
   * The CMS SignedData of a certificate PDF's standard signature (PAdES, packages/verifier/src/pdf-signature.ts):
   * by the PDF-signing key (pdf-signer.ts), with its certificate and, when this notary time-stamps, an RFC 3161
   * signature-time-stamp.
   */
  signPdf(request: SignPdfRequest): Promise<{ cms: string }>;
}

export interface SignPdfRequest {
  captureId: string;
  /** base64 SHA-256 of the PDF's signed byte range. */
  digest: string;
}

export interface CertifyRequest {
  captureId: string;
  bundleHash: string;
  /** `sha256:<hex>` of the certificate PDF as rendered (packages/verifier/src/certificate.ts). */
  certificateHash: string;
}

export type CertificateAttestation = Pick<CertificateEnvelope, 'signature' | 'timestamp'>;

export interface NotaryDescription {
  keyId: string;
  /** Bundles are time-stamped (v0.2.0); false: signed only (v0.1.0). */
  timestamps: boolean;
  /** The key certificates' PDF signatures are made with: base64 DER certificate, `sha256:` of its SubjectPublicKeyInfo. */
  pdfSigning?: { certificate: string; fingerprint: string };
}

export interface SignRequest {
  /** The capture the bundle is for; the signer logs it beside the hash it signed. */
  captureId: string;
  bundleHash: string;
  /** The keyId datapackage.json states; the signer refuses when its key is another (rotated meanwhile). */
  keyId: string;
  version: BundleVersion;
  timestamp?: TimestampInfo;
}

export { NotaryRefusal };

/** The notary of a process that holds the key: the signer role, and tools and tests that sign directly. */
export function localNotary(
  signingKey: SigningKey,
  opts: { timestamper?: Timestamper | undefined; now?: () => Date } = {},
): Notary {
  const now = opts.now ?? (() => new Date());
  let pdfIdentity: Promise<PdfSigningIdentity> | null = null;
  const pdfSigner = () => {
    pdfIdentity ??= pdfSigningIdentity(signingKey, 'Capture Ledger');
    return pdfIdentity;
  };
  return {
    async describe() {
      const pdf = await pdfSigner();
      return {
        keyId: signingKey.keyId,
        timestamps: Boolean(opts.timestamper),
        pdfSigning: { certificate: pdf.certificateBase64, fingerprint: pdf.fingerprint },
      };
    },
    async signPdf({ digest }) {
      const bytes = fromBase64Strict(digest);
      if (bytes?.length !== 32)
        throw new NotaryRefusal('bad-request', 'digest must be a base64 SHA-256 digest (32 bytes)');
      return { cms: toBase64(await (await pdfSigner()).signCms(bytes, opts.timestamper)) };
    },
    timestamp(digest) {
      if (!opts.timestamper)
        return Promise.reject(new NotaryRefusal('bad-request', 'this notary does not time-stamp bundles'));
      return opts.timestamper.timestamp(digest);
    },
    async sign({ bundleHash, keyId, version, timestamp }) {
      if (keyId !== signingKey.keyId) {
        throw new NotaryRefusal(
          'key-changed',
          `the bundle names key ${keyId}, but the signing key is now ${signingKey.keyId}; build it again`,
        );
      }
      return signBundleHash(bundleHash, signingKey, { signedAt: now(), version, ...(timestamp ? { timestamp } : {}) });
    },
    async certify({ captureId, bundleHash, certificateHash }) {
      const digest = digestBytesOf(certificateHash);
      if (!digest) throw new NotaryRefusal('bad-request', 'certificateHash must be sha256:<64 hex>');
      const signature = toBase64(signingKey.sign(certificateMessage(captureId, bundleHash, certificateHash)));
      const stamped = opts.timestamper ? await opts.timestamper.timestamp(digest) : null;
      return {
        signature: {
          algorithm: 'Ed25519',
          keyId: signingKey.keyId,
          publicKey: signingKey.publicKeyBase64,
          signature,
          signedAt: now().toISOString(),
        },
        timestamp: stamped ? { token: toBase64(stamped.token), genTime: stamped.genTime, tsa: stamped.tsa } : null,
      };
    },
  };
}
