"""What every part of a room core shares: the world it knows, its state, and how it answers.

A core never sends: it gathers effects (:mod:`server.room.effects`) in ``_out``, which the
state machine hands to its actor.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from engine import Position
from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.outgoing import Outgoing
from protocol.view import RoomViews, SeatInfo
from server.room.effects import Effect, Note, Reply, Send, Step
from server.room.publish import Publisher
from server.room.state import DEFAULT_OPTIONS, Game, Seat, State
from server.store import UNAVAILABLE

#: the timer of the turn in progress: the clock, or a bot thinking
TURN = "turn"


class Member(Hashable, Protocol):
    """A member of a room as the core sees it: a session, here or on another node."""

    name: str | None
    kind: Literal["person", "bot"]
    ascii_only: bool

    def send(self, message: Outgoing) -> None:
        """Queue a message (the actor calls it; the core only names the recipient)."""


class BotNames(Protocol):
    """The server-wide names of server-side bots (no person may take one)."""

    def reserve(self, strategy: str) -> str: ...
    def add(self, name: str) -> None: ...
    def release(self, name: str) -> None: ...


class BotNameList:
    """Bot names kept in a set: the host's list in one process, and the tests'."""

    def __init__(self, taken: Callable[[str], bool] = lambda name: False) -> None:
        self.names: set[str] = set()
        self._taken = taken
        self._counter = 0

    def reserve(self, strategy: str) -> str:
        while True:
            self._counter += 1
            name = f"{strategy}-bot{self._counter}"
            if name.casefold() not in self.names and not self._taken(name):
                self.names.add(name.casefold())
                return name

    def add(self, name: str) -> None:
        self.names.add(name.casefold())

    def release(self, name: str) -> None:
        self.names.discard(name.casefold())

    def __contains__(self, name: str) -> bool:
        return name.casefold() in self.names


@dataclass(frozen=True, slots=True)
class RoomSettings:
    """The server settings a room follows."""

    resume_window: float = 300.0
    clock_min: float = 5.0
    bot_budget: float = 1.0


class RoomBase:
    """A room's state, what others may read of it, and the helpers that gather effects."""

    def __init__(
        self,
        name: str,
        settings: RoomSettings,
        bot_names: BotNames,
        *,
        new_game_id: Callable[[], str] = lambda: secrets.token_hex(8),
        new_seed: Callable[[], int] = lambda: secrets.randbelow(2**63),
    ) -> None:
        self.name = name
        self.settings = settings
        self.bot_names = bot_names
        self.members: dict[Member, None] = {}
        self.seats: list[Seat] = []
        self.options: dict[str, Any] = dict(DEFAULT_OPTIONS)
        self.game: Game | None = None
        self._new_game_id = new_game_id
        self._new_seed = new_seed
        self._publisher = Publisher(name)
        self._last_views: RoomViews | None = None
        #: players whose resume window is running
        self._windows: set[str] = set()
        self._out: list[Effect] = []
        self._now = 0.0
        self._handlers = self._handler_table()

    def _handler_table(self) -> dict[type, Callable[[Any, Any], Step | None]]:
        """The handler of each kind of inbox item."""
        return {}

    # --- what the actor and the lobby read ---------------------------------------------------------

    @property
    def state(self) -> State:
        if self.game is None:
            return "waiting"
        return "over" if self.game.outcome is not None else "playing"

    @property
    def empty(self) -> bool:
        return not self.members and self.state != "playing"

    def summary(self) -> m.RoomSummary:
        return m.RoomSummary(
            name=self.name,
            state=self.state,
            seats=[m.SeatSummary(name=s.name, kind=s.kind, connected=s.connected) for s in self.seats],
            spectators=sum(1 for s in self.members if self._seat_of(s.name) is None),
            options=self._public_options(),
        )

    def seat_of(self, name: str) -> Seat | None:
        """The seat ``name`` holds here (names compare without regard to case)."""
        key = name.casefold()
        return next((s for s in self.seats if s.name.casefold() == key), None)

    def _public_options(self) -> dict[str, Any]:
        return {key: self.options[key] for key in ("stammtisch", "clock", "seed", "absent")}

    # --- checks ------------------------------------------------------------------------------------

    def _require_game(self, msg_id: m.ClientId) -> Game:
        if self.game is None:
            raise ProtocolError("no_game", "No game is running here; /join and /start one.", msg_id)
        if self.game.outcome is not None:
            raise ProtocolError("game_over", "The game has ended; /start plays again.", msg_id)
        return self.game

    def _require_seat(self, session: Member, msg_id: m.ClientId) -> int:
        seat = self._seat_of(self._name(session))
        if seat is None:
            raise ProtocolError("not_seated", "You have no seat here; /join first.", msg_id)
        return seat

    def _my_turn(self, session: Member, msg_id: m.ClientId) -> Position:
        game = self._require_game(msg_id)
        seat = self._require_seat(session, msg_id)
        if game.position.to_move != seat:
            raise ProtocolError(
                "not_your_turn", f"It is {self.seats[game.position.to_move].name}'s turn.", msg_id
            )
        return game.position

    # --- steps -------------------------------------------------------------------------------------

    def _done(self) -> Step:
        """The effects gathered so far, as a step with nothing to log."""
        step = Step(effects=self._out)
        self._out = []
        return step

    @staticmethod
    def _chain(
        step: Step,
        after: Callable[[], None],
        *,
        before: Callable[[], None] | None = None,
        otherwise: Callable[[], None] | None = None,
    ) -> Step:
        """``step`` with ``before`` and ``after`` around what follows its entries."""
        then = step.then

        def done() -> None:
            if before is not None:
                before()
            if then is not None:
                then()
            after()

        step.then = done
        if otherwise is not None:

            def instead() -> None:
                otherwise()
                after()

            step.otherwise = instead
        return step

    def _unavailable(self, session: Member, msg_id: m.ClientId) -> Callable[[], None]:
        def refused() -> None:
            self._out.append(Reply(session, "unavailable", UNAVAILABLE, msg_id))

        return refused

    # --- sending -----------------------------------------------------------------------------------

    def _seat_of(self, name: str | None) -> int | None:
        for i, s in enumerate(self.seats):
            if s.name == name:
                return i
        return None

    @staticmethod
    def _name(session: Member) -> str:
        assert session.name is not None
        return session.name

    def _room_views(self) -> RoomViews:
        game = self.game
        spectators = [self._name(s) for s in self.members if self._seat_of(s.name) is None]
        self._last_views = RoomViews(
            room=self.name,
            state=self.state,
            seats=[SeatInfo(s.name, s.kind, s.connected) for s in self.seats],
            spectators=spectators,
            options=self._public_options(),
            position=game.position if game else None,
            last_move=game.last_move if game else None,
            outcome=game.outcome if game else None,
            move_number=game.moves if game else 0,
            previous=self._last_views,  # what did not change is the same object: diffs skip it
        )
        return self._last_views

    def _publish(self) -> None:
        """Send every member what changed in its own view."""
        views = self._room_views()
        patches: dict[tuple[int, ...], Outgoing] = {}
        out: list[Send] = []
        for session in self.members:
            self._publisher.update(session, views, out, patches)
        self._out.extend(out)

    def _publish_to(self, session: Member) -> None:
        out: list[Send] = []
        self._publisher.update(session, self._room_views(), out)
        self._out.extend(out)

    def _broadcast(self, message: m._ServerMessage | Outgoing, exclude: Member | None = None) -> None:
        out = message if isinstance(message, Outgoing) else Outgoing(message)
        self._out.extend(Send(session, out) for session in self.members if session is not exclude)

    def _send(self, session: Member, message: m._ServerMessage) -> None:
        self._out.append(Send(session, Outgoing(message)))

    def _ack(self, session: Member, msg_id: m.ClientId) -> None:
        self._out.append(Send(session, Outgoing.ack(msg_id)))

    def _note(self, event: str, **fields: Any) -> None:
        self._out.append(Note(event, fields))


def window(name: str) -> str:
    """The timer key of ``name``'s resume window."""
    return f"window:{name}"
