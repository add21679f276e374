import { CaptureError } from '../capture/capture-error.js';
import type { BrowserState } from './browser-state.js';
import type { OpenedProfile } from './profile-vault.js';

/**
 * The worker's side of a capture with a profile (docs/profiles.md, In a capture). The worker opens the sealed
 * contents itself from the vault with PROFILE_KEY — they never cross the ledger or another process in clear — and
 * the record says the page was captured signed in: which profile (id, name, version) and for which sites, never
 * a value. It sits in captureSettings, so the record, the provenance record, datapackage.json and the certificate
 * carry it, signed with the rest.
 */

export type OpenProfile = (tenantId: string, profileId: string) => Promise<OpenedProfile | null>;

export interface CaptureProfile {
  state: BrowserState;
  /** captureSettings.signedIn */
  record: SignedInRecord;
}

export interface SignedInRecord {
  profile: { id: string; name: string; version: number };
  sites: string[];
  cookieCount: number;
  originCount: number;
  /** `sha256:` of the sealed contents, as the ledger's profile events record it. */
  digest: string;
}

/** The profile the job asked for, opened; a capture whose profile is gone fails rather than run signed out. */
export async function openCaptureProfile(
  tenantId: string,
  profileId: string,
  open: OpenProfile | undefined,
): Promise<CaptureProfile> {
  const opened = open ? await open(tenantId, profileId) : null;
  if (!opened) {
    throw new CaptureError(
      'profile_unavailable',
      open
        ? `The browser profile ${profileId} was deleted before the capture ran`
        : 'This worker cannot open browser profiles',
      !open,
    );
  }
  return {
    state: opened.state,
    record: {
      profile: { id: profileId, name: opened.name, version: opened.version },
      sites: opened.sites,
      cookieCount: opened.cookieCount,
      originCount: opened.originCount,
      digest: opened.digest,
    },
  };
}
