"""What the members see of a room's table: the options as shown, each member's view of the room,
and whether the game counts for ratings.

A part of the game at the table (:class:`~server.room.play.Play`), which gives it the game and
the options as they are now. The views it makes keep what did not change as the same objects as
the views before, so that diffs skip them.
"""

from __future__ import annotations

from typing import Any

from protocol.options import RoomOptions
from protocol.view import RoomViews
from server.ratings import is_rated
from server.room.members import Members
from server.room.seats import Seats
from server.room.state import Game, State


def rated(game: Game | None, seats: Seats, options: RoomOptions) -> bool:
    """Whether the game counts for ratings. Before the start (were it to start now) and while it
    runs: two seats or more held by registered people as they sit now, and a seed the room did
    not choose (the log rates it so at its end); once it ended: whether its end rated it (a room
    the staff closed is not rated)."""
    if game is not None and game.outcome is not None:
        return game.ratings is not None
    return is_rated(seats.kinds(), [s.identity for s in seats], {"seed": options.seed})


class Sight:
    """The views of the room ``name`` for its ``members``, with the table's ``seats``."""

    def __init__(self, name: str, members: Members, seats: Seats) -> None:
        self.name = name
        self.members = members
        self.seats = seats
        #: the options as members see them, and the options they were made of
        self._shown: tuple[RoomOptions | None, dict[str, Any]] = (None, {})
        self._last_views: RoomViews | None = None

    def public_options(self, options: RoomOptions) -> dict[str, Any]:
        """The options as members see them: a seed chosen for the room stays secret until the
        game ends (others see only that there is one)."""
        shown_for, shown = self._shown
        if shown_for is not options:  # made again only when the options change
            shown = {**options.to_dict(), "seed": None if options.seed is None else "set"}
            self._shown = (options, shown)
        return shown

    def views(self, state: State, options: RoomOptions, game: Game | None) -> RoomViews:
        """The room as each member sees it now."""
        self._last_views = RoomViews(
            room=self.name,
            state=state,
            seats=self.seats.shown(),
            # a player who does not play the seat now reads the room as a spectator, no hand
            spectators=self.seats.watching(self.members.present),
            options=self.public_options(options),
            position=game.position if game else None,
            last_move=game.last_move if game else None,
            move_number=(
                game.moves if game else 0  # pragma: no mutate - no game, no number shown
            ),
            history=game.history if game else (),
            deadline=game.deadline if game else None,
            rated=rated(game, self.seats, options),
            ratings=game.ratings if game else None,
            practice=game.practice if game else False,
            # what did not change is the same object: diffs skip it (without it they compare it all)
            previous=self._last_views,  # pragma: no mutate
        )
        return self._last_views


__all__ = ["Sight", "rated"]
