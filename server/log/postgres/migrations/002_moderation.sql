-- Moderation: staff roles, sanctions, reports and the append-only moderation log.
CREATE TABLE roles (
    key TEXT PRIMARY KEY REFERENCES accounts (key) ON DELETE CASCADE,  -- the account, casefolded
    role TEXT NOT NULL                      -- admin or moderator
);
CREATE TABLE sanctions (
    id BIGSERIAL PRIMARY KEY,
    kind TEXT NOT NULL,                     -- ban, silence or kick
    name TEXT NOT NULL,                     -- as it was given
    address TEXT,                           -- a guest's address it holds for too, or NULL
    by TEXT NOT NULL,
    reason TEXT NOT NULL,
    since DOUBLE PRECISION NOT NULL,
    until DOUBLE PRECISION,                 -- NULL: for good
    lifted DOUBLE PRECISION                 -- when it was lifted, or NULL
);
CREATE INDEX sanctions_by_name ON sanctions (lower(name));
CREATE INDEX sanctions_by_address ON sanctions (address);
CREATE TABLE reports (
    id BIGSERIAL PRIMARY KEY,
    reporter TEXT NOT NULL,
    name TEXT NOT NULL,                     -- the name reported
    reason TEXT NOT NULL,
    excerpt JSONB NOT NULL,                 -- the chat lines both saw, oldest first
    made DOUBLE PRECISION NOT NULL,
    resolved DOUBLE PRECISION,              -- NULL while open
    resolved_by TEXT,
    note TEXT NOT NULL DEFAULT ''
);
CREATE INDEX reports_open ON reports (id) WHERE resolved IS NULL;
CREATE INDEX reports_by_reporter ON reports (lower(reporter), made);
CREATE TABLE modlog (
    id BIGSERIAL PRIMARY KEY,               -- in the order the entries were written; never deleted
    at DOUBLE PRECISION NOT NULL,
    by TEXT NOT NULL,                       -- the name as it was, or (operator)
    action TEXT NOT NULL,                   -- role:ROLE, ban, unban, silence, unsilence, kick, close, ...
    target TEXT NOT NULL,                   -- the name (or room) as it was
    reason TEXT NOT NULL,
    duration TEXT NOT NULL                  -- as given (30m, 2h, 7d, perm), or empty
);
CREATE INDEX modlog_by_target ON modlog (lower(target));
CREATE INDEX modlog_by_by ON modlog (lower(by));
CREATE FUNCTION modlog_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the moderation log is append-only';
END;
$$;
CREATE TRIGGER modlog_kept BEFORE UPDATE OR DELETE ON modlog
    FOR EACH ROW EXECUTE FUNCTION modlog_append_only();
CREATE TRIGGER modlog_kept_whole BEFORE TRUNCATE ON modlog
    FOR EACH STATEMENT EXECUTE FUNCTION modlog_append_only();
