import { onSessionEnded } from './api.js';
import { h, put } from './dom.js';
import { errorBox } from './errors.js';
import { captureDetailPage } from './pages/capture-detail.js';
import { capturesPage } from './pages/captures.js';
import { capacityPage, keysPage, tenantsPage } from './pages/operator.js';
import { checksPage, deadLettersPage } from './pages/operator-checks.js';
import { reportsPage, usageAcrossTenantsPage } from './pages/reports.js';
import { profilesPage } from './pages/profiles.js';
import { remoteBrowserPage } from './pages/profiles-remote-browser.js';
import { schedulesPage } from './pages/schedules.js';
import { watchTimelinePage } from './pages/watch-timeline.js';
import { signInPage } from './pages/sign-in.js';
import { submitPage } from './pages/submit.js';
import { usagePage } from './pages/usage.js';
import { webhooksPage } from './pages/webhooks.js';
import { createRouter, type Route } from './router.js';
import { loadSessions, sessionCookiesDuplicated } from './session.js';
import { onSessionChange, sessionState, setSessionState } from './session-state.js';
import type { SessionKind } from './api-answers.js';

/**
 * The console in the browser (docs/console.md): one client of the documented API. Pages by path under /console;
 * the tenant's, the operator's and the analyst's areas each need their own session. The analyst's area is the
 * operator's two report pages, nothing more (the analysts' key reads the reports only).
 */
const routes: Route[] = [
  {
    pattern: /^\/console$/,
    area: 'public',
    title: 'Console',
    render: (ctx) => {
      const s = sessionState();
      const start = s.tenant
        ? '/console/captures'
        : s.operator
          ? '/console/operator/tenants'
          : s.analyst
            ? '/console/analyst/reports'
            : '/console/sign-in';
      ctx.navigate(start, { replace: true });
    },
  },
  { pattern: /^\/console\/sign-in$/, area: 'public', title: 'Sign in', render: signInPage },
  { pattern: /^\/console\/captures$/, area: 'tenant', title: 'Captures', render: capturesPage },
  { pattern: /^\/console\/captures\/([^/]+)$/, area: 'tenant', title: 'Capture', render: captureDetailPage },
  { pattern: /^\/console\/submit$/, area: 'tenant', title: 'Submit', render: submitPage },
  { pattern: /^\/console\/schedules$/, area: 'tenant', title: 'Schedules', render: schedulesPage },
  {
    pattern: /^\/console\/schedules\/([^/]+)\/timeline$/,
    area: 'tenant',
    title: 'Watch timeline',
    render: watchTimelinePage,
  },
  { pattern: /^\/console\/profiles$/, area: 'tenant', title: 'Profiles', render: profilesPage },
  { pattern: /^\/console\/profiles\/browser$/, area: 'tenant', title: 'Remote browser', render: remoteBrowserPage },
  { pattern: /^\/console\/webhooks$/, area: 'tenant', title: 'Webhooks', render: webhooksPage },
  { pattern: /^\/console\/usage$/, area: 'tenant', title: 'Usage', render: usagePage },
  {
    pattern: /^\/console\/operator$/,
    area: 'operator',
    title: 'Operator',
    render: (ctx) => ctx.navigate('/console/operator/tenants', { replace: true }),
  },
  { pattern: /^\/console\/operator\/tenants$/, area: 'operator', title: 'Tenants', render: tenantsPage },
  { pattern: /^\/console\/operator\/keys$/, area: 'operator', title: 'API keys', render: keysPage },
  { pattern: /^\/console\/operator\/capacity$/, area: 'operator', title: 'Capacity', render: capacityPage },
  { pattern: /^\/console\/operator\/usage$/, area: 'operator', title: 'Usage', render: usageAcrossTenantsPage },
  { pattern: /^\/console\/operator\/reports$/, area: 'operator', title: 'Reports', render: reportsPage },
  { pattern: /^\/console\/operator\/checks$/, area: 'operator', title: 'Checks', render: checksPage },
  {
    pattern: /^\/console\/operator\/dead-letters$/,
    area: 'operator',
    title: 'Dead letters',
    render: deadLettersPage,
  },
  {
    pattern: /^\/console\/analyst$/,
    area: 'analyst',
    title: 'Analyst',
    render: (ctx) => ctx.navigate('/console/analyst/reports', { replace: true }),
  },
  { pattern: /^\/console\/analyst\/reports$/, area: 'analyst', title: 'Reports', render: reportsPage },
  { pattern: /^\/console\/analyst\/usage$/, area: 'analyst', title: 'Usage', render: usageAcrossTenantsPage },
];

