import type { components, operations } from './openapi-types.js';

/**
 * The API's answers the console reads, by name. Each is the documented answer of one operation of /openapi.json,
 * as openapi-typescript renders it in openapi-types.ts (generated: `node --import tsx ops/render-console-types.ts`);
 * none is written here by hand, so a change in the API's schemas reaches the console's types and tsc finds the pages
 * it breaks.
 */
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body of operation `Op`'s answer with status `S`. */
export type AnswerOf<Op extends keyof operations, S extends number = 200> = S extends keyof operations[Op]['responses']
  ? JsonOf<operations[Op]['responses'][S]>
  : never;

/** The error body (spec 7.1). */
export type Problem = components['schemas']['Problem'];

export type CaptureList = AnswerOf<'listCaptures'>;
export type CaptureSummary = CaptureList['data'][number];
export type CaptureStatusRecord = AnswerOf<'getCaptureStatus'>;
export type CaptureRecord = AnswerOf<'getCapture'>;
export type SubmittedCapture = AnswerOf<'submitCapture', 202>;
export type BatchAnswer = AnswerOf<'submitCaptureBatch', 207>;
export type BatchItem = BatchAnswer['items'][number];
export type Verification = AnswerOf<'verifyCapture'>;
export type Provenance = AnswerOf<'getCaptureProvenance'>;

export type ProfileList = AnswerOf<'listProfiles'>;
export type ArchiveStatus = AnswerOf<'getArchiveStatus'>;

export type AccountUsage = AnswerOf<'getAccountUsage'>;
export type DailyUsage = AnswerOf<'getAccountUsageDaily'>;

export type Schedule = AnswerOf<'getSchedule'>;
export type ScheduleList = AnswerOf<'listSchedules'>;
export type CreatedSchedule = AnswerOf<'createSchedule', 201>;
export type ScheduleRuns = AnswerOf<'listScheduleRuns'>;
export type ScheduleRun = ScheduleRuns['data'][number];
export type CronPreview = AnswerOf<'previewSchedule'>;

export type WebhookList = AnswerOf<'listWebhooks'>;
export type Webhook = WebhookList['data'][number];
export type RegisteredWebhook = AnswerOf<'registerWebhook', 201>;
export type WebhookPing = AnswerOf<'pingWebhook'>;
export type Deliveries = AnswerOf<'listOwnWebhookDeliveries'>;

export type ApiKeyList = AnswerOf<'listApiKeys'>;
export type ApiKeyRecord = ApiKeyList['data'][number];
export type CreatedApiKey = AnswerOf<'createApiKey', 201>;
export type RevokedApiKey = AnswerOf<'revokeApiKey'>;

export type TenantList = AnswerOf<'listTenants'>;
export type TenantRow = TenantList['data'][number];
export type Capacity = AnswerOf<'getCapacity'>;
export type Report = AnswerOf<'getReport'>;
export type ReportName = Report['name'];
export type OperatorChecks = AnswerOf<'listOperatorChecks'>;
export type OperatorCheck = OperatorChecks['checks'][number];
export type CheckRun = AnswerOf<'runLogMonitorCheck'>;
export type DeadLetters = AnswerOf<'listWebhookDeadLetters'>;

/** Who is signed in (GET /console/session): each kind of session, or null. */
export type Sessions = AnswerOf<'getConsoleSessions'>;
export type SessionKind = keyof Sessions;
export type OidcProviders = AnswerOf<'listConsoleOidcProviders'>;
