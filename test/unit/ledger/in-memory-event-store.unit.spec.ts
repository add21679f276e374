import { describe } from 'node:test';
import { createInMemoryEventStore } from '../../../src/ledger/in-memory-event-store.js';
import { eventStoreContract } from '../../support/event-store-contract.js';

describe('in-memory event store', () => {
  eventStoreContract(() => createInMemoryEventStore());
});
