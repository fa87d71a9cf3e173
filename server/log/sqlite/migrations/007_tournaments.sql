-- Tournaments: each one's state kept whole (JSON), rewritten at each change; version counts the
-- changes, so that a writer that read an older state writes nothing.
CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    status TEXT NOT NULL,        -- upcoming, running, finished, cancelled or closed
    version INTEGER NOT NULL,
    state TEXT NOT NULL          -- the whole state, JSON (server/tournament/state.py)
);
CREATE INDEX tournaments_by_name ON tournaments(name COLLATE NOCASE, id);
CREATE INDEX tournaments_by_status ON tournaments(status, id);
