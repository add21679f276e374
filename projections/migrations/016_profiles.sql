-- Browser profiles (docs/profiles.md): what each one covers and who made it; never its contents, which stay
-- sealed in the profile vault (KV buckets 'profile-keys' and 'profile-contents').
CREATE TABLE profiles (
  profile_id text PRIMARY KEY,
  tenant_id text NOT NULL,
  name text NOT NULL,
  version int NOT NULL,
  sites text[] NOT NULL,
  cookie_count int NOT NULL,
  origin_count int NOT NULL,
  digest text NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  last_used_at timestamptz,
  deleted_at timestamptz
);
CREATE INDEX profiles_by_tenant ON profiles (tenant_id, created_at) WHERE deleted_at IS NULL;
