-- Tournaments: each one's state kept whole (JSON), rewritten at each change; version counts the
-- changes, so that a writer that read an older state writes nothing. One live tournament a name.
CREATE TABLE tournaments (
    id BIGINT PRIMARY KEY,
    name TEXT NOT NULL,
    status TEXT NOT NULL,                   -- upcoming, running, finished, cancelled or closed
    version INTEGER NOT NULL,
    state JSONB NOT NULL                    -- the whole state (server/tournament/state.py)
);
CREATE SEQUENCE tournament_ids OWNED BY tournaments.id;
CREATE INDEX tournaments_by_name ON tournaments (lower(name), id);
CREATE INDEX tournaments_by_status ON tournaments (status, id);
CREATE UNIQUE INDEX tournaments_live_name ON tournaments (lower(name)) WHERE status IN ('upcoming', 'running');
