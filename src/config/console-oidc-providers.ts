import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Zod from 'zod';
import { TENANT_ID_PATTERN } from '../domain/tenant-keys.js';

/**
 * CONSOLE_OIDC_PROVIDERS (docs/api.md, Signing in with OpenID Connect): the OpenID providers a person may
 * sign in to the tenant console with, and which tenant and scopes a claim of theirs maps to. A JSON array in the
 * variable itself; a client secret may come from a file (clientSecretFile) so that it stays out of the environment.
 */

export type ConsoleScope = 'capture' | 'read';

export interface OidcMapping {
  value: string;
  tenantId: string;
  scopes: ConsoleScope[];
}

export interface OidcProvider {
  id: string;
  label: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Requested at the authorization endpoint; must include `openid`. */
  scope: string;
  claim: string;
  mappings: OidcMapping[];
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** A plain-http issuer is accepted on loopback only (a provider on this machine: tests, development). */
export const isLoopbackHttp = (issuer: string): boolean => {
  const u = new URL(issuer);
  return u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname);
};

/**
 * The providers' schema, built at the first parse of a set variable: zod loads (synchronously, as configuration is
 * parsed) only in a process whose configuration names providers, not in every process that parses its configuration.
 */
let built: ReturnType<typeof buildSchema> | null = null;
function buildSchema() {
  const { z } = createRequire(import.meta.url)('zod') as typeof Zod;
  const text = (what: string) =>
    z
      .string({ error: `must be ${what}` })
      .trim()
      .min(1, `must not be empty`);

  const mappingSchema = z.object({
    value: text('a string (the claim value to match)'),
    tenantId: z.string({ error: 'must be a string' }).regex(TENANT_ID_PATTERN, 'must match ^[a-z0-9_-]{1,64}$'),
    scopes: z
      .array(z.enum(['capture', 'read'], { error: "must be 'capture' or 'read'" }), {
        error: "must be an array of 'capture' and 'read'",
      })
      .min(1, 'must name at least one scope'),
  });

  const providerSchema = z
    .object({
      id: z
        .string({ error: 'must be a string' })
        .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must match ^[a-z0-9][a-z0-9-]{0,62}$ (it appears in URLs)'),
      label: text('a string (shown on the sign-in page)'),
      issuer: text('an absolute URL')
        .refine((v) => URL.canParse(v), 'must be an absolute URL')
        .refine(
          (v) => !URL.canParse(v) || new URL(v).protocol === 'https:' || isLoopbackHttp(v),
          'must be https (plain http only for a loopback address: 127.0.0.1, localhost, [::1])',
        ),
      clientId: text('a string'),
      clientSecret: text('a string').optional(),
      clientSecretFile: text('a file path').optional(),
      scope: z
        .string({ error: 'must be a string' })
        .refine((v) => v.split(/\s+/).includes('openid'), "must include 'openid'")
        .optional(),
      claim: text('a claim name, e.g. email, groups or hd'),
      mappings: z.array(mappingSchema, { error: 'must be an array' }).min(1, 'must hold at least one mapping'),
    })
    .strict()
    .superRefine((p, ctx) => {
      if ((p.clientSecret === undefined) === (p.clientSecretFile === undefined))
        ctx.addIssue({
          code: 'custom',
          path: ['clientSecret'],
          message: 'exactly one of clientSecret and clientSecretFile is required',
        });
    });
  return z.array(providerSchema, { error: 'must be a JSON array of providers' });
}

const path = (segments: PropertyKey[]): string =>
  segments.map((s) => (typeof s === 'number' ? `[${s}]` : `.${String(s)}`)).join('');

/** The variable's value → providers, or a list of errors each naming `CONSOLE_OIDC_PROVIDERS[i].field`. */
export function parseOidcProviders(
  value: string | undefined,
  readFile: (file: string) => string = (f) => readFileSync(f, 'utf8'),
): { providers: OidcProvider[] } | { errors: string[] } {
  const name = 'CONSOLE_OIDC_PROVIDERS';
  if (value === undefined) return { providers: [] };
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch (err) {
    return { errors: [`${name} must be a JSON array of providers: ${(err as Error).message}`] };
  }
  built ??= buildSchema();
  const parsed = built.safeParse(json);
  if (!parsed.success) return { errors: parsed.error.issues.map((i) => `${name}${path(i.path)}: ${i.message}`) };
  const errors: string[] = [];
  const seen = new Set<string>();
  const providers = parsed.data.map((p, i): OidcProvider => {
    if (seen.has(p.id)) errors.push(`${name}[${i}].id: '${p.id}' is used by another provider`);
    seen.add(p.id);
    let clientSecret = p.clientSecret ?? '';
    if (p.clientSecretFile !== undefined) {
      try {
        clientSecret = readFile(p.clientSecretFile).trim();
        if (!clientSecret) errors.push(`${name}[${i}].clientSecretFile: ${p.clientSecretFile} is empty`);
      } catch (err) {
        errors.push(`${name}[${i}].clientSecretFile: cannot read ${p.clientSecretFile}: ${(err as Error).message}`);
      }
    }
    return {
      id: p.id,
      label: p.label,
      issuer: p.issuer,
      clientId: p.clientId,
      clientSecret,
      scope: p.scope ?? 'openid email profile',
      claim: p.claim,
      mappings: p.mappings,
    };
  });
  return errors.length > 0 ? { errors } : { providers };
}
