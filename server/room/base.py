"""What every part of a room core shares: the world it knows, its state, and how it answers.

A core never sends: it gathers effects (:mod:`server.room.effects`) in ``_out``, which the
state machine hands to its actor.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from engine import Position
from protocol import messages as m
from protocol.errors import UNAVAILABLE, ProtocolError
from protocol.i18n import _
from protocol.options import RoomOptions
from protocol.outgoing import Outgoing
from protocol.view import RoomViews, SeatInfo
from server.ratings import is_guest
from server.room.effects import Effect, Note, Reply, Send, Step
from server.room.publish import Patches, Publisher
from server.room.state import Game, Seat, State
from server.room.world import BotNames, Member, RoomSettings

#: the timer of the turn in progress: the clock, or a bot thinking
TURN = "turn"
#: the timer of the warning before the turn clock runs out, and its seconds
WARN = "warn"
CLOCK_WARNING = 10.0


class RoomBase:
    """A room's state, what others may read of it, and the helpers that gather effects."""

    #: the bots wait for a person to come back before they move (see ``_unattended``)
    suspended = False
    #: the game waited the resume window with nobody here: the room leaves memory (the log
    #: keeps the game, and a restart takes it up again)
    unloaded = False
    #: the effects gathered, and the core's clock: each entry (``handle``, ``commit``,
    #: ``refuse``, ``restore``) sets them before anything reads them
    _out: list[Effect]
    _now: float

    def __init__(
        self,
        name: str,
        settings: RoomSettings,
        bot_names: BotNames,
        *,
        new_game_id: Callable[[], str] = lambda: secrets.token_hex(8),
        new_seed: Callable[[], int] = lambda: secrets.randbelow(2**63),
        bot_games: Callable[[str], int] = lambda name: 0,
    ) -> None:
        self.name = name
        self.settings = settings
        self.bot_names = bot_names
        self.members: dict[Member, None] = {}
        self.seats: list[Seat] = []
        self.options = RoomOptions()
        #: the options as members see them, and the options they were made of
        self._shown: tuple[RoomOptions | None, dict[str, Any]] = (None, {})
        self.game: Game | None = None
        self._new_game_id = new_game_id
        self._new_seed = new_seed
        #: how many games ``name`` has running against the server's bots alone (on this server)
        self._bot_games = bot_games
        self._publisher = Publisher(name)
        self._last_views: RoomViews | None = None
        #: the seats as the last views showed them (the same objects while no seat changed)
        self._seat_infos: tuple[SeatInfo, ...] = ()
        #: players whose resume window is running
        self._windows: set[str] = set()
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
        return not self.members and (self.state != "playing" or self.unloaded)

    def summary(self) -> m.RoomSummary:
        return m.RoomSummary(
            name=self.name,
            state=self.state,
            seats=[
                m.SeatSummary(
                    name=s.name, kind=s.kind, connected=s.connected, guest=is_guest(s.kind, s.identity)
                )
                for s in self.seats
            ],
            spectators=len(self._watching()),
            options=self._public_options(),
        )

    def listing(self) -> tuple[Any, ...]:
        """What the room list says of the room (``summary``), cheap to compare."""
        seats = tuple((s.name, s.kind, s.connected) for s in self.seats)
        return (self.state, seats, len(self._watching()), self.options)

    def seat_of(self, name: str) -> Seat | None:
        """The seat ``name`` holds here (names compare without regard to case)."""
        index = self._seat_of(name)
        return None if index is None else self.seats[index]

    def _public_options(self) -> dict[str, Any]:
        # a seed chosen for the room stays secret until the game ends: others see only that there is one
        options = self.options
        shown_for, shown = self._shown
        if shown_for is not options:  # made again only when the options change
            shown = {**options.to_dict(), "seed": None if options.seed is None else "set"}
            self._shown = (options, shown)
        return shown

    # --- checks ------------------------------------------------------------------------------------

    def _require_game(self, msg_id: m.ClientId) -> Game:
        if self.game is None:
            raise ProtocolError("no_game", _("No game is running here; /join and /start one."), msg_id)
        if self.game.outcome is not None:
            raise ProtocolError("game_over", _("The game has ended; /start plays again."), msg_id)
        return self.game

    def _require_seat(self, session: Member, msg_id: m.ClientId) -> int:
        """The seat ``session`` plays now (``_held_seat``); anyone else is refused ``not_seated``."""
        seat = self._held_seat(session)
        if seat is None:
            if self._seat_of(self._name(session)) is not None:  # a bot plays it, or it was voted away
                raise ProtocolError("not_seated", _("You do not play a seat here now."), msg_id)
            raise ProtocolError("not_seated", _("You have no seat here; /join first."), msg_id)
        return seat

    def _my_turn(self, session: Member, msg_id: m.ClientId) -> Position:
        game = self._require_game(msg_id)
        seat = self._require_seat(session, msg_id)
        if game.position.to_move != seat:
            raise ProtocolError(
                "not_your_turn",
                _("It is {name}'s turn.", name=self.seats[game.position.to_move].name),
                msg_id,
            )
        return game.position

    # --- steps -------------------------------------------------------------------------------------

    def _done(self) -> Step:
        """The effects gathered so far, as a step with nothing to log."""
        return Step(effects=self._out)

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
        if name is None:
            return None
        key = name.casefold()  # names are one person's whatever their capitals
        for i, s in enumerate(self.seats):
            if s.name.casefold() == key:
                return i
        return None

    def _held_seat(self, session: Member) -> int | None:
        """The seat ``session`` plays now: the seat of its name while this very connection holds
        it. A seat a bot plays for its player, one its player was voted out of or left, and one
        that waits for a lost connection are held by nobody: their player, in the room, watches."""
        seat = self._seat_of(session.name)
        return seat if seat is not None and self.seats[seat].session is session else None

    def _watching(self) -> list[str]:
        """The names of the members who play no seat now, in the room's order: the spectators,
        whom the views show no seat and no hand (a member replaced by a newer connection has no
        name until its leave is handled)."""
        playing = {s.name for s in self.seats if s.session is not None}
        return [s.name for s in self.members if s.name is not None and s.name not in playing]

    @staticmethod
    def _name(session: Member) -> str:
        assert session.name is not None
        return session.name

    def _room_views(self) -> RoomViews:
        game = self.game
        self._last_views = RoomViews(
            room=self.name,
            state=self.state,
            seats=self._seats_shown(),
            # a player who does not play the seat now reads the room as a spectator, no hand
            spectators=self._watching(),
            options=self._public_options(),
            position=game.position if game else None,
            last_move=game.last_move if game else None,
            move_number=(
                game.moves if game else 0  # pragma: no mutate - no game, no number shown
            ),
            history=game.history if game else (),
            deadline=game.deadline if game else None,
            # what did not change is the same object: diffs skip it (without it they compare it all)
            previous=self._last_views,  # pragma: no mutate
        )
        return self._last_views

    def _seats_shown(self) -> tuple[SeatInfo, ...]:
        """The seats as views show them: the tuple of the views before while no seat changed, so
        that the views compare it by identity rather than seat by seat."""
        shown = self._seat_infos
        seats = self.seats
        if len(shown) == len(seats):
            for info, seat in zip(shown, seats):  # noqa: B905 - the lengths are equal
                # (a shortcut: seats made again when they need not be are equal all the same)
                same = info.name == seat.name and info.kind == seat.kind  # pragma: no mutate
                if not same or info.connected != seat.connected:  # pragma: no mutate
                    break
            else:
                return shown
        self._seat_infos = shown = tuple(SeatInfo(s.name, s.kind, s.connected) for s in seats)
        return shown

    def _publish(self) -> None:
        """Send every member what changed in its own view."""
        views = self._room_views()
        patches = Patches()
        update = self._publisher.update
        # one effect for each patch, however many members get it (each member gets one message)
        recipients: dict[Outgoing, list[Member]] = {}
        for session in self.members:
            out = update(session, views, patches)
            if out is not None:
                same = recipients.get(out)
                if same is None:
                    recipients[out] = [session]
                else:
                    same.append(session)
        self._out.extend(Send(tuple(members), out) for out, members in recipients.items())

    def _publish_to(self, session: Member) -> None:
        out = self._publisher.update(session, self._room_views())
        if out is not None:
            self._out.append(Send((session,), out))

    def _broadcast(self, message: m._ServerMessage | Outgoing, exclude: Member | None = None) -> None:
        out = message if isinstance(message, Outgoing) else Outgoing(message)
        members = self.members
        recipients = (
            tuple(members)  # pragma: no mutate - a shortcut: with nobody left out, the filter keeps all
            if exclude is None
            else tuple(s for s in members if s is not exclude)
        )
        if recipients:
            self._out.append(Send(recipients, out))

    def _send(self, session: Member, message: m._ServerMessage) -> None:
        self._out.append(Send((session,), Outgoing(message)))

    def _ack(self, session: Member, msg_id: m.ClientId) -> None:
        self._out.append(Send((session,), Outgoing.ack(msg_id)))

    def _note(self, event: str, **fields: Any) -> None:
        self._out.append(Note(event, fields))


def window(name: str) -> str:
    """The timer key of ``name``'s resume window."""
    return f"window:{name}"
