"""A tournament as a terminal reads it (``/tournament NAME``, ``/tournaments``): within 80
columns, its standings as a table."""

from __future__ import annotations

import datetime

from protocol import messages as m
from protocol.i18n import Lang, Msg, _, _n

#: the finished tables shown under the running ones
FINISHED_SHOWN = 8


def _clock(when: float) -> str:
    return datetime.datetime.fromtimestamp(when, datetime.UTC).strftime("%H:%M")


def _points(points: float, say: Lang) -> str:
    """Points as few decimals as they need (``3``, ``1.5``), in the reader's decimal mark.

    >>> from protocol.i18n import lang
    >>> de, en = lang("de"), lang("en")
    >>> _points(1.5, de), _points(3.0, de), _points(30.0, en), _points(0.25, en)
    ('1,5', '3', '30', '0.25')
    """
    return say.decimal(points, 2).rstrip("0").rstrip(".,")


def _what(t: m.TournamentSummary) -> Msg:
    if t.kind == "swiss":
        return _n(
            "Tournament {name}: a Swiss of {n} round at tables of {size}, {clock} s a turn.",
            "Tournament {name}: a Swiss of {n} rounds at tables of {size}, {clock} s a turn.",
            t.rounds or 0,
            name=t.name,
            size=t.size,
            clock=t.clock,
        )
    return _(
        "Tournament {name}: an arena of {minutes} minutes at tables of {size}, {clock} s a turn.",
        name=t.name,
        minutes=t.minutes,
        size=t.size,
        clock=t.clock,
    )


def _state(t: m.TournamentSummary) -> Msg:
    if t.status == "upcoming":
        return _(
            "Starts at {when} UTC; {n} in. /tournament join {name} enters it.",
            when=_clock(t.starts),
            n=t.players,
            name=t.name,
        )
    if t.status == "running" and t.kind == "swiss":
        return _("Round {round} of {rounds} is played.", round=t.round, rounds=t.rounds)
    if t.status == "running":
        return _("Runs until {when} UTC.", when=_clock(t.ends or t.starts))
    if t.status == "cancelled":
        return _("Cancelled: fewer than two players came.")
    if t.status == "closed" and t.closed_by is not None and t.closed_by.casefold() != t.creator.casefold():
        return _("Closed by {name} (staff).", name=t.closed_by)
    if t.status == "closed":
        return _("Closed by its creator.")
    if t.leader is not None:
        return _("Over. Winner: {name}.", name=t.leader)
    return _("Over.")


def summary_line(t: m.TournamentSummary, say: Lang) -> str:
    """One tournament in ``/tournaments``."""
    return f"{t.name:<24} {say(_what(t)).split(': ', 1)[-1]} {say(_state(t))}"


def tournament_lines(msg: m.TournamentInfo, say: Lang) -> list[str]:
    """``/tournament NAME``: what it is, where it stands, its standings and its tables."""
    t = msg.tournament
    lines = [say(_what(t)), say(_state(t))]
    if msg.standings:
        player, points, game, opponents, rating, games = (
            say(word)
            for word in (_("player"), _("points"), _("game pts"), _("opp. pts"), _("rating"), _("games"))
        )
        head = f"{'#':>3}  {player:<16} {points:>7} {game:>9} {opponents:>9} {rating:>7} {games:>6}"
        lines += ["", head]
        left = say(_("(left)"))
        for s in msg.standings:
            row = (
                f"{s.rank:>3}  {s.name:<16} {_points(s.points, say):>7} {s.game_points:>9}"
                f" {_points(s.opponents, say):>9} {s.rating:>7} {s.games:>6}"
            )
            lines.append(row if s.active else f"{row} {left}")
    running = [x for x in msg.tables if x.places is None]
    finished = [x for x in msg.tables if x.places is not None][:FINISHED_SHOWN]
    shown = len(running) + len(finished)
    if shown < msg.table_count:
        lines += ["", say(_("Tables (the latest {shown} of {count}):", shown=shown, count=msg.table_count))]
    elif shown:
        lines += ["", say(_("Tables:"))]
    for x in running:
        players = ", ".join(x.players)
        if x.room is None:
            lines.append(f"{x.number:>4}  " + say(_("{players}: the room is being made", players=players)))
        else:
            lines.append(
                f"{x.number:>4}  " + say(_("{players}: playing in room {room}", players=players, room=x.room))
            )
    for x in finished:
        assert x.places is not None
        if len(x.players) == 1:
            lines.append(f"{x.number:>4}  " + say(_("{name}: a bye", name=x.players[0])))
            continue
        ranked = sorted(x.places.items(), key=lambda item: item[1])
        places = ", ".join(f"{place}. {name} {(x.scores or {}).get(name, 0)}" for name, place in ranked)
        lines.append(f"{x.number:>4}  " + say(_("over: {places}", places=places)))
    return lines


def tournaments_lines(msg: m.TournamentList, say: Lang) -> list[str]:
    """``/tournaments``: upcoming, running, recently over."""
    if not (msg.upcoming or msg.running or msg.recent):
        return [say(_("No tournaments yet. /tournament new NAME swiss ROUNDS makes one."))]
    lines: list[str] = []
    for heading, group in (
        (_("Upcoming:"), msg.upcoming),
        (_("Running:"), msg.running),
        (_("Recently over:"), msg.recent),
    ):
        if group:
            lines.append(say(heading))
            lines.extend(f"  {summary_line(t, say)}" for t in group)
    return lines
