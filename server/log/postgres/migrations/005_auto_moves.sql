-- The moves the server played for their players, beside a finished game's moves: move number
-- (from 1, as a JSON key) -> "clock" (the turn clock ran out) or "bot" (a bot kept the seat warm).
-- Empty for a game kept before.
ALTER TABLE games ADD COLUMN auto JSONB NOT NULL DEFAULT '{}';