const TENANT_NAV: [string, string][] = [
  ['/console/captures', 'Captures'],
  ['/console/submit', 'Submit'],
  ['/console/schedules', 'Schedules'],
  ['/console/profiles', 'Profiles'],
  ['/console/webhooks', 'Webhooks'],
  ['/console/usage', 'Usage'],
];
const OPERATOR_NAV: [string, string][] = [
  ['/console/operator/tenants', 'Tenants'],
  ['/console/operator/keys', 'API keys'],
  ['/console/operator/usage', 'Usage'],
  ['/console/operator/capacity', 'Capacity'],
  ['/console/operator/checks', 'Checks'],
  ['/console/operator/dead-letters', 'Dead letters'],
  ['/console/operator/reports', 'Reports'],
];
const ANALYST_NAV: [string, string][] = [
  ['/console/analyst/reports', 'Reports'],
  ['/console/analyst/usage', 'Usage'],
];

function drawNav(nav: HTMLElement): void {
  const s = sessionState();
  const here = location.pathname;
  const link = ([href, text]: [string, string]) =>
    h('li', null, h('a', { href, 'aria-current': here === href || here.startsWith(`${href}/`) ? 'page' : null }, text));
  const group = (label: string, items: [string, string][]) =>
    h('div', { class: 'nav-group' }, h('span', { class: 'nav-label' }, label), h('ul', null, items.map(link)));
  put(
    nav,
    s.tenant ? group(`Tenant ${s.tenant.tenantId}`, TENANT_NAV) : null,
    s.operator ? group('Operator', OPERATOR_NAV) : null,
    s.analyst ? group('Analyst', ANALYST_NAV) : null,
    h(
      'ul',
      { class: 'nav-account' },
      link(['/console/sign-in', s.tenant || s.operator || s.analyst ? 'Account' : 'Sign in']),
    ),
  );
}

function setUpNavToggle(nav: HTMLElement): void {
  const toggle = document.getElementById('nav-toggle');
  if (!toggle) return;
  const set = (open: boolean) => {
    toggle.setAttribute('aria-expanded', String(open));
    nav.classList.toggle('open', open);
  };
  toggle.addEventListener('click', () => set(toggle.getAttribute('aria-expanded') !== 'true'));
  nav.addEventListener('click', (e) => {
    if ((e.target as Element).closest('a')) set(false);
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && nav.classList.contains('open')) {
      set(false);
      toggle.focus();
    }
  });
}

async function boot(): Promise<void> {
  const main = document.getElementById('main')!;
  const nav = document.getElementById('nav')!;
  setUpNavToggle(nav);
  try {
    await loadSessions();
  } catch (err) {
    put(main, h('h1', null, 'The console could not start'), errorBox(err));
    return;
  }
  const router = createRouter(main, routes, () => drawNav(nav));
  onSessionChange(() => drawNav(nav));
  // A session that ends under an open page (a revoked key, the idle timeout) sends the viewer to sign in, told why.
  onSessionEnded((kinds, duplicated) => {
    const ended = duplicated ? kinds : kinds.filter((kind) => sessionState()[kind]);
    if (ended.length === 0 || location.pathname === '/console/sign-in') return;
    const next: Record<string, null> = Object.fromEntries(ended.map((kind) => [kind, null]));
    setSessionState({ ...sessionState(), ...next });
    // The area of the page decides which sign-in card comes first (a report page of the analyst's area: analyst).
    const area = /^\/console\/(operator|analyst)(\/|$)/.exec(location.pathname)?.[1] as SessionKind | undefined;
    const as = area && ended.includes(area) ? area : ended[0]!;
    const back = encodeURIComponent(location.pathname + location.search);
    const why = duplicated ? 'cookies=duplicated' : 'ended=1';
    router.navigate(`/console/sign-in?as=${as}&${why}&next=${back}`, { replace: true });
  });
  router.start();
  if (sessionCookiesDuplicated() && location.pathname !== '/console/sign-in') {
    const back = encodeURIComponent(location.pathname + location.search);
    router.navigate(`/console/sign-in?cookies=duplicated&next=${back}`, { replace: true });
  }
}

void boot();
