"""The line clients' text in every language: pictures and lines within 80 columns on many positions
and events, German words where the reader chose German, the notation the same in both."""

from __future__ import annotations

from typing import Any

import pytest

from engine import random_game, replay
from protocol import messages as m
from protocol.i18n import LANGUAGES, _, lang
from protocol.names import NAME_RULE
from protocol.text import WIDTH, LineText, display_width, render_board, render_hand, render_scores
from protocol.text.events import render_event, render_played
from tests.protocol.test_text import all_views, golden_views, replayed_view

LONG = "Maximilianus_Xyz"  # a name as long as names go (16)


def _fits(lines: list[str]) -> None:
    widest = max(lines, key=display_width, default="")
    assert display_width(widest) <= WIDTH, widest


@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize("ascii_only", [False, True], ids=["unicode", "ascii"])
def test_every_picture_fits_80_columns_in_every_language(code: str, ascii_only: bool) -> None:
    """The picture, the scores and the hand fit 80 columns on their own (nothing folds them), in
    every position of whole games, for players and spectators, in each language."""
    say = lang(code)
    for view in all_views():
        for text in (
            render_board(view, ascii_only=ascii_only, lang=say),
            render_scores(view, ascii_only=ascii_only, lang=say),
            render_hand(view, ascii_only=ascii_only, lang=say),
        ):
            _fits(text.split("\n"))


@pytest.mark.parametrize("code", LANGUAGES)
def test_long_names_and_rooms_still_fit(code: str) -> None:
    """Names and a room name as long as they may be keep every line within 80 columns."""
    names = [LONG, "Bartholomaeus_Q", "Cunigunde_Zett", "Dagobert_Wwwww"]
    record = random_game(names, 3)
    for moves in [*range(0, len(record.moves), 5), len(record.moves)]:
        view = replayed_view(record, moves, names[moves % 4], spectators=(LONG + "2", "Zuschauerin_Abc"))
        view["room"] = "r" * 24
        _fits(render_board(view, lang=lang(code)).split("\n"))


def _messages(seed: int) -> list[m._ServerMessage]:
    """The messages of a whole game, as a room sends them: start, snapshot, every move, the end."""
    names = ["ann", LONG, "cy"]
    record = random_game(names, seed)
    final = replay(record)
    out: list[m._ServerMessage] = [
        m.GameStarted(
            room="cafe",
            game="5d41c0a8e2b1f3d7",
            players=names,
            start_player=names[0],
            seed_hash="f" * 64,
            practice=True,
        ),
        m.Snapshot(room="cafe", view=replayed_view(record, 0, LONG)),
    ]
    for number, result in enumerate(final.results, 1):
        player = record.players[result.player]
        out.append(m.Snapshot(room="cafe", view=replayed_view(record, number, LONG)))
        out.append(
            m.Played(room="cafe", player=player, move=result.move, points=result.points, events=result.events)
        )
    outcome = final.outcome
    assert outcome is not None
    out.append(
        m.GameOver(
            room="cafe",
            game="5d41c0a8e2b1f3d7",
            reason=outcome.reason,
            final_scores=dict(outcome.final_scores),
            penalties=dict(outcome.penalties),
            ranking=list(outcome.ranking),
            places=dict(outcome.places),
            seed=seed,
        )
    )
    return out


OTHER_MESSAGES: list[m._ServerMessage] = [
    m.Welcome(name=LONG, token="0123456789abcdef0123456789abcdef"),
    m.Error(code="unavailable", message=_("The game data is out of reach; nothing changed, try again.")),
    m.Error(
        code="bad_name",
        message=_("A name is {rule}.", rule=NAME_RULE),
    ),
    m.Presence(room="cafe", name=LONG, event="replaced_by_bot"),
    m.Notice(
        room="cafe",
        text=_("{name}'s time ran out: the server plays {move}.", name=LONG, move="FRf@FR1s ESm@ES1e"),
    ),
    m.Rooms(
        rooms=[
            m.RoomSummary(
                name="r" * 24,
                state="playing",
                seats=[m.SeatSummary(name=LONG, kind="person")] * 4,
                spectators=12,
                options={},
            )
        ]
    ),
    m.Invited(room="r" * 24, name=LONG),
    m.Vote(
        room="cafe",
        kind="remove",
        by=LONG,
        name=LONG,
        seat=4,
        yes=[LONG],
        no=[],
        voters=[LONG] * 3,
        state="open",
        expires=0,
    ),
    m.Vote(
        room="cafe",
        kind="join",
        by=LONG,
        name=LONG,
        seat=4,
        yes=[LONG],
        no=[LONG],
        voters=[LONG] * 3,
        state="open",
        expires=0,
    ),
    m.Vote(
        room="cafe",
        kind="join",
        by=LONG,
        name=LONG,
        seat=4,
        yes=[],
        no=[],
        voters=[LONG] * 3,
        state="cancelled",
        expires=0,
    ),
    m.LegalMoves(moves=["FRf@FR1s ESm@ES1e"] * 40),
    m.TellMessage(name=LONG, to="ann", text="x" * 200),
]


