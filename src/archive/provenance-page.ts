/**
 * The readable form of a provenance record (docs/capturing.md, Provenance): plain HTML with no script and no outside asset, so it
 * reads the same inside the WACZ, offline, and when served by GET /v1/captures/{id}/provenance.
 */
import type { ProvenanceRecord, ProvenanceSignature } from './provenance-record.js';

const esc = (value: unknown): string => String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function provenancePage(record: ProvenanceRecord, signature?: ProvenanceSignature): string {
  const row = (label: string, value: unknown) => `<tr><th>${esc(label)}</th><td>${esc(value)}</td></tr>`;
  const hops = record.redirectChain
    .map(
      (h) =>
        `<li><code>${esc(h.url)}</code> → ${esc(h.status ?? '?')}${h.location ? ` (Location: <code>${esc(h.location)}</code>)` : ''}</li>`,
    )
    .join('');
  const connections = record.connections
    .map((c) => {
      const tls = c.tls
        ? `${esc(c.tls.protocol)}${c.tls.alpn ? ` / ${esc(c.tls.alpn)}` : ''}<br>subject ${esc(c.tls.subject)}<br>issuer ${esc(c.tls.issuer)}<br>valid ${esc(c.tls.validFrom)} – ${esc(c.tls.validTo)}<br>SHA-256 ${esc(c.tls.fingerprint256)}<details><summary>Certificate chain (${c.tls.certificateChainPem.length})</summary><pre>${esc(c.tls.certificateChainPem.join(''))}</pre></details>`
        : c.via === 'tunnel'
          ? `no TLS seen${c.tlsError ? `: ${esc(c.tlsError)}` : ''}`
          : 'plain HTTP';
      return `<tr><td>${esc(c.host)}:${esc(c.port)}</td><td>${esc(c.address)}</td><td>${esc(c.connectedAt)}</td><td>${tls}</td></tr>`;
    })
    .join('');
  const vantage = record.vantage;
  const exit = vantage?.exit;
  const dns = (record.dns ?? [])
    .map((d) => {
      const answer =
        d.source === 'resolver'
          ? `${esc(d.type)} ${d.addresses.map((a) => `${esc(a.address)} (TTL ${esc(a.ttl)} s)`).join(', ') || esc(d.error ?? 'no records')}`
          : d.source === 'ip-literal'
            ? 'an IP address: no resolver asked'
            : 'localhost: no resolver asked';
      const by = d.source === 'resolver' ? `${esc(d.resolver.join(', '))} at ${esc(d.answeredAt)}` : '';
      return `<tr><td>${esc(d.name)}</td><td>${answer}</td><td>${by}</td></tr>`;
    })
    .join('');
  const artifacts = record.artifacts
    .map(
      (a) =>
        `<tr><td>${esc(a.name)}</td><td>${esc(a.mediaType)}</td><td>${esc(a.bytes)}</td><td><code>${esc(a.hash)}</code></td></tr>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Provenance of capture ${esc(record.captureId)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:64rem;margin:2rem auto;padding:0 1rem}th,td{text-align:left;vertical-align:top;padding:.3rem .5rem;border-bottom:1px solid #ddd}table{border-collapse:collapse;width:100%}code,pre{font-size:.8rem;word-break:break-all;white-space:pre-wrap}</style>
</head><body>
<h1>Provenance of capture <code>${esc(record.captureId)}</code></h1>
<table>
${row('Requested URL', record.requestedUrl)}
${row('Final URL', record.finalUrl)}
${row('Main document HTTP status', record.mainDocumentStatus)}
${row('Render quality', record.renderQuality)}
${row('Submitted', record.submittedAt)}
${row('Browser started', record.startedAt)}
${row('Completed', record.completedAt)}
${row('Browser', `${record.browser.name} ${record.browser.version}`)}
${record.worker ? row('Rendered by worker', record.worker) : ''}
${row('User agent', record.browser.userAgent)}
${row('Viewport', `${record.viewport.width}×${record.viewport.height} CSS px at ${record.viewport.deviceScaleFactor}×`)}
${row('Capture settings', JSON.stringify(record.captureSettings))}
${record.signing ? row('Signing key', `${record.signing.algorithm} keyId ${record.signing.keyId} (signature in ${record.signing.signatureIn})`) : row('Signing', 'no signed bundle')}
${signature ? row('Bundle hash', signature.bundleHash) + row('Signed at', signature.signedAt) + row('Timestamp', signature.timestamp ? `${signature.timestamp.genTime} by ${signature.timestamp.tsa}` : 'none') : ''}
</table>
${
  vantage && exit
    ? `<h2>Vantage point</h2><table>${row('Vantage', `${vantage.id} — ${vantage.label} (${vantage.region})`)}${row(
        'Exit address',
        exit.observedAddress
          ? `${exit.observedAddress}, as seen by ${exit.probeUrl} at ${exit.observedAt}`
          : 'not observed (the vantage has no exit probe)',
      )}${exit.expectedAddress ? row('Expected exit', exit.expectedAddress) : ''}</table>`
    : ''
}
<h2>Redirect chain</h2><ol>${hops}</ol>
<h2>Connections made by the egress proxy</h2>
<table><thead><tr><th>Host</th><th>Connected address</th><th>At</th><th>TLS as seen at connect time</th></tr></thead><tbody>${connections}</tbody></table>
${record.dns ? `<h2>DNS answers</h2>\n<table><thead><tr><th>Host</th><th>Answer</th><th>Resolver</th></tr></thead><tbody>${dns}</tbody></table>` : ''}
<h2>Artifacts</h2>
<table><thead><tr><th>Name</th><th>Type</th><th>Bytes</th><th>Hash</th></tr></thead><tbody>${artifacts}</tbody></table>
${record.notes.length ? `<h2>Notes</h2><ul>${record.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}
</body></html>
`;
}
