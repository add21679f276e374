import type { CertificateFacts } from './certificate-pdf.js';

/**
 * "How to verify" on the certificate: the words and the command lines, drawn by the Verification section of
 * certificate-pdf.ts (text as a paragraph, commands in monospace, one line each, never re-wrapped by hand). Only
 * this file says what to run; the layout is certificate-pdf.ts's.
 */
export type InstructionBlock = { kind: 'text'; text: string } | { kind: 'commands'; lines: string[] };

export function verificationInstructions(f: CertificateFacts): InstructionBlock[] {
  const base = f.keysUrl.replace('/.well-known/signing-keys', '');
  const trust = `--keys-url ${f.keysUrl} --tsa-ca-url ${f.tsaCertificatesUrl}`;
  return [
    {
      kind: 'text',
      text:
        'Anyone can repeat the checks without trusting this service, with Node.js 20+ and curl, in an empty directory ' +
        '(no npm registry needed); exit status 0 means verified:',
    },
    {
      kind: 'commands',
      lines: [
        `curl -fsSL -o capture.wacz ${base}/v1/captures/${f.captureId}/artifacts/wacz`,
        `npx --yes ${base}/verifier/capture-ledger-verifier.tgz capture.wacz --certificate certificate.pdf ${trust}`,
      ],
    },
    {
      kind: 'text',
      text:
        `Or with plain node: download ${base}/verifier/capture-ledger-verify.mjs and run node capture-ledger-verify.mjs ` +
        'with the same arguments. This certificate itself is signed: a PDF signature (PAdES) that PDF readers show, and ' +
        'an Ed25519 signature with an RFC 3161 timestamp attached as certificate-signature.json.',
    },
  ];
}
