/**
 * The human-readable verification page (spec 4.9): no external assets, strict CSP with a per-response nonce.
 * It shows the captured URL, fetches the JSON result from the same URL and shows each check as run on the
 * server; beside them, the archived page itself, replayed from the signed WACZ in the reader's browser by
 * ReplayWeb.page in a sandboxed frame from the replay origin (src/api/replay-server.ts): archived scripts run on
 * another origin than this page, so they can neither read nor rewrite it (docs/evidence.md).
 *
 * The reader need not trust the server's verdict: the same verifier (packages/verifier, served as one module at
 * /verifier/verifier.js) checks this capture's bundle — or any WACZ or certificate PDF dropped on the page — in
 * the browser with WebCrypto (SHA-256, Ed25519) and pkijs, and each row says where it ran. The keys and TSA
 * certificates it trusts are the ones this service publishes under /.well-known/, which anyone can mirror.
 *
 * Plain words first: one sentence a layperson can act on — what the page is, when it was captured,
 * whether anything changed — and where the time comes from, a self-issued timestamp (the built-in TSA: this
 * service's own clock) said as a weaker statement than a public TSA's; the technical table follows, each check
 * named in words (the JSON keeps the spec 2.6 names).
 *
 * Layout: one column below 1000 px — the verdict, a link to the archived page, the archived page, then the tables
 * (on a phone the archived page is near the top, not under them); two columns from 1000 px (verdict and checks at
 * most 36rem, the replay the rest). Every column may shrink (min-width 0), values wrap anywhere but column heads
 * only between words, so nothing overlaps or scrolls sideways at 375, 390, 1280 or 1920 px
 * (test/e2e/verification-page.e2e.spec.ts).
 */
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface VerificationPageAssets {
  url: string;
  waczPath: string;
  /** The replay origin's page for this capture (absolute: another origin than this page's). */
  replayFrameUrl: string;
  verifierScript: string;
  /** The command lines to check this capture offline (verify-commands.ts), an HTML fragment. */
  commands: string;
  /** When the capture is a member of a corroborated set: where it stands and the record's verdict. */
  corroboration?: { id: string; verdict: string | null; differing: string[]; members: string[]; recordPath: string };
}

function corroborationSection(c: NonNullable<VerificationPageAssets['corroboration']>): string {
  const verdict = c.verdict
    ? `<strong>${esc(c.verdict)}</strong>${c.differing.length ? ` — differing: ${c.differing.map(esc).join(', ')}` : ''}`
    : 'not all members are done yet';
  return `<h2>Corroboration</h2>
<p id="corroboration">This capture is one of ${c.members.length} captures of the same URL from the vantage points ${c.members.map((m) => `<code>${esc(m)}</code>`).join(', ')} (set <code>${esc(c.id)}</code>): ${verdict}. <a href="${esc(c.recordPath)}">The signed corroboration record</a> checks here too (drop it below).</p>`;
}

/** The spec 2.6 checks (and the transparency extension) in words; the JSON and the verifier keep the names. */
export const CHECK_WORDS: Record<string, string> = {
  artifactHashes: 'Every file in the bundle is unchanged',
  bundleHash: 'The bundle as a whole is unchanged',
  signature: "This service's signature on the bundle is genuine",
  timestamp: 'The time-stamp matches the bundle',
  transparency: "The bundle is recorded in this service's public log",
  witnesses: 'Independent witnesses saw the same log',
};

