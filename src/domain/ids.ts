import { randomBytes } from 'node:crypto';

/** The one id generator: `<prefix>_` + 32 lowercase hex characters (128 random bits). */
export type IdPrefix = 'cap' | 'whk' | 'sch' | 'evt' | 'dlv' | 'cor' | 'prf';

export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBytes(16).toString('hex')}`;

/** Names one capture attempt's artifacts apart from every other attempt's (artifacts are write-once: src/storage/artifact-store.ts). */
export const newAttemptKey = (): string => randomBytes(8).toString('hex');

export const isId = (prefix: IdPrefix, value: string): boolean => new RegExp(`^${prefix}_[0-9a-f]{32}$`).test(value);
