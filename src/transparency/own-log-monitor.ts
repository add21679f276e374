import type { CheckFinding, OwnLogMonitor } from '../application/operator-checks.js';
import { CheckpointError, parseVerifierKey } from './checkpoint.js';
import type { LogClient } from './log-client.js';
import type { TransparencyService } from './log-service.js';
import { monitorOnce } from './monitor.js';

/**
 * The log monitor (src/transparency/monitor.ts) run by the api against its own log, on an operator's request
 * (`POST /v1/admin/checks/log-monitor`): the checkpoint check only — signed by the key pinned on the first run, no
 * fork, no rollback, consistent with every checkpoint seen before — so it costs a stream read and a proof from the
 * in-memory tree, never a walk of the tiles. The latest checkpoint is read from TLOG as `GET /v1/log/checkpoint`
 * serves it, the proof computed as `GET /v1/log/proof/consistency` computes it: what an outside monitor would see.
 */

const VIEW_WAIT_MS = 10_000;

/** A LogClient over this process's log: checkpoint, key and consistency proofs; nothing else is asked for. */
function ownLogClient(log: TransparencyService): LogClient {
  const b64 = (h: Uint8Array) => Buffer.from(h).toString('base64');
  const unused = () => Promise.reject(new Error('not read by the checkpoint check'));
  return {
    base: 'this deployment',
    async key() {
      const key = await log.logKey();
      if (!key) throw new Error('no log key is published');
      return key;
    },
    async checkpoint() {
      const cp = await log.checkpoint();
      if (!cp) throw new Error('no checkpoint is published yet');
      return cp.note;
    },
    async consistency(first, second) {
      await log.view.waitForSize(second, VIEW_WAIT_MS);
      const problem = log.view.problem();
      if (problem) throw new Error(problem);
      return log.view.tree.consistencyProof(first, second).map(b64);
    },
    inclusionByCapture: unused,
    tile: unused,
    entries: unused,
  };
}

export function ownLogMonitor(log: TransparencyService): OwnLogMonitor {
  const client = ownLogClient(log);
  return async (state) => {
    const published = await log.logKey();
    if (!published)
      return {
        findings: [{ kind: 'unreachable', message: 'No transparency log key is published: no sequencer has started.' }],
        state,
        covered: 'this deployment’s log (none yet)',
      };
    // Pinned on the first run: a key that changes afterwards is a finding, as for an outside monitor.
    const pinned = state.logKey ?? published;
    const findings: CheckFinding[] = [];
    if (pinned !== published)
      findings.push({
        kind: 'signature',
        message: `the published log key changed since the monitor pinned it (${pinned.split('+')[0]}+${pinned.split('+')[1]} then, ${published.split('+')[1]} now)`,
      });
    let verifier;
    try {
      verifier = parseVerifierKey(pinned);
    } catch (err) {
      if (!(err instanceof CheckpointError)) throw err;
      return { findings: [{ kind: 'signature', message: `the pinned log key: ${err.message}` }], state, covered: '' };
    }
    const seenBefore = state.checkpoints.length;
    const result = await monitorOnce(client, verifier, { checkpoints: state.checkpoints });
    findings.push(...result.findings);
    const size = result.checkpoint?.size;
    return {
      findings,
      state: { logKey: pinned, checkpoints: result.state.checkpoints },
      covered:
        size === undefined
          ? 'this deployment’s log: no checkpoint could be read'
          : `this deployment’s log: the checkpoint of ${size} leaves, against ${seenBefore} checkpoint${seenBefore === 1 ? '' : 's'} seen before`,
    };
  };
}
