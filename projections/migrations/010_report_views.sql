-- Report views (docs/analysts.md, Reports): what GET /v1/admin/reports/{name} reads, one view per report.
-- Views only, rebuilt with the projection; like 003 their names and columns are a stable interface.
-- Every report reads a window of UTC days (at most 366) and optionally one tenant; each view below names the
-- index that serves that read, so its cost follows the window, never a tenant's whole capture history.

-- captures-per-day reads v_usage_daily (003): usage_daily's primary key (tenant_id, day) serves a tenant's
-- window; this index serves a window across tenants.
CREATE INDEX usage_daily_day ON usage_daily (day, tenant_id);

-- Failed captures per tenant, UTC day of failure, reason class (null on failures recorded before classes were;
-- docs/api.md, Failure reasons), message and whether a retry may succeed.
-- Served by captures_failed_day: the day window is a range of its first column, the tenant its second.
CREATE VIEW v_failures_daily AS
SELECT tenant_id,
       (failed_at AT TIME ZONE 'UTC')::date AS day,
       failure_reason AS reason,
       error,
       retryable,
       count(*)::bigint AS captures
  FROM captures
 WHERE status = 'failed'
 GROUP BY 1, 2, 3, 4, 5;
CREATE INDEX captures_failed_day ON captures (((failed_at AT TIME ZONE 'UTC')::date), tenant_id)
  WHERE status = 'failed';

-- Completed captures per tenant and UTC day of completion, with the latency from submission (created_at) to
-- completion in milliseconds: percentiles 50, 90 and 99 (continuous, rounded) and the slowest.
-- Served by captures_completed_day, as above.
CREATE VIEW v_capture_latency_daily AS
SELECT tenant_id,
       day,
       count(*)::bigint AS captures,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms))::bigint AS p50_ms,
       round(percentile_cont(0.9) WITHIN GROUP (ORDER BY latency_ms))::bigint AS p90_ms,
       round(percentile_cont(0.99) WITHIN GROUP (ORDER BY latency_ms))::bigint AS p99_ms,
       round(max(latency_ms))::bigint AS max_ms
  FROM (SELECT tenant_id,
               (completed_at AT TIME ZONE 'UTC')::date AS day,
               extract(epoch FROM completed_at - created_at) * 1000 AS latency_ms
          FROM captures
         WHERE status = 'complete') c
 GROUP BY tenant_id, day;
CREATE INDEX captures_completed_day ON captures (((completed_at AT TIME ZONE 'UTC')::date), tenant_id)
  WHERE status = 'complete';

-- Storage per tenant and UTC day: bytes of the captures completed that day, and the tenant's total up to and
-- including that day (days without completions have no row). The running total is a window over the tenant's
-- usage_daily rows: a tenant filter is pushed below the window and served by usage_daily's primary key (one
-- row per tenant and active day, however many captures); without one, the whole of usage_daily (tenants × active
-- days) is read — bounded by days, not captures.
CREATE VIEW v_storage_growth_daily AS
SELECT tenant_id,
       day,
       storage_bytes,
       (sum(storage_bytes) OVER (PARTITION BY tenant_id ORDER BY day))::bigint AS cumulative_storage_bytes
  FROM usage_daily;
