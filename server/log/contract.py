"""The storage contract: what the server asks of its game log and records, whichever setup keeps
them (SQLite on one node, :mod:`server.log.sqlite`; Redis in a cluster, :mod:`server.log.redis`;
in a cluster with ``--database``, Redis for what is live and PostgreSQL for the records,
:mod:`server.log.postgres`).

Callers know these protocols, values and errors only; each setup keeps every promise made here,
and ``tests/server/test_log_contract.py`` holds all three to the same tests.
"""

from __future__ import annotations

import secrets
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

from engine import GameRecord, Outcome
from server.ratings import BOT, RatingChange, Skill

# --- errors --------------------------------------------------------------------------------------


class StoreUnavailable(Exception):
    """The log could not be written or read just now; nothing was changed."""


class LeaseLost(Exception):
    """This node no longer owns the room whose log it tried to write (cluster mode)."""


# the storage refuses to let the server start (each stops it with status 2 and a line in the log)


class _TooNew(Exception):
    """``what`` was written by a newer version of the server: this one leaves it as it is."""

    what: str

    def __init__(self, version: int, newest: int) -> None:
        super().__init__(
            f"{self.what} is of schema version {version}, written by a newer version of the server;"
            f" this one reads versions up to {newest}"
        )
        self.version = version


class LogTooNew(_TooNew):
    """The log was written by a newer version of the server: this one leaves it as it is."""

    what = "the log"


class RecordsTooNew(_TooNew):
    """The PostgreSQL database was written by a newer version of the server: this one leaves it as
    it is."""

    what = "the PostgreSQL database"


class RecordsTooOld(Exception):
    """The PostgreSQL database is of an older schema version, and the one opening it does not
    upgrade (``cafe-admin``: a node of its version does that as it starts)."""

    def __init__(self, version: int, newest: int) -> None:
        super().__init__(
            f"the PostgreSQL database is of schema version {version}, written by an older version of"
            f" the server; a node of this version takes it to {newest} as it starts"
        )
        self.version = version
        self.newest = newest


class RecordsUnavailable(Exception):
    """PostgreSQL did not answer as the server started: it does not start without its records."""


class RecordsUnreadable(Exception):
    """PostgreSQL answered, but a step of its schema failed (a database changed by hand, say): the
    database is left as it was, and the server does not start."""


class NotDurable(Exception):
    """Redis is not set up for the durability asked for; the server must not start."""


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
    #: the moves the server played for their player, by number (from 1): ``"clock"`` (the turn
    #: clock ran out) or ``"bot"`` (a bot kept the seat); empty for a game logged before
    auto: dict[int, str] = field(default_factory=dict)

    def readable_by(self, identity: str | None) -> bool:
        """Whether the player ``identity`` (``None``: anyone) may read the game: any game of a
        room that was never private, and a private one (private when it started, or from any
        moment while it ran) only by the players it holds."""
        return not self.room_options.get("private") or (identity is not None and identity in self.identities)


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


# --- moderation ----------------------------------------------------------------------------------

#: the roles an account may hold; everyone else holds none
Role = Literal["admin", "moderator"]
ROLES: tuple[Role, ...] = ("admin", "moderator")

#: what a sanction stops: ``ban`` logging in, ``silence`` chatting, telling and inviting, ``kick``
#: coming back (for ten minutes)
SanctionKind = Literal["ban", "silence", "kick"]
SANCTIONS: tuple[SanctionKind, ...] = ("ban", "silence", "kick")

#: who acts when the operator does, on the command line, in the log's ``by``
OPERATOR = "(operator)"

#: the reason of the outcome of a game whose room the staff closed: the log does not rate it
CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class Sanction:
    """A ban, silence or kick of ``name`` (and, for a guest's, of ``address``) from ``since``
    until ``until`` (``None``: for good), unless it was ``lifted`` earlier."""

    id: int
    kind: SanctionKind
    name: str
    address: str | None
    by: str
    reason: str
    since: float
    until: float | None
    lifted: float | None = None

    def active(self, now: float) -> bool:
        """Whether it holds at ``now``."""
        return self.lifted is None and (self.until is None or now < self.until)


