/**
 * The human-readable verification page (spec 4.9): self-contained (no external assets, strict CSP with a
 * per-response nonce); it fetches the JSON result from the same URL and shows each check. Beside the checks,
 * the archived page itself, replayed from the signed WACZ in the reader's browser by ReplayWeb.page's viewer
 * (served by this service under /replay/, with its service worker; docs/architecture.md, Evidence).
 */
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function verificationPage(captureId: string, nonce: string, replay: { url: string; waczPath: string; replayBase: string }): string {
  const id = esc(captureId);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Verification of capture ${id}</title>
<style nonce="${nonce}">
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #1b1b1b; }
  h1 { font-size: 1.4rem; }
  #verdict { font-size: 1.2rem; font-weight: 600; padding: .6rem 1rem; border-radius: .4rem; }
  .ok { background: #e3f6e8; color: #11602b; } .bad { background: #fde7e7; color: #8a1111; } .wait { background: #eef; }
  table { border-collapse: collapse; width: 100%; margin-top: 1rem; }
  td, th { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #ddd; vertical-align: top; }
  .pass { color: #11602b; } .fail { color: #8a1111; } .skip { color: #6b5b00; }
  code { word-break: break-all; font-size: .85rem; }
  body.with-replay { max-width: none; display: grid; grid-template-columns: minmax(24rem, 40rem) 1fr; gap: 1.5rem; }
  replay-web-page { display: block; height: 85vh; border: 1px solid #ccc; }
</style>
<script nonce="${nonce}" src="${esc(replay.replayBase)}ui.js"></script>
</head>
<body class="with-replay">
<main>
<h1>Verification of capture <code>${id}</code></h1>
<p id="verdict" class="wait">Verifying…</p>
<table id="checks"><thead><tr><th>Check</th><th>Status</th><th>Detail</th></tr></thead><tbody></tbody></table>
<table id="facts"><tbody></tbody></table>
<p>Anyone can repeat these checks offline with the bundle and the keys published at <code>/.well-known/signing-keys</code>.</p>
</main>
<section id="archived" aria-label="The archived page, replayed from the signed bundle">
<h2>The archived page</h2>
<replay-web-page source="${esc(replay.waczPath)}" url="${esc(replay.url)}" replayBase="${esc(replay.replayBase)}" embed="replayonly"></replay-web-page>
</section>
<script nonce="${nonce}">
(function () {
  var verdict = document.getElementById('verdict');
  function row(table, cells, cls) {
    var tr = document.createElement('tr');
    cells.forEach(function (text, i) {
      var td = document.createElement('td');
      td.textContent = text == null ? '' : String(text);
      if (i === 1 && cls) td.className = cls;
      tr.appendChild(td);
    });
    document.querySelector(table + ' tbody').appendChild(tr);
  }
  fetch(window.location.pathname, { headers: { Accept: 'application/json' } })
    .then(function (r) { return r.json().then(function (body) { return { status: r.status, body: body }; }); })
    .then(function (res) {
      var b = res.body;
      if (res.status !== 200) { verdict.className = 'bad'; verdict.textContent = (b && b.detail) || ('Verification unavailable (HTTP ' + res.status + ')'); return; }
      verdict.className = b.verified ? 'ok' : 'bad';
      verdict.textContent = b.verified ? 'Verified: the bundle is intact and signed by this service.' : 'Not verified: at least one check failed.';
      (b.checks || []).forEach(function (c) { row('#checks', [c.name, c.status, c.detail || ''], c.status); });
      row('#facts', ['Captured', b.capture.createdAt + ' → ' + b.capture.completedAt]);
      if (b.capture.renderQuality) row('#facts', ['Render quality', b.capture.renderQuality]);
      if (b.signing) {
        row('#facts', ['Bundle hash', b.signing.bundleHash]);
        row('#facts', ['Signed at', b.signing.signedAt]);
        row('#facts', ['Public key', b.signing.publicKey]);
        if (b.signing.timestamp) row('#facts', ['Timestamp', b.signing.timestamp.genTime + ' by ' + b.signing.timestamp.tsa + (b.signing.timestamp.selfIssued ? " (self-issued by this service's built-in local TSA, not a public one)" : '')]);
      }
    })
    .catch(function (e) { verdict.className = 'bad'; verdict.textContent = 'Could not load the verification result: ' + e; });
})();
</script>
</body>
</html>
`;
}
