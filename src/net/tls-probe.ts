/**
 * What the server at a pinned address presents for a TLS name (docs/capturing.md, Provenance).
 *
 * Chromium's TLS runs end to end through the proxy's CONNECT tunnel, and TLS 1.3 encrypts the certificate
 * message, so the proxy cannot read the certificate from the tunnelled bytes. It asks for it itself: one
 * probe handshake to the same checked address, port and SNI that Chromium's tunnel went to, at the time
 * of that connection. (CDP's securityDetails would show what Chromium validated but not the chain's PEM
 * nor the connected address, which through a proxy is the proxy's own; the probe gives both sides of
 * "who answered at that address".) The probe never trusts or rejects anything: it records.
 */
import net from 'node:net';
import tls from 'node:tls';

export interface TlsObservation {
  /** e.g. 'TLSv1.3'. */
  protocol: string;
  /** ALPN the server chose for the probe (h2, http/1.1), or null. */
  alpn: string | null;
  /** The server's certificate chain as presented, leaf first, PEM. */
  certificateChainPem: string[];
  /** Leaf subject and issuer (RFC 2253-like), for readers who do not parse PEM. */
  subject: string;
  issuer: string;
  validFrom: string;
  validTo: string;
  /** SHA-256 fingerprint of the leaf certificate (hex with colons, as openssl prints it). */
  fingerprint256: string;
}

export async function probeTls(
  address: string,
  port: number,
  serverName: string,
  timeoutMs = 5000,
  /** A connection to `address`:`port` already open (a tunnel through a vantage's upstream proxy); default: one opened here. */
  through?: net.Socket,
): Promise<TlsObservation> {
  return new Promise((resolve, reject) => {
    through?.resume();
    const socket = tls.connect({
      ...(through ? { socket: through } : { host: address, port }),
      // SNI must be a name, never an IP literal (RFC 6066 3).
      ...(net.isIP(serverName) ? {} : { servername: serverName }),
      rejectUnauthorized: false,
      ALPNProtocols: ['h2', 'http/1.1'],
    });
    const timer = setTimeout(() => socket.destroy(new Error(`TLS probe timed out after ${timeoutMs} ms`)), timeoutMs);
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      try {
        const leaf = socket.getPeerCertificate(true);
        const observation: TlsObservation = {
          protocol: socket.getProtocol() ?? 'unknown',
          alpn: socket.alpnProtocol || null,
          certificateChainPem: chainPem(leaf),
          subject: distinguishedName(leaf.subject),
          issuer: distinguishedName(leaf.issuer),
          validFrom: new Date(leaf.valid_from).toISOString(),
          validTo: new Date(leaf.valid_to).toISOString(),
          fingerprint256: leaf.fingerprint256,
        };
        resolve(observation);
      } catch (error) {
        reject(error);
      } finally {
        socket.destroy();
      }
    });
  });
}

/** Leaf first, following issuerCertificate until the self-signed root (which points at itself). */
function chainPem(leaf: tls.DetailedPeerCertificate): string[] {
  const pems: string[] = [];
  const seen = new Set<string>();
  let cert: tls.DetailedPeerCertificate | undefined = leaf;
  while (cert?.raw && !seen.has(cert.fingerprint256)) {
    seen.add(cert.fingerprint256);
    pems.push(toPem(cert.raw));
    cert = cert.issuerCertificate;
  }
  return pems;
}

function toPem(der: Buffer): string {
  const body = der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`;
}

function distinguishedName(name: tls.Certificate | undefined): string {
  if (!name) return '';
  return Object.entries(name)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : String(v)}`)
    .join(', ');
}
