import { ApiError, get } from '../api.js';
import { h, put } from '../dom.js';
import { errorBox } from '../errors.js';
import { bytes, time } from '../format.js';
import type { PageContext } from '../router.js';
import type { CaptureRecord, CaptureStatusRecord, Provenance, Verification } from '../api-answers.js';
import { capturePaths, sameOrigin } from '../api-paths.js';
import { facts, heading, statusBadge, table } from '../ui.js';

/**
 * One capture: its status while pending (watched by the page's poller), then the record (spec 2.3), the server's
 * verification verdict with each check (spec 2.6, GET /v1/verify/{id}), the provenance summary and every download;
 * the archived page is replayed in a sandboxed frame from the replay origin, as the public verify page does.
 */
const replayOrigin = () => document.querySelector<HTMLMetaElement>('meta[name="replay-origin"]')?.content ?? '';

export async function captureDetailPage(ctx: PageContext): Promise<void> {
  const id = ctx.params[0]!;
  const title = heading('Capture');
  const body = h('div', { class: 'detail' }, h('p', null, 'Loading…'));
  put(ctx.main, h('p', { class: 'crumbs' }, h('a', { href: '/console/captures' }, '← All captures')), title, body);

  const status = await get<CaptureStatusRecord>(capturePaths.status(id), ctx.signal).catch((err) => {
    put(body, errorBox(err));
    return null;
  });
  if (!status) return;
  if (status.status !== 'complete') {
    const draw = (s: CaptureStatusRecord) =>
      put(
        body,
        facts([
          ['Capture', h('code', null, id)],
          ['Status', statusBadge(s.status)],
          ['Reason', s.error],
          [
            'May a new capture succeed?',
            s.retryable === undefined ? undefined : s.retryable ? 'Yes: submit it again.' : 'Probably not.',
          ],
        ]),
        s.status === 'pending'
          ? h('p', { class: 'muted' }, 'The capture is running; this page updates when it finishes.')
          : null,
      );
    draw(status);
    if (status.status === 'pending') {
      ctx.poller.watch(id, async () => {
        const s = await get<CaptureStatusRecord>(capturePaths.status(id), ctx.signal);
        if (s.status === 'pending') return 'again';
        if (s.status === 'complete') {
          put(body, h('p', null, 'Complete. Loading the capture…'));
          await showComplete(ctx, id, title, body);
        } else draw(s);
        return 'done';
      });
    }
    return;
  }
  await showComplete(ctx, id, title, body);
}

/** The screenshot; with the consent banner dismissed, the one before beside the one after. */
function screenshots(record: CaptureRecord): HTMLElement {
  const a = record.artifacts;
  return h(
    'section',
    { 'aria-labelledby': 'shot-heading', class: 'shots' },
    h('h2', { id: 'shot-heading' }, 'Screenshot'),
    a.screenshotBefore
      ? h(
          'div',
          { class: 'pair' },
          h(
            'figure',
            null,
            h('img', {
              class: 'shot',
              src: sameOrigin(a.screenshotBefore),
              alt: `Before the consent banner was dismissed: ${record.url}`,
              loading: 'lazy',
            }),
            h('figcaption', null, 'Before the consent banner was dismissed'),
          ),
          h(
            'figure',
            null,
            h('img', {
              class: 'shot',
              src: sameOrigin(a.screenshot),
              alt: `After the consent banner was dismissed: ${record.url}`,
              loading: 'lazy',
            }),
            h('figcaption', null, 'After'),
          ),
        )
      : h(
          'figure',
          null,
          h('img', {
            class: 'shot',
            src: sameOrigin(a.screenshot),
            alt: `Screenshot of ${record.url}`,
            loading: 'lazy',
          }),
        ),
  );
}

