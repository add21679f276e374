-- Per-tenant capture counts by status, so the list endpoint's `pagination.total` for the common shapes
-- (no filter, status filter) is one row read instead of a count over a million index entries.
CREATE TABLE capture_counts (
  tenant_id text NOT NULL,
  status text NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (tenant_id, status)
);
INSERT INTO capture_counts (tenant_id, status, n)
  SELECT tenant_id, status, count(*) FROM captures GROUP BY tenant_id, status;
