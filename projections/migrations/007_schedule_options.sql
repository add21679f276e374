-- The capture options a schedule's runs use (issue 15), shown on the schedule record.
ALTER TABLE schedules ADD COLUMN options jsonb;
