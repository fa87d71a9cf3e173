-- Who made each report, for the limit of reports an hour a person: the player behind the name (an
-- account's key, or a guest's identity), so that a new name does not start the count afresh and
-- whoever takes a freed name does not inherit it. NULL for the reports made before.
ALTER TABLE reports ADD COLUMN reporter_key TEXT;
CREATE INDEX IF NOT EXISTS reports_by_key ON reports(reporter_key, made);
