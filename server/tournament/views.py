"""A tournament as the wire shows it (``tournament``, ``tournaments``, ``GET /api/tournaments``):
pure functions of its state."""

from __future__ import annotations

from protocol import messages as m
from server.tournament.standings import Line
from server.tournament.state import Table, Tournament

#: the finished tables ``tournament`` lists, the latest, after every running one: an arena whose
#: players abandon their games at once makes tables by the hundred, and the answer stays small
FINISHED_TABLES = 20


def summary(
    t: Tournament, asker: tuple[str, str | None] | None = None, lines: list[Line] | None = None
) -> m.TournamentSummary:
    """The tournament's line in a list; ``asker`` (name and identity) reads whether they are in.
    ``lines``: its standings, when the caller has them already (they are computed otherwise)."""
    played = any(x.places is not None for x in t.tables)  # (a result that counts: ``results``)
    if played and lines is None:
        lines = t.standings()
    return m.TournamentSummary(
        id=t.id,
        name=t.name,
        kind=t.kind,
        status=t.status,
        size=t.size,
        clock=t.clock,
        rounds=t.rounds,
        minutes=t.minutes,
        round=t.round,
        starts=t.starts,
        ends=t.ends,
        creator=t.creator,
        players=sum(e.active for e in t.entrants),
        leader=lines[0].name if played and lines else None,
        closed_by=t.closed_by,
        entered=asker is not None and t.holds(*asker),
    )


def shown_tables(t: Tournament) -> list[Table]:
    """The tables ``tournament`` lists: every one still playing, then the latest
    :data:`FINISHED_TABLES` finished, each group latest first."""
    latest = sorted(t.tables, key=lambda x: -x.number)
    return [x for x in latest if not x.finished] + [x for x in latest if x.finished][:FINISHED_TABLES]


def info(t: Tournament, msg_id: m.ClientId = None) -> m.TournamentInfo:
    """The whole tournament: its standings (computed once), then its running tables and the
    latest finished ones, with how many it made in all."""
    lines = t.standings()
    return m.TournamentInfo(
        id=msg_id,
        tournament=summary(t, lines=lines),
        standings=[
            m.TournamentLine(
                rank=line.rank,
                name=line.name,
                points=line.points,
                game_points=line.game_points,
                opponents=line.opponents,
                rating=line.rating,
                games=line.games,
                active=line.active,
            )
            for line in lines
        ],
        tables=[
            m.TournamentTable(
                number=x.number,
                round=x.round,
                players=list(x.players),
                room=None if x.bye else x.room,
                game=x.game_id,
                places=x.places,
                scores=x.scores,
            )
            for x in shown_tables(t)
        ],
        table_count=len(t.tables),
    )


def listing(
    live: list[Tournament],
    recent: list[Tournament],
    msg_id: m.ClientId = None,
    asker: tuple[str, str | None] | None = None,
) -> m.TournamentList:
    """The lists of ``tournaments``: upcoming (soonest first), running, and recently over; for
    ``asker`` (name and identity), each saying whether they are in it."""
    return m.TournamentList(
        id=msg_id,
        upcoming=[summary(t, asker) for t in sorted(live, key=lambda t: t.starts) if t.status == "upcoming"],
        running=[summary(t, asker) for t in live if t.status == "running"],
        recent=[summary(t, asker) for t in recent],
    )
