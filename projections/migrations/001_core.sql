-- Projection tables: everything here is rebuilt from the LEDGER stream (DESIGN decision 4).
CREATE TABLE projector_checkpoint (
  name text PRIMARY KEY,
  seq bigint NOT NULL
);

CREATE TABLE tenants (
  tenant_id text PRIMARY KEY,
  tier text NOT NULL DEFAULT 'starter',
  captures_override bigint,
  storage_override bigint,
  config_updated_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  last_seq bigint NOT NULL,
  last_hash text NOT NULL
);

CREATE TABLE api_keys (
  key_hash text PRIMARY KEY,
  tenant_id text NOT NULL,
  scopes text[] NOT NULL,
  name text NOT NULL,
  created_at timestamptz NOT NULL,
  created_by text NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id, created_at, key_hash);

CREATE TABLE captures (
  capture_id text PRIMARY KEY,
  tenant_id text NOT NULL,
  url text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'complete', 'failed')),
  period text NOT NULL,
  created_at timestamptz NOT NULL,
  completed_at timestamptz,
  failed_at timestamptz,
  render_quality text,
  render jsonb,
  artifacts jsonb,
  bundle jsonb,
  capture_settings jsonb,
  error text,
  retryable boolean,
  attempts integer,
  stored_bytes bigint,
  schedule_id text,
  source text NOT NULL
);
-- The list endpoint's shapes (spec 4.2): per tenant, newest or oldest first, optional filters.
CREATE INDEX captures_tenant_created ON captures (tenant_id, created_at DESC, capture_id DESC);
CREATE INDEX captures_tenant_status_created ON captures (tenant_id, status, created_at DESC, capture_id DESC);
CREATE INDEX captures_tenant_url ON captures (tenant_id, url text_pattern_ops);
CREATE INDEX captures_tenant_schedule ON captures (tenant_id, schedule_id, created_at DESC) WHERE schedule_id IS NOT NULL;

CREATE TABLE usage_monthly (
  tenant_id text NOT NULL,
  period text NOT NULL,
  captures_submitted bigint NOT NULL DEFAULT 0,
  captures_completed bigint NOT NULL DEFAULT 0,
  captures_failed bigint NOT NULL DEFAULT 0,
  storage_bytes bigint NOT NULL DEFAULT 0,
  api_call_count bigint NOT NULL DEFAULT 0,
  updated_at timestamptz,
  PRIMARY KEY (tenant_id, period)
);

CREATE TABLE usage_daily (
  tenant_id text NOT NULL,
  day date NOT NULL,
  captures_submitted bigint NOT NULL DEFAULT 0,
  captures_completed bigint NOT NULL DEFAULT 0,
  captures_failed bigint NOT NULL DEFAULT 0,
  storage_bytes bigint NOT NULL DEFAULT 0,
  api_call_count bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, day)
);

CREATE TABLE webhooks (
  webhook_id text PRIMARY KEY,
  tenant_id text NOT NULL,
  url text NOT NULL,
  events text[] NOT NULL,
  name text NOT NULL,
  secret text,
  created_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE INDEX webhooks_tenant ON webhooks (tenant_id, created_at) WHERE deleted_at IS NULL;

CREATE TABLE webhook_deliveries (
  delivery_id text NOT NULL,
  attempt integer NOT NULL,
  tenant_id text NOT NULL,
  webhook_id text NOT NULL,
  event_id text NOT NULL,
  event_type text NOT NULL,
  outcome text NOT NULL,
  http_status integer,
  detail text,
  latency_ms integer,
  attempted_at timestamptz NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, attempted_at DESC);

CREATE TABLE webhook_dead_letters (
  delivery_id text PRIMARY KEY,
  tenant_id text NOT NULL,
  webhook_id text NOT NULL,
  event_id text NOT NULL,
  event_type text NOT NULL,
  attempts integer NOT NULL,
  reason text NOT NULL,
  dead_lettered_at timestamptz NOT NULL
);

CREATE TABLE schedules (
  schedule_id text PRIMARY KEY,
  tenant_id text NOT NULL,
  url text NOT NULL,
  name text NOT NULL,
  cron text NOT NULL,
  created_at timestamptz NOT NULL,
  deleted_at timestamptz,
  last_run_at timestamptz,
  last_capture_id text,
  last_capture_status text
);
CREATE INDEX schedules_tenant ON schedules (tenant_id, created_at) WHERE deleted_at IS NULL;

CREATE TABLE signing_keys (
  key_id text PRIMARY KEY,
  public_key text NOT NULL,
  archived_at timestamptz NOT NULL,
  is_current boolean NOT NULL
);
