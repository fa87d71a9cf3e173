"""Who decides in a room, and the room's own commands around the game: the host, ``/info`` and
``/reset``.

With the option ``host`` on (the default), the host is the first seated person who is connected:
only they set options, seat and remove bots, start and reset. When the host leaves, the next seated
person is host. With ``host`` off, any seated player may.
"""

from __future__ import annotations

from protocol import messages as m
from protocol.commands import ShowRequest
from protocol.errors import ProtocolError
from protocol.i18n import Lang, Msg, _, lazy
from protocol.text.lines import STATE_WORDS
from server.room.effects import Step
from server.room.game import RoomGame
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


class RoomSeats(RoomGame):
    """The part of a room core that knows its host, answers ``/info`` and resets the board."""

    @property
    def host(self) -> Seat | None:
        """The host's seat: the first seated person connected, when the option ``host`` is on."""
        if not self.options.host:
            return None
        return next((s for s in self.seats if s.strategy is None and s.session is not None), None)

    def _require_host(self, session: Member, msg_id: m.ClientId, what: str) -> int:
        """The seat of ``session``, who may ``what`` (the host, or any player without one)."""
        seat = self._require_seat(session, msg_id)
        host = self.host
        if host is not None and host is not self.seats[seat]:
            raise ProtocolError("not_host", _host_only(what, host.name), msg_id)
        return seat

    def _on_start(self, session: Member, msg: m.Start) -> Step:
        self._require_host(session, msg.id, "start the game")
        return super()._on_start(session, msg)

    def _on_show_or_info(self, session: Member, msg: ShowRequest) -> None:
        if msg.what == "info":
            self._send(session, m.Text(id=msg.id, kind="info", text=self._info_text()))
            return
        self._on_show(session, msg)

    def _info_text(self) -> Msg:
        o = self.options
        host = self.host
        seats = ", ".join(f"{i}. {s.name}" for i, s in enumerate(self.seats, 1))

        state = STATE_WORDS[self.state]

        def draw(say: Lang) -> str:
            def on(flag: bool) -> str:
                return say(_("on") if flag else _("off"))

            if host:
                hosted = host.name
            else:
                hosted = say(_("nobody seated") if o.host else _("off (every player decides)"))
            room = _("Room {room}: {state}. Seats: {seats}.", room=self.name, state=state, seats=seats)
            lines = [
                say(room)
                if seats
                else say(_("Room {room}: {state}. Seats: nobody.", room=self.name, state=state)),
                say(_("Host: {host}.", host=hosted)),
                say(
                    _("Rated: no, a practice game (the room chose the seed).")
                    if o.seed is not None
                    else _("Rated: yes.")
                ),
                say(
                    _("Clock: {seconds} seconds per turn.", seconds=f"{o.clock:g}")
                    if o.clock
                    else _("Clock: off.")
                ),
                say(
                    _("Absent players: a bot plays the seat.")
                    if o.absent == "bot"
                    else _("Absent players: they leave the game.")
                ),
                say(
                    _(
                        "Stammtisch: {stammtisch}. Private: {private}.",
                        stammtisch=on(o.stammtisch),
                        private=on(o.private),
                    )
                ),
                say(_("Seats drawn at the start: yes.") if o.drawseat else _("Seats drawn at the start: no."))
                + " "
                + say(
                    _("Begins: seat {seat}.", seat=o.start) if o.start else _("Begins: drawn by the shuffle.")
                ),
            ]
            return "\n".join(lines)

        return lazy(draw)

    def _on_reset(self, session: Member, msg: m.Reset) -> None:
        self._require_host(session, msg.id, "reset the board")
        if self.state == "playing":
            raise ProtocolError("game_running", _("The game is still running."), msg.id)
        if self.game is None:
            raise ProtocolError("no_game", _("The board is fresh already; /start plays."), msg.id)
        self.game = None
        self._broadcast(m.Notice(room=self.name, text=_("{name} reset the board.", name=self._name(session))))
        self._ack(session, msg.id)
        self._publish()


__all__ = ["RoomSeats"]
