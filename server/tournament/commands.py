"""The lobby's answers to ``tournament`` and ``tournaments`` (``/tournament ...``,
``/tournaments``): each reads and writes the store through the :class:`Director`."""

from __future__ import annotations

import datetime
import time
from typing import Any, Literal, Protocol

from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.i18n import _, _n
from protocol.i18n import number as decimal_number
from protocol.limits import (
    TOURNAMENT_AHEAD_MINUTES,
    TOURNAMENT_ENTRANTS_MAX,
    TOURNAMENTS_LIVE,
    TOURNAMENTS_PER_PERSON,
)
from protocol.names import ROOM_RULE, is_room_name
from protocol.options import CLOCK_MAX
from server.config import Config
from server.log.contract import GameLog
from server.metrics import Metrics
from server.ratings import account_key
from server.session import Session
from server.tournament import views
from server.tournament.director import Director
from server.tournament.state import Tournament

#: the clock of a tournament's games when none is said, seconds a turn
DEFAULT_CLOCK = 60
#: minutes from now a tournament starts when no start is said
DEFAULT_START = 5
#: how many tournaments over ``tournaments`` lists
RECENT = 10

#: what a ``join`` did: entered the player, found them in, or kept them in past the game they
#: are at (an arena's, which they may have left: :meth:`Tournament.join_again`)
Joined = Literal["joined", "in", "again"]


class Lobby(Protocol):
    """What the answers need of the lobby."""

    @property
    def config(self) -> Config: ...
    @property
    def store(self) -> GameLog: ...
    @property
    def tournaments(self) -> Director | None: ...
    @property
    def metrics(self) -> Metrics: ...


def start_time(start: str | None, now: float) -> float:
    """When a tournament said to start at ``start`` (``+10m``, at most a day ahead, or ``HH:MM``
    UTC, the next time it comes) starts, seen at ``now``; ``ValueError`` if it is no such time.

    >>> start_time("+10m", 1000.0)
    1600.0
    >>> start_time("00:01", 86400.0 * 3 + 120)  # 00:02 UTC: tomorrow's 00:01
    345660.0
    """
    if start is None:
        return now + 60.0 * DEFAULT_START
    if start.startswith("+"):
        minutes = int(start[1:-1])
        if minutes > TOURNAMENT_AHEAD_MINUTES:
            raise ValueError(start)
        return now + 60.0 * minutes
    hours, minutes = (int(part) for part in start.split(":"))
    if hours > 23 or minutes > 59:
        raise ValueError(start)
    today = datetime.datetime.fromtimestamp(now, datetime.UTC)
    at = today.replace(hour=hours, minute=minutes, second=0, microsecond=0)
    if at.timestamp() <= now:
        at += datetime.timedelta(days=1)
    return at.timestamp()


def _director(lobby: Lobby, msg_id: m.ClientId) -> Director:
    if lobby.tournaments is None:  # (a server always has one; a test's lobby may not)
        raise ProtocolError("unavailable", _("Tournaments are not run here."), msg_id)
    return lobby.tournaments


async def _named(lobby: Lobby, name: str, msg_id: m.ClientId) -> Tournament:
    stored = await lobby.store.tournaments.tournament_named(name)
    if stored is None:
        raise ProtocolError(
            "no_such_tournament", _("No tournament is called {name}.", name=name[:24]), msg_id
        )
    return Tournament.from_dict(stored.state)


