import type { TenantEvent } from '../../src/domain/events.js';

/** A small seeded PRNG (mulberry32): property tests print their seed, so a failure can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `n` tenant events of every type, mostly coherent (completions of pending captures, deletions of existing
 * schedules and webhooks, fires of active schedules) with some that refer to nothing, periods that move
 * forward and occasionally back — the cases the fold must treat the same from a snapshot as from scratch.
 */
export function randomTenantEvents(random: () => number, n: number): Array<TenantEvent & { occurredAt: string }> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const pending: string[] = [];
  const keys: string[] = [];
  const webhooks: string[] = [];
  const schedules: string[] = [];
  let month = 1;
  let ids = 0;
  let time = Date.parse('2026-01-01T00:00:00Z');
  const out: Array<TenantEvent & { occurredAt: string }> = [];
  const period = () => `2026-${String(month).padStart(2, '0')}`;
  for (let i = 0; i < n; i++) {
    time += Math.floor(random() * 3_600_000);
    const at = new Date(time).toISOString();
    if (random() < 0.05 && month < 12) month++;
    const r = random();
    let e: TenantEvent;
    if (r < 0.3) {
      const captures = Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({
        captureId: `cap_${ids++}`,
        url: `https://example.org/${ids}`,
      }));
      pending.push(...captures.map((c) => c.captureId));
      const fromSchedule = schedules.length > 0 && random() < 0.3;
      // A late submission of an earlier period now and then (a clock near a month's end).
      const p = random() < 0.05 && month > 1 ? `2026-${String(month - 1).padStart(2, '0')}` : period();
      e = {
        type: 'capture.submitted',
        data: fromSchedule
          ? { captures: captures.slice(0, 1), period: p, source: 'schedule', scheduleId: pick(schedules), fireTime: at }
          : { captures, period: p, source: captures.length > 1 ? 'batch' : 'single' },
      };
    } else if (r < 0.5) {
      const id =
        pending.length > 0 && random() < 0.9
          ? pending.splice(Math.floor(random() * pending.length), 1)[0]!
          : `cap_unknown_${ids++}`;
      e = {
        type: 'capture.completed',
        data: {
          captureId: id,
          completedAt: at,
          renderQuality: 'full',
          render: { waitUntilReached: 'load', timedOut: false, durationMs: 1 },
          artifacts: { screenshot: 's', html: 'h' },
          storedBytes: Math.floor(random() * 100_000),
          attempts: 1,
        },
      };
    } else if (r < 0.58) {
      const id =
        pending.length > 0 ? pending.splice(Math.floor(random() * pending.length), 1)[0]! : `cap_unknown_${ids++}`;
      e = {
        type: 'capture.failed',
        data: { captureId: id, failedAt: at, error: 'timeout', retryable: random() < 0.5, attempts: 3 },
      };
    } else if (r < 0.64) {
      const keyHash = `k${ids++}`;
      keys.push(keyHash);
      e = {
        type: 'key.created',
        data: { keyHash, scopes: random() < 0.5 ? ['capture'] : ['read'], name: `key ${ids}`, createdAt: at },
      };
    } else if (r < 0.68) {
      e = { type: 'key.revoked', data: { keyHash: keys.length > 0 ? pick(keys) : 'k-none', revokedAt: at } };
    } else if (r < 0.71) {
      e = { type: 'tenant.tier_set', data: { tier: random() < 0.5 ? 'pro' : 'starter' } };
    } else if (r < 0.74) {
      e = {
        type: 'tenant.quota_overrides_set',
        data: {
          capturesPerMonth: random() < 0.5 ? null : Math.floor(random() * 1000),
          storageBytes: random() < 0.5 ? null : 1e9,
        },
      };
    } else if (r < 0.78) {
      const webhookId = `wh_${ids++}`;
      webhooks.push(webhookId);
      e = {
        type: 'webhook.registered',
        data: {
          webhookId,
          url: 'https://example.org/hook',
          events: ['capture.complete'],
          name: 'hook',
          secret: `sec_${ids}`,
          createdAt: at,
        },
      };
    } else if (r < 0.8) {
      e = {
        type: 'webhook.deleted',
        data: {
          webhookId: webhooks.length > 0 ? webhooks.splice(Math.floor(random() * webhooks.length), 1)[0]! : 'wh_none',
          deletedAt: at,
        },
      };
    } else if (r < 0.84) {
      const scheduleId = `sch_${ids++}`;
      schedules.push(scheduleId);
      e = {
        type: 'schedule.created',
        data: { scheduleId, url: 'https://example.org/s', name: 'daily', cron: '0 * * * *', createdAt: at },
      };
    } else if (r < 0.86) {
      e = {
        type: 'schedule.deleted',
        data: {
          scheduleId:
            schedules.length > 0 ? schedules.splice(Math.floor(random() * schedules.length), 1)[0]! : 'sch_none',
          deletedAt: at,
        },
      };
    } else if (r < 0.9) {
      e = {
        type: 'schedule.skipped',
        data: {
          scheduleId: schedules.length > 0 ? pick(schedules) : 'sch_none',
          fireTime: at,
          reason: 'quota',
          detail: 'quota used up',
        },
      };
    } else if (r < 0.95) {
      e = { type: 'usage.api_calls_recorded', data: { period: period(), count: 1 + Math.floor(random() * 50) } };
    } else {
      e = {
        type: 'webhook.delivery_attempted',
        data: {
          deliveryId: `dl_${ids++}`,
          webhookId: 'wh',
          eventId: 'evt',
          eventType: 'capture.complete',
          attempt: 1,
          outcome: 'delivered',
          httpStatus: 200,
          latencyMs: 5,
        },
      };
    }
    out.push({ ...e, occurredAt: at } as TenantEvent & { occurredAt: string });
  }
  return out;
}
