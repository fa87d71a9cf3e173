-- The moves the server played for their players: "clock" (the turn clock ran out) or "bot" (a bot
-- kept the seat warm); NULL for a player's own move, and for every move logged before.
ALTER TABLE journal ADD COLUMN auto TEXT;
-- a finished game's marks, with its moves: a JSON object of move number (from 1) -> mark, or NULL
ALTER TABLE games ADD COLUMN auto TEXT;
