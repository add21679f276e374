-- Analyst views (docs/analysts.md). Views only: no data of their own, rebuilt with the projection.
-- Their names and columns are a stable interface for reports and dashboards: add columns at the end,
-- never rename or drop one (a change of meaning gets a new view).

-- Usage per tenant and UTC day. A completed capture's bytes count on the day it completed.
CREATE VIEW v_usage_daily AS
SELECT tenant_id,
       day,
       captures_submitted,
       captures_completed,
       captures_failed,
       storage_bytes,
       api_call_count AS api_calls
  FROM usage_daily;

-- Usage per tenant and billing month ('YYYY-MM', UTC; spec 8.2). Completions and bytes count in the month
-- the capture was submitted in (the quota's month), so a month's row can still grow early in the next one.
CREATE VIEW v_usage_monthly AS
SELECT tenant_id,
       period,
       captures_submitted,
       captures_completed,
       captures_failed,
       storage_bytes,
       api_call_count AS api_calls
  FROM usage_monthly;

-- Captures per tenant, submission month, status (pending | complete | failed) and render quality
-- (full | partial; null unless complete).
CREATE VIEW v_captures_by_status AS
SELECT tenant_id,
       period,
       status,
       render_quality,
       count(*)::bigint AS captures
  FROM captures
 GROUP BY tenant_id, period, status, render_quality;

-- Failed captures per tenant, submission month, error message and whether a retry may succeed.
CREATE VIEW v_failure_reasons AS
SELECT tenant_id,
       period,
       error,
       retryable,
       count(*)::bigint AS captures
  FROM captures
 WHERE status = 'failed'
 GROUP BY tenant_id, period, error, retryable;

-- Webhook delivery per tenant, webhook and UTC day: delivered attempts, failed attempts (each retry counts)
-- and deliveries given up (dead-lettered) that day.
CREATE VIEW v_webhook_delivery_outcomes AS
WITH attempts AS (
  SELECT tenant_id,
         webhook_id,
         (attempted_at AT TIME ZONE 'UTC')::date AS day,
         count(*) FILTER (WHERE outcome = 'delivered') AS delivered,
         count(*) FILTER (WHERE outcome <> 'delivered') AS failed_attempts
    FROM webhook_deliveries
   GROUP BY 1, 2, 3
), dead AS (
  SELECT tenant_id,
         webhook_id,
         (dead_lettered_at AT TIME ZONE 'UTC')::date AS day,
         count(*) AS dead_lettered
    FROM webhook_dead_letters
   GROUP BY 1, 2, 3
)
SELECT COALESCE(a.tenant_id, d.tenant_id) AS tenant_id,
       COALESCE(a.webhook_id, d.webhook_id) AS webhook_id,
       COALESCE(a.day, d.day) AS day,
       COALESCE(a.delivered, 0)::bigint AS delivered,
       COALESCE(a.failed_attempts, 0)::bigint AS failed_attempts,
       COALESCE(d.dead_lettered, 0)::bigint AS dead_lettered
  FROM attempts a
  FULL OUTER JOIN dead d ON d.tenant_id = a.tenant_id AND d.webhook_id = a.webhook_id AND d.day = a.day;
