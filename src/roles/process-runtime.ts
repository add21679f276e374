import { resolve } from 'node:path';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { type Evidence, startEvidence } from '../archive/evidence-runtime.js';
import type { Notary } from '../archive/notary.js';
import { remoteNotary } from '../archive/notary-service.js';
import type { Config, Role } from '../config/config.js';
import { type Clock, systemClock } from '../domain/clock.js';
import { connectNats } from '../infra/nats.js';
import { createEventStore, type EventStore } from '../ledger/event-store.js';
import type { TransparencyService } from '../transparency/log-service.js';
import type { ProfileStates } from '../profiles/browser-state.js';
import type { Stops } from './stops.js';

/** What the composition root is given besides the configuration. */
export interface ServerDeps {
  natsUrl: string;
  /** null: this process's roles use no database (a signer alone). */
  databaseUrl: string | null;
  log: Logger;
  clock?: Clock;
  schema?: string;
  /** Where the remote browser reads and saves profiles; unset: none kept (tests pass one of their own). */
  profileStates?: ProfileStates;
}

/**
 * What every process has, whatever its roles: the NATS connection, the event store, the evidence identities
 * (DESIGN decision 10: published on the log, not read from another role's files) and the transparency log.
 */
export interface ProcessRuntime {
  config: Config;
  roles: ReadonlySet<Role>;
  log: Logger;
  clock: Clock;
  dataDir: string;
  nats: { nc: NatsConnection; js: JetStreamClient; jsm: JetStreamManager };
  store: EventStore;
  evidence: Evidence;
  transparency: TransparencyService | null;
  /** The notary that signs this deployment's evidence: this process's when it is the signer, else a signer over NATS. */
  signerNotary: Notary | null;
  /** The notary for bundles and certificates: none with SIGNING_KEY=none. */
  evidenceNotary: Notary | null;
  profileStates: ProfileStates | null;
}

export async function startProcessRuntime(config: Config, deps: ServerDeps, stops: Stops): Promise<ProcessRuntime> {
  const { log } = deps;
  const clock = deps.clock ?? systemClock;
  const roles = config.ROLES;
  const dataDir = resolve(config.DATA_DIR);
  const replicas = config.NATS_REPLICAS;
  const nats = await connectNats(deps.natsUrl, `capture-ledger:${[...roles].join('+')}`, {
    replicas,
    user: config.NATS_USER,
    pass: config.NATS_PASSWORD,
    log,
  });
  stops.add(async () => void (await nats.nc.drain().catch(() => undefined)));

  const store = createEventStore(nats.js, nats.jsm);
  const evidence = await startEvidence(config, dataDir, { signs: roles.has('signer') });
  stops.add(() => evidence.close());
  // What only the signer publishes, and the log only the api and sequencer follow, load where they run.
  if (evidence.signingKey) {
    const { registerSigningKey } = await import('../archive/signing-key-registry.js');
    await registerSigningKey(store, evidence.signingKey, () => clock.now());
  }
  if (evidence.localTsaCaCertPem) {
    const { publishTsaCertificate } = await import('../archive/tsa-certificate-registry.js');
    await publishTsaCertificate(store, evidence.localTsaCaCertPem, () => clock.now());
  }
  const signerNotary = roles.has('signer') ? evidence.notary : remoteNotary(nats.nc);
  // The public transparency log (docs/transparency.md): sequencer role, and proofs and tiles where the API runs.
  const transparency =
    roles.has('api') || roles.has('sequencer')
      ? await (await import('../transparency/log-runtime.js')).startTransparency({
          config,
          roles,
          ...nats,
          notary: signerNotary,
          dataDir,
          log,
        })
      : null;
  if (transparency) stops.add(() => transparency.stop());
  return {
    config,
    roles,
    log,
    clock,
    dataDir,
    nats,
    store,
    evidence,
    transparency: transparency?.service ?? null,
    signerNotary,
    evidenceNotary: config.SIGNING_KEY === 'none' ? null : signerNotary,
    profileStates: deps.profileStates ?? null,
  };
}
