import { CONSOLE_SCRIPT_PATH, CONSOLE_STYLE_PATH } from './console-assets.js';

/**
 * The console's HTML shell (docs/console.md), the same for /console and every page under it: the script routes by
 * path in the browser. No inline script or style, so the CSP needs neither a nonce nor 'unsafe-inline'. The replay
 * origin is handed to the script in a meta element: the capture page frames the archived page from there, like the
 * verification page does.
 */
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function consoleShell(opts: { replayOrigin: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="replay-origin" content="${esc(opts.replayOrigin)}">
<title>Capture Ledger console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${CONSOLE_STYLE_PATH}">
<script type="module" src="${CONSOLE_SCRIPT_PATH}"></script>
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="top" role="banner">
<a class="brand" href="/console">Capture Ledger</a>
<button id="nav-toggle" class="nav-toggle" type="button" aria-expanded="false" aria-controls="nav">Menu</button>
<nav id="nav" class="nav" aria-label="Console"></nav>
</header>
<main id="main" tabindex="-1">
<p id="boot">Loading the console…</p>
<noscript><p>The console needs JavaScript. The API itself is documented at <a href="/docs">/docs</a>.</p></noscript>
</main>
<footer class="foot"><p>Capture Ledger · <a href="/docs">API documentation</a> · <a href="/openapi.json">OpenAPI</a></p></footer>
</body>
</html>
`;
}

/** The shell's policy: only this origin's script, style, images and API; frames from the replay origin alone. */
export function consoleCsp(replayOrigin: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    `frame-src ${replayOrigin}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}