async def request(lobby: Lobby, session: Session, msg: m.TournamentRequest) -> None:
    """One of ``new``, ``join``, ``leave``, ``close``, ``show``."""
    director = _director(lobby, msg.id)
    if msg.action == "new":
        await _new(lobby, director, session, msg)
        return
    t = await _named(lobby, msg.name, msg.id)
    if msg.action == "show":
        session.send(views.info(t, msg.id))
        return
    assert session.name is not None
    name = session.name
    if msg.action == "join":
        rating = await _rating(lobby.store, session)
        identity = session.identity
        counted = False  # (a join counts against its address's hour only when it enters the player)

        def join(fresh: Tournament) -> Joined:
            """Whether the player entered, was in already, or joined again at a running table."""
            nonlocal counted
            now = time.time()
            found = fresh.entrant(name)
            if found is not None and found.identity is not None and found.identity != identity:
                raise ProtocolError(
                    "name_taken",
                    _("Someone else entered tournament {name} as {player}.", name=fresh.name, player=name),
                    msg.id,
                )
            if found is not None and found.active:
                return "again" if fresh.join_again(name) else "in"
            if not fresh.open_to_join(now):
                raise _closed(fresh, msg.id)
            if fresh.playing >= TOURNAMENT_ENTRANTS_MAX:
                raise ProtocolError(
                    "tournament_full",
                    _(
                        "Tournament {name} has {n} players, the most it takes.",
                        name=fresh.name,
                        n=TOURNAMENT_ENTRANTS_MAX,
                    ),
                    msg.id,
                )
            if not counted and not director.joins.allow(session.address, now):
                raise ProtocolError(
                    "rate_limited",
                    _("Too many tournament joins from your address this hour; try later."),
                    msg.id,
                )
            counted = True  # (once, though another writer coming first makes this run again)
            return "joined" if fresh.join(name, rating, now, identity) else "in"

        joined: Joined = "in"
        try:
            joined = await director.change(t.id, join)
        finally:
            if counted and joined != "joined":  # (read again, refused, or they were in: nobody entered)
                director.joins.give_back(session.address)
        if joined == "joined":
            text = _("You are in tournament {name}: your tables come by themselves.", name=t.name)
        elif joined == "again":
            text = _(
                "You are in tournament {name}: your next table comes after your game's end.", name=t.name
            )
        else:
            text = _("You are in tournament {name} already.", name=t.name)
    elif msg.action == "leave":

        def leave(fresh: Tournament) -> bool:
            """Whether the tournament had not started: then the player is forgotten."""
            entrant = fresh.entrant(name)
            if entrant is None or not entrant.active:  # (one never in hears so, over or not)
                raise ProtocolError(
                    "not_entered", _("You are not in tournament {name}.", name=fresh.name), msg.id
                )
            if fresh.over:
                raise _closed(fresh, msg.id)
            upcoming = fresh.status == "upcoming"
            fresh.leave(name)
            return upcoming

        text = (
            _("You left tournament {name} before its start.", name=t.name)
            if await director.change(t.id, leave)
            else _("You left tournament {name}; your points stay in its standings.", name=t.name)
        )
    else:
        # its creator closes it, or the staff (the store says who is staff), logged first
        staff = session.registered and await lobby.store.role(name) is not None
        creator = t.made_by(name, session.identity)
        if not creator and not staff:
            # (one who took the creator's name since is told so, not that they alone may)
            text = (
                _("Only the player who made tournament {name} may close it.", name=t.name)
                if t.creator.casefold() == name.casefold()
                else _(
                    "Only {creator}, who made tournament {name}, may close it.",
                    creator=t.creator,
                    name=t.name,
                )
            )
            raise ProtocolError(
                "not_organizer",
                text,
                msg.id,
            )
        if t.over:
            raise _closed(t, msg.id)
        if not creator:  # the staff's: logged and counted as moderation
            await lobby.store.modlog_appended(name, "close_tournament", t.name)
            lobby.metrics.moderation_actions.labels(action="close_tournament").inc()

        def close(fresh: Tournament) -> None:
            if fresh.over:
                raise _closed(fresh, msg.id)
            fresh.close(time.time(), name)

        await director.change(t.id, close)
        await director.closed(t, name)  # (its entrants hear it, wherever they are)
        text = _("Tournament {name} is closed: no more tables are made.", name=t.name)
    session.send(m.Notice(text=text))
    session.send(m.Ack(id=msg.id))


def _closed(t: Tournament, msg_id: m.ClientId) -> ProtocolError:
    if t.over:
        return ProtocolError("tournament_closed", _("Tournament {name} is over.", name=t.name), msg_id)
    return ProtocolError(
        "tournament_closed", _("Tournament {name} takes no more players.", name=t.name), msg_id
    )


async def _rating(store: GameLog, session: Session) -> int:
    """The rating a player joins with: their account's shown rating, 1000 for a newcomer or guest."""
    if not session.registered or session.name is None:
        return 1000
    standing = await store.standing(account_key(session.name))
    return 1000 if standing is None else standing.skill.shown


