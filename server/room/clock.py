"""A room's timers: whoever is to move (a bot thinking, or the turn clock and its warning), the
bots waiting while nobody is in the room, and the resume windows of players who lost their
connection.

A part of the room core (:mod:`server.room.core`), with no I/O: it asks for timers
(:class:`~server.room.effects.Arm`, ``Cancel``, ``Think``) by appending them to the effects it is
given, and the actor runs them; when one fires, its item comes back through the inbox.

>>> from server.room.world import RoomSettings
>>> clock, out = Clock(RoomSettings(resume_window=60.0)), []
>>> clock.hold("ann", 10.0, out)
>>> out
[Arm(key='window:ann', at=70.0, item=WindowPassed(name='ann'))]
"""

from __future__ import annotations

from server.room.effects import Arm, Cancel, Effect, Think
from server.room.items import ClockTimeout, ClockWarning, Unattended, WindowPassed
from server.room.state import Game, Seat
from server.room.world import RoomSettings

#: the timer of the turn in progress: the clock, or a bot thinking
TURN = "turn"
#: the timer of the warning before the turn clock runs out, and its seconds
WARN = "warn"
CLOCK_WARNING = 10
#: the timer of a game that waits with nobody in its room
IDLE = "idle"
#: seconds before an automatic move or a drop that the log refused is tried again
RETRY = 2.0

# (the same two effects at every turn: made once)
_CANCEL_TURN = Cancel(TURN)
_CANCEL_WARN = Cancel(WARN)


def window(name: str) -> str:
    """The timer key of ``name``'s resume window."""
    return f"window:{name}"


class Clock:
    """The timers of one room, following ``settings``."""

    def __init__(self, settings: RoomSettings) -> None:
        self.settings = settings
        #: the bots wait for a person to come back before they move (nobody is in the room)
        self.suspended = False
        #: players whose resume window is running
        self.windows: set[str] = set()
        #: (game id, move number, when) of the turn in progress
        self._turn_began: tuple[str, int, float] | None = None
        #: (game id, move number, deadline on the loop's clock and the wall's) of the last turn a
        #: person's clock ran for
        self._due: tuple[str, int, float, float] | None = None
        #: (game id, move number) of the last turn whose warning reached its player
        self.warned: tuple[str, int] | None = None

    # --- the turn ----------------------------------------------------------------------------

    def stop_turn(self, out: list[Effect]) -> None:
        """No turn runs: its clock, its warning and a bot's thinking are cancelled."""
        out.append(_CANCEL_TURN)
        out.append(_CANCEL_WARN)

    def start_turn(
        self,
        game: Game,
        seat: Seat,
        *,
        unattended: bool,
        clock: float | None,
        now: float,
        out: list[Effect],
        empty_since: float | None = None,
    ) -> bool:
        """The turn of ``seat`` in ``game`` starts (or starts again): a bot thinks, or the turn
        clock runs (``clock`` seconds; none without), or, with a bot to move and the room
        ``unattended`` (nobody in it since ``empty_since``, if known), the bots wait for someone
        to come. Whether the game's deadline changed (the views show it)."""
        self.stop_turn(out)
        before, game.deadline = game.deadline, None
        strategy = seat.played_by_bot
        was_suspended, self.suspended = self.suspended, strategy is not None and unattended
        if was_suspended and not self.suspended:
            out.append(Cancel(IDLE))
        settings = self.settings
        if strategy is not None:
            # a bot plays the turn (or waits to): a person's clock that ran for it stops, and
            # whoever takes the seat back gets a fresh one
            self._due = None
        if self.suspended:
            # the bots wait until someone comes (Enter or Returned starts the turn again); once the
            # resume window has passed with nobody here (counted from when the last one left: a
            # player away, whose seat a bot took as their window passed, left with it) the room
            # leaves memory, its game kept in the log
            if not was_suspended:
                left = now if empty_since is None else min(now, empty_since)
                out.append(Arm(IDLE, left + settings.resume_window, Unattended(game.moves)))
        elif strategy is not None:
            seed = f"{game.game_id}:{game.moves}"
            out.append(Think(TURN, seat.name, strategy, game.position, game.moves, seed, settings.bot_budget))
        elif clock:
            if self._due is not None and self._due[:2] == (game.game_id, game.moves):
                # the same turn again, its clock never stopped (its player lost the connection and
                # came back): the time it had left, or reconnecting would stall a game for ever
                due, wall = self._due[2:]
            else:
                due = now + clock
                wall = settings.wall_time(due)
                self._due = (game.game_id, game.moves, due, wall)
            out.append(Arm(TURN, due, ClockTimeout(game.moves)))
            # the views carry the deadline, so that every client can count down to it
            game.deadline = wall
            if clock > CLOCK_WARNING:  # (a shorter turn gives no warning)
                if due - CLOCK_WARNING > now:
                    out.append(Arm(WARN, due - CLOCK_WARNING, ClockWarning(game.moves, CLOCK_WARNING)))
                elif now < due and self.warned != (game.game_id, game.moves):
                    # back after the warning was due, and it reached no connection: now, with the
                    # seconds left (a warning that reached the player stays sent)
                    out.append(Arm(WARN, now, ClockWarning(game.moves, max(1, int(due - now)))))
        self.turn_seen(game, now)
        return game.deadline != before

    def turn_seen(self, game: Game, now: float) -> None:
        """The turn of ``game`` in progress is known to have begun by ``now`` (noted once a turn,
        also after the end, where no turn runs)."""
        began = self._turn_began
        if began is None or began[0] != game.game_id or began[1] != game.moves:
            self._turn_began = (game.game_id, game.moves, now)

    def turn_began(self) -> float | None:
        """When the turn in progress began (``None``: no turn has begun)."""
        began = self._turn_began
        return None if began is None else began[2]

    def retry(self, item: object, now: float, out: list[Effect]) -> None:
        """Post ``item`` again in ``RETRY`` seconds under the turn's timer (an automatic move the
        log refused)."""
        out.append(Arm(TURN, now + RETRY, item))

    # --- players away ------------------------------------------------------------------------

    def hold(self, name: str, now: float, out: list[Effect]) -> None:
        """Keep ``name``'s seat for the resume window: then the window passes (``WindowPassed``)."""
        self.windows.add(name)
        out.append(Arm(window(name), now + self.settings.resume_window, WindowPassed(name)))

    def hold_again(self, name: str, now: float, out: list[Effect]) -> None:
        """``name``'s window passed but what follows could not be logged: it passes again in
        ``RETRY`` seconds."""
        self.windows.add(name)
        out.append(Arm(window(name), now + RETRY, WindowPassed(name)))

    def release(self, name: str, out: list[Effect]) -> None:
        """``name``'s window ends before it passed: they are back, or out of the game."""
        if name in self.windows:
            self.windows.remove(name)
            out.append(Cancel(window(name)))

    def release_all(self, out: list[Effect]) -> None:
        """Every window ends (the game did)."""
        for name in sorted(self.windows):
            out.append(Cancel(window(name)))
        self.windows.clear()

    def passed(self, name: str) -> None:
        """``name``'s window passed (its timer fired)."""
        self.windows.discard(name)


__all__ = ["CLOCK_WARNING", "IDLE", "RETRY", "TURN", "WARN", "Clock", "window"]
