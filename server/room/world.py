"""What a room core knows of the world outside it: its members, the server's bot names and the
settings it follows. Nothing here does I/O."""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from protocol import messages as m
from protocol.outgoing import Outgoing
from server.ratings import bot_name


class Member(Hashable, Protocol):
    """A member of a room as the core sees it: a session, here or on another node."""

    name: str | None
    kind: Literal["person", "bot"]
    ascii_only: bool
    #: the player behind the connection, the same across resumes (``None`` for none known)
    identity: str | None

    def send(self, message: Outgoing | m._ServerMessage) -> None:
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
            name = bot_name(strategy, self._counter)
            if name.casefold() not in self.names and not self._taken(name):
                self.names.add(name.casefold())
                return name

    def add(self, name: str) -> None:
        self.names.add(name.casefold())

    def release(self, name: str) -> None:
        self.names.discard(name.casefold())

    def __contains__(self, name: str) -> bool:
        return name.casefold() in self.names


def _wall_time(now: float) -> float:
    """The Unix time of the core's clock reading ``now`` (the actor's event loop clock, which is
    monotonic like ``time.monotonic``)."""
    return now + time.time() - time.monotonic()


@dataclass(frozen=True, slots=True)
class RoomSettings:
    """The server settings a room follows."""

    resume_window: float = 300.0
    clock_min: float = 5.0
    bot_budget: float = 1.0
    #: games a person may have running against the server's bots alone
    max_bot_games: int = 2
    #: the Unix time of a reading of the core's clock, for the deadlines clients see
    wall_time: Callable[[float], float] = field(default=_wall_time)
