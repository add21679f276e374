/**
 * The event catalogue (DESIGN decision 1). Every state change of a tenant is one of these, appended to the
 * tenant's ledger subject. docs/architecture.md lists who appends each one.
 */

import type { CaptureOptions } from './capture-options.js';
import type { FailureReason } from './failure-reason.js';
import type { ComparisonSummary, WatchSettings } from '../watch/watch-policy.js';

export type Scope = 'capture' | 'read' | 'admin';
export type Tier = 'starter' | 'pro';
export type RenderQuality = 'full' | 'partial';
/** 'capture.changed': opt-in extension (docs/watch.md), never sent to a webhook that did not ask for it. */
export type WebhookEventType = 'capture.complete' | 'capture.failed' | 'capture.changed';

/** Who caused an event. */
export type Causer =
  | { kind: 'admin' }
  | { kind: 'key'; keyHash: string }
  | { kind: 'legacy-key' }
  /** A person signed in to the console with OpenID Connect: the configured provider and their `sub` there. */
  | { kind: 'oidc'; provider: string; subject: string }
  | { kind: 'schedule'; scheduleId: string }
  | { kind: 'system'; component: string };

export interface SubmittedCapture {
  captureId: string;
  url: string;
  /** Validated capture options (docs/capturing.md, Capture options); absent: the spec's defaults. */
  options?: CaptureOptions;
  /**
   * The corroborated set (`cor_…`) this capture is a member of: the worker renders members of one set
   * on distinct workers. Our own field, never shown to tenants as an option.
   */
  corroborationId?: string;
}

/** How the page was rendered (spec 2.3 `render`), as the worker recorded it; later members are kept as they are. */
export interface CaptureRender {
  waitUntilReached: 'load' | 'domcontentloaded' | 'networkidle';
  timedOut: boolean;
  durationMs: number;
  settleMs?: number;
  settleReason?: 'idle' | 'cap';
  [more: string]: unknown;
}

/** The record's `captureSettings` (spec 2.3): `version`, `consent` when attempted, and how the page was captured. */
export interface CaptureSettings {
  version: number;
  consent?: { attempted: boolean; cmp: string | null; result: string; durationMs: number };
  [more: string]: unknown;
}

export interface ArtifactRefs {
  /** Object-store names of the stored artifacts. */
  screenshot: string;
  screenshotBefore?: string;
  html: string;
  headers?: string;
  /** Only when the capture asked for `pdf` (docs/capturing.md, Capture options). */
  pdf?: string;
  /** Only when the capture asked for `recordSession` (docs/capturing.md, Capture options): the WebM of the session. */
  session?: string;
  /** The provenance record (JSON); absent on captures completed before provenance records were made. */
  provenance?: string;
  wacz?: string;
}

export interface BundleRef {
  bundleHash: string;
  size: number;
  version: string;
  keyId: string;
  /** RFC 3161 genTime of the bundle's timestamp (absent: no timestamp, or written before it was recorded); a transparency-log leaf field. */
  genTime?: string;
}

