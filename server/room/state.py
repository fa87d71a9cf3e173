"""The state a room keeps: its seats and its game."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from engine import GameRecord, Outcome, Position
from protocol.view import LastMove
from server.room.world import Member  # at run time: compiled dataclasses look up their fields' types

MAX_SEATS = 4
MIN_PLAYERS = 2
State = Literal["waiting", "playing", "over"]


@dataclass
class Seat:
    """A seat: a person (with a session while connected) or a bot (with a strategy)."""

    name: str
    kind: Literal["person", "bot"]
    session: Member | None = None
    strategy: str | None = None
    #: a person's seat played by a bot while they are away (after the window or clock timeouts)
    stand_in: str | None = None
    timeouts: int = 0
    #: the player behind a person's seat, so that the game is logged as theirs
    identity: str | None = None
    #: whether its player has sat in it: not yet in a seat the server made at a table of its own
    #: (quick pairing, a tournament) until they come, so that they are told as taking it, not back
    arrived: bool = True
    #: its player, a guest, gave up the token (``/quit``): nobody can come back to it
    gone: bool = False

    @property
    def connected(self) -> bool:
        return self.strategy is not None or self.session is not None

    @property
    def awaited(self) -> bool:
        """Whether its player may still come back to it: not the server's bot's, and not given up."""
        return self.strategy is None and not self.gone

    @property
    def logged_kind(self) -> str:
        """The seat's kind as the log keeps it: ``person``, ``bot`` (a client's), ``bot:STRATEGY``."""
        return self.kind if self.strategy is None else f"bot:{self.strategy}"

    @property
    def played_by_bot(self) -> str | None:
        """The strategy that plays this seat now: a server-side bot's, or a stand-in's."""
        return self.strategy if self.strategy is not None else self.stand_in


#: the keys beside the room's options in a game's start (in the log) that mark a tournament's game,
#: and a game whose seed the server drew for a table it made
LISTED = "listed"
DRAWN = "drawn"


@dataclass
class Game:
    """The game in progress (or just finished) in a room."""

    game_id: str
    seed: int
    #: the game's players, seed and options (its moves, whatever this holds, are the history's)
    start: GameRecord
    position: Position
    last_move: LastMove | None = None
    outcome: Outcome | None = None
    moves: int = 0
    #: every move so far, for the views (a reload or a newcomer sees the whole game)
    history: list[LastMove] = field(default_factory=list)
    #: when the turn clock runs out (Unix time), or None without a clock running
    deadline: float | None = None
    #: once it ended rated: each rated player's shown rating (``before``, ``after``,
    #: ``provisional``), as ``game_over`` told them; None otherwise
    ratings: dict[str, dict[str, Any]] | None = None
    #: a tournament's game, whose table and result the tournament shows to everyone: its room
    #: may not turn private while it runs
    listed: bool = False
    #: dealt from a seed chosen for the room (or drawn for a table the server made): not rated
    practice: bool = False

    @property
    def record(self) -> GameRecord:
        """The game's record: as it began, with every move so far (made when asked for: a
        tuple of all the moves made again at each move would be copied for nothing)."""
        return replace(self.start, moves=tuple(h.move for h in self.history))