async def _new(lobby: Lobby, director: Director, session: Session, msg: m.TournamentRequest) -> None:
    if not session.registered or session.name is None:
        raise ProtocolError("not_registered", _("Register first (/register) to make a tournament."), msg.id)
    if not is_room_name(msg.name):
        raise ProtocolError("bad_field", _("A tournament's name is {rule}.", rule=ROOM_RULE), msg.id)
    if (
        msg.kind is None
        or (msg.kind == "swiss") != (msg.rounds is not None)
        or ((msg.kind == "arena") != (msg.minutes is not None))
    ):
        raise ProtocolError(
            "bad_field",
            _("A Swiss needs its rounds and no minutes; an arena its minutes and no rounds."),
            msg.id,
        )
    clock = DEFAULT_CLOCK if msg.clock is None else msg.clock
    if clock < lobby.config.clock_min:
        raise ProtocolError(
            "bad_field",
            _(
                "A tournament's clock is {least} to {most} seconds per turn.",
                least=decimal_number(lobby.config.clock_min),
                most=CLOCK_MAX,
            ),
            msg.id,
        )
    now = time.time()
    try:
        starts = start_time(msg.start, now)
    except ValueError:
        raise ProtocolError(
            "bad_field",
            _(
                "The start is +MINUTESm (from now, at most +{most}m) or HH:MM (UTC).",
                most=TOURNAMENT_AHEAD_MINUTES,
            ),
            msg.id,
        ) from None
    live = await lobby.store.tournaments.tournaments_live()
    origin = session.address
    mine = [s for s in live if Tournament.from_dict(s.state).made_by(session.name, session.identity)]
    if len(mine) >= TOURNAMENTS_PER_PERSON:
        raise ProtocolError(
            "too_many_tournaments",
            _("You have {n} tournaments upcoming or running, the most one may.", n=len(mine)),
            msg.id,
        )
    if origin and sum(s.state.get("origin") == origin for s in live) >= TOURNAMENTS_PER_PERSON:
        raise ProtocolError(
            "too_many_tournaments",
            _(
                "Your address has {n} tournaments upcoming or running, the most one may.",
                n=TOURNAMENTS_PER_PERSON,
            ),
            msg.id,
        )
    if len(live) >= TOURNAMENTS_LIVE:
        raise ProtocolError(
            "too_many_tournaments",
            _("As many tournaments are upcoming or running as the server runs."),
            msg.id,
        )
    if origin and not director.made.allow(origin, now):
        raise ProtocolError(
            "rate_limited",
            _("Too many tournaments made from your address this hour; try later."),
            msg.id,
        )
    t = Tournament(
        0,
        msg.name,
        msg.kind,
        msg.size,
        int(clock),
        starts,
        session.name,
        now,
        rounds=msg.rounds,
        minutes=msg.minutes,
        origin=origin,
        creator_identity=session.identity,
    )
    try:
        t.join(session.name, await _rating(lobby.store, session), now, session.identity)  # its creator plays
        number = await lobby.store.tournaments.tournament_created(t.to_dict())
    except BaseException:
        if origin:
            director.made.give_back(origin)  # (nothing was made)
        raise
    if number is None:
        if origin:
            director.made.give_back(origin)
        raise ProtocolError(
            "tournament_exists",
            _("A tournament called {name} is upcoming or running already.", name=msg.name),
            msg.id,
        )
    t.id = number
    director.poke()
    when = datetime.datetime.fromtimestamp(starts, datetime.UTC).strftime("%H:%M")
    if t.kind == "swiss":
        text = _n(
            "Tournament {name} is made: a Swiss of {n} round at tables of {size}, {clock} s a turn,"
            " starting at {when} UTC. You are in it; others join with /tournament join {name}.",
            "Tournament {name} is made: a Swiss of {n} rounds at tables of {size}, {clock} s a turn,"
            " starting at {when} UTC. You are in it; others join with /tournament join {name}.",
            t.rounds or 0,
            name=t.name,
            size=t.size,
            clock=t.clock,
            when=when,
        )
    else:
        text = _(
            "Tournament {name} is made: an arena of {minutes} minutes at tables of {size}, {clock} s a turn,"
            " starting at {when} UTC. You are in it; others join with /tournament join {name}.",
            name=t.name,
            minutes=t.minutes,
            size=t.size,
            clock=t.clock,
            when=when,
        )
    session.send(m.Notice(text=text))
    session.send(views.info(t, msg.id))


async def listing(lobby: Lobby, session: Session, msg: m.ListTournaments) -> None:
    """``tournaments``: upcoming, running and the latest over."""
    live = [Tournament.from_dict(s.state) for s in await lobby.store.tournaments.tournaments_live()]
    recent = [Tournament.from_dict(s.state) for s in await lobby.store.tournaments.tournaments_recent(RECENT)]
    assert session.name is not None
    session.send(views.listing(live, recent, msg.id, (session.name, session.identity)))


HANDLERS: dict[type, Any] = {
    m.TournamentRequest: request,
    m.ListTournaments: listing,
}
