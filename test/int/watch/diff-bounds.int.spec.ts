import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { openArtifactStore } from '../../../src/storage/jetstream-artifact-store.js';
import { artifactObjectName } from '../../../src/domain/artifacts.js';
import { fixedClock } from '../../../src/domain/clock.js';
import { newId } from '../../../src/domain/ids.js';
import { createScheduler } from '../../../src/schedules/scheduler.js';
import { ADMIN_KEY, assertProblem, startTestServer, type TestServer } from '../../support/test-server.js';
import { findCapture } from '../../../projections/read-models/captures.js';

/**
 * A diff runs over pages the tenant chose with patterns the tenant wrote (docs/watch.md, Bounds): the attacks that
 * froze the API — a catastrophically backtracking ignoreText, a sibling-combinator chain in ignoreSelectors, two
 * long pages that share nothing — are refused when submitted or end at a bound with a 422 naming it, while
 * /health, polled all along, keeps answering; a watched run whose diff reaches a bound is recorded as such.
 * The captures are completed through the tenant's actor with HTML of the test's choosing (no browser).
 */

/** The limit the time-limit case runs under; the other cases run under a generous one, so a busy host cannot turn
 * their size bounds into a time bound. */
const TIME_LIMIT_MS = 5000;
const GENEROUS_LIMIT_MS = 300_000;
const HOUR = 3_600_000;

