/**
 * An HTTPS site on 127.0.0.1 with a certificate made for the test (openssl, self-signed, SAN IP:127.0.0.1).
 * Chromium is told to trust exactly this key with --ignore-certificate-errors-spki-list=<spkiSha256> —
 * a test-only switch; the service never passes it.
 */
import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface HttpsFixture {
  origin: string;
  url(path: string): string;
  certPem: string;
  /** base64 SHA-256 of the certificate's SubjectPublicKeyInfo, for --ignore-certificate-errors-spki-list. */
  spkiSha256: string;
  close(): Promise<void>;
}

export const HTTPS_FIXTURE_TEXT = 'Served over TLS by the provenance fixture';

export async function startHttpsFixture(): Promise<HttpsFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'https-fixture-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=capture-ledger provenance fixture',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const key = readFileSync(join(dir, 'key.pem'), 'utf8');
    const certPem = readFileSync(join(dir, 'cert.pem'), 'utf8');
    const spki = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
    const sockets = new Set<Socket>();
    const server = https.createServer({ key, cert: certPem }, (req, res) => {
      if (req.url === '/page') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(`<!doctype html><html><head><title>TLS fixture</title></head><body style="margin:0;background:#fff">
<h1>${HTTPS_FIXTURE_TEXT}</h1><p style="height:3000px">tall content</p>
<script>setTimeout(function () { var d = document.createElement('div'); d.id = 'late'; d.textContent = 'late element'; document.body.prepend(d); }, 300);</script>
</body></html>`);
        return;
      }
      if (req.url === '/moved') {
        res.writeHead(302, { location: '/page' });
        res.end();
        return;
      }
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    });
    server.on('connection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      origin,
      url: (path) => origin + path,
      certPem,
      spkiSha256: createHash('sha256').update(spki).digest('base64'),
      close: () =>
        new Promise<void>((resolve) => {
          for (const s of sockets) s.destroy();
          server.close(() => resolve());
        }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
