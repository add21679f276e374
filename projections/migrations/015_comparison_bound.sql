-- A watched run whose diff reached a bound (docs/watch.md, Bounds): which bound, as the comparison recorded it.
ALTER TABLE capture_comparisons ADD COLUMN bound text;
