"""What a room core asks its actor to do, and the log entries that must be written first.

The core decides; the actor carries out. A :class:`Step` holds the effects that happen whatever
the log says (``effects``), the entries to write to the game log first (``entries``) and what
follows once they are written (``core.commit``, given what the log answered: :class:`Answers`)
or refused (``core.refuse``).

The effects and the entry that every move makes (``Send``, ``Cancel``, ``Note``, ``MoveLogged``,
``Step``) are plain classes with slots: compiled, their constructors are native code, where those
that ``dataclasses`` writes run as Python (ten times slower). The others are frozen dataclasses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine import GameRecord, Outcome, Position
from protocol import messages as m
from protocol.outgoing import Outgoing
from server.room.world import Member  # at run time: compiled dataclasses look up their fields' types

# --- effects ----------------------------------------------------------------------------------


class Send:
    """Queue ``message`` for each of ``recipients``, in order (one effect however many get it)."""

    __slots__ = ("message", "recipients")

    def __init__(self, recipients: tuple[Member, ...], message: Outgoing) -> None:
        self.recipients = recipients
        self.message = message


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


class Cancel:
    """Cancel the timer (or the bot's thinking) of ``key``, if any."""

    __slots__ = ("key",)

    def __init__(self, key: str) -> None:
        self.key = key

    def __repr__(self) -> str:
        return f"Cancel({self.key!r})"


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


class Note:
    """A structured log line of the room."""

    __slots__ = ("event", "fields")

    def __init__(self, event: str, fields: dict[str, Any]) -> None:
        self.event = event
        self.fields = fields

    def __repr__(self) -> str:
        return f"Note({self.event!r}, {self.fields!r})"


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


class MoveLogged:
    """Move ``number`` (from 1) of a game: a value, equal to another of the same move. ``auto``:
    ``"clock"`` or ``"bot"`` when the server played it for its player, else ``None``."""

    __slots__ = ("auto", "game_id", "move", "number")

    def __init__(self, game_id: str, number: int, move: str, auto: str | None = None) -> None:
        self.game_id = game_id
        self.number = number
        self.move = move
        self.auto = auto

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MoveLogged):
            return NotImplemented
        return (self.game_id, self.number, self.move, self.auto) == (
            other.game_id,
            other.number,
            other.move,
            other.auto,
        )

    def __hash__(self) -> int:
        return hash((self.game_id, self.number, self.move, self.auto))

    def __repr__(self) -> str:
        auto = "" if self.auto is None else f", {self.auto!r}"
        return f"MoveLogged({self.game_id!r}, {self.number!r}, {self.move!r}{auto})"


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
class GameOption:
    """An option that a room may change while its game runs (``ANY_TIME``) changed: a restart
    takes the game up with it. ``private`` on makes the game's record its players' alone."""

    game_id: str
    key: str
    value: bool


Entry = GameStart | MoveLogged | GameEnd | SeatTaken | VotedOut | GameOption

# --- steps ------------------------------------------------------------------------------------


class Answers:
    """What the log answered as it wrote a step's entries: the rating shift of each player of the
    game whose end it wrote, when the game was rated (``None`` otherwise)."""

    __slots__ = ("ratings",)

    def __init__(self, ratings: dict[str, m.RatingShift] | None = None) -> None:
        self.ratings = ratings


#: the answer of a log that wrote entries asking nothing back
WRITTEN = Answers()


class Step:
    """The core's answer to one inbox item: ``effects`` at once, whatever the log says; the
    ``entries`` to write first; ``then`` once they are written, given the log's answers, and
    ``otherwise`` instead when the log refuses them."""

    __slots__ = ("effects", "entries", "otherwise", "then")

    def __init__(
        self,
        effects: list[Effect] | None = None,
        entries: tuple[Entry, ...] = (),
        then: Callable[[Answers], None] | None = None,
        otherwise: Callable[[], None] | None = None,
    ) -> None:
        self.effects: list[Effect] = [] if effects is None else effects
        self.entries = entries
        self.then = then
        self.otherwise = otherwise


__all__ = [
    "WRITTEN",
    "Answers",
    "Arm",
    "Cancel",
    "Effect",
    "Entry",
    "GameEnd",
    "GameOption",
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
