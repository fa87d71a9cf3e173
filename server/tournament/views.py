"""A tournament as the wire shows it (``tournament``, ``tournaments``, ``GET /api/tournaments``):
pure functions of its state."""

from __future__ import annotations

from protocol import messages as m
from server.tournament.state import Tournament


def summary(t: Tournament, asker: tuple[str, str | None] | None = None) -> m.TournamentSummary:
    """The tournament's line in a list; ``asker`` (name and identity) reads whether they are in."""
    lines = t.standings() if t.results() else []
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
        leader=lines[0].name if lines else None,
        closed_by=t.closed_by,
        entered=asker is not None and t.holds(*asker),
    )


def info(t: Tournament, msg_id: m.ClientId = None) -> m.TournamentInfo:
    """The whole tournament: standings, then its tables, those still playing first."""
    tables = sorted(t.tables, key=lambda x: (x.finished, -x.number))
    return m.TournamentInfo(
        id=msg_id,
        tournament=summary(t),
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
            for line in t.standings()
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
            for x in tables
        ],
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
