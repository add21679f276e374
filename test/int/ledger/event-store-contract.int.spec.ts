import { after, before, describe } from 'node:test';
import { connectNats, type NatsHandles } from '../../../src/infra/nats.js';
import { createEventStore } from '../../../src/ledger/event-store.js';
import { startNatsOnly } from '../../support/harness.js';
import { eventStoreContract } from '../../support/event-store-contract.js';

describe('JetStream event store on a real nats-server', () => {
  let env: Awaited<ReturnType<typeof startNatsOnly>>;
  let nats: NatsHandles;
  before(async () => {
    env = await startNatsOnly();
    nats = await connectNats(env.nats.url, 'contract');
  });
  after(async () => {
    await nats.nc.close();
    await env.stop();
  });

  eventStoreContract(() => createEventStore(nats.js, nats.jsm));
});
