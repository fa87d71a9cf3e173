"""Whether a game may start at a room's table: the checks of ``start``, each refusal a stable code.

A part of the game at the table (:class:`~server.room.play.Play`), which asks before it begins.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.i18n import _
from protocol.options import RoomOptions
from server.room.seats import Seats
from server.room.state import MAX_SEATS, MIN_PLAYERS, State
from server.room.world import Member, RoomSettings

#: how many times a person's games against the server's bots alone an address may have running
#: (an IPv6 address by its /64): new guest names from one machine do not add up without end
ADDRESS_SHARE = 5


class BotGames(NamedTuple):
    """The games against the server's bots alone running here: a person's (under any of their
    names), and those of the people from an address."""

    person: int
    address: int


def check_bot_games(games: BotGames, limit: int, msg_id: m.ClientId) -> None:
    """Refuse one more game against the server's bots (a ``start``, or a ``seek`` that would seat
    its seeker with bots) past ``limit`` a person, or ``ADDRESS_SHARE`` times it an address."""
    if games.person >= limit:
        text = _("You have {limit} games against the server's bots running; finish one first.", limit=limit)
        raise ProtocolError("too_many_bot_games", text, msg_id)
    if games.address >= limit * ADDRESS_SHARE:
        text = _(
            "Your address has {count} games against the server's bots running; finish one first.",
            count=games.address,
        )
        raise ProtocolError("too_many_bot_games", text, msg_id)


def check_start(
    member: Member,
    msg_id: m.ClientId,
    *,
    state: State,
    seats: Seats,
    options: RoomOptions,
    settings: RoomSettings,
    bot_games: Callable[[str, str | None, str], BotGames],
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
        # the person's, whatever their name now, and their address's
        check_bot_games(bot_games(starter, member.identity, member.address), settings.max_bot_games, msg_id)
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


__all__ = ["ADDRESS_SHARE", "BotGames", "check_bot_games", "check_start"]