export type TenantEvent =
  | { type: 'key.created'; data: { keyHash: string; scopes: Scope[]; name: string; createdAt: string } }
  | { type: 'key.revoked'; data: { keyHash: string; revokedAt: string } }
  | { type: 'tenant.tier_set'; data: { tier: Tier } }
  | {
      type: 'tenant.quota_overrides_set';
      /** null clears that override and restores the tier default (spec 4.11). */
      data: { capturesPerMonth: number | null; storageBytes: number | null };
    }
  | {
      type: 'capture.submitted';
      /** One event for a whole submission (single, batch or schedule run), so a batch is appended atomically. */
      data: {
        captures: SubmittedCapture[];
        period: string;
        source: 'single' | 'batch' | 'schedule';
        scheduleId?: string;
        fireTime?: string;
      };
    }
  | {
      type: 'capture.completed';
      data: {
        captureId: string;
        completedAt: string;
        renderQuality: RenderQuality;
        render: CaptureRender;
        artifacts: ArtifactRefs;
        bundle?: BundleRef;
        captureSettings?: CaptureSettings;
        storedBytes: number;
        attempts: number;
        /** page.url() at capture time (after redirects and client-side route changes); absent on older events. */
        finalUrl?: string;
      };
    }
  | {
      type: 'capture.failed';
      /** `failureReason`: absent on events written before reasons were recorded. */
      data: {
        captureId: string;
        failedAt: string;
        error: string;
        retryable: boolean;
        attempts: number;
        failureReason?: FailureReason;
      };
    }
  | {
      type: 'webhook.registered';
      /** `sealedSecret`: the secret sealed under the webhook's own key (crypto-shredding); `secret`: in the clear, events before. */
      data: {
        webhookId: string;
        url: string;
        events: WebhookEventType[];
        name: string;
        sealedSecret?: string;
        secret?: string;
        createdAt: string;
      };
    }
  | { type: 'webhook.deleted'; data: { webhookId: string; deletedAt: string } }
  | {
      type: 'webhook.delivery_attempted';
      data: {
        deliveryId: string;
        webhookId: string;
        eventId: string;
        eventType: string;
        attempt: number;
        outcome: 'delivered' | 'failed';
        httpStatus: number | null;
        detail?: string;
        latencyMs: number;
        nextAttemptAt?: string;
      };
    }
  | {
      type: 'webhook.delivery_dead_lettered';
      data: {
        deliveryId: string;
        webhookId: string;
        eventId: string;
        eventType: string;
        attempts: number;
        reason: string;
      };
    }
  | {
      type: 'schedule.created';
      data: {
        scheduleId: string;
        url: string;
        name: string;
        cron: string;
        createdAt: string;
        options?: CaptureOptions;
        /** Extension: compare each run with the one before (docs/watch.md). */
        watch?: WatchSettings;
      };
    }
  | { type: 'schedule.deleted'; data: { scheduleId: string; deletedAt: string } }
  | { type: 'schedule.skipped'; data: { scheduleId: string; fireTime: string; reason: 'quota'; detail: string } }
  | { type: 'usage.api_calls_recorded'; data: { period: string; count: number } }
  // Retention and legal hold of stored evidence (docs/storage.md): who and why, on the ledger.
  | { type: 'tenant.retention_set'; data: RetentionChange & { days: number | null } }
  | { type: 'capture.legal_hold_placed'; data: RetentionChange & { captureId: string } }
  | { type: 'capture.legal_hold_lifted'; data: RetentionChange & { captureId: string } }
  | { type: 'capture.retention_extended'; data: RetentionChange & { captureId: string; retainUntil: string } }
  | { type: 'capture.compared'; data: CaptureComparison }
  /** The diff of two captures issued as evidence (docs/watch.md): its record's hash goes into the public log. */
  | {
      type: 'capture.diff_attested';
      data: {
        captureId: string;
        baseCaptureId: string;
        recordHash: string;
        keyId: string;
        genTime: string | null;
        attestedAt: string;
      };
    }
  /**
   * A corroboration record issued (docs/evidence.md): its hash goes into the public log as a
   * `corroboration` leaf. `captureIds` are the set's members, in the record's order.
   */
  | {
      type: 'capture.corroboration_attested';
      data: {
        corroborationId: string;
        captureIds: string[];
        recordHash: string;
        keyId: string;
        genTime: string | null;
        attestedAt: string;
      };
    }
  // Browser profiles (docs/profiles.md), opt-in event types beside the spec's: the contents stay sealed in the
  // profile vault (src/profiles/profile-vault.ts); the ledger says who made, changed, used or deleted a profile.
  | { type: 'profile.created'; data: ProfileVersionFacts & { profileId: string; name: string; createdAt: string } }
  | { type: 'profile.updated'; data: ProfileVersionFacts & { profileId: string; updatedAt: string } }
  | { type: 'profile.renamed'; data: { profileId: string; name: string; renamedAt: string } }
  | { type: 'profile.deleted'; data: { profileId: string; deletedAt: string } }
  /** Admitted with a capture: the version the profile had then and its digest. */
  | { type: 'profile.used'; data: { profileId: string; captureId: string; version: number; digest: string } };

/**
 * What one version of a browser profile's contents covers (docs/profiles.md): never a cookie or storage value.
 * `digest` is `sha256:` + hex of the sealed contents, so an audit can tell versions apart without opening them.
 */
export interface ProfileVersionFacts {
  version: number;
  /** Registrable domains the profile holds state for. */
  sites: string[];
  cookieCount: number;
  originCount: number;
  digest: string;
}

/** Who changed a retention or legal hold, why, and when. */
export interface RetentionChange {
  by: string;
  reason: string;
  at: string;
}

export type TenantEventType = TenantEvent['type'];

/** A watched schedule's run compared with the previous complete run (docs/watch.md). */
export interface CaptureComparison {
  captureId: string;
  baseCaptureId: string;
  scheduleId: string;
  /** Any part differs (volatile headers aside). */
  changed: boolean;
  /** Changed beyond the watch's thresholds: a capture.changed webhook event fires. */
  notify: boolean;
  summary: ComparisonSummary;
  options: { ignoreSelectors: string[]; ignoreText: string[] };
  /**
   * The diff reached a bound (docs/watch.md, Bounds) and was not completed: which one and why. Then `changed` and
   * `notify` are false and the summary counts nothing. Absent: the diff completed.
   */
  bound?: string;
  comparedAt: string;
}

/** Events of the system subject (not a tenant's). */
export type SystemEvent =
  | {
      type: 'signing.key_rotated';
      data: { keyId: string; publicKey: string; previousKeyId: string | null; rotatedAt: string };
    }
  | {
      /** A built-in TSA's CA certificate, trusted for timestamps by every verifier of the deployment. */
      type: 'tsa.certificate_published';
      data: { fingerprint: string; caCertPem: string; publishedAt: string };
    };

export type DomainEvent = TenantEvent | SystemEvent;

export const SCHEMA_VERSION = 1;
