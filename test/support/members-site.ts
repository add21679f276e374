import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'puppeteer-core';

/**
 * A site with a sign-in, on 127.0.0.1, for the remote browser's tests (sign-in-site.ts is its twin for captures with a profile): /login is a form (user `ada`, password
 * `lovelace`) that sets the HttpOnly session cookie `member_session` and, in the page it leads to, a localStorage
 * item; /members shows the members-only text to a browser with that cookie and a sign-in wall to any other.
 * /animate changes its picture every animation frame (frame rate); /echo shows what is typed at once and nothing else moves there (no caret: latency);
 * /popup opens /members in a new tab.
 */
export interface SignInSite {
  origin: string;
  url(path: string): string;
  /** Session cookie values the site handed out. */
  sessions(): string[];
  close(): Promise<void>;
}

export const MEMBER = { user: 'ada', password: 'lovelace' };
export const MEMBERS_ONLY_TEXT = 'Members only: the minutes of the last meeting';
export const SIGN_IN_WALL_TEXT = 'Sign in to read this page';

const page = (title: string, body: string, script = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body{font:24px sans-serif;margin:40px} input,button{font:28px sans-serif;display:block;margin:12px 0;width:400px;height:56px}</style>
</head><body>${body}${script ? `<script>${script}</script>` : ''}</body></html>`;

export async function startSignInSite(): Promise<SignInSite> {
  const issued = new Set<string>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    const cookie = /(?:^|;\s*)member_session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    const html = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
      res.end(body);
    };
    if (url.pathname === '/login' && req.method === 'POST') {
      let body = '';
      req.on('data', (c: Buffer) => {
        if (body.length < 10_000) body += c.toString('utf8');
      });
      req.on('end', () => {
        const form = new URLSearchParams(body);
        if (form.get('user') !== MEMBER.user || form.get('password') !== MEMBER.password)
          return html(401, page('Sign in', '<p id="wrong">Wrong user or password.</p><a href="/login">Again</a>'));
        const session = randomBytes(16).toString('hex');
        issued.add(session);
        html(303, '', {
          location: '/members',
          'set-cookie': `member_session=${session}; Path=/; HttpOnly; SameSite=Lax; Max-Age=86400`,
        });
      });
      return;
    }
    switch (url.pathname) {
      case '/login':
        return html(
          200,
          page(
            'Sign in',
            `<h1>Sign in</h1><form method="post" action="/login">
<label for="user">User</label><input id="user" name="user" autocomplete="off">
<label for="password">Password</label><input id="password" name="password" type="password">
<button id="go" type="submit">Sign in</button></form>`,
          ),
        );
      case '/members':
        if (cookie && issued.has(cookie))
          return html(
            200,
            page('Members', `<h1 id="members">${MEMBERS_ONLY_TEXT}</h1>`, "localStorage.setItem('theme', 'dark');"),
          );
        return html(200, page('Members', `<h1 id="wall">${SIGN_IN_WALL_TEXT}</h1><a href="/login">Sign in</a>`));
      case '/animate':
        return html(
          200,
          page(
            'Animate',
            '<div id="n" style="font-size:120px">0</div>',
            "let n=0;const d=document.getElementById('n');(function f(){d.textContent=String(++n);d.style.marginLeft=(n%300)+'px';requestAnimationFrame(f)})();",
          ),
        );
      case '/echo':
        return html(
          200,
          page(
            'Echo',
            '<input id="echo" autofocus aria-label="Echo" style="caret-color:transparent">',
            "document.getElementById('echo').focus();",
          ),
        );
      case '/popup':
        return html(
          200,
          page('Popup', '<a id="open" href="/members" target="_blank" style="font-size:60px">Open members</a>'),
        );
      default:
        return html(404, page('Not found', 'Not found'));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    sessions: () => [...issued],
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
