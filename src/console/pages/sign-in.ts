import { field, h, put, statusRegion } from '../dom.js';
import { errorBox } from '../errors.js';
import { time } from '../format.js';
import type { PageContext } from '../router.js';
import { signIn, signOut } from '../session.js';
import { sessionState } from '../session-state.js';
import { heading } from '../ui.js';

/**
 * Sign-in with an API key (tenants) or the admin key (operators). The key goes to POST /console/session and is not
 * kept: the field is cleared and the browser holds only the HttpOnly session cookie.
 */
const safeNext = (next: string | null, fallback: string) =>
  next && /^\/console(\/|$|\?)/.test(next) && !next.startsWith('//') ? next : fallback;

function signInForm(ctx: PageContext, kind: 'tenant' | 'operator'): HTMLElement {
  const label = kind === 'tenant' ? 'API key' : 'Admin key';
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
    field(
      label,
      key,
      kind === 'tenant'
        ? 'A key of your organisation (svc_live_…), from your operator.'
        : "The deployment's ADMIN_KEY.",
    ),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, kind === 'tenant' ? 'Sign in' : 'Sign in as operator'),
    ),
    message,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const value = key.value;
    key.value = '';
    put(message, 'Signing in…');
    try {
      await signIn(kind, value);
      const fallback = kind === 'tenant' ? '/console/captures' : '/console/operator/tenants';
      const wanted = ctx.query.get('as') === kind || !ctx.query.get('as') ? ctx.query.get('next') : null;
      ctx.navigate(safeNext(wanted, fallback));
    } catch (err) {
      put(message, errorBox(err));
      key.focus();
    }
  });
  return form;
}

function signedIn(ctx: PageContext, kind: 'tenant' | 'operator', text: string, expiresAt: string): HTMLElement {
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

export function signInPage(ctx: PageContext): void {
  const s = sessionState();
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
      : signInForm(ctx, 'tenant'),
  );
  const operator = h(
    'section',
    { 'aria-labelledby': 'operator-heading', class: 'card' },
    h('h2', { id: 'operator-heading' }, 'Operator'),
    s.operator
      ? signedIn(ctx, 'operator', 'Signed in as the operator.', s.operator.expiresAt)
      : signInForm(ctx, 'operator'),
  );
  const operatorFirst = ctx.query.get('as') === 'operator';
  const ended = ctx.query.get('ended') === '1';
  put(
    ctx.main,
    heading('Sign in'),
    ended
      ? h(
          'p',
          { class: 'error', role: 'alert' },
          `Your ${operatorFirst ? 'operator session' : 'session'} has ended: it expired, or the key it was opened with was revoked. Sign in again to go on.`,
        )
      : null,
    h(
      'p',
      null,
      'Your key is sent once to start a session and is not stored in this browser; the session ends when you sign out or it expires.',
    ),
    h('div', { class: 'cards' }, operatorFirst ? [operator, tenant] : [tenant, operator]),
  );
}
