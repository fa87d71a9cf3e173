-- Moderation: staff roles, sanctions, reports and the append-only moderation log.
-- (IF NOT EXISTS: a file that says an older version but holds them already is brought up too)
CREATE TABLE IF NOT EXISTS roles (
    name TEXT PRIMARY KEY COLLATE NOCASE,  -- a registered account (deleted with it)
    role TEXT NOT NULL                     -- admin or moderator
);
CREATE TABLE IF NOT EXISTS sanctions (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,          -- ban, silence or kick
    name TEXT NOT NULL,          -- as it was given
    address TEXT,                -- a guest's address it holds for too, or NULL
    by TEXT NOT NULL,
    reason TEXT NOT NULL,
    since REAL NOT NULL,
    until REAL,                  -- NULL: for good
    lifted REAL                  -- when it was lifted, or NULL
);
CREATE INDEX IF NOT EXISTS sanctions_by_name ON sanctions(name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS sanctions_by_address ON sanctions(address);
CREATE TABLE IF NOT EXISTS reports (
    id INTEGER PRIMARY KEY,
    reporter TEXT NOT NULL,
    name TEXT NOT NULL,          -- the name reported
    reason TEXT NOT NULL,
    excerpt TEXT NOT NULL,       -- JSON list of the chat lines both saw, oldest first
    made REAL NOT NULL,
    resolved REAL,               -- NULL while open
    resolved_by TEXT,
    note TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS reports_open ON reports(resolved) WHERE resolved IS NULL;
CREATE INDEX IF NOT EXISTS reports_by_reporter ON reports(reporter COLLATE NOCASE, made);
CREATE TABLE IF NOT EXISTS modlog (
    id INTEGER PRIMARY KEY,      -- in the order the entries were written; never deleted
    at REAL NOT NULL,
    by TEXT NOT NULL,            -- the name as it was, or (operator)
    action TEXT NOT NULL,        -- role:ROLE, ban, unban, silence, unsilence, kick, close, ...
    target TEXT NOT NULL,        -- the name (or room) as it was
    reason TEXT NOT NULL,
    duration TEXT NOT NULL       -- as given (30m, 2h, 7d, perm), or empty
);
CREATE INDEX IF NOT EXISTS modlog_by_target ON modlog(target COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS modlog_by_by ON modlog(by COLLATE NOCASE);
CREATE TRIGGER IF NOT EXISTS modlog_kept_on_update BEFORE UPDATE ON modlog
BEGIN
    SELECT RAISE(ABORT, 'the moderation log is append-only');
END;
CREATE TRIGGER IF NOT EXISTS modlog_kept_on_delete BEFORE DELETE ON modlog
BEGIN
    SELECT RAISE(ABORT, 'the moderation log is append-only');
END;