/** Every download the capture has, and the way to its public verification page. */
function downloads(record: CaptureRecord, id: string): HTMLElement {
  const a = record.artifacts;
  const links: [string, string | undefined, string][] = [
    ['Screenshot (PNG)', a.screenshot, ''],
    ['Screenshot before consent dismissal (PNG)', a.screenshotBefore, ''],
    ['Rendered HTML (text)', a.html, ''],
    ['Response headers (JSON)', a.headers, ''],
    ['Printed page (PDF)', a.pdf, ''],
    ['Session recording (WebM video)', a.session, ''],
    ['Signed bundle (WACZ)', record.wacz?.url, record.wacz ? bytes(record.wacz.size) : ''],
    ['Certificate (PDF)', record.wacz ? capturePaths.certificate(id) : undefined, ''],
    ['Provenance record (JSON)', capturePaths.provenance(id), ''],
  ];
  return h(
    'section',
    { 'aria-labelledby': 'dl-heading' },
    h('h2', { id: 'dl-heading' }, 'Downloads'),
    h(
      'ul',
      { class: 'downloads' },
      links
        .filter(([, url]) => url)
        .map(([label, url, note]) =>
          h('li', null, h('a', { href: sameOrigin(url!), download: '' }, label), note ? ` (${note})` : ''),
        ),
    ),
    record.wacz
      ? h(
          'p',
          null,
          h('a', { href: capturePaths.verify(id), class: 'button-link' }, 'Open the public verification page'),
          ' — anyone with the capture id can check it there.',
        )
      : h(
          'p',
          { class: 'muted' },
          'This capture has no signed bundle (a partial capture, or no signing key is configured), so it cannot be verified.',
        ),
  );
}

/** The archived page replayed from its signed bundle in a sandboxed frame; null without a bundle or replay origin. */
function replay(record: CaptureRecord, id: string): HTMLElement | null {
  if (!record.wacz || !replayOrigin()) return null;
  return h(
    'section',
    { 'aria-labelledby': 'replay-heading', class: 'replay' },
    h('h2', { id: 'replay-heading' }, 'The archived page'),
    h('iframe', {
      class: 'replay-frame',
      title: `The archived page of ${record.url}, replayed from the signed bundle`,
      src: `${replayOrigin()}/captures/${encodeURIComponent(id)}`,
      sandbox: 'allow-scripts allow-same-origin',
      referrerpolicy: 'no-referrer',
      loading: 'lazy',
    }),
  );
}

function recordFacts(record: CaptureRecord, id: string): HTMLElement {
  return facts([
    ['Capture id', h('code', null, id)],
    ['Status', statusBadge(record.status)],
    ['URL', h('span', { class: 'url' }, record.url)],
    [
      'Final URL',
      record.finalUrl && record.finalUrl !== record.url ? h('span', { class: 'url' }, record.finalUrl) : undefined,
    ],
    ['Submitted', time(record.createdAt)],
    ['Completed', time(record.completedAt)],
    [
      'Render quality',
      record.renderQuality === 'full'
        ? 'full (the page finished loading)'
        : 'partial (captured after a navigation timeout)',
    ],
    ['Bundle hash', record.wacz ? h('code', null, record.wacz.bundleHash) : undefined],
    [
      'Transparency log',
      record.transparency
        ? `leaf ${record.transparency.leafIndex}${record.transparency.checkpoint ? ', in a published checkpoint' : ', checkpoint not yet published'}`
        : undefined,
    ],
  ]);
}

async function showComplete(ctx: PageContext, id: string, title: HTMLElement, body: HTMLElement): Promise<void> {
  const record = await get<CaptureRecord>(capturePaths.record(id), ctx.signal);
  title.textContent = `Capture of ${record.url}`;
  const verdict = h(
    'section',
    { 'aria-labelledby': 'verdict-heading' },
    h('h2', { id: 'verdict-heading' }, 'Verification'),
  );
  const provenance = h('section', { 'aria-labelledby': 'prov-heading' }, h('h2', { id: 'prov-heading' }, 'Provenance'));
  put(
    body,
    recordFacts(record, id),
    screenshots(record),
    verdict,
    provenance,
    downloads(record, id),
    replay(record, id),
  );

  if (record.wacz) {
    get<Verification>(capturePaths.verify(id), ctx.signal)
      .then((v) => verdict.append(...verification(v)))
      .catch((err) => verdict.append(errorBox(err)));
  } else verdict.append(h('p', { class: 'muted' }, 'No signed bundle: nothing to verify.'));

  get<Provenance>(capturePaths.provenance(id), ctx.signal)
    .then((p) => provenance.append(...provenanceSummary(p)))
    .catch((err) =>
      provenance.append(
        err instanceof ApiError && err.status === 404
          ? h('p', { class: 'muted' }, 'No provenance record: the capture completed before records were kept.')
          : errorBox(err),
      ),
    );
}

