import { z } from 'zod';

/** Field rules shared by several endpoints (spec 2.8, 2.9, 8.3). Messages name the rule so 400s are actionable. */

const required = (what: string) => ({
  error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : `must be ${what}`),
});

export const TENANT_ID_PATTERN = /^[a-z0-9_-]{1,64}$/;
export const tenantIdSchema = z.string(required('a string')).regex(TENANT_ID_PATTERN, 'must match ^[a-z0-9_-]{1,64}$');

export const nameSchema = z
  .string(required('a string'))
  .regex(/^[\p{L}\p{N} _.:-]{1,128}$/u, 'must be 1-128 characters: letters, digits, spaces and _ . : -');

export const scopeSchema = z.enum(['capture', 'read', 'admin'], { error: "must be one of 'capture', 'read', 'admin'" });

export const keyHashSchema = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters');

export const iso = (d: Date | string | null | undefined): string | undefined =>
  d === null || d === undefined ? undefined : new Date(d).toISOString();

/**
 * Strings the OpenAPI document gives a format (spec: "date-time", "uri"). Formats are documented, not enforced
 * on the way out: a value the service already stores is answered as it is, never turned into a 500.
 */
export const dateTime = () => z.string().meta({ format: 'date-time' });
export const uri = () => z.string().meta({ format: 'uri' });

/** Binary and text downloads: documented by content type only, never passed through the JSON serializer. */
export const binary = () => z.custom<Uint8Array | string>().meta({ type: 'string', format: 'binary' });
