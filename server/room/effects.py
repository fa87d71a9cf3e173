"""What a room core asks its actor to do, and the log entries that must be written first.

The core decides; the actor carries out. A :class:`Step` holds the effects that happen whatever
the log says (``effects``), the entries to write to the game log first (``entries``) and what
follows once they are written (``core.commit``) or refused (``core.refuse``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine import GameRecord, Outcome, Position
from protocol import messages as m
from protocol.outgoing import Outgoing
from server.room.world import Member  # at run time: compiled dataclasses look up their fields' types

# --- effects ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Send:
    """Queue ``message`` for each of ``recipients``, in order (one effect however many get it)."""

    recipients: tuple[Member, ...]
    message: Outgoing

    # The effects a move makes have their constructors written out: compiled, they are native
    # code, where the ones dataclasses writes run as Python (five to twenty times slower).
    def __init__(self, recipients: tuple[Member, ...], message: Outgoing) -> None:
        object.__setattr__(self, "recipients", recipients)
        object.__setattr__(self, "message", message)


@dataclass(frozen=True, slots=True)
class Reply:
    """An error for ``recipient`` alone, answering the message with ``id``."""

    recipient: Member
    code: str
    text: str
    id: m.ClientId = None


@dataclass(frozen=True, slots=True)
class Arm:
    """Post ``item`` to the room at ``at`` (the core's clock); replaces a timer of the same key."""

    key: str
    at: float
    item: Any


@dataclass(frozen=True, slots=True)
class Cancel:
    """Cancel the timer (or the bot's thinking) of ``key``, if any."""

    key: str

    def __init__(self, key: str) -> None:
        object.__setattr__(self, "key", key)


@dataclass(frozen=True, slots=True)
class Think:
    """Let the bot ``strategy`` choose a move for ``name`` in ``position`` and post it as a
    ``BotMove`` of turn ``move_number``; cancelled like a timer of ``key``."""

    key: str
    name: str
    strategy: str
    position: Position
    move_number: int
    #: seeds the bot's random choices, so that a game's bots are repeatable
    seed: str
    budget: float


@dataclass(frozen=True, slots=True)
class Note:
    """A structured log line of the room."""

    event: str
    fields: dict[str, Any]

    def __init__(self, event: str, fields: dict[str, Any]) -> None:
        object.__setattr__(self, "event", event)
        object.__setattr__(self, "fields", fields)


@dataclass(frozen=True, slots=True)
class TurnedAway:
    """``member`` asked to enter and was refused (a private room): it is in no room now."""

    member: Member


Effect = Send | Reply | Arm | Cancel | Think | Note | TurnedAway

# --- log entries ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameStart:
    """A game begins: its record (players, seed, options) and the room's options with it."""

    game_id: str
    room: str
    record: GameRecord
    kinds: list[str]
    room_options: dict[str, Any]
    #: the player behind each seat (``None`` for a bot)
    identities: list[str | None]


@dataclass(frozen=True, slots=True)
class MoveLogged:
    """Move ``number`` (from 1) of a game."""

    game_id: str
    number: int
    move: str

    def __init__(self, game_id: str, number: int, move: str) -> None:
        object.__setattr__(self, "game_id", game_id)
        object.__setattr__(self, "number", number)
        object.__setattr__(self, "move", move)


@dataclass(frozen=True, slots=True)
class GameEnd:
    """A game's outcome. It follows from the moves already logged, so a failure to write it
    refuses nothing: a restore writes it again."""

    game_id: str
    outcome: Outcome


@dataclass(frozen=True, slots=True)
class SeatTaken:
    """Seat ``seat`` (from 0) of a running game is played from now on by ``name`` (a vote let them
    take it over): the game is theirs in the log, for a restart and for the ratings."""

    game_id: str
    seat: int
    old: str
    name: str
    identity: str | None


@dataclass(frozen=True, slots=True)
class VotedOut:
    """The players of a running game voted ``name`` out of it: they watch it to its end, a
    restart included."""

    game_id: str
    name: str


@dataclass(frozen=True, slots=True)
class GamePrivate:
    """The room of a running game became private: the game's record is its players' alone."""

    game_id: str


Entry = GameStart | MoveLogged | GameEnd | SeatTaken | VotedOut | GamePrivate


@dataclass(slots=True)
class Step:
    """The core's answer to one inbox item."""

    effects: list[Effect] = field(default_factory=list)
    entries: tuple[Entry, ...] = ()
    #: what happens once ``entries`` are written, and what instead when the log refuses them
    then: Callable[[], None] | None = None
    otherwise: Callable[[], None] | None = None

    def __init__(
        self,
        effects: list[Effect] | None = None,
        entries: tuple[Entry, ...] = (),
        then: Callable[[], None] | None = None,
        otherwise: Callable[[], None] | None = None,
    ) -> None:
        self.effects = [] if effects is None else effects
        self.entries = entries
        self.then = then
        self.otherwise = otherwise


__all__ = [
    "Arm",
    "Cancel",
    "Effect",
    "Entry",
    "GameEnd",
    "GamePrivate",
    "GameStart",
    "MoveLogged",
    "Note",
    "Reply",
    "SeatTaken",
    "Send",
    "Step",
    "Think",
    "TurnedAway",
    "VotedOut",
]
