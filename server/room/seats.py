"""A room's seats and who plays each now: the seats' order, the host, and the players a vote
took out of a game.

A part of the room core (:mod:`server.room.core`), with no I/O and no messages: it answers and
refuses (:class:`~protocol.errors.ProtocolError`); the core tells.

A seat's hand is read only by the person whose connection plays the seat now (``held``). With the
option ``host`` on (the default), the host is the first seated person who is connected: only they
set options, seat and remove bots, start and reset. When the host leaves, the next seated person
is host. With ``host`` off, any seated player may.

>>> seats = Seats()
>>> seats.add(Seat(name="ann", kind="person"))
>>> seats.index_of("ANN"), seats.index_of("bob")
(0, None)
"""

from __future__ import annotations

from collections.abc import Iterator

from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.i18n import Msg, _
from protocol.view import SeatInfo
from server.room.state import Seat
from server.room.world import Member


def _host_only(what: str, host: str) -> Msg:
    """The refusal of someone not the host who tried ``what``: one sentence for each thing."""
    match what:
        case "seat bots":
            return _("Only the host, {name}, may seat bots here.", name=host)
        case "remove bots":
            return _("Only the host, {name}, may remove bots here.", name=host)
        case "set options":
            return _("Only the host, {name}, may set options here.", name=host)
        case "reset the board":
            return _("Only the host, {name}, may reset the board here.", name=host)
    return _("Only the host, {name}, may start the game here.", name=host)


class Seats:
    """The seats of a room, in order: a sequence of :class:`~server.room.state.Seat`."""

    def __init__(self) -> None:
        self._seats: list[Seat] = []
        #: the seats as the last views showed them (the same objects while no seat changed)
        self._shown: tuple[SeatInfo, ...] = ()
        #: (game id, name) of the players voted out of a game, and of those whose seat was taken
        #: over: they watch that game to its end
        self._barred: frozenset[tuple[str, str]] = frozenset()

    def __len__(self) -> int:
        return len(self._seats)

    def __iter__(self) -> Iterator[Seat]:
        return iter(self._seats)

    def __getitem__(self, index: int) -> Seat:
        return self._seats[index]

    # --- who sits where ----------------------------------------------------------------------

    def index_of(self, name: str | None) -> int | None:
        """The seat of ``name`` (names compare without regard to case)."""
        if name is None:
            return None
        key = name.casefold()  # names are one person's whatever their capitals
        for i, s in enumerate(self._seats):
            if s.name.casefold() == key:
                return i
        return None

    def of(self, name: str) -> Seat | None:
        """The seat ``name`` holds here."""
        index = self.index_of(name)
        return None if index is None else self._seats[index]

    def held(self, member: Member) -> int | None:
        """The seat ``member`` plays now: the seat of its name while this very connection holds
        it. A seat a bot plays for its player, one its player was voted out of or left, and one
        that waits for a lost connection are held by nobody: their player, in the room, watches."""
        seat = self.index_of(member.name)
        return seat if seat is not None and self._seats[seat].session is member else None

    def watching(self, members: dict[Member, None]) -> list[str]:
        """The names of the ``members`` who play no seat now, in their order: the spectators,
        whom the views show no seat and no hand (a member replaced by a newer connection has no
        name until its leave is handled)."""
        playing = {s.name for s in self._seats if s.session is not None}
        return [s.name for s in members if s.name is not None and s.name not in playing]

    def host(self, on: bool) -> Seat | None:
        """The host's seat: the first seated person connected, when the option ``host`` is ``on``;
        a bot program's (a client that said ``"kind": "bot"``) only while no person sits, so that
        programs alone still play, and none holds a room against its people."""
        if not on:
            return None
        connected = [s for s in self._seats if s.strategy is None and s.session is not None]
        return next((s for s in connected if s.kind == "person"), connected[0] if connected else None)

    def kinds(self) -> list[str]:
        """Each seat's kind as the log keeps it: ``person``, ``bot`` (a client's), ``bot:STRATEGY``."""
        return [s.logged_kind for s in self._seats]

    def shown(self) -> tuple[SeatInfo, ...]:
        """The seats as views show them: the tuple of the views before while no seat changed, so
        that the views compare it by identity rather than seat by seat."""
        shown = self._shown
        seats = self._seats
        if len(shown) == len(seats):
            for info, seat in zip(shown, seats):  # noqa: B905 - the lengths are equal
                # (a shortcut: seats made again when they need not be are equal all the same)
                same = info.name == seat.name and info.kind == seat.kind  # pragma: no mutate
                if not same or info.connected != seat.connected:  # pragma: no mutate
                    break
            else:
                return shown
        self._shown = shown = tuple(SeatInfo(s.name, s.kind, s.connected) for s in seats)
        return shown

    # --- checks ------------------------------------------------------------------------------

    def require(self, member: Member, msg_id: m.ClientId) -> int:
        """The seat ``member`` plays now (``held``); anyone else is refused ``not_seated``."""
        seat = self.held(member)
        if seat is None:
            if self.index_of(member.name) is not None:  # a bot plays it, or it was voted away
                raise ProtocolError("not_seated", _("You do not play a seat here now."), msg_id)
            raise ProtocolError("not_seated", _("You have no seat here; /join first."), msg_id)
        return seat

    def require_host(self, member: Member, msg_id: m.ClientId, what: str, *, on: bool) -> int:
        """The seat of ``member``, who may ``what`` (the host, or any player with the option
        ``host`` not ``on``)."""
        seat = self.require(member, msg_id)
        host = self.host(on)
        if host is not None and host is not self._seats[seat]:
            raise ProtocolError("not_host", _host_only(what, host.name), msg_id)
        return seat

    # --- changes -----------------------------------------------------------------------------

    def add(self, seat: Seat) -> None:
        """``seat`` is the last one now."""
        self._seats.append(seat)

    def remove(self, index: int) -> None:
        """Seat ``index`` is given up: the ones after it move up."""
        del self._seats[index]

    def give_up_empty(self) -> bool:
        """The seats of persons nobody plays are given up (a game ended); whether there were any."""
        kept = [s for s in self._seats if s.strategy is not None or s.session is not None]
        given_up = len(kept) != len(self._seats)
        self._seats = kept
        return given_up

    def replace(self, seats: list[Seat]) -> None:
        """The seats are ``seats`` from now on, in that order (a game starts, or is restored)."""
        self._seats = seats

    def bar(self, game_id: str, name: str) -> None:
        """``name`` watches the game ``game_id`` to its end: voted out, or their seat taken over."""
        self._barred = self._barred | {(game_id, name)}

    def barred(self, game_id: str | None, name: str | None) -> bool:
        """Whether ``name`` was voted out of the game ``game_id`` (or lost their seat in it)."""
        return game_id is not None and (game_id, name) in self._barred


__all__ = ["Seats"]
