"""Whether a game may start at a room's table: the checks of ``start``, each refusal a stable code.

A part of the game at the table (:class:`~server.room.play.Play`), which asks before it begins.
"""

from __future__ import annotations

from collections.abc import Callable

from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.i18n import _
from protocol.options import RoomOptions
from server.room.seats import Seats
from server.room.state import MAX_SEATS, MIN_PLAYERS, State
from server.room.world import Member, RoomSettings


def too_many_bot_games(limit: int, msg_id: m.ClientId) -> ProtocolError:
    """The refusal of a game against the server's bots to a person who has ``limit`` running (a
    ``start``, or a ``seek`` that would seat them with bots)."""
    text = _("You have {limit} games against the server's bots running; finish one first.", limit=limit)
    return ProtocolError("too_many_bot_games", text, msg_id)


def check_start(
    member: Member,
    msg_id: m.ClientId,
    *,
    state: State,
    seats: Seats,
    options: RoomOptions,
    settings: RoomSettings,
    bot_games: Callable[[str, str | None], int],
) -> None:
    """Refuse ``member``'s ``start`` unless they host (where the room has a host), no game runs,
    2 to 4 seats are taken, a game against the server's bots alone is within the starter's
    ``settings.max_bot_games`` (``bot_games`` counts theirs), and the seat to begin is taken."""
    seats.require_host(member, msg_id, "start the game", on=options.host)
    if state == "playing":
        raise ProtocolError("game_running", _("The game has already started."), msg_id)
    if not MIN_PLAYERS <= len(seats) <= MAX_SEATS:
        raise ProtocolError(
            "not_enough_players", _("A game needs 2 to 4 seated players: /join or /addbot."), msg_id
        )
    starter = member.name
    assert starter is not None
    if all(s.strategy is not None for s in seats if s.name != starter):
        # the server's bots think on the server's time: a person may keep only a few such games
        limit = settings.max_bot_games
        if bot_games(starter, member.identity) >= limit:  # the person's, whatever their name now
            raise too_many_bot_games(limit, msg_id)
    start = options.start
    if start is not None and start > len(seats):
        raise ProtocolError(
            "bad_option",
            _(
                "Seat {start} is to begin, but {taken} are taken: /option start.",
                start=start,
                taken=len(seats),
            ),
            msg_id,
        )


__all__ = ["check_start"]