const script = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export function verificationPage(captureId: string, nonce: string, assets: VerificationPageAssets): string {
  const id = esc(captureId);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/favicon.ico">
<title>Verification of capture ${id}</title>
<style nonce="${nonce}">
${PAGE_STYLE}
</style>
</head>
<body>
<div class="layout">
${summarySection(id, assets)}
${detailsSection(assets)}
${archivedSection(assets)}
</div>
<script nonce="${nonce}">
${serverResultScript(captureId, assets.url)}
</script>
<script type="module" nonce="${nonce}">
${browserCheckScript(captureId, assets)}
</script>
</body>
</html>
`;
}

/** One column on a phone, two from 1000 px; nothing scrolls sideways (see the layout note above). */
const PAGE_STYLE = `  *, *::before, *::after { box-sizing: border-box; }
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; padding: 1rem; color: #1b1b1b; }
  .layout { display: grid; grid-template-columns: minmax(0, 1fr); grid-template-areas: "summary" "archived" "details"; gap: 1.5rem; max-width: 120rem; margin: 0 auto; }
  @media (min-width: 1000px) { .layout { grid-template-columns: minmax(0, 36rem) minmax(0, 1fr); grid-template-areas: "summary archived" "details archived"; grid-template-rows: auto 1fr; } }
  #summary { grid-area: summary; } #archived { grid-area: archived; } main { grid-area: details; }
  main, #archived, #summary { min-width: 0; }
  #archived h2 { margin-top: 0; }
  #time-source { margin: .5rem 0; padding: .4rem 1rem; border-left: 4px solid #11602b; overflow-wrap: anywhere; }
  #time-source.weak { border-left-color: #b08900; background: #fff8e1; }
  #see-archived { display: inline-block; margin-top: .25rem; }
  @media (min-width: 1000px) { #see-archived { display: none; } }
  .tech { display: block; color: #555; font-size: .8rem; }
  h1 { font-size: 1.4rem; margin: 0 0 .5rem; overflow-wrap: anywhere; }
  h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
  #captured { margin: 0 0 1rem; overflow-wrap: anywhere; }
  #verdict, #local-verdict { font-size: 1.1rem; font-weight: 600; padding: .6rem 1rem; border-radius: .4rem; overflow-wrap: anywhere; }
  .ok { background: #e3f6e8; color: #11602b; } .bad { background: #fde7e7; color: #8a1111; } .wait { background: #eef; }
  table { border-collapse: collapse; width: 100%; margin-top: 1rem; table-layout: fixed; }
  td, th { text-align: left; padding: .4rem .35rem; border-bottom: 1px solid #ddd; vertical-align: top; overflow-wrap: anywhere; font-size: .9rem; }
  /* Column heads and the status and place words wrap between words only: never "Sta-tus" at 390 px. */
  th, #checks td:nth-child(2), #checks td:nth-child(4), #local-checks td:nth-child(2), #local-checks td:nth-child(4) { overflow-wrap: normal; word-break: normal; hyphens: manual; }
  th:nth-child(1) { width: 32%; } th:nth-child(2) { width: 3.6rem; } th:nth-child(4) { width: 4.6rem; }
  #facts td:first-child { width: 30%; font-weight: 600; }
  .pass { color: #11602b; } .fail { color: #8a1111; } .skip { color: #6b5b00; }
  code { overflow-wrap: anywhere; font-size: .85rem; }
  /* The command lines wrap inside the column: a long URL never widens the page; pasted, they are the same lines. */
  pre { white-space: pre-wrap; overflow-wrap: anywhere; max-width: 100%; background: #f5f5f8; padding: .6rem .8rem; border-radius: .3rem; }
  #drop { margin-top: 1rem; padding: 1rem; border: 2px dashed #99a; border-radius: .4rem; text-align: center; }
  #drop.over { background: #eef; }
  #drop input { max-width: 100%; }
  button { font: inherit; padding: .4rem .8rem; margin-top: .5rem; max-width: 100%; }
  #replay { display: block; width: 100%; height: 80vh; border: 1px solid #ccc; }
  @media (max-width: 999px) { #replay { height: 70vh; } }`;

/** The verdict in plain words, filled in by the result script, and the captured URL. */
function summarySection(id: string, assets: VerificationPageAssets): string {
  return `<section id="summary" aria-label="What this capture shows">
<h1>Verification of capture <code>${id}</code></h1>
<p id="captured">Captured URL: <code id="captured-url">${esc(assets.url)}</code></p>
<p id="verdict" class="wait">Verifying…</p>
<p id="time-source" hidden></p>
<a id="see-archived" href="#archived">See the archived page</a>
</section>`;
}

/** The server's checks and facts, the offline commands, the corroboration and the in-browser check. */
function detailsSection(assets: VerificationPageAssets): string {
  return `<main>
<h2>The checks, in detail</h2>
<table id="checks"><thead><tr><th>Check</th><th>Status</th><th>Detail</th><th>Where</th></tr></thead><tbody></tbody></table>
<table id="facts"><tbody></tbody></table>
${assets.commands}
${assets.corroboration ? corroborationSection(assets.corroboration) : ''}
<h2>Check it yourself, in this browser</h2>
<p>The same verifier runs here, with WebCrypto: nothing below depends on the server's verdict. It trusts the keys and
timestamp authorities this service publishes at <code>/.well-known/signing-keys</code> and <code>/.well-known/tsa-certificates</code>.</p>
<button id="check-here" type="button">Check this capture's bundle in this browser</button>
<div id="drop">Drop a <code>.wacz</code> bundle, a certificate <code>.pdf</code> or a corroboration record <code>.json</code> here, or choose one:
<br><input id="file" type="file" accept=".wacz,.pdf,.json,application/pdf,application/wacz+zip,application/json"></div>
<p id="local-verdict" hidden></p>
<table id="local-checks" hidden><thead><tr><th>Check</th><th>Status</th><th>Detail</th><th>Where</th></tr></thead><tbody></tbody></table>
</main>`;
}

/** The archived page, replayed from the signed bundle in a sandboxed frame from the replay origin. */
function archivedSection(assets: VerificationPageAssets): string {
  return `<section id="archived" aria-label="The archived page, replayed from the signed bundle">
<h2>The archived page</h2>
<iframe id="replay" title="The archived page" src="${esc(assets.replayFrameUrl)}" sandbox="allow-scripts allow-same-origin" referrerpolicy="no-referrer"></iframe>
</section>`;
}

/** Fetches this capture's result from the server and shows it in words and in the checks table. */
function serverResultScript(captureId: string, url: string): string {
  return `(function () {
  var verdict = document.getElementById('verdict');
  var timeSource = document.getElementById('time-source');
  var words = ${script(CHECK_WORDS)};
  var url = ${script(url)};
${RESULT_WORDS_SCRIPT}
  // This capture's result, by its id: never by the address bar, which is not this page's to trust.
  fetch(${script(`/v1/verify/${encodeURIComponent(captureId)}`)}, { headers: { Accept: 'application/json' } })
    .then(function (r) { return r.json().then(function (body) { return { status: r.status, body: body }; }); })
    .then(function (res) {
      var b = res.body;
      if (res.status !== 200) { verdict.className = 'bad'; verdict.textContent = (b && b.detail) || ('Verification unavailable (HTTP ' + res.status + ')'); return; }
      // A failed inclusion proof (the transparency extension) makes the page say "not verified", though the JSON's
      // \`verified\` is the spec's checks only: the log contradicting the bundle is what a reader must not miss (README).
      var logFailed = !!(b.transparency && b.transparency.status === 'fail');
      var failed = (b.checks || []).filter(function (c) { return c.status === 'fail'; }).map(function (c) { return FAILED[c.name] || c.name; });
      var asLooked = 'This is the page at ' + url + ' as it looked on ' + when(b.capture.completedAt) + '.';
      verdict.className = b.verified && !logFailed ? 'ok' : 'bad';
      verdict.textContent = !b.verified
        ? 'This copy of the page at ' + url + ' cannot be trusted: ' + (failed.join('; ') || 'a check failed') + '. It may have been changed or damaged since it was captured on ' + when(b.capture.completedAt) + '.'
        : logFailed
          ? asLooked + " The bundle is intact and signed, but this service's public log does not confirm it: treat it as not verified."
          : asLooked + ' Nothing in it has changed since.' + (b.witnesses && b.witnesses.status === 'fail' ? " Fewer independent witnesses than required have confirmed this service's log (below)." : '');
      var ts = b.signing && b.signing.timestamp;
      timeSource.hidden = false;
      timeSource.className = ts && !ts.selfIssued ? 'strong' : 'weak';
      timeSource.textContent = !ts
        ? "No time-stamp: the time is this service's own record, which nobody else vouches for."
        : ts.selfIssued
          ? "The time comes from this service's own clock (its built-in time-stamping authority), not from an independent one: it is as trustworthy as this service."
          : 'A public time-stamping authority (' + ts.tsa + ') attests that the bundle existed on ' + when(ts.genTime) + '.';
      (b.checks || []).forEach(function (c) { checkRow(c.name, c.status, c.detail, ''); });
      if (b.transparency) checkRow('transparency', b.transparency.status, b.transparency.detail, logWords(b.transparency));
      if (b.witnesses) checkRow('witnesses', b.witnesses.status, b.witnesses.detail, witnessWords(b.witnesses));
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
})();`;
}

/** The browser-side helpers of the result script: dates, table rows, and each check's outcome in words. */
const RESULT_WORDS_SCRIPT = `  var MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
  function when(iso) {
    var d = new Date(iso);
    if (isNaN(d)) return iso;
    var two = function (n) { return (n < 10 ? '0' : '') + n; };
    return d.getUTCDate() + ' ' + MONTHS[d.getUTCMonth()] + ' ' + d.getUTCFullYear() + ' at ' + two(d.getUTCHours()) + ':' + two(d.getUTCMinutes()) + ' UTC';
  }
  function row(table, cells, cls) {
    var tr = document.createElement('tr');
    cells.forEach(function (text, i) {
      var td = document.createElement('td');
      td.textContent = text == null ? '' : String(text);
      if (i === 1 && cls) td.className = cls;
      tr.appendChild(td);
    });
    document.querySelector(table + ' tbody').appendChild(tr);
    return tr;
  }
  /** A check row: its name in words (the spec name in a small line below it), the detail, where it ran. */
  function checkRow(name, status, detail, explained) {
    var tr = row('#checks', [words[name] || name, status, explained || detail || '', 'on the server'], status);
    tr.dataset.check = name;
    var tech = document.createElement('code');
    tech.className = 'tech';
    tech.textContent = name;
    tr.firstChild.appendChild(tech);
    if (explained && detail) {
      var raw = document.createElement('code');
      raw.className = 'tech';
      raw.textContent = detail;
      tr.children[2].appendChild(raw);
    }
  }
  /** What a failed check means, in words. */
  var FAILED = {
    artifactHashes: 'at least one file in it differs from the one that was signed',
    bundleHash: 'the bundle differs from the one that was signed',
    signature: "the signature is not this service's",
    timestamp: 'the time-stamp does not match the bundle',
  };
  /** The transparency log's leaf, in words: which entry, in a log of how many. */
  function logWords(t) {
    if (t.status !== 'pass' || t.leafIndex == null) return '';
    var size = /of (\\d+) leaves/.exec(t.detail || '');
    return 'Entry number ' + (t.leafIndex + 1) + (size ? ' of the ' + size[1] + ' entries' : '') + " in this service's public, append-only log, which anyone can download and check: the bundle cannot be swapped later without it showing.";
  }
  /** Who witnessed the log's checkpoint, in words. */
  function witnessWords(w) {
    var names = (w.witnessed || []).map(function (x) { return x.name; }).join(', ');
    return w.status === 'pass'
      ? 'Cosigned by ' + names + ': ' + w.witnessed.length + ' independent witness' + (w.witnessed.length === 1 ? '' : 'es') + ' (' + w.quorum + ' required) confirmed that everyone is shown this same log, so it cannot have been rewritten for you alone.'
      : 'Only ' + (w.witnessed || []).length + ' of the ' + w.quorum + ' required independent witnesses confirmed this log' + (names ? ' (' + names + ')' : '') + ': that this service shows everyone the same log is not confirmed yet.';
  }`;

/** Runs the same verifier in the reader's browser on this capture's bundle or on a file dropped on the page. */
function browserCheckScript(captureId: string, assets: VerificationPageAssets): string {
  return `// Loaded on first use only: most readers never check in the browser.
let verifier = null;
const loadVerifier = () => (verifier ??= import(${JSON.stringify(assets.verifierScript)}));
const captureId = ${script(captureId)};
const words = ${script(CHECK_WORDS)};
const localVerdict = document.getElementById('local-verdict');
const localChecks = document.getElementById('local-checks');
const json = async (path) => { const r = await fetch(path, { headers: { Accept: 'application/json' } }); if (!r.ok) throw new Error(path + ' answered HTTP ' + r.status); return r.json(); };
async function checkHere(bytes, source) {
  localVerdict.hidden = false; localVerdict.className = 'wait'; localVerdict.textContent = 'Checking ' + source + ' in this browser…';
  const body = localChecks.querySelector('tbody');
  body.textContent = '';
  try {
    // The log's key checks a certificate's inclusion proof; a deployment without a log has none (the check is then skipped).
    const logKey = fetch('/v1/log/key').then((r) => (r.ok ? r.text() : null)).catch(() => null);
    const [{ verifyEvidence, keysFromDocument, tsaCertificatesFromDocument }, keys, tsa, log] = await Promise.all([loadVerifier(), json('/.well-known/signing-keys'), json('/.well-known/tsa-certificates'), logKey]);
    const builtIn = tsaCertificatesFromDocument(tsa, '/.well-known/tsa-certificates');
    const result = await verifyEvidence(bytes, { keys: keysFromDocument(keys, '/.well-known/signing-keys'), tsaCaCertsPem: builtIn, selfIssuedTsaCaCertsPem: builtIn, logKeys: log ? [log.trim()] : [] });
    for (const c of result.checks) {
      const tr = document.createElement('tr');
      tr.dataset.check = c.name;
      [words[c.name] ?? c.name, c.status, c.detail || '', 'in this browser'].forEach((text, i) => { const td = document.createElement('td'); td.textContent = text; if (i === 1) td.className = c.status; tr.appendChild(td); });
      const tech = document.createElement('code'); tech.className = 'tech'; tech.textContent = c.name; tr.firstChild.appendChild(tech);
      body.appendChild(tr);
    }
    localChecks.hidden = false;
    const of = result.kind === 'certificate' ? result.certificate?.captureId : result.kind === 'corroboration' ? null : result.capture?.captureId;
    const which = result.kind === 'corroboration' ? (result.corroboration ? 'set ' + result.corroboration.id + ', verdict ' + result.corroboration.verdict : 'an unidentified set') : of ? (of === captureId ? 'this capture' : 'capture ' + of + ', not this one') : 'an unidentified capture';
    localVerdict.className = result.verified ? 'ok' : 'bad';
    localVerdict.textContent = (result.verified ? 'Verified in this browser: ' : 'Not verified in this browser: ') + source + ' (' + (result.kind === 'corroboration' ? 'corroboration record' : result.kind === 'certificate' ? 'certificate' : 'bundle') + ' of ' + which + ').';
  } catch (e) {
    localVerdict.className = 'bad'; localVerdict.textContent = 'Could not check ' + source + ' in this browser: ' + e.message;
  }
}
document.getElementById('check-here').addEventListener('click', async () => {
  const r = await fetch(${JSON.stringify(assets.waczPath)});
  await checkHere(new Uint8Array(await r.arrayBuffer()), "this capture's bundle");
});
const drop = document.getElementById('drop');
const take = async (file) => {
  if (!file) return;
  let bytes;
  try { bytes = new Uint8Array(await file.arrayBuffer()); } catch (e) { localVerdict.hidden = false; localVerdict.className = 'bad'; localVerdict.textContent = 'Could not read ' + file.name + ': ' + e.message; return; }
  await checkHere(bytes, file.name);
};
drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => { e.preventDefault(); drop.classList.remove('over'); take(e.dataTransfer.files[0]); });
document.getElementById('file').addEventListener('change', (e) => take(e.target.files[0]));`;
}
