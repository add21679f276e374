import { randomUUID } from 'node:crypto';
import { createTenantActors } from '../../actors/tenant-actors.js';
import { generateTenantKey, KEY_WARNING } from '../../domain/tenant-keys.js';
import { nameSchema, scopeSchema, tenantIdSchema } from '../../api/schemas.js';
import type { Scope } from '../../domain/events.js';
import { DomainError } from '../../domain/errors.js';
import { createProjectionWaiter } from '../../projector/projection-waiter.js';
import { CliError, EXIT_OK, UsageError } from '../cli-io.js';
import { openSession } from '../cli-session.js';
import { type CommandSpec, flagOpt, stringOpt } from '../command-spec.js';
import { jsonLine } from '../output-format.js';

/** `keys create`: POST /v1/admin/keys without HTTP, for bootstrapping a tenant (spec 4.11). */

export function parseScopes(text: string): Scope[] {
  const scopes = [
    ...new Set(
      text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (scopes.length === 0)
    throw new UsageError('--scopes must list at least one of capture, read, admin (comma-separated)');
  for (const s of scopes) {
    if (!scopeSchema.safeParse(s).success)
      throw new UsageError(`--scopes: '${s}' is not a scope; use capture, read or admin (comma-separated)`);
  }
  return scopes as Scope[];
}

export const keysCreate: CommandSpec = {
  path: ['keys', 'create'],
  summary: 'Create a tenant API key and print it once (like POST /v1/admin/keys).',
  description: `
Appends key.created through the tenant's actor (the same decision as the admin API, attributed to the
operator: createdBy 'admin') and prints the API key record as JSON, including the raw key. The raw key is
shown only here: store it now. Unless --no-wait is given, waits up to 10 s until the projection has the key,
so it authenticates at once.`,
  options: {
    tenant: {
      type: 'string',
      value: 'T',
      help: 'tenant id, ^[a-z0-9_-]{1,64}$ (a new id creates the tenant)',
      required: true,
    },
    scopes: { type: 'string', value: 'LIST', help: 'comma-separated scopes: capture, read, admin', required: true },
    name: {
      type: 'string',
      value: 'N',
      help: 'a label for the key (1-128 letters, digits, spaces, _ . : -)',
      required: true,
    },
    'no-wait': { type: 'boolean', help: 'do not wait for the projection (no database needed)' },
  },
  examples: ["capture-ledger keys create --tenant acme --scopes capture,read --name 'CI key'"],
  async run(args, io) {
    const tenantId = stringOpt(args, 'tenant')!;
    if (!tenantIdSchema.safeParse(tenantId).success)
      throw new UsageError(`--tenant must match ^[a-z0-9_-]{1,64}$; got '${tenantId}'`);
    const scopes = parseScopes(stringOpt(args, 'scopes')!);
    const name = stringOpt(args, 'name')!;
    if (!nameSchema.safeParse(name).success)
      throw new UsageError('--name must be 1-128 characters: letters, digits, spaces and _ . : -');
    const session = openSession(io);
    let tenants: ReturnType<typeof createTenantActors> | null = null;
    try {
      tenants = createTenantActors(await session.store());
      const { key, keyHash } = generateTenantKey();
      let result;
      try {
        result = await tenants.execute(
          tenantId,
          { type: 'CreateKey', data: { keyHash, scopes, name } },
          { correlationId: `cli-${randomUUID()}`, causedBy: { kind: 'admin' } },
        );
      } catch (err) {
        if (err instanceof DomainError)
          throw new CliError(err.detail, 'Run the command again: a new key is generated each time.');
        throw err;
      }
      const seq = result.appended.at(-1)!.seq;
      if (!flagOpt(args, 'no-wait')) {
        const waiter = createProjectionWaiter(await session.pool());
        if (!(await waiter.waitFor(seq, 10_000))) {
          io.stderr(
            `note: the key is in the ledger (sequence ${seq}) but the projection has not caught up yet; it authenticates once a projector applies it (check \`capture-ledger projections status\`).\n`,
          );
        }
      }
      await io.stdout(
        jsonLine({ key, keyHash, tenantId, scopes, name, createdAt: result.reply.createdAt, warning: KEY_WARNING }),
      );
      io.stderr(`${KEY_WARNING}\n`);
      return EXIT_OK;
    } finally {
      tenants?.close();
      await session.close();
    }
  },
};
