import type { CertificateFacts } from './certificate-pdf.js';

/**
 * "How to verify" on the certificate: the words and the command lines, drawn by the Verification section of
 * certificate-pdf.ts (text as a paragraph, commands in monospace, one line each, never re-wrapped by hand). Only
 * this file says what to run; the layout is certificate-pdf.ts's.
 */
export type InstructionBlock = { kind: 'text'; text: string } | { kind: 'commands'; lines: string[] };

export function verificationInstructions(f: CertificateFacts): InstructionBlock[] {
  return [
    {
      kind: 'text',
      text:
        'Anyone can repeat the checks without this service: npx @capture-ledger/verifier capture.wacz (or this certificate.pdf) ' +
        `--keys-url ${f.keysUrl} --tsa-ca-url ${f.tsaCertificatesUrl}. This certificate itself is signed: its Ed25519 signature and ` +
        'RFC 3161 timestamp are attached to this PDF as certificate-signature.json.',
    },
  ];
}
