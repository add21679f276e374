import { get } from '../api.js';
import { field, h, put, statusRegion } from '../dom.js';
import { errorBox } from '../errors.js';
import { time } from '../format.js';
import type { PageContext } from '../router.js';
import { sessionCookiesDuplicated, signIn, signOut } from '../session.js';
import { sessionState } from '../session-state.js';
import type { OidcProviders, SessionKind } from '../api-answers.js';
import { heading } from '../ui.js';

/**
 * Sign-in with an API key (tenants), the admin key (operators) or the analysts' key (analysts: the reports). The key goes to POST /console/session and is not
 * kept: the field is cleared and the browser holds only the HttpOnly session cookie.
 */
const safeNext = (next: string | null, fallback: string) =>
  next && /^\/console(\/|$|\?)/.test(next) && !next.startsWith('//') ? next : fallback;

/** Each card's field, hint, button and the page a sign-in goes to when nothing else was asked for. */
const FORMS: Record<SessionKind, { label: string; hint: string; button: string; start: string }> = {
  tenant: {
    label: 'API key',
    hint: 'A key of your organisation (svc_live_…), from your operator.',
    button: 'Sign in',
    start: '/console/captures',
  },
  operator: {
    label: 'Admin key',
    hint: "The deployment's ADMIN_KEY.",
    button: 'Sign in as operator',
    start: '/console/operator/tenants',
  },
  analyst: {
    label: 'Analyst key',
    hint: "The deployment's ANALYST_KEY: it opens the reports and nothing else.",
    button: 'Sign in as analyst',
    start: '/console/analyst/reports',
  },
};

function signInForm(ctx: PageContext, kind: SessionKind): HTMLElement {
  const { label, hint, button, start } = FORMS[kind];
  const key = h('input', {
    type: 'password',
    name: 'key',
    required: true,
    autocomplete: 'off',
    spellcheck: 'false',
    id: `${kind}-key`,
  });
  const message = statusRegion();
  const form = h(
    'form',
    { class: 'stack', 'aria-labelledby': `${kind}-heading` },
    field(label, key, hint),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, button)),
    message,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const value = key.value;
    key.value = '';
    put(message, 'Signing in…');
    try {
      await signIn(kind, value);
      const wanted = ctx.query.get('as') === kind || !ctx.query.get('as') ? ctx.query.get('next') : null;
      ctx.navigate(safeNext(wanted, start));
    } catch (err) {
      put(message, errorBox(err));
      key.focus();
    }
  });
  return form;
}

function signedIn(ctx: PageContext, kind: SessionKind, text: string, expiresAt: string): HTMLElement {
  const out = h('button', { type: 'button' }, 'Sign out');
  const message = statusRegion();
  out.addEventListener('click', async () => {
    try {
      await signOut(kind);
      ctx.navigate('/console/sign-in', { replace: true });
    } catch (err) {
      put(message, errorBox(err));
    }
  });
  return h('div', null, h('p', null, `${text} The session ends `, time(expiresAt), '. '), out, message);
}

/** Why a sign-in with an OpenID provider came back refused (`?error=` of the callback's redirect), for a person. */
const OIDC_REFUSALS: Record<string, string> = {
  oidc_unknown_provider: 'That sign-in option is not configured here (any more). Choose another, or use an API key.',
  oidc_state: 'The sign-in took too long or was started in another browser window. Start it again from this page.',
  oidc_denied: 'Your organisation’s sign-in was cancelled or refused. Try again, or ask your administrator.',
  oidc_provider:
    'Your organisation’s sign-in service could not be reached or gave an answer we cannot trust. Try again in a moment.',
  oidc_no_mapping:
    'You signed in, but your account is not given access to any organisation here. Ask your operator to map it.',
};

/** "Sign in with …" for each OpenID provider the operator configured (none: nothing shown). */
async function providerLinks(box: HTMLElement, signal: AbortSignal): Promise<void> {
  try {
    const { data } = await get<OidcProviders>('/console/oidc/providers', signal);
    if (data.length === 0) return;
    put(
      box,
      h('p', null, 'Or sign in through your organisation:'),
      h(
        'ul',
        { class: 'plain' },
        data.map((p) =>
          h(
            'li',
            null,
            h(
              'a',
              { href: `/console/oidc/${encodeURIComponent(p.id)}/start`, class: 'button-link' },
              `Sign in with ${p.label}`,
            ),
          ),
        ),
      ),
    );
  } catch {
    // Without the list, the key form still works; nothing to tell a person here.
  }
}

export function signInPage(ctx: PageContext): void {
  const s = sessionState();
  const providers = h('div');
  const tenant = h(
    'section',
    { 'aria-labelledby': 'tenant-heading', class: 'card' },
    h('h2', { id: 'tenant-heading' }, 'Your organisation'),
    s.tenant
      ? signedIn(
          ctx,
          'tenant',
          `Signed in as tenant ${s.tenant.tenantId} (${s.tenant.scopes.join(', ')}).`,
          s.tenant.expiresAt,
        )
      : [signInForm(ctx, 'tenant'), providers],
  );
  const operator = h(
    'section',
    { 'aria-labelledby': 'operator-heading', class: 'card' },
    h('h2', { id: 'operator-heading' }, 'Operator'),
    s.operator
      ? signedIn(ctx, 'operator', 'Signed in as the operator.', s.operator.expiresAt)
      : signInForm(ctx, 'operator'),
  );
  const analyst = h(
    'section',
    { 'aria-labelledby': 'analyst-heading', class: 'card' },
    h('h2', { id: 'analyst-heading' }, 'Analyst'),
    s.analyst
      ? signedIn(ctx, 'analyst', 'Signed in as an analyst (reports only).', s.analyst.expiresAt)
      : signInForm(ctx, 'analyst'),
  );
  const as = ctx.query.get('as');
  const cards = { tenant, operator, analyst };
  const first = as === 'operator' || as === 'analyst' ? as : 'tenant';
  const ended = ctx.query.get('ended') === '1';
  const duplicated = ctx.query.get('cookies') === 'duplicated' || sessionCookiesDuplicated();
  const refused = ctx.query.get('error');
  put(
    ctx.main,
    heading('Sign in'),
    duplicated
      ? h(
          'p',
          { class: 'error', role: 'alert' },
          'Your browser sent this console two session cookies of one kind: another page on this host set one (a replayed capture can), and it could belong to someone else’s account, so the service used neither. Sign in again. If this message comes back, clear this site’s cookies in your browser’s settings, then sign in.',
        )
      : null,
    !duplicated && ended
      ? h(
          'p',
          { class: 'error', role: 'alert' },
          `Your ${first === 'tenant' ? 'session' : `${first} session`} has ended: it expired, or the key it was opened with was revoked or changed. Sign in again to go on.`,
        )
      : null,
    refused
      ? h(
          'p',
          { class: 'error', role: 'alert' },
          OIDC_REFUSALS[refused] ?? 'The sign-in through your organisation did not complete. Try again.',
        )
      : null,
    h(
      'p',
      null,
      'Your key is sent once to start a session and is not stored in this browser; the session ends when you sign out or it expires.',
    ),
    h('div', { class: 'cards' }, [
      cards[first],
      ...(['tenant', 'operator', 'analyst'] as const).filter((k) => k !== first).map((k) => cards[k]),
    ]),
  );
  if (!s.tenant) void providerLinks(providers, ctx.signal);
}
