import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { Notary } from '../archive/notary.js';
import type { Config, Role } from '../config/config.js';
import { createTransparencyService, type TransparencyService } from './log-service.js';
import { startLogView } from './log-view.js';
import { createCosigning } from './witness-cosigning.js';
import { loadLogSigner, startCheckpointer, startSequencer } from './sequencer.js';

/**
 * The transparency log in a process: the TLOG stream; a LogView where proofs are served (api) or checkpoints
 * signed (sequencer); the sequencer and checkpointer in the `sequencer` role.
 */
export interface TransparencyRuntime {
  service: TransparencyService | null;
  stop(): Promise<void>;
}

export async function startTransparency(opts: {
  config: Config;
  roles: ReadonlySet<Role>;
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Time-stamps checkpoints: this process's notary when it is the signer, else a signer over NATS; null: none. */
  notary: Notary | null;
  dataDir: string;
  log: Logger;
}): Promise<TransparencyRuntime> {
  const { config, roles, nc, js, jsm } = opts;
  const log = opts.log.child({ role: 'sequencer' });
  if (!roles.has('api') && !roles.has('sequencer')) return { service: null, stop: async () => undefined };
  const view = await startLogView(js, jsm, log);
  const stops: Array<() => Promise<void>> = [() => view.stop()];
  if (roles.has('sequencer')) {
    const signer = await loadLogSigner(config.LOG_ORIGIN, config.LOG_SIGNING_KEY, opts.dataDir);
    const sequencer = await startSequencer(js, jsm, log);
    const cosigning =
      config.LOG_WITNESSES.length > 0
        ? createCosigning({
            witnesses: config.LOG_WITNESSES,
            consistencyProof: (first, second) => view.tree.consistencyProof(first, second),
            timeoutMs: config.LOG_WITNESS_TIMEOUT_MS,
            quorum: config.LOG_WITNESS_QUORUM,
            log,
          })
        : undefined;
    const checkpointer = await startCheckpointer({
      cosigning,
      nc,
      js,
      jsm,
      view,
      signer,
      notary: opts.notary,
      intervalMs: config.LOG_CHECKPOINT_INTERVAL_MS,
      log,
    });
    stops.unshift(
      () => sequencer.stop(),
      () => checkpointer.stop(),
    );
  }
  return {
    service: {
      ...createTransparencyService(nc, jsm, view, log),
      witnessPolicy: { quorum: config.LOG_WITNESS_QUORUM, witnesses: config.LOG_WITNESSES },
    },
    async stop() {
      for (const stop of stops)
        await stop().catch((err) => log.warn({ err }, 'transparency log: error while stopping'));
    },
  };
}
