-- Retention of stored evidence (docs/storage.md): each tenant's default retention, set by an operator,
-- and the legal hold of each capture, as the ledger's tenant.retention_set and capture.legal_hold_* events say.
CREATE TABLE tenant_retention (
  tenant_id text PRIMARY KEY,
  -- null: the deployment's default (RETENTION_DEFAULT_DAYS)
  days integer,
  set_by text NOT NULL,
  reason text NOT NULL,
  set_at timestamptz NOT NULL
);

CREATE TABLE legal_holds (
  capture_id text PRIMARY KEY,
  tenant_id text NOT NULL,
  active boolean NOT NULL,
  changed_by text NOT NULL,
  reason text NOT NULL,
  changed_at timestamptz NOT NULL
);