def _vote(kind: str, state: str) -> m.Vote:
    return m.Vote.model_validate(
        {
            "room": "cafe",
            "kind": kind,
            "by": "cy",
            "name": "bob",
            "seat": 2,
            "yes": ["cy"],
            "no": [],
            "voters": ["ann", "cy"],
            "state": state,
            "expires": 0,
        }
    )


@pytest.mark.parametrize(
    ("kind", "state", "english", "german"),
    [
        (
            "join",
            "open",
            "* Vote: cy asks to take over seat 2 (bob).",
            "* Abstimmung: cy möchte Platz 2 (bob) übernehmen.",
        ),
        (
            "join",
            "cancelled",
            "* Vote cancelled: cy asks to take over seat 2 (bob).",
            "* Abstimmung abgebrochen: cy möchte Platz 2 (bob) übernehmen.",
        ),
        (
            "join",
            "passed",
            "* Vote passed: cy asks to take over seat 2 (bob).",
            "* Abstimmung angenommen: cy möchte Platz 2 (bob) übernehmen.",
        ),
        (
            "remove",
            "open",
            "* Vote: cy asks to take bob (seat 2) out of the game.",
            "* Abstimmung: cy möchte bob (Platz 2) aus dem Spiel nehmen.",
        ),
        (
            "remove",
            "cancelled",
            "* Vote cancelled: cy asks to take bob (seat 2) out of the game.",
            "* Abstimmung abgebrochen: cy möchte bob (Platz 2) aus dem Spiel nehmen.",
        ),
    ],
)
def test_a_vote_line_says_its_kind_and_state_in_each_language(
    kind: str, state: str, english: str, german: str
) -> None:
    """A vote's first line says what is asked (a seat taken over, or a player taken out) and how
    the vote ended, cancelled too, in English and in German."""
    vote = _vote(kind, state)
    assert LineText().render(vote, reader="ann", lang=lang("en"))[0] == english
    assert LineText().render(vote, reader="ann", lang=lang("de"))[0] == german


@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_every_line_of_whole_games_fits_80_columns(code: str, seed: int) -> None:
    """Every line a line client reads during whole games and for other messages fits 80 columns,
    in each language, for a player with the longest name."""
    text = LineText()
    for msg in [*_messages(seed), *OTHER_MESSAGES]:
        _fits(text.render(msg, reader=LONG, lang=lang(code)))
        _fits(text.render(msg, reader=LONG, lang=lang(code), ascii_only=True))


def test_german_lines_are_german_and_keep_the_notation() -> None:
    """German readers read German sentences; cards, chairs and moves are written the same."""
    de = lang("de")
    event: dict[str, Any] = {"type": "seat", "player": "ann", "card": "FRf", "chair": "FR1s", "points": 4}
    assert render_event(event, lang=de) == "ann setzt FRf auf FR1s: +4"
    draw = {"type": "draw", "player": "ann", "count": 1}
    assert render_event(draw, lang=de) == "ann zieht 1 Karte"
    assert render_event({**draw, "count": 2}, lang=de) == "ann zieht 2 Karten"
    stammtisch = {"type": "stammtisch", "player": "bob", "table": "FR1", "gender": "f", "points": 8}
    assert render_event(stammtisch, lang=de) == "bob füllt FR1 mit vier Damen (Kaffeekränzchen): +8"
    line = render_played("ann", "FRf@FR1s", 4, [event], lang=de)
    assert line == "ann setzt FRf auf FR1s: +4"


def test_the_german_picture_is_the_english_one_with_german_words() -> None:
    """The German picture has the café drawn the same, and German words around it."""
    view = golden_views()["mid_game"] if "mid_game" in golden_views() else next(iter(golden_views().values()))
    english = render_board(view).split("\n")
    german = render_board(view, lang=lang("de")).split("\n")
    start = english.index("") + 1
    end = english.index("", start)
    assert german[start:end] == english[start:end]  # the café's grid
    joined = "\n".join(german)
    assert "Raum " in joined and "Spieler" in joined and "Platz " in joined
    assert "room " not in joined


def test_an_analysis_reads_its_figures_with_the_readers_decimal_mark() -> None:
    """A ready analysis's figures to one decimal: a point in English, a comma in German."""
    figures = m.AnalysisFigures(moves=30, total_cost=102.25, mean_cost=3.41, accuracy=71.6)
    ready = m.Analysis(game="5d41c0a8e2b1f3d7", state="ready", ahead=None, players={"ann": figures})
    english = LineText().render(ready, reader="ann", lang=lang("en"))
    german = LineText().render(ready, reader="ann", lang=lang("de"))
    assert "  ann: accuracy 72 %, 102.2 points lost in 30 moves (3.4 a move)" in english, english
    [line] = [line for line in german if line.startswith("  ann:")]
    assert "102,2" in line and "3,4" in line and "102.2" not in line, german