function verification(v: Verification): Node[] {
  const logFailed = v.transparency?.status === 'fail';
  const ok = v.verified && !logFailed;
  const sentence = !v.verified
    ? 'Not verified: at least one check failed.'
    : logFailed
      ? "Not verified: the bundle is intact and signed, but its inclusion in this service's transparency log failed."
      : 'Verified: the bundle is intact and signed by this service.';
  const checks = [
    ...v.checks,
    ...(v.transparency ? [{ name: 'transparency', status: v.transparency.status, detail: v.transparency.detail }] : []),
  ];
  return [
    h('p', { class: `verdict ${ok ? 'ok' : 'bad'}` }, sentence),
    table(
      'Checks run by the server',
      ['Check', 'Result', 'Detail'],
      checks.map((c) => [c.name, h('span', { class: `check-${c.status}` }, c.status), c.detail ?? '']),
    ),
    v.signing
      ? facts([
          ['Signed', time(v.signing.signedAt)],
          ['Key id', v.signing.keyId],
          ['Public key', h('code', null, v.signing.publicKey)],
          [
            'Timestamp',
            v.signing.timestamp
              ? h(
                  'span',
                  null,
                  time(v.signing.timestamp.genTime),
                  ` by ${v.signing.timestamp.tsa}`,
                  v.signing.timestamp.selfIssued ? " (this service's built-in TSA, not a public one)" : '',
                )
              : 'none (a v0.1.0 bundle)',
          ],
          ['Log leaf', v.transparency?.leafIndex],
        ])
      : h('p', { class: 'muted' }, 'The bundle or its signature document was not found.'),
  ];
}

function tlsSummary(tls: unknown): string {
  if (!tls || typeof tls !== 'object') return 'none';
  const t = tls as Record<string, unknown>;
  const protocol = typeof t.protocol === 'string' ? t.protocol : 'TLS';
  const chain = Array.isArray(t.chain) ? t.chain : Array.isArray(t.certificates) ? t.certificates : [];
  const leaf = chain[0] as Record<string, unknown> | undefined;
  const subject = leaf && typeof leaf.subject === 'string' ? `, ${leaf.subject}` : '';
  return `${protocol}${subject}`;
}

function provenanceSummary(p: Provenance): Node[] {
  return [
    facts([
      ['Requested', h('span', { class: 'url' }, p.requestedUrl)],
      ['Final', h('span', { class: 'url' }, p.finalUrl)],
      ['Main document status', p.mainDocumentStatus],
      ['Browser', `${p.browser.name} ${p.browser.version}`],
      ['Viewport', `${p.viewport.width}×${p.viewport.height} at ${p.viewport.deviceScaleFactor}×`],
    ]),
    p.redirectChain.length
      ? table(
          'Redirects',
          ['URL', 'Status', 'To'],
          p.redirectChain.map((r) => [
            h('span', { class: 'url' }, r.url),
            r.status ?? '—',
            r.location ? h('span', { class: 'url' }, r.location) : '—',
          ]),
        )
      : h('p', null, 'No redirects.'),
    table(
      'Connections the browser made (through the filtering proxy)',
      ['Host', 'Address', 'TLS', 'When'],
      p.connections.map((c) => [
        `${c.host}:${c.port}`,
        c.address,
        c.tlsError ? `error: ${c.tlsError}` : tlsSummary(c.tls),
        time(c.connectedAt),
      ]),
    ),
    ...(p.notes.length
      ? [
          h(
            'ul',
            { class: 'notes' },
            p.notes.map((n) => h('li', null, n)),
          ),
        ]
      : []),
  ];
}
