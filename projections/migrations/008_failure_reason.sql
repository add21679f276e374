-- Why a capture failed, as a class (README, Failure reasons); null on failures recorded before reasons were.
ALTER TABLE captures ADD COLUMN failure_reason text;
