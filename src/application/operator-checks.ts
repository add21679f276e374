import type { Clock } from '../domain/clock.js';
import { refusal } from '../domain/errors.js';

/**
 * The operators' checks and their last results (docs/api.md, Console endpoints): `capture-ledger audit`,
 * `log audit`, `log monitor` and `storage verify` each record what they found when they finish, in the
 * `operator-checks` KV bucket (src/infra/topology.ts); the operators' checks route reads them here. The log monitor
 * can also be run by the api itself, against its own log, with the checkpoints it has seen kept in the same bucket.
 * Why a bucket and not an event: docs/architecture.md, Operator checks.
 */

export const CHECK_NAMES = ['ledger-audit', 'log-audit', 'log-monitor', 'storage-verify'] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

/** At most this many findings are kept with a result; `findingCount` says how many there were. */
export const MAX_RECORDED_FINDINGS = 20;

export interface CheckFinding {
  /** The check's own word for it: a divergence kind, MISSING, FORK, corrupt, … */
  kind: string;
  message: string;
}

/** One finished run of a check. */
export interface CheckResult {
  check: CheckName;
  /** When it started, ISO 8601 UTC. */
  ranAt: string;
  durationMs: number;
  ok: boolean;
  findings: CheckFinding[];
  findingCount: number;
  /** What the run looked at, in a sentence (a tenant and its sequences, a log size, a range of the ledger). */
  covered: string;
  /** 'cli': a `capture-ledger` run on an operator's host; 'api': run by the api on an operator's request. */
  ranBy: 'cli' | 'api';
}

/** Where results live: the KV bucket in the service, anything with get/put in tests. */
export interface CheckStore {
  get(key: string): Promise<unknown>;
  put(key: string, value: unknown): Promise<void>;
}

/** A finished run as it is recorded: findings cut to MAX_RECORDED_FINDINGS, ok when there are none. */
export function checkResult(
  check: CheckName,
  started: Date,
  finished: Date,
  findings: CheckFinding[],
  covered: string,
  ranBy: CheckResult['ranBy'],
): CheckResult {
  return {
    check,
    ranAt: started.toISOString(),
    durationMs: Math.max(0, finished.getTime() - started.getTime()),
    ok: findings.length === 0,
    findings: findings.slice(0, MAX_RECORDED_FINDINGS).map((f) => ({ kind: f.kind, message: f.message })),
    findingCount: findings.length,
    covered,
    ranBy,
  };
}

/** How each check is run, for the page: a command on a host, or the api on request. */
const HOW: Record<CheckName, { command: string; onDemand: boolean; summary: string }> = {
  'ledger-audit': {
    command: 'capture-ledger audit --tenant <tenant>',
    onDemand: false,
    summary: "A tenant's hash chain, and its re-folded log against the projections and the actor snapshot.",
  },
  'log-audit': {
    command: 'capture-ledger log audit',
    onDemand: false,
    summary: 'Every signed bundle and key publication of the ledger has exactly one leaf in the transparency log.',
  },
  'log-monitor': {
    command: 'capture-ledger log monitor --log-url <url> --log-key <key>',
    onDemand: true,
    summary: 'The latest signed checkpoint against those seen before: signature, no fork, append-only (consistency).',
  },
  'storage-verify': {
    command: 'capture-ledger storage verify',
    onDemand: false,
    summary: 'Every artifact the ledger names is still stored and matches its digest.',
  },
};

/** The state of the api's own monitor: the checkpoints it has seen and the log key it pinned on its first run. */
export interface OwnMonitorState {
  logKey: string | null;
  checkpoints: { size: number; rootHash: string; note: string }[];
}
export const MONITOR_STATE_KEY = 'log-monitor-state';
/** Seen checkpoints kept: the newest ones and always the largest, so the state stays small. */
const MAX_SEEN = 50;

/** One monitor run against the api's own log (src/transparency/own-log-monitor.ts). */
export type OwnLogMonitor = (
  state: OwnMonitorState,
) => Promise<{ findings: CheckFinding[]; state: OwnMonitorState; covered: string }>;

export type OperatorChecks = ReturnType<typeof createOperatorChecks>;

export function createOperatorChecks(deps: { store: CheckStore; clock: Clock; ownLogMonitor: OwnLogMonitor | null }) {
  const { store, clock } = deps;
  let running: Promise<CheckResult> | null = null;

  const isResult = (v: unknown): v is CheckResult =>
    typeof v === 'object' && v !== null && typeof (v as CheckResult).ranAt === 'string';

  async function monitorOnce(): Promise<CheckResult> {
    const monitor = deps.ownLogMonitor;
    if (!monitor)
      throw refusal(
        503,
        'This API process serves no transparency log, so it cannot monitor it; run `capture-ledger log monitor` on a host.',
      );
    const saved = (await store.get(MONITOR_STATE_KEY)) as OwnMonitorState | null;
    const state: OwnMonitorState = saved ?? { logKey: null, checkpoints: [] };
    const started = clock.now();
    const run = await monitor(state);
    const result = checkResult('log-monitor', started, clock.now(), run.findings, run.covered, 'api');
    if (result.ok) await store.put(MONITOR_STATE_KEY, trimmed(run.state));
    await store.put('log-monitor', result);
    return result;
  }

  return {
    /** The last result of every check (null: never recorded), with how it is run. */
    async list() {
      const checks = await Promise.all(
        CHECK_NAMES.map(async (name) => {
          const last = await store.get(name);
          return { name, ...HOW[name], last: isResult(last) ? last : null };
        }),
      );
      return { checks };
    },

    /**
     * The log monitor's checkpoint and consistency check against this deployment's own log, now: bounded (no tile
     * re-derivation, no capture list; proofs from the api's in-memory tree). One run at a time per process; a
     * request while one runs gets that run's result. 503 when this process serves no log.
     */
    async runLogMonitor(): Promise<CheckResult> {
      running ??= monitorOnce().finally(() => {
        running = null;
      });
      return running;
    },
  };
}

function trimmed(state: OwnMonitorState): OwnMonitorState {
  if (state.checkpoints.length <= MAX_SEEN) return state;
  const largest = state.checkpoints.reduce((a, c) => (c.size > a.size ? c : a));
  const recent = state.checkpoints.slice(-(MAX_SEEN - 1)).filter((c) => c !== largest);
  return { ...state, checkpoints: [largest, ...recent] };
}
