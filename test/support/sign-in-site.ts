import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'puppeteer-core';

/**
 * A site with a sign-in, on 127.0.0.1, for the tests of browser profiles (docs/profiles.md): captures with a
 * profile, and the remote browser a person signs in through.
 *
 *   GET  /login     a sign-in form (#user, #password, #sign-in)
 *   POST /login     with MEMBER's user and password: sets the cookie `member_session=<sessionValue>` (HttpOnly,
 *                   host-only, a day), and the answer's script stores `member_theme=<storageValue>` in localStorage,
 *                   then goes to /members; anything else: 401 and #wrong
 *   GET  /members   with the session cookie: #members, MEMBERS_ONLY_TEXT; its script marks body[data-theme] =
 *                   "restored" when localStorage holds member_theme (never showing the value). Without: #wall,
 *                   SIGN_IN_WALL_TEXT and a link to /login, 200
 *   GET  /animate   changes its picture every animation frame (the remote browser's frame rate)
 *   GET  /echo      shows what is typed at once and nothing else moves (no caret: input latency)
 *   GET  /popup     a link that opens /members in a new tab
 *
 * `sessionValue` and `storageValue` are random per site and never on a page of /members, so a test can look for
 * them in any bytes a capture made.
 */
export interface SignInSite {
  origin: string;
  url(path: string): string;
  sessionValue: string;
  storageValue: string;
  /** How many times a browser signed in. */
  signIns(): number;
  /** The method and path of every request, in order (`GET /members`). */
  requests: string[];
  close(): Promise<void>;
}

export const MEMBER = { user: 'ada', password: 'lovelace' } as const;
export const MEMBERS_ONLY_TEXT = 'Members only: the quarterly report';
export const SIGN_IN_WALL_TEXT = 'Please sign in';

const page = (title: string, body: string, script = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body{font:24px sans-serif;margin:40px} input,button{font:28px sans-serif;display:block;margin:12px 0;width:400px;height:56px}</style>
</head><body>${body}${script ? `<script>${script}</script>` : ''}</body></html>`;

const FORM = `<h1>Sign in</h1><form method="post" action="/login">
<label for="user">User</label><input id="user" name="user" autocomplete="off">
<label for="password">Password</label><input id="password" name="password" type="password">
<button id="sign-in" type="submit">Sign in</button></form>`;

export async function startSignInSite(): Promise<SignInSite> {
  const sessionValue = `sess-${randomBytes(16).toString('hex')}`;
  const storageValue = `theme-${randomBytes(16).toString('hex')}`;
  let signIns = 0;
  const requests: string[] = [];

  const signedIn = (req: IncomingMessage) =>
    (req.headers.cookie ?? '').split(/;\s*/).includes(`member_session=${sessionValue}`);

  function send(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}) {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers });
    res.end(html);
  }

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://site').pathname;
    requests.push(`${req.method} ${path}`);
    if (path === '/login' && req.method === 'POST') {
      let body = '';
      req.on('data', (c: Buffer) => {
        if (body.length < 10_000) body += c.toString('utf8');
      });
      req.on('end', () => {
        const form = new URLSearchParams(body);
        if (form.get('user') !== MEMBER.user || form.get('password') !== MEMBER.password) {
          send(res, 401, page('Sign in', '<p id="wrong">Wrong user or password.</p><a href="/login">Again</a>'));
          return;
        }
        signIns++;
        const script = `localStorage.setItem('member_theme', ${JSON.stringify(storageValue)}); location.href = '/members';`;
        send(res, 200, page('Signed in', '<p>Signed in.</p>', script), {
          'set-cookie': `member_session=${sessionValue}; Path=/; HttpOnly; SameSite=Lax; Max-Age=86400`,
        });
      });
      return;
    }
    switch (path) {
      case '/login':
        return send(res, 200, page('Sign in', FORM));
      case '/members':
        if (!signedIn(req))
          return send(res, 200, page('Members', `<h1 id="wall">${SIGN_IN_WALL_TEXT}</h1><a href="/login">Sign in</a>`));
        return send(
          res,
          200,
          page(
            'Members',
            `<h1 id="members">${MEMBERS_ONLY_TEXT}</h1><p>Revenue grew.</p>`,
            "if (localStorage.getItem('member_theme')) document.body.dataset.theme = 'restored';",
          ),
        );
      case '/animate':
        return send(
          res,
          200,
          page(
            'Animate',
            '<div id="n" style="font-size:120px">0</div>',
            "let n=0;const d=document.getElementById('n');(function f(){d.textContent=String(++n);d.style.marginLeft=(n%300)+'px';requestAnimationFrame(f)})();",
          ),
        );
      case '/echo':
        return send(
          res,
          200,
          // No input field: a caret blinks even when transparent, and each blink is a screencast frame.
          page(
            'Echo',
            '<div id="echo" role="status" style="font-size:60px"></div>',
            "document.addEventListener('keydown',(e)=>{if(e.key.length===1)document.getElementById('echo').textContent+=e.key});",
          ),
        );
      case '/popup':
        return send(
          res,
          200,
          page('Popup', '<a id="open" href="/members" target="_blank" style="font-size:60px">Open members</a>'),
        );
      default:
        return send(res, 404, page('Not found', '<h1>Not found</h1>'));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (p) => origin + p,
    sessionValue,
    storageValue,
    signIns: () => signIns,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Where /login's user and password fields are at the remote browser's size (1280×800), read from the page itself. */
export async function loginFieldCentres(browser: Browser, site: SignInSite) {
  const probe = await browser.newPage();
  try {
    await probe.setViewport({ width: 1280, height: 800 });
    await probe.goto(site.url('/login'));
    const centre = (sel: string) =>
      probe.$eval(sel, (e) => {
        const r = e.getBoundingClientRect();
        return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
      });
    return { user: await centre('#user'), password: await centre('#password') };
  } finally {
    await probe.close();
  }
}
