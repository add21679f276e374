import { h, put } from './dom.js';
import { errorBox } from './errors.js';
import { createPoller, type Poller } from './poller.js';
import { sessionState } from './session-state.js';

/** What a page gets: where to draw, its path parameters and query, and what ends with it. */
export interface PageContext {
  main: HTMLElement;
  params: string[];
  query: URLSearchParams;
  /** Aborted when the viewer leaves the page: pending requests stop drawing. */
  signal: AbortSignal;
  poller: Poller;
  navigate(path: string, opts?: { replace?: boolean }): void;
}

export type Area = 'public' | 'tenant' | 'operator' | 'analyst';

export interface Route {
  pattern: RegExp;
  area: Area;
  title: string;
  render(ctx: PageContext): void | Promise<void>;
}

export interface Router {
  start(): void;
  navigate(path: string, opts?: { replace?: boolean }): void;
  refresh(): void;
}

/** Client-side routing by path under /console (the server answers the same shell for each). */
export function createRouter(main: HTMLElement, routes: Route[], onNavigate: () => void): Router {
  let leave: (() => void) | null = null;
  let first = true;
  const pathOf = (pathname: string) => pathname.replace(/\/+$/, '') || '/console';
  const routeOf = (path: string) => routes.find((r) => r.pattern.test(path));

  function render(): void {
    leave?.();
    const controller = new AbortController();
    const poller = createPoller();
    leave = () => {
      controller.abort();
      poller.stop();
    };
    const path = pathOf(location.pathname);
    const route = routeOf(path);
    const ctx: PageContext = {
      main,
      params: route ? (route.pattern.exec(path)?.slice(1) ?? []).map(decodeURIComponent) : [],
      query: new URLSearchParams(location.search),
      signal: controller.signal,
      poller,
      navigate,
    };
    onNavigate();
    if (!route) {
      document.title = 'Not found · Capture Ledger console';
      put(
        main,
        h('h1', { tabindex: '-1' }, 'Page not found'),
        h('p', null, h('a', { href: '/console' }, 'Go to the console start page')),
      );
      return focusHeading();
    }
    const s = sessionState();
    if (route.area !== 'public' && !s[route.area]) {
      const next = encodeURIComponent(location.pathname + location.search);
      return navigate(`/console/sign-in?as=${route.area}&next=${next}`, { replace: true });
    }
    document.title = `${route.title} · Capture Ledger console`;
    put(main);
    Promise.resolve(route.render(ctx)).catch((err) => {
      if ((err as Error)?.name !== 'AbortError') main.append(errorBox(err));
    });
    focusHeading();
  }

  /** After a client-side navigation focus moves to the new page's heading, as a page load would reset it. */
  function focusHeading(): void {
    if (first) {
      first = false;
      return;
    }
    const heading = main.querySelector<HTMLElement>('h1');
    if (heading) {
      heading.tabIndex = -1;
      heading.focus();
    } else main.focus();
  }

  function navigate(path: string, opts: { replace?: boolean } = {}): void {
    if (opts.replace) history.replaceState(null, '', path);
    else history.pushState(null, '', path);
    render();
  }

  return {
    start() {
      document.addEventListener('click', (e) => {
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        const a = (e.target as Element | null)?.closest?.('a');
        if (!a || a.target || a.hasAttribute('download')) return;
        const url = new URL(a.href, location.href);
        // Only the console's own pages; a server route under /console (the OpenID sign-in's start) is a navigation.
        if (url.origin !== location.origin || !routeOf(pathOf(url.pathname))) return;
        e.preventDefault();
        navigate(url.pathname + url.search);
      });
      window.addEventListener('popstate', render);
      render();
    },
    navigate,
    refresh: render,
  };
}