@dataclass(frozen=True, slots=True)
class Report:
    """``reporter``'s report of ``name``, with the public chat both saw last (``excerpt``, oldest
    first); open until ``resolved``."""

    id: int
    reporter: str
    name: str
    reason: str
    excerpt: tuple[str, ...]
    made: float
    resolved: float | None = None
    resolved_by: str | None = None
    note: str = ""


#: the ids of reports and of the moderation log's entries: drawn at random among eight digits,
#: not counted, since a staff member reads every report but those of themselves (and every entry
#: but their resolving), and a gap in a count would show where one was left out
DRAWN_IDS: Final = range(10_000_000, 100_000_000)
#: ids drawn for one report or entry before the store gives up (each taken already)
DRAWS: Final = 20


def drawn_id() -> int:
    """An id for a new report or log entry (see :data:`DRAWN_IDS`); one already taken is drawn
    again by the store that finds it so."""
    return DRAWN_IDS[secrets.randbelow(len(DRAWN_IDS))]


def report_key(reporter: str, key: str | None) -> str:
    """Who made a report, as ``reports_since`` counts it: ``key`` (the player behind the name),
    else the reporter's name; in one case."""
    return (key or reporter).casefold()


@dataclass(frozen=True, slots=True)
class ModEntry:
    """One line of the moderation log: ``by`` did ``action`` to ``target`` at ``when``, for
    ``reason``, for ``duration`` (as it was given: ``30m``, ``perm``; empty where none applies).

    Actions: ``role:admin``, ``role:moderator``, ``role:none``, ``ban``, ``unban``, ``silence``,
    ``unsilence``, ``kick``, ``close``, ``announce``, ``resolve`` (``target`` the name reported,
    ``reason`` ``#ID`` and the note)."""

    id: int
    when: float
    by: str
    action: str
    target: str
    reason: str = ""
    duration: str = ""


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
        """The lists of ``identity``: ``mute`` (a name's look-alike form -> the name in lower case)
        and ``friend`` (casefolded name -> name)."""
        ...

    async def list_changed(self, identity: str, action: str, key: str, name: str) -> None:
        """``identity`` did ``action`` (``mute``, ``unmute``, ``friend``, ``unfriend``) to
        ``name`` (under ``key``: its look-alike form for a mute, else casefolded); kept when this
        returns."""
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

    async def games_count(self, identity: str, reader: str | None = None) -> int:
        """The games ``identity`` played, finished or running, that the player ``reader`` (``None``:
        anyone) may read (:meth:`StoredGame.readable_by`): a private game counts for its players
        alone."""
        ...

    async def game_ratings(self, game_id: str) -> list[RatingChange]:
        """The rating changes a finished game made (empty for a game that was not rated)."""
        ...


