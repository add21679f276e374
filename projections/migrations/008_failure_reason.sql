-- Why a capture failed, as a class (docs/api.md, Failure reasons); null on failures recorded before reasons were.
ALTER TABLE captures ADD COLUMN failure_reason text;
