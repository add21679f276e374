/**
 * What a signed-in browser keeps, in the shape Playwright's `storageState` uses (cookies with their attributes, and
 * each origin's localStorage). A profile's contents are one of these, sealed at rest; the remote browser produces
 * one and a capture loads one into its fresh context.
 */
export interface ProfileCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  /** Unix time in seconds; -1 for a session cookie. */
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: 'Strict' | 'Lax' | 'None';
}

export interface OriginStorage {
  /** An origin such as `https://example.org`. */
  origin: string;
  localStorage: { name: string; value: string }[];
}

export interface BrowserState {
  cookies: ProfileCookie[];
  origins: OriginStorage[];
}

/** A profile as a tenant sees it: never its cookie or storage values. */
export interface ProfileSummary {
  id: string;
  name: string;
  version: number;
  /** Registrable domains the profile holds state for. */
  sites: string[];
}

/** Reading and saving profile contents, for the remote browser; the profiles feature implements it. */
export interface ProfileStates {
  /** The latest contents of a tenant's profile, or null when it does not exist or belongs to another tenant. */
  load(tenantId: string, profileId: string): Promise<BrowserState | null>;
  /** Saves `state` as a new profile (no `profileId`) or as the next version of an existing one. */
  save(input: {
    tenantId: string;
    /** Who saved it, as the ledger records actors (a key id or a console session's subject). */
    actor: string;
    profileId?: string;
    name?: string;
    state: BrowserState;
  }): Promise<ProfileSummary>;
}
