-- Reports and the moderation log's entries take ids drawn at random (see server/log/contract.py,
-- DRAWN_IDS), so both are read newest first by their time.
CREATE INDEX reports_made ON reports (made);
CREATE INDEX modlog_at ON modlog (at);