const paragraphs = (n: number, text: (i: number) => string) =>
  `<!doctype html><html><body>${Array.from({ length: n }, (_, i) => `<p>${text(i)}</p>`).join('')}</body></html>`;

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('diff bounds: untrusted work off the event loop', () => {
  let s: TestServer;
  let token: string;

  /** A complete capture of `tenant` whose stored page is `html` (`captureId`: one a schedule already submitted). */
  async function completeWithHtml(tenant: string, html: string, captureId = newId('cap')): Promise<string> {
    const store = await openArtifactStore(s.server.nats!.nc);
    const name = artifactObjectName(captureId, 'bounds', 'html');
    await store.put(name, new TextEncoder().encode(html));
    const by = { correlationId: `bounds-${captureId}`, causedBy: { kind: 'admin' as const } };
    if (!(await findCapture(s.server.ctx.pool, captureId)))
      await s.server.ctx.tenants.execute(
        tenant,
        { type: 'SubmitCaptures', data: { captures: [{ captureId, url: 'https://example.com/' }], source: 'single' } },
        by,
      );
    await s.server.ctx.tenants.execute(
      tenant,
      {
        type: 'CompleteCapture',
        data: {
          captureId,
          completedAt: new Date().toISOString(),
          renderQuality: 'full',
          render: { waitUntilReached: 'load', timedOut: false, durationMs: 1 },
          artifacts: { html: name },
          storedBytes: html.length,
          attempts: 1,
        },
      } as never,
      by,
    );
    await waitFor(`capture ${captureId} to be complete in the projection`, async () =>
      (await findCapture(s.server.ctx.pool, captureId))?.status === 'complete' ? true : undefined,
    );
    return captureId;
  }

  /**
   * `work` while /health is asked again and again, each poll as soon as the last one answered: how long the work
   * took, how many polls answered meanwhile and the longest time without an answer (from the start to the first,
   * between two, from the last to the end).
   */
  async function whilePollingHealth<T>(work: () => Promise<T>) {
    let running = true;
    const answered: number[] = [];
    const poller = (async () => {
      while (running) {
        const r = await fetch(`${s.baseUrl}/health`);
        await r.arrayBuffer();
        if (running) answered.push(performance.now());
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const started = performance.now();
    const result = await work();
    const ended = performance.now();
    running = false;
    await poller;
    const times = [started, ...answered, ended];
    const maxGap = Math.max(...times.slice(1).map((t, i) => t - times[i]!));
    return { result, ms: ended - started, polls: answered.length, maxGap };
  }

  const diff = (captureId: string, base: string, query = '') =>
    s.call('GET', `/v1/captures/${captureId}/diff?base=${base}${query}`, { token });

  /** Makes `s` a server whose diffs end at `limitMs`, and `token` a key of tenant `bounds` on it. */
  async function startServer(limitMs: number) {
    s = await startTestServer({ DIFF_TIME_LIMIT_MS: String(limitMs), RATE_LIMIT_IP_PER_MIN: '100000' });
    const r = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      body: { tenantId: 'bounds', scopes: ['capture', 'read'], name: 'bounds' },
    });
    assert.equal(r.status, 201, r.text);
    token = r.body.key;
  }

  before(async () => {
    await startServer(GENEROUS_LIMIT_MS);
  });

  after(async () => {
    await s?.stop();
  });

  it('refuses a backtracking ignoreText and a sibling-combinator chain at submission, naming the field', async () => {
    const page = `<p>${'a'.repeat(29)}!</p>`;
    const a = await completeWithHtml('bounds', page);
    const b = await completeWithHtml('bounds', page);
    const redos = await diff(b, a, `&ignoreText=${encodeURIComponent('(a+)+$')}`);
    assertProblem(redos.body, 400);
    assert.match(redos.body.detail, /^ignoreText: '\(a\+\)\+\$'.*repeated group/, redos.body.detail);
    for (const pattern of ['(.)\\1', '(?=a)a', '(a|aa)*b']) {
      const r = await diff(b, a, `&ignoreText=${encodeURIComponent(pattern)}`);
      assertProblem(r.body, 400);
      assert.ok(r.body.detail.startsWith('ignoreText'), r.body.detail);
    }
    const chain = await diff(b, a, `&ignoreSelectors=${encodeURIComponent('x ~ p ~ p ~ p')}`);
    assertProblem(chain.body, 400);
    assert.match(chain.body.detail, /^ignoreSelectors: .*general-sibling/, chain.body.detail);

    // The same patterns where a capture records text boxes and a schedule watches.
    const capture = await s.call('POST', '/v1/captures', {
      token,
      body: { url: 'https://example.com/', options: { recordTextBoxes: ['(a+)+$'] } },
    });
    assertProblem(capture.body, 400);
    assert.match(capture.body.detail, /recordTextBoxes/, capture.body.detail);
    const boxes = await s.call('POST', '/v1/captures', {
      token,
      body: { url: 'https://example.com/', options: { recordBoxes: ['x ~ p ~ p ~ p'] } },
    });
    assertProblem(boxes.body, 400);
    assert.match(boxes.body.detail, /recordBoxes/, boxes.body.detail);
    for (const [watch, field] of [
      [{ ignoreText: ['(a+)+$'] }, 'watch.ignoreText'],
      [{ ignoreSelectors: ['x ~ p ~ p ~ p'] }, 'watch.ignoreSelectors'],
    ] as const) {
      const r = await s.call('POST', '/v1/schedules', {
        token,
        body: { url: 'https://example.com/', name: 'bad', cron: '0 * * * *', watch },
      });
      assertProblem(r.body, 400);
      assert.ok(r.body.detail.startsWith(field), r.body.detail);
    }

    // What the rules let through is still compared: a bounded pattern and selector, answered as ever.
    const fine = await diff(
      b,
      a,
      `&ignoreText=${encodeURIComponent('a{29}')}&ignoreSelectors=${encodeURIComponent('x ~ p')}`,
    );
    assert.equal(fine.status, 200, fine.text);
    assert.equal(fine.body.changed, false);
  });

  it('ends a diff that runs past its time limit with a 422 naming it, /health answering all along', async (t) => {
    const generous = { s, token };
    await startServer(TIME_LIMIT_MS);
    t.after(async () => {
      await s.stop();
      ({ s, token } = generous);
    });
    // Polynomial, not exponential, so no submission rule refuses it: the time limit ends it.
    const page = `<p>${'a'.repeat(4000)}</p>`;
    const a = await completeWithHtml('bounds', page);
    const b = await completeWithHtml('bounds', page);
    const {
      result: r,
      ms,
      polls,
      maxGap,
    } = await whilePollingHealth(() => diff(b, a, `&ignoreText=${encodeURIComponent('a*a*a*a*b')}`));
    assertProblem(r.body, 422);
    assert.equal(r.body.bound, 'timeLimit');
    assert.match(r.body.detail, /timeLimit.*time limit of 5 s/, r.body.detail);
    t.diagnostic(
      `time limit: 422 after ${Math.round(ms)} ms; ${polls} /health answers, longest gap ${Math.round(maxGap)} ms`,
    );
    assert.ok(ms >= TIME_LIMIT_MS, `the diff answered after ${ms} ms, before its limit`);
    assert.ok(polls > 0, 'no /health poll answered while the diff ran');
    assert.ok(
      maxGap < ms / 2,
      `/health went ${Math.round(maxGap)} ms without an answer during a ${Math.round(ms)} ms diff`,
    );

    // The thread was ended, not left running: the next diff is answered.
    const next = await diff(b, a);
    assert.equal(next.status, 200, next.text);
  });

  it('compares two long pages that differ little, and refuses two that share nothing with a 422', async (t) => {
    const base = paragraphs(10_000, (i) => `Paragraph ${i} of the first page, long enough to be text.`);
    const other = paragraphs(10_000, (i) => `Paragraph ${i} of the second page, long enough to be text.`);
    const edited = base.replace('<p>Paragraph 5000 of', '<p>Paragraph 5000 (edited) of');
    const a = await completeWithHtml('bounds', base);
    const b = await completeWithHtml('bounds', edited);
    const c = await completeWithHtml('bounds', other);

    const small = await whilePollingHealth(() => diff(b, a));
    assert.equal(small.result.status, 200, small.result.text);
    assert.equal(small.result.body.summary.textBlocksChanged, 1);
    assert.equal(small.result.body.summary.textBlocksAdded + small.result.body.summary.textBlocksRemoved, 0);

    const large = await whilePollingHealth(() => diff(c, a));
    t.diagnostic(
      `10,000 blocks, one changed: 200 in ${Math.round(small.ms)} ms; ${small.polls} /health answers, longest gap ${Math.round(small.maxGap)} ms`,
    );
    t.diagnostic(
      `10,000 blocks, all changed: ${large.result.status} in ${Math.round(large.ms)} ms; ${large.polls} /health answers, longest gap ${Math.round(large.maxGap)} ms`,
    );
    assertProblem(large.result.body, 422);
    assert.equal(large.result.body.bound, 'textEdits');
    assert.match(large.result.body.detail, /textEdits.*blocks of text were added or removed/, large.result.body.detail);
    assert.ok(large.polls > 0, 'no /health poll answered while the diff ran');
    assert.ok(
      large.maxGap < Math.max(2000, large.ms / 2),
      `/health went ${Math.round(large.maxGap)} ms without an answer during a ${Math.round(large.ms)} ms diff`,
    );
  });

  it('records a watched run whose text changed beyond the bound as bounded and changed, once', async () => {
    const created = await s.call('POST', '/v1/schedules', {
      token,
      body: { url: 'https://example.com/', name: 'watched', cron: '0 * * * *', watch: { ignoreText: ['\\d+'] } },
    });
    assert.equal(created.status, 201, created.text);
    const scheduleId = created.body.id as string;
    const clock = fixedClock(new Date(Math.ceil(Date.now() / HOUR) * HOUR + HOUR + 60_000));
    const scheduler = createScheduler({
      pool: s.server.ctx.pool,
      tenants: s.server.ctx.tenants,
      clock,
      log: pino({ level: 'silent' }),
    });
    const fire = async () => {
      const report = await scheduler.tick();
      const fired = report.fired.find((f) => f.scheduleId === scheduleId);
      assert.equal(fired?.outcome.kind, 'fired', JSON.stringify(report));
      clock.advance(HOUR);
      return (fired!.outcome as { captureId: string }).captureId;
    };
    const first = await fire();
    await waitFor('the first run in the projection', async () =>
      (await findCapture(s.server.ctx.pool, first)) ? true : undefined,
    );
    await completeWithHtml(
      'bounds',
      paragraphs(10_000, (i) => `Entry number ${i} of the first edition`),
      first,
    );
    const second = await fire();
    await waitFor('the second run in the projection', async () =>
      (await findCapture(s.server.ctx.pool, second)) ? true : undefined,
    );
    await completeWithHtml(
      'bounds',
      paragraphs(10_000, (i) => `Entry ${i} of the next edition, all new`),
      second,
    );

    const run = await waitFor('the second run to be compared', async () => {
      const r = await s.call('GET', `/v1/schedules/${scheduleId}/runs`, { token });
      assert.equal(r.status, 200, r.text);
      const found = (r.body.data as any[]).find((x) => x.captureId === second);
      return found?.comparison ? found : undefined;
    });
    assert.equal(run.comparison.baseCaptureId, first);
    assert.match(run.comparison.bound, /^textEdits: /, JSON.stringify(run.comparison));
    // Text rewritten beyond the bound is a change: the watch tells about it.
    assert.equal(run.comparison.changed, true);
    assert.equal(run.comparison.notified, true);
    const firstRun = (await s.call('GET', `/v1/schedules/${scheduleId}/runs`, { token })).body.data.find(
      (x: any) => x.captureId === first,
    );
    assert.equal(firstRun.comparison, null);
  });
});