class ModerationStore(Protocol):
    """What moderation needs of a store: roles, sanctions, reports and the moderation log.

    The log is append-only: every write here that changes a role, a sanction or a report appends
    its entry in the same transaction, so an action is on record before it can take effect; nothing
    ever deletes an entry (an account's deletion leaves them, with the names as they were). Names
    are matched in any case; each call is kept when it returns (``StoreUnavailable`` otherwise).

    Use::

        await store.role_set("Ann", "admin", by=OPERATOR)            # the first admin: True
        await store.sanction_added("ban", "troll", by="Ann", until=time.time() + 7200,
                                   reason="insults", duration="2h")
        [s.kind for s in await store.sanctions("TROLL")]               # what holds now: ["ban"]
        await store.sanction_lifted("ban", "troll", by="Ann")          # /unban: 1 lifted
        report = await store.report_added("bob", "troll", "insults", chat_lines)
        await store.report_resolved(report.id, by="Ann", note="banned")
        [e.action for e in await store.modlog("troll")]                # ["resolve", "unban", "ban"]
    """

    async def role(self, name: str) -> Role | None:
        """The role of the account ``name`` (``None``: no role, or no account)."""
        ...

    async def staff(self) -> dict[str, Role]:
        """Every account that holds a role: its name as registered -> its role."""
        ...

    async def role_set(self, name: str, role: Role | None, by: str, reason: str = "") -> bool:
        """``by`` gives the account ``name`` the role ``role`` (``None`` takes it away), logged as
        ``role:ROLE`` (``role:none``); ``False``, with nothing changed or logged, if ``name`` is
        not a registered account. The role goes with the account when it is deleted."""
        ...

    async def sanction_added(
        self,
        kind: SanctionKind,
        name: str,
        by: str,
        until: float | None,
        reason: str = "",
        *,
        address: str | None = None,
        duration: str = "",
    ) -> Sanction:
        """``by`` bans, silences or kicks ``name`` until ``until`` (``None``: for good), logged as
        ``kind`` with ``reason`` and ``duration`` (as given, for the log). With ``address`` (a
        guest's) it holds for that address too. Earlier sanctions stay as they are."""
        ...

    async def sanction_lifted(self, kind: SanctionKind, name: str, by: str, reason: str = "") -> int:
        """``by`` lifts every active ``kind`` sanction of ``name`` (also those it gave its
        address), logged as ``unban``/``unsilence``/``unkick``; how many were lifted (0: none held,
        and nothing is logged)."""
        ...

    async def sanctions(
        self, name: str | None, address: str | None = None, now: float | None = None
    ) -> list[Sanction]:
        """The sanctions that hold at ``now`` (by default the time now) for ``name`` or for
        ``address``, oldest first."""
        ...

    async def report_added(
        self, reporter: str, name: str, reason: str, excerpt: Sequence[str], key: str | None = None
    ) -> Report:
        """``reporter`` reports ``name`` for ``reason``, with the chat both saw (oldest first);
        open until resolved. ``key`` is who made it for ``reports_since`` (the player behind the
        name; by default the name, casefolded)."""
        ...

    async def reports(
        self, everything: bool = False, limit: int = 50, hiding: str | None = None
    ) -> list[Report]:
        """The open reports (``everything``: resolved ones too), newest first, at most ``limit``;
        with ``hiding``, none of that name (a staff member reads no report of themselves)."""
        ...

    async def reports_open(self, hiding: Collection[str] = ()) -> int:
        """How many reports are open, those of the names in ``hiding`` (casefolded) left out."""
        ...

    async def reports_since(self, key: str, since: float) -> int:
        """How many reports the maker ``key`` (``report_added``) made from ``since`` on (for the
        rate limit)."""
        ...

    async def report_resolved(self, report_id: int, by: str, note: str = "") -> Report | None:
        """``by`` closes the open report ``report_id`` with ``note``, logged as ``resolve``; the
        report as closed, or ``None`` (nothing changed) if no open report has that id, or it is a
        report of ``by`` (nobody resolves their own)."""
        ...

    async def modlog_appended(
        self, by: str, action: str, target: str, reason: str = "", duration: str = ""
    ) -> ModEntry:
        """Append an entry for an action that changes nothing here (``kick`` is a sanction;
        ``close``, ``announce``): call it before the action takes effect."""
        ...

    async def modlog(self, name: str | None = None, limit: int = 50) -> list[ModEntry]:
        """The log, newest first, at most ``limit`` entries; with ``name``, only those where it
        acted or was acted on."""
        ...


