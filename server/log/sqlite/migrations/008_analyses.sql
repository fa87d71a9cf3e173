-- Analyses: each finished game's analysis (JSON, bots/analysis.py), computed once and kept.
CREATE TABLE analyses (
    game_id TEXT PRIMARY KEY REFERENCES games(id),
    version INTEGER NOT NULL,    -- the analysis' method (bots.analysis.VERSION)
    made REAL NOT NULL,          -- Unix time it was kept
    analysis TEXT NOT NULL       -- the whole analysis, JSON
);
