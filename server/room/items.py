"""What a room's inbox holds beside client messages: entering and leaving, a player coming back,
and what the room's own timers and bots post to it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from protocol import messages as m
from protocol.options import RoomOptions

if TYPE_CHECKING:
    from server.room.world import Member


@dataclass(frozen=True, slots=True)
class Enter:
    """A session enters the room (and takes a seat too, with ``join``). Like every item, it is
    posted with the member it comes from."""

    join: bool = False
    id: m.ClientId = None
    #: the member is on the room's guest list (invited, or in it when it became private): a
    #: private room lets in its guests and its players, and turns anyone else away
    admitted: bool = False
    #: the member asked to enter (``enter_room``, ``watch``, ``join``) and is answered with
    #: ``ack``; the server taking them in (back to watch a game they were voted out of, after
    #: the room moved to another node) answers nothing
    asked: bool = True


@dataclass(frozen=True, slots=True)
class Leave:
    """A session leaves the room: by asking, or because its connection was lost."""

    disconnected: bool = False
    id: m.ClientId = None
    #: the member's name, for a session that gave it up already (replaced by a newer connection)
    name: str | None = None
    #: the member asked to leave (``leave_room``) and is answered with ``ack``; a move the server
    #: makes (into another room, to a table, out of a closed room) is not answered
    asked: bool = True
    #: the member can never come back to its seat: a guest who gave up its token (``/quit``)
    gone: bool = False
    #: the connection lost is one its player replaced with a newer one, which comes back at once
    replaced: bool = False
    #: the staff closed the room: the member reads ``room_closed`` after all the room answered
    #: before (an entry that crossed the close is answered first, then undone)
    closed: bool = False


@dataclass(frozen=True, slots=True)
class Returned:
    """A player reclaimed their seat with a resume token, or the server moved them into the seat
    of a table it made (quick pairing, a tournament)."""


def _ignore(game_id: str | None) -> None:
    pass


@dataclass(frozen=True, slots=True)
class Table:
    """A table the server makes (quick pairing, a tournament): in an empty room, the ``options``
    are set, a seat is made for each of ``players`` (name and identity; each held for its player,
    as for one who lost the connection, until they come with ``Returned``) and one for a server
    bot of each of ``bots`` (strategies), and the game starts at once (``listed``: a tournament's,
    which stays public). ``started`` is called with
    the game's id once its start is logged, or ``None`` when the room refused (not empty, or the
    log out of reach)."""

    players: tuple[tuple[str, str | None], ...]
    bots: tuple[str, ...] = ()
    options: RoomOptions = field(default_factory=RoomOptions)
    started: Callable[[str | None], None] = _ignore
    #: the game is a tournament's, whose tables and results are public: its room may not turn
    #: private while it runs
    listed: bool = False


@dataclass(frozen=True, slots=True)
class Closing:
    """The staff closed the room (``/close``): a running game ends at once, unrated, its members
    told ``reason``; their nodes take everyone in the room to the lobby."""

    reason: str = ""


@dataclass(frozen=True, slots=True)
class WindowPassed:
    """The resume window of a lost player passed: a bot takes the seat, or with the room option
    ``absent`` ``drop`` the player leaves the game."""

    name: str


@dataclass(frozen=True, slots=True)
class BotMove:
    """A bot (or a stand-in) chose ``move`` for the turn ``move_number``."""

    name: str
    move: str
    move_number: int


@dataclass(frozen=True, slots=True)
class ClockTimeout:
    """The turn clock of move ``move_number`` ran out."""

    move_number: int


@dataclass(frozen=True, slots=True)
class ClockWarning:
    """The turn clock of move ``move_number`` has ``seconds`` left (``CLOCK_WARNING``, or fewer
    for a player who came back after the warning was due)."""

    move_number: int
    seconds: int


@dataclass(frozen=True, slots=True)
class Unattended:
    """A game has waited the resume window with nobody in its room (see ``RoomGame._unattended``)."""

    move_number: int


@dataclass(frozen=True, slots=True)
class Lingered:
    """A room whose game is over has stood the resume window with nobody in it since the last
    one left: it may go (see ``RoomCore.lingering``)."""


@dataclass(frozen=True, slots=True)
class MakeWay:
    """The server holds as many rooms as it may and one more is wanted: a game with nobody in its
    room leaves memory now, kept in the log (as after the resume window: ``Unattended``)."""


@dataclass(frozen=True, slots=True)
class Expired:
    """A game that left memory with nobody in its room began longer ago than the server keeps a
    game waiting (``--game-max-age``), and was taken up to end: with nobody in its room, it ends as
    when the staff close the room."""


@dataclass(frozen=True, slots=True)
class TurnRetry:
    """Start the turn of move ``move_number`` again: its automatic move could not be logged."""

    move_number: int


@dataclass(frozen=True, slots=True)
class Stop:
    """Finish what is queued before this, then end the actor."""


@dataclass(frozen=True, slots=True)
class Item:
    """One inbox entry: who sent it (``None`` for the room's own timers and bots) and what."""

    session: Member | None
    message: Any
    received: float


__all__ = [
    "BotMove",
    "ClockTimeout",
    "ClockWarning",
    "Closing",
    "Enter",
    "Expired",
    "Item",
    "Leave",
    "MakeWay",
    "Returned",
    "Stop",
    "Table",
    "TurnRetry",
    "WindowPassed",
]
