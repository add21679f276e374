/**
 * NATS users for a deployment (DESIGN decision 11): one per role, each allowed the subjects its role uses, and
 * an operator user for the CLI. No anonymous client is accepted. What every role shares: the JetStream API
 * (streams and consumers are created and inspected by every process at start), reply inboxes, acks and flow
 * control — but no role may delete or purge a stream or a message, and only the roles that hold webhook keys
 * (api, dispatcher) may read them. docs/security.md has the table.
 */
export type NatsRole = 'api' | 'worker' | 'signer' | 'projector' | 'dispatcher' | 'scheduler';

export interface NatsUser {
  user: string;
  /** The password, or `{ env: NAME }` for a reference nats-server resolves from its environment (docker-compose). */
  password: string | { env: string };
  /** A role's permissions, or 'operator' for everything (operator CLI, the launcher itself). */
  role: NatsRole | 'operator';
}

const SHARED_PUBLISH = ['$JS.API.>', '$JS.ACK.>', '$JS.FC.>', '_INBOX.>'];
const NEVER = ['$JS.API.STREAM.DELETE.>', '$JS.API.STREAM.PURGE.>', '$JS.API.STREAM.MSG.DELETE.>'];
const WEBHOOK_KEYS_READ = [
  '$JS.API.DIRECT.GET.KV_webhook-keys',
  '$JS.API.DIRECT.GET.KV_webhook-keys.>',
  '$JS.API.STREAM.MSG.GET.KV_webhook-keys',
  '$JS.API.CONSUMER.CREATE.KV_webhook-keys',
  '$JS.API.CONSUMER.CREATE.KV_webhook-keys.>',
];

/** Subjects each role publishes to, beyond the shared ones. */
const PUBLISH: Record<NatsRole, string[]> = {
  // Certificates: the API asks the signer to sign a certificate's hash (notary.certify; never a bundle's,
  // notary.sign stays the worker's) and keeps the result in its own bucket, not beside the artifacts.
  api: ['ledger.tenant.>', '$KV.ratelimits.>', '$KV.actor-snapshots.>', '$KV.webhook-keys.>', 'auth.key-revoked', '$KV.certificates.>', 'notary.certify'],
  // The worker asks the signer for timestamps and signatures (notary.*); it never holds the key.
  worker: ['ledger.tenant.>', 'jobs.capture', '$O.artifacts.>', '$KV.actor-snapshots.>', 'notary.>'],
  // The signer answers notary requests on reply inboxes and records its key and TSA on the system subject.
  signer: ['ledger.system'],
  projector: [],
  dispatcher: ['ledger.tenant.>', 'jobs.webhook', '$KV.actor-snapshots.>', '$KV.webhook-keys.>'],
  scheduler: ['ledger.tenant.>', '$KV.actor-snapshots.>'],
};

const quote = (list: string[]) => `[${list.map((s) => JSON.stringify(s)).join(', ')}]`;

function permissions(role: NatsRole): string {
  const holdsWebhookKeys = role === 'api' || role === 'dispatcher';
  const deny = holdsWebhookKeys ? NEVER : [...NEVER, ...WEBHOOK_KEYS_READ];
  const subscribe = role === 'api' ? ['_INBOX.>', 'auth.key-revoked'] : role === 'signer' ? ['_INBOX.>', 'notary.>'] : ['_INBOX.>'];
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
export const COMPOSE_NATS_USERS: NatsUser[] = (['operator', 'api', 'worker', 'signer', 'projector', 'dispatcher', 'scheduler'] as const).map((role) => ({
  user: role,
  password: { env: `NATS_${role.toUpperCase()}_PASSWORD` },
  role,
}));
