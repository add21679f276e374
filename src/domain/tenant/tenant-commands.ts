import type { CaptureOptions } from '../capture-options.js';
import type { CaptureComparison, Scope, SubmittedCapture, TenantEvent, Tier, WebhookEventType } from '../events.js';
import type { WatchSettings } from '../../watch/watch-policy.js';

/**
 * What a tenant actor can be asked to do, as data (`type` + `data`); `decideTenant` (tenant-decider.ts) answers
 * each with events and a reply of type `TenantReplies[type]`.
 */

type EventData<T extends TenantEvent['type']> = Extract<TenantEvent, { type: T }>['data'];

export type TenantCommand =
  // keys (spec 4.11)
  | { type: 'CreateKey'; data: { keyHash: string; scopes: Scope[]; name: string } }
  | { type: 'RevokeKey'; data: { keyHash: string } }
  // tier and quota overrides (spec 8.2)
  | { type: 'SetTier'; data: { tier: Tier } }
  | { type: 'SetQuotaOverrides'; data: { capturesPerMonth: number | null; storageBytes: number | null } }
  // captures
  | { type: 'SubmitCaptures'; data: SubmitCapturesData }
  | { type: 'CompleteCapture'; data: EventData<'capture.completed'> }
  /** `failedAt` is the time of the decision. */
  | { type: 'FailCapture'; data: Omit<EventData<'capture.failed'>, 'failedAt'> }
  // webhooks (spec 4.13)
  | {
      type: 'RegisterWebhook';
      data: { webhookId: string; url: string; events: WebhookEventType[]; name: string; sealedSecret: string };
    }
  | { type: 'DeleteWebhook'; data: { webhookId: string } }
  | { type: 'RecordDeliveryAttempt'; data: EventData<'webhook.delivery_attempted'> }
  | { type: 'DeadLetterDelivery'; data: EventData<'webhook.delivery_dead_lettered'> }
  // schedules (spec 4.12)
  | {
      type: 'CreateSchedule';
      data: {
        scheduleId: string;
        url: string;
        name: string;
        cron: string;
        options?: CaptureOptions;
        watch?: WatchSettings;
      };
    }
  | { type: 'DeleteSchedule'; data: { scheduleId: string } }
  | { type: 'FireSchedule'; data: { scheduleId: string; fireTime: string; captureId: string } }
  /** A watched run compared with the run before it; `comparedAt` is the time of the decision. */
  | { type: 'RecordComparison'; data: Omit<CaptureComparison, 'comparedAt'> }
  /** A diff's evidence was issued; `attestedAt` is the time of the decision. */
  | { type: 'RecordDiffAttestation'; data: Omit<EventData<'capture.diff_attested'>, 'attestedAt'> }
  /** A corroboration record was issued; `attestedAt` is the time of the decision. */
  | {
      type: 'RecordCorroborationAttestation';
      data: Omit<EventData<'capture.corroboration_attested'>, 'attestedAt'>;
    }
  // browser profiles (docs/profiles.md): the contents were sealed into the vault first
  | { type: 'CreateProfile'; data: Omit<EventData<'profile.created'>, 'createdAt'> }
  /** `version` must be the profile's next one: the vault sealed the contents for it. */
  | { type: 'UpdateProfile'; data: Omit<EventData<'profile.updated'>, 'updatedAt'> }
  | { type: 'RenameProfile'; data: { profileId: string; name: string } }
  | { type: 'DeleteProfile'; data: { profileId: string } }
  // usage
  | { type: 'RecordApiCalls'; data: { period: string; count: number } }
  // retention and legal hold: recorded after storage applied them; `at` is the time of the decision
  | { type: 'SetRetention'; data: Omit<EventData<'tenant.retention_set'>, 'at'> }
  | { type: 'PlaceLegalHold'; data: Omit<EventData<'capture.legal_hold_placed'>, 'at'> }
  | { type: 'LiftLegalHold'; data: Omit<EventData<'capture.legal_hold_lifted'>, 'at'> }
  | { type: 'ExtendRetention'; data: Omit<EventData<'capture.retention_extended'>, 'at'> };

export type TenantCommandType = TenantCommand['type'];
export type TenantCommandOf<T extends TenantCommandType> = Extract<TenantCommand, { type: T }>;

export interface SubmitCapturesData {
  captures: SubmittedCapture[];
  source: 'single' | 'batch' | 'schedule';
  scheduleId?: string;
  fireTime?: string;
}

/** The quota after an admitted submission (spec 7.3 headers). */
export interface Admission {
  limit: number;
  used: number;
  remaining: number;
}

export type FireOutcome =
  | { kind: 'fired'; captureId: string }
  | { kind: 'skipped'; detail: string }
  | { kind: 'not-due' };

/** The reply of each command type. */
export interface TenantReplies {
  CreateKey: { createdAt: string };
  /** A repeated revocation changes nothing and answers with the original time. */
  RevokeKey: { revokedAt: string; alreadyRevoked: boolean };
  SetTier: null;
  SetQuotaOverrides: null;
  SubmitCaptures: Admission;
  /** `applied: false`: the capture was not pending (a repeated outcome). */
  CompleteCapture: { applied: boolean };
  FailCapture: { applied: boolean };
  RegisterWebhook: { createdAt: string };
  DeleteWebhook: null;
  RecordDeliveryAttempt: null;
  DeadLetterDelivery: null;
  CreateSchedule: { createdAt: string };
  DeleteSchedule: null;
  FireSchedule: FireOutcome;
  RecordComparison: null;
  RecordDiffAttestation: null;
  RecordCorroborationAttestation: null;
  CreateProfile: { createdAt: string };
  UpdateProfile: { updatedAt: string };
  RenameProfile: { renamedAt: string };
  DeleteProfile: { deletedAt: string };
  RecordApiCalls: null;
  SetRetention: { at: string };
  PlaceLegalHold: { at: string };
  LiftLegalHold: { at: string };
  ExtendRetention: { at: string };
}

/** The reply to command `C`: `TenantReply<{ type: 'CreateKey', … }>` is `{ createdAt: string }`. */
export type TenantReply<C extends TenantCommand> = TenantReplies[C['type']];
