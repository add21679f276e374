import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A site with a sign-in, on 127.0.0.1, for tests of captures behind a sign-in (docs/profiles.md):
 *
 *   GET  /login     a sign-in form (user, password)
 *   POST /login     with `member` / `correct horse`: sets the cookie `member_session=<sessionValue>` (HttpOnly,
 *                   host-only), and the answer's script stores `member_theme=<storageValue>` in localStorage,
 *                   then goes to /members; anything else: the form again, 401
 *   GET  /members   with the session cookie: "Members only: the quarterly report"; its script marks
 *                   body[data-theme] = "restored" when localStorage holds member_theme (never showing the value).
 *                   Without: the sign-in wall, "Please sign in", 200
 *
 * `sessionValue` and `storageValue` are random per site, so a test can look for them in any bytes.
 */
export interface SignInSite {
  origin: string;
  url(path: string): string;
  sessionValue: string;
  storageValue: string;
  close(): Promise<void>;
}

export const MEMBER = { user: 'member', password: 'correct horse' } as const;

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

const FORM = `<h1>Sign in</h1><form method="post" action="/login">
<label>User <input name="user" id="user"></label>
<label>Password <input name="password" id="password" type="password"></label>
<button type="submit" id="sign-in">Sign in</button></form>`;

export async function startSignInSite(): Promise<SignInSite> {
  const sessionValue = `sess-${randomBytes(16).toString('hex')}`;
  const storageValue = `theme-${randomBytes(16).toString('hex')}`;
  const sockets = new Set<Socket>();

  const signedIn = (req: IncomingMessage) =>
    (req.headers.cookie ?? '').split(/;\s*/).includes(`member_session=${sessionValue}`);

  function send(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}) {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers });
    res.end(html);
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/login' && req.method === 'POST') {
      let body = '';
      req.on('data', (c: Buffer) => {
        if (body.length < 4096) body += c.toString('utf8');
      });
      req.on('end', () => {
        const form = new URLSearchParams(body);
        if (form.get('user') !== MEMBER.user || form.get('password') !== MEMBER.password) {
          send(res, 401, page('Sign in', `<p>Wrong user or password.</p>${FORM}`));
          return;
        }
        const script = `<script>localStorage.setItem('member_theme', ${JSON.stringify(storageValue)}); location.href = '/members';</script>`;
        send(res, 200, page('Signed in', `<p>Signed in.</p>${script}`), {
          'set-cookie': `member_session=${sessionValue}; Path=/; HttpOnly; SameSite=Lax`,
        });
      });
      return;
    }
    if (path === '/login') return send(res, 200, page('Sign in', FORM));
    if (path === '/members') {
      if (!signedIn(req)) return send(res, 200, page('Sign in required', `<h1>Please sign in</h1>${FORM}`));
      const script = `<script>if (localStorage.getItem('member_theme')) document.body.dataset.theme = 'restored';</script>`;
      return send(
        res,
        200,
        page('Members', `<h1>Members only: the quarterly report</h1><p>Revenue grew.</p>${script}`),
      );
    }
    send(res, 404, page('Not found', '<h1>Not found</h1>'));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (p) => origin + p,
    sessionValue,
    storageValue,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
