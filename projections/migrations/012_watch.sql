-- Watch lists (docs/watch.md): a schedule's watch settings, and each watched run's comparison with the
-- previous complete run of its schedule.
ALTER TABLE schedules ADD COLUMN watch jsonb;

CREATE TABLE capture_comparisons (
  capture_id text PRIMARY KEY,
  tenant_id text NOT NULL,
  schedule_id text NOT NULL,
  base_capture_id text NOT NULL,
  changed boolean NOT NULL,
  notify boolean NOT NULL,
  summary jsonb NOT NULL,
  options jsonb NOT NULL,
  compared_at timestamptz NOT NULL
);
CREATE INDEX capture_comparisons_schedule ON capture_comparisons (tenant_id, schedule_id);
