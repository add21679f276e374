import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * A real HTTPS webhook receiver on 127.0.0.1 (spec 6) with a certificate from a CA made here with openssl, which
 * the service trusts through WEBHOOK_CA_CERTS, and a signature check written from the spec text alone (spec 6.5).
 */

const run = promisify(execFile);

// ---- a CA and a server certificate for 127.0.0.1 -----------------------------------------------------

export interface Pki {
  dir: string;
  caPath: string;
  key: string;
  cert: string;
}

export async function makePki(): Promise<Pki> {
  const dir = await mkdtemp(join(tmpdir(), 'cl-webhook-pki-'));
  const p = (f: string) => join(dir, f);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await run('openssl', [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    p('ca.key'),
    '-out',
    p('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=Webhook Test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await run('openssl', ['req', ...ec, '-keyout', p('leaf.key'), '-out', p('leaf.csr'), '-subj', '/CN=127.0.0.1']);
  await writeFile(
    p('leaf.ext'),
    'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
  );
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    p('leaf.csr'),
    '-CA',
    p('ca.pem'),
    '-CAkey',
    p('ca.key'),
    '-CAcreateserial',
    '-out',
    p('leaf.pem'),
    '-days',
    '2',
    '-extfile',
    p('leaf.ext'),
  ]);
  return {
    dir,
    caPath: p('ca.pem'),
    key: await readFile(p('leaf.key'), 'utf8'),
    cert: await readFile(p('leaf.pem'), 'utf8'),
  };
}

// ---- the receiver ----------------------------------------------------------------------------------

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: any;
  at: number;
}

/** HTTPS receiver: each path answers a script of statuses (the last one repeats; default 200). */
export async function startReceiver(pki: Pki) {
  const received: Received[] = [];
  const scripts = new Map<string, number[]>();
  const server = https.createServer({ key: pki.key, cert: pki.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const raw = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = undefined;
      }
      received.push({ path, headers: req.headers, raw, body, at: Date.now() });
      const script = scripts.get(path) ?? [200];
      const status = script.length > 1 ? script.shift()! : script[0]!;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : `nope ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: (path: string) => `https://127.0.0.1:${port}${path}`,
    script: (path: string, statuses: number[]) => scripts.set(path, [...statuses]),
    at: (path: string) => received.filter((r) => r.path === path),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

// ---- independent signature check (spec 6.5) ---------------------------------------------------------

/** Written from the spec text, not from our module: HMAC-SHA256(hex-decoded secret after svcsec_, "{t}.{raw body}"). */
export function assertSigned(secret: string, r: Received): void {
  const header = String(r.headers['x-svc-signature-256'] ?? '');
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  assert.ok(m, `X-SVC-Signature-256 is t=<ts>,v1=<hex>: ${header}`);
  const t = m[1]!;
  assert.equal(r.headers['x-svc-timestamp'], t, 'X-SVC-Timestamp is the signed timestamp');
  assert.ok(Math.abs(Date.now() / 1000 - Number(t)) <= 300, 'fresh within 300 s');
  assert.ok(secret.startsWith('svcsec_'));
  const key = Buffer.from(secret.slice('svcsec_'.length), 'hex');
  assert.equal(key.length, 32);
  const expected = createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${t}.`, 'utf8'), r.raw]))
    .digest();
  const given = Buffer.from(m[2]!, 'hex');
  assert.ok(given.length === expected.length && timingSafeEqual(given, expected), 'HMAC matches');
  // The whole secret string is not the key.
  const wrong = createHmac('sha256', secret).update(`${t}.`).update(r.raw).digest();
  assert.equal(timingSafeEqual(given, wrong), false);
}