class GameLog(AccountStore, ModerationStore, Protocol):
    """What the server needs of a game log: the SQLite ``Store`` or, in a cluster, Redis."""

    @property
    def tournaments(self) -> TournamentTable:
        """The tournaments' records."""
        ...

    #: the finished games' analyses
    analyses: AnalysisTable

    async def game_started(
        self,
        game_id: str,
        room: str,
        record: GameRecord,
        kinds: list[str],
        room_options: dict[str, Any] | None = None,
        identities: list[str | None] | None = None,
    ) -> None: ...
    async def move_played(self, game_id: str, number: int, move: str, auto: str | None = None) -> None:
        """Log move ``number`` (from 1) of a running game; ``auto``: ``"clock"`` or ``"bot"`` when
        the server played it for its player (:attr:`StoredGame.auto`)."""

    async def seat_taken(self, game_id: str, seat: int, old: str, name: str, identity: str | None) -> None:
        """Seat ``seat`` (from 0) of the running game, ``old``'s, is ``name``'s from now on
        (``old`` watches the game from then on, as one voted out)."""
        ...

    async def voted_out(self, game_id: str, name: str) -> None:
        """The players of the running game voted ``name`` out of it: they watch it to its end."""
        ...

    async def game_option(self, game_id: str, key: str, value: bool) -> None:
        """An option the running game's room may change during it (``ANY_TIME``: ``host``,
        ``private``) changed: its ``room_options`` say ``key`` is ``value`` from now on. With
        ``private`` on, its record is its players' alone."""
        ...

    async def game_finished(self, game_id: str, outcome: Outcome) -> list[RatingChange]:
        """Log the outcome and, for a rated game, update its players' ratings, atomically and
        once per game id; the rating changes the game made (also when it was finished before)."""
        ...

    async def token_issued(self, token: str, name: str, identity: str, replacing: str | None = None) -> bool:
        """A new token for ``name``: the name's earlier tokens are revoked with it. With
        ``replacing`` (the token a resume came with) only while that one is still the name's, in
        one step: of two resumes with one token, however close, one issues and the other nothing
        (``False``)."""
        ...

    async def token(self, token: str) -> TokenInfo | None: ...
    async def token_released(self, token: str, expires: float) -> None:
        """The token's connection is gone: it holds until ``expires`` (or while a seat is held)."""
        ...

    async def token_revoked(self, token: str) -> None: ...
    async def unfinished_games(self) -> list[StoredGame]: ...
    async def game(self, game_id: str) -> StoredGame | None: ...
    async def history(self, identity: str, limit: int = 10, reader: str | None = None) -> list[StoredGame]:
        """The newest ``limit`` games ``identity`` played that the player ``reader`` (``None``:
        anyone) may read (:meth:`StoredGame.readable_by`), newest first: the private games of
        others are left out before the newest are counted, not after."""
        ...

    def close(self) -> None: ...


# --- tournaments ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoredTournament:
    """A tournament as the store keeps it: its whole state (``server.tournament.state``) and the
    number of changes written to it."""

    version: int
    state: dict[str, Any]


def live_status() -> tuple[str, str]:
    """The statuses of a tournament that is not over."""
    return ("upcoming", "running")


class TournamentTable(Protocol):
    """What tournaments need of a store (its ``tournaments``): each one's state kept whole, and
    written only over the version it was read at, so that two writers never lose a change."""

    async def tournament_created(self, state: dict[str, Any]) -> int | None:
        """Keep a new tournament, giving it the next id; ``None`` while one of its name (in any
        case) is upcoming or running."""
        ...

    async def tournament(self, tournament_id: int) -> StoredTournament | None: ...
    async def tournament_named(self, name: str) -> StoredTournament | None:
        """The latest tournament of ``name``, in any case."""
        ...

    async def tournament_saved(self, version: int, state: dict[str, Any]) -> bool:
        """Write ``state`` if the tournament is still at ``version``; ``False`` (nothing written)
        if it changed since it was read."""
        ...

    async def tournaments_live(self) -> list[StoredTournament]:
        """The upcoming and running ones, oldest first."""
        ...

    async def tournaments_recent(self, limit: int) -> list[StoredTournament]:
        """The ``limit`` latest that are over, latest first."""
        ...


class AnalysisTable(Protocol):
    """What analyses need of a store (its ``analyses``): each finished game's analysis, kept once."""

    async def analysis(self, game_id: str) -> dict[str, Any] | None:
        """The analysis kept for ``game_id``, as it was saved; ``None`` if none is."""
        ...

    async def analysis_saved(self, game_id: str, analysis: dict[str, Any]) -> bool:
        """Keep ``analysis`` for ``game_id``; ``False`` (nothing written) if one is kept already."""
        ...
