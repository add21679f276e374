-- The capture options a schedule's runs use, shown on the schedule record.
ALTER TABLE schedules ADD COLUMN options jsonb;
