-- Analyses: each finished game's analysis (JSON, bots/analysis.py), computed once and kept. (No
-- reference to games: a game whose record still waits in Redis may be analysed already.)
CREATE TABLE analyses (
    game_id TEXT PRIMARY KEY,
    version INTEGER NOT NULL,               -- the analysis' method (bots.analysis.VERSION)
    made DOUBLE PRECISION NOT NULL,         -- Unix time it was kept
    analysis JSONB NOT NULL                 -- the whole analysis
);
