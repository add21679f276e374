/**
 * NATS users for a deployment (DESIGN decision 11): one per role, each allowed the subjects its role uses, and
 * an operator user for the CLI and for provisioning. No anonymous client is accepted. What every role shares:
 * the JetStream API for inspecting streams and making its consumers, reply inboxes, acks and flow control — but
 * no role may create, reconfigure, delete or purge a stream or delete a message (provisioning creates them as the
 * operator), and only the roles that hold webhook keys (api, dispatcher) may read them. docs/security.md has the table.
 */
export type NatsRole = 'api' | 'worker' | 'signer' | 'projector' | 'dispatcher' | 'scheduler' | 'sequencer';

export interface NatsUser {
  user: string;
  /** The password, or `{ env: NAME }` for a reference nats-server resolves from its environment (docker-compose). */
  password: string | { env: string };
  /** A role's permissions, or 'operator' for everything (operator CLI, the launcher itself). */
  role: NatsRole | 'operator';
}

const SHARED_PUBLISH = ['$JS.API.>', '$JS.ACK.>', '$JS.FC.>', '_INBOX.>'];
// Creating and reconfiguring streams (replicas, limits, retention) is provisioning's, as the operator
// (src/infra/nats-provision.ts); deleting and purging is nobody's.
const NEVER = [
  '$JS.API.STREAM.DELETE.>',
  '$JS.API.STREAM.PURGE.>',
  '$JS.API.STREAM.MSG.DELETE.>',
  '$JS.API.STREAM.CREATE.>',
  '$JS.API.STREAM.UPDATE.>',
];
const WEBHOOK_KEYS_READ = [
  '$JS.API.DIRECT.GET.KV_webhook-keys',
  '$JS.API.DIRECT.GET.KV_webhook-keys.>',
  '$JS.API.STREAM.MSG.GET.KV_webhook-keys',
  '$JS.API.CONSUMER.CREATE.KV_webhook-keys',
  '$JS.API.CONSUMER.CREATE.KV_webhook-keys.>',
];

/** Subjects each role publishes to, beyond the shared ones. */
const PUBLISH: Record<NatsRole, string[]> = {
  // tlog.checkpoint.request: the verify endpoint asks a sequencer for a checkpoint on demand.
  // Certificates: the API asks the signer to sign a certificate's hash (notary.certify; never a bundle's,
  // notary.sign stays the worker's) and keeps the result in its own bucket, not beside the artifacts.
  api: ['ledger.tenant.>', '$KV.ratelimits.>', '$KV.actor-snapshots.>', '$KV.webhook-keys.>', 'auth.key-revoked', 'tlog.checkpoint.request', '$KV.certificates.>', 'notary.certify'],
  // The worker asks the signer for timestamps and signatures (notary.*); it never holds the key.
  // It reports outcomes to the api role (capture.outcome) and never appends to the ledger itself.
  worker: ['capture.outcome', 'jobs.capture', '$O.artifacts.>', '$KV.capture-attempts.>', 'notary.>'],
  // The signer answers notary requests on reply inboxes and records its key and TSA on the system subject.
  signer: ['ledger.system'],
  projector: [],
  dispatcher: ['ledger.tenant.>', 'jobs.webhook', '$KV.actor-snapshots.>', '$KV.webhook-keys.>'],
  scheduler: ['ledger.tenant.>', '$KV.actor-snapshots.>'],
  // The transparency log: appends leaves, checkpoints and its key to TLOG, asks a signer to time-stamp checkpoints.
  sequencer: ['tlog.leaves', 'tlog.checkpoints', 'tlog.key', 'notary.timestamp', 'notary.describe'],
};

const quote = (list: string[]) => `[${list.map((s) => JSON.stringify(s)).join(', ')}]`;

/** The worker renders hostile pages: it may not read the webhook deliveries either. */
const WORKER_DENY = [
  '$JS.API.CONSUMER.CREATE.DELIVERIES',
  '$JS.API.CONSUMER.CREATE.DELIVERIES.>',
  '$JS.API.CONSUMER.DURABLE.CREATE.DELIVERIES.>',
  '$JS.API.CONSUMER.MSG.NEXT.DELIVERIES.>',
  '$JS.API.DIRECT.GET.DELIVERIES',
  '$JS.API.DIRECT.GET.DELIVERIES.>',
  '$JS.API.STREAM.MSG.GET.DELIVERIES',
];

function permissions(role: NatsRole): string {
  const holdsWebhookKeys = role === 'api' || role === 'dispatcher';
  const deny = [...NEVER, ...(holdsWebhookKeys ? [] : WEBHOOK_KEYS_READ), ...(role === 'worker' ? WORKER_DENY : [])];
  const subscribe =
    role === 'api'
      ? ['_INBOX.>', 'auth.key-revoked', 'capture.outcome']
      : role === 'signer'
        ? ['_INBOX.>', 'notary.>']
        : role === 'sequencer'
          ? ['_INBOX.>', 'tlog.checkpoint.request']
          : ['_INBOX.>'];
  return `{ publish: { allow: ${quote([...SHARED_PUBLISH, ...PUBLISH[role]])}, deny: ${quote(deny)} }, subscribe: { allow: ${quote(subscribe)} } }`;
}

/** The `authorization` block for nats-server's configuration file. */
export function natsAuthorizationConfig(users: NatsUser[]): string {
  const lines = users.map((u) => {
    const perms = u.role === 'operator' ? '' : `, permissions: ${permissions(u.role)}`;
    const password = typeof u.password === 'string' ? JSON.stringify(u.password) : `$${u.password.env}`;
    return `    { user: ${JSON.stringify(u.user)}, password: ${password}${perms} }`;
  });
  return ['authorization {', '  users: [', ...lines, '  ]', '}'].join('\n');
}

/** The users of docker-compose.yml: passwords come from the servers' environment (NATS_<ROLE>_PASSWORD). */
export const COMPOSE_NATS_USERS: NatsUser[] = (['operator', 'api', 'worker', 'signer', 'projector', 'dispatcher', 'scheduler', 'sequencer'] as const).map((role) => ({
  user: role,
  password: { env: `NATS_${role.toUpperCase()}_PASSWORD` },
  role,
}));
