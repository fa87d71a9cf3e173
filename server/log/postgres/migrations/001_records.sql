-- The records a cluster keeps for good: accounts, ratings and their history, people's lists, and
-- the games that finished. Running games, tokens and who is online stay in Redis.

CREATE TABLE accounts (
    key TEXT PRIMARY KEY,                   -- the name casefolded
    name TEXT NOT NULL,                     -- as it was registered
    hash TEXT NOT NULL,                     -- argon2id, as argon2-cffi encodes it
    created DOUBLE PRECISION NOT NULL,
    last_seen DOUBLE PRECISION,
    lang TEXT,                              -- the language chosen with /lang (en, de), or NULL
    ascii BOOLEAN NOT NULL DEFAULT FALSE,   -- /ascii on was chosen at a terminal
    form TEXT NOT NULL                      -- the name's look-alike form (protocol.names.alike)
);
CREATE INDEX accounts_by_form ON accounts (form);

CREATE TABLE name_forms (
    version TEXT NOT NULL                   -- the look-alike forms' version the accounts' forms are of
);

-- a guest who registered: the games it plays on are the account's when they finish
CREATE TABLE guest_accounts (
    identity TEXT PRIMARY KEY,
    account TEXT NOT NULL                   -- account:NAME
);
CREATE INDEX guest_accounts_by_account ON guest_accounts (account);

CREATE TABLE ratings (
    key TEXT PRIMARY KEY,                   -- account:NAME (casefolded) or bot:STRATEGY
    name TEXT NOT NULL,                     -- as shown
    mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL
);
CREATE INDEX ratings_by_shown ON ratings ((mu - 3 * sigma) DESC, name);

CREATE TABLE games (
    id TEXT PRIMARY KEY,
    room TEXT NOT NULL,
    players JSONB NOT NULL,                 -- names in seating order
    kinds JSONB NOT NULL,                   -- "person" or "bot:STRATEGY" for each seat
    seed NUMERIC NOT NULL,
    options JSONB NOT NULL,                 -- the engine's options
    board TEXT NOT NULL,
    start_player INTEGER,
    started DOUBLE PRECISION NOT NULL,
    finished DOUBLE PRECISION NOT NULL,
    result JSONB NOT NULL,                  -- the outcome
    room_options JSONB NOT NULL,            -- the room's options at the start (clock, absent, private...)
    moves JSONB NOT NULL,                   -- every move, in order
    voted_out JSONB NOT NULL                -- names voted out, or whose seat was taken over
);

CREATE TABLE players (
    game_id TEXT NOT NULL REFERENCES games (id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    identity TEXT,                          -- who played under the name; NULL for a bot
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX players_by_identity ON players (identity);
CREATE INDEX players_by_name ON players (name);

CREATE TABLE rating_history (
    game_id TEXT NOT NULL REFERENCES games (id),
    seat INTEGER NOT NULL,                  -- the order the changes were made in
    key TEXT NOT NULL,
    name TEXT NOT NULL,
    mu_before DOUBLE PRECISION NOT NULL,
    sigma_before DOUBLE PRECISION NOT NULL,
    mu_after DOUBLE PRECISION NOT NULL,
    sigma_after DOUBLE PRECISION NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    won BOOLEAN NOT NULL,                   -- this game added to wins
    PRIMARY KEY (game_id, key)
);
CREATE INDEX rating_history_by_key ON rating_history (key);

-- an account's lists (a guest's live in Redis, as long as its name)
CREATE TABLE lists (
    identity TEXT NOT NULL,                 -- account:NAME
    list TEXT NOT NULL,                     -- mute or friend
    key TEXT NOT NULL,                      -- the name listed, casefolded
    name TEXT NOT NULL,                     -- as it was typed
    PRIMARY KEY (identity, list, key)
);
