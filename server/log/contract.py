"""The storage contract: what the server asks of its game log and records, whichever backend keeps
them (SQLite on one node, :mod:`server.log.sqlite`; Redis in a cluster, :mod:`server.log.redis`).

Callers know these protocols, values and errors only; each backend keeps every promise made here,
and ``tests/server/test_log_contract.py`` holds both to the same tests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from engine import GameRecord, Outcome
from server.ratings import BOT, RatingChange, Skill

# --- errors --------------------------------------------------------------------------------------


class StoreUnavailable(Exception):
    """The log could not be written or read just now; nothing was changed."""


class LeaseLost(Exception):
    """This node no longer owns the room whose log it tried to write (cluster mode)."""


# --- values --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TokenInfo:
    """What a resume token stands for: a name, the player behind it, and until when it holds
    (``None``: its connection is open)."""

    name: str
    identity: str
    expires: float | None


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A game as the log holds it."""

    game_id: str
    room: str
    record: GameRecord
    kinds: tuple[str, ...]
    started: float
    finished: float | None
    result: dict[str, Any] | None
    #: the room's options when the game started (``clock``, ``absent``, ...), beside the engine's
    #: in ``record``; empty for a game logged before they were kept
    room_options: dict[str, Any] = field(default_factory=dict)
    #: the player behind each seat (``None`` for a bot, or a game logged before they were kept),
    #: as the log will rate the game: a seat taken over is its new player's
    identities: tuple[str | None, ...] = ()
    #: the players voted out of the game, and those whose seat was taken over: they watch it to
    #: its end
    voted_out: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Account:
    """A registered name."""

    name: str
    hash: str
    created: float
    last_seen: float | None
    #: the language its player chose last (``/lang``), or ``None``
    lang: str | None = None
    #: whether its player chose plain ASCII text at a terminal last (``/ascii on``)
    ascii: bool = False


@dataclass(frozen=True, slots=True)
class Standing:
    """A rated participant: an account or a bot strategy."""

    key: str
    name: str
    skill: Skill

    @property
    def bot(self) -> bool:
        return self.key.startswith(BOT)


# --- people's lists ------------------------------------------------------------------------------

#: the lists a person keeps, as ``list`` actions name them
LISTS: tuple[Literal["mute", "friend"], ...] = ("mute", "friend")


def stored_lists() -> dict[str, dict[str, str]]:
    """Empty lists, as :meth:`ListTable.lists` gives them: list -> casefolded name -> name."""
    return {which: {} for which in LISTS}


def list_of(action: str) -> tuple[str, bool]:
    """The list an action changes, and whether it adds to it.

    >>> list_of("unmute")
    ('mute', False)
    """
    which = action.removeprefix("un")
    if which not in LISTS:
        raise ValueError(f"no list is changed by {action!r}")
    return which, which == action


# --- the protocols -------------------------------------------------------------------------------


class ListTable(Protocol):
    """What a person's lists need of a store."""

    async def lists(self, identity: str) -> dict[str, dict[str, str]]:
        """The lists of ``identity``: ``mute`` and ``friend``, each casefolded name -> name."""
        ...

    async def list_changed(self, identity: str, action: str, key: str, name: str) -> None:
        """``identity`` did ``action`` (``mute``, ``unmute``, ``friend``, ``unfriend``) to
        ``name`` (casefolded: ``key``); kept when this returns."""
        ...

    async def lists_replaced(self, identity: str, lists: Mapping[str, Mapping[str, str]]) -> None:
        """``identity``'s lists are ``lists`` (a guest's, who registered), all at once."""
        ...

    async def lists_deleted(self, identity: str) -> None:
        """Nobody is ``identity`` any more: its lists go."""
        ...


class AccountStore(ListTable, Protocol):
    """What accounts, ratings and people's lists need of a store."""

    async def account(self, name: str) -> Account | None: ...
    async def account_created(self, name: str, hash: str, identity: str | None) -> bool:
        """Register ``name``; ``False`` if it (or a name that looks like it) already is. The
        games the guest played (by ``identity``) become the account's."""
        ...

    async def account_alike(self, name: str) -> str | None:
        """The registered name that looks like ``name`` (or is it, in any case), if any."""
        ...

    async def password_changed(self, name: str, hash: str) -> None: ...
    async def account_seen(self, name: str, when: float) -> None: ...
    async def account_language(self, name: str, lang: str) -> None: ...
    async def account_ascii(self, name: str, on: bool) -> None: ...
    async def account_deleted(self, name: str) -> None:
        """Forget the account, its settings, lists, rating and rating history; its games stay,
        under the name."""
        ...

    async def standing(self, key: str) -> Standing | None: ...
    async def standings(self, keys: Sequence[str]) -> dict[str, Standing]:
        """The standings of those of ``keys`` that have one."""
        ...

    async def leaderboard(self, limit: int) -> list[Standing]:
        """The best shown ratings first (bots included: they are rated by strategy)."""
        ...

    async def games_count(self, identity: str) -> int: ...
    async def game_ratings(self, game_id: str) -> list[RatingChange]:
        """The rating changes a finished game made (empty for a game that was not rated)."""
        ...


class GameLog(AccountStore, Protocol):
    """What the server needs of a game log: the SQLite ``Store`` or, in a cluster, Redis."""

    async def game_started(
        self,
        game_id: str,
        room: str,
        record: GameRecord,
        kinds: list[str],
        room_options: dict[str, Any] | None = None,
        identities: list[str | None] | None = None,
    ) -> None: ...
    async def move_played(self, game_id: str, number: int, move: str) -> None: ...
    async def seat_taken(self, game_id: str, seat: int, old: str, name: str, identity: str | None) -> None:
        """Seat ``seat`` (from 0) of the running game, ``old``'s, is ``name``'s from now on
        (``old`` watches the game from then on, as one voted out)."""
        ...

    async def voted_out(self, game_id: str, name: str) -> None:
        """The players of the running game voted ``name`` out of it: they watch it to its end."""
        ...

    async def game_private(self, game_id: str) -> None:
        """The running game's room became private: its ``room_options`` say ``private`` from now
        on (its record is its players' alone)."""
        ...

    async def game_finished(self, game_id: str, outcome: Outcome) -> list[RatingChange]:
        """Log the outcome and, for a rated game, update its players' ratings, atomically and
        once per game id; the rating changes the game made (also when it was finished before)."""
        ...

    async def token_issued(self, token: str, name: str, identity: str) -> None:
        """A new token for ``name``: the name's earlier tokens are revoked with it."""
        ...

    async def token(self, token: str) -> TokenInfo | None: ...
    async def token_released(self, token: str, expires: float) -> None:
        """The token's connection is gone: it holds until ``expires`` (or while a seat is held)."""
        ...

    async def token_revoked(self, token: str) -> None: ...
    async def unfinished_games(self) -> list[StoredGame]: ...
    async def game(self, game_id: str) -> StoredGame | None: ...
    async def history(self, identity: str, limit: int = 10) -> list[StoredGame]: ...
    def close(self) -> None: ...
