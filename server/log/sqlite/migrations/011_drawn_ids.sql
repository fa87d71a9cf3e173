-- Reports and the moderation log's entries take ids drawn at random (see server/log/contract.py,
-- DRAWN_IDS), so both are read newest first by their time.
CREATE INDEX IF NOT EXISTS reports_made ON reports(made);
CREATE INDEX IF NOT EXISTS modlog_at ON modlog(at);
