"""The tournament: seeded games between strategies with the seats rotated, and its report."""

from __future__ import annotations

import pytest

from bots.tournament import Entry, main, make_entries, play_game, run_tournament, schedule, wilson


def test_each_deal_is_played_from_every_seat() -> None:
    """Games come in groups of one deal per rotation of the seats, so no entry keeps the better seat."""
    entries = make_entries(["greedy", "random", "strong"])
    plan = schedule(entries, 6, seed=3)
    deals = [deal for _, deal, _ in plan]
    assert deals[0] == deals[1] == deals[2] != deals[3] == deals[4] == deals[5]
    first_three = [[e.label for e in seats] for seats, _, _ in plan[:3]]
    assert first_three == [
        ["greedy", "random", "strong"],
        ["random", "strong", "greedy"],
        ["strong", "greedy", "random"],
    ]


def test_more_seats_than_strategies_repeat_them_in_turn() -> None:
    """``--players 4`` with two strategies seats each twice."""
    assert [e.label for e in make_entries(["strong", "greedy"], players=4)] == ["strong", "greedy"] * 2
    with pytest.raises(ValueError, match="2 to 4 players"):
        make_entries(["greedy"], players=5)


def test_a_game_is_reproducible_and_its_win_shares_add_up_to_one() -> None:
    """The same deal and seed give the same game; the win shares of a game add up to one."""
    entries = [Entry("greedy", "greedy"), Entry("random", "random")]
    first = play_game(entries, 11, "x")
    again = play_game(entries, 11, "x")
    assert (first.scores, first.wins, first.moves) == (again.scores, again.wins, again.moves)
    assert sum(first.wins) == pytest.approx(1.0)
    assert first.labels == ("greedy", "random")


def test_standings_count_every_game_for_every_entry() -> None:
    """Each entry of a two-player tournament plays every game, and the wins add up to the games."""
    standings = run_tournament(["greedy", "random"], games=4, seed=2)
    assert [s.label for s in standings] == ["greedy", "random"]
    assert all(s.games == 4 for s in standings)
    assert sum(s.wins for s in standings) == pytest.approx(4)
    assert all(s.moves > 0 for s in standings)


def test_wilson_interval_contains_the_rate_and_narrows_with_more_games() -> None:
    """The 95% interval holds the observed rate and is narrower for more games at the same rate."""
    low, high = wilson(9, 10)
    assert low < 0.9 < high <= 1.0
    low2, high2 = wilson(90, 100)
    assert low < low2 < 0.9 < high2 < high
    assert wilson(0, 0) == (0.0, 1.0)


def test_cli_prints_each_strategys_standing(capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI prints each strategy's win rate, its interval, mean score and time per move."""
    assert main(["--games", "2", "--seed", "1", "--iterations", "4", "strong", "random"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("2 games, 2 players, seed 1")
    header = out[1].split()
    assert header[:4] == ["strategy", "games", "wins", "win"]
    for column in ("95%", "interval", "mean", "score", "time/move"):
        assert column in header
    rows = {line.split()[0]: line.split() for line in out[2:4]}
    assert set(rows) == {"strong", "random"}
    for row in rows.values():
        assert row[1] == "2"
        assert row[3].endswith("%")
        assert row[-1] == "ms"
    assert out[4].startswith("wall time")


def test_cli_refuses_an_unknown_strategy(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown strategy name ends with the usage error, naming the known ones."""
    with pytest.raises(SystemExit) as exit_info:
        main(["--games", "1", "greedy", "clever"])
    assert exit_info.value.code == 2
    assert "random" in capsys.readouterr().err


def test_a_search_may_be_given_its_own_budget(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--budget-for classic=0.1`` gives that search its own time a move, the other keeps
    ``--budget``; the report says both. Only a search has a budget to give."""
    given: dict[str, object] = {}

    def record(*args: object, **kwargs: object) -> list[object]:
        given.update(kwargs)
        return []

    monkeypatch.setattr("bots.tournament.run_tournament", record)
    assert (
        main(
            [
                "--games",
                "2",
                "--budget",
                "0.3",
                "--budget-for",
                "classic=0.1",
                "--cpu-time",
                "strong",
                "classic",
            ]
        )
        == 0
    )
    searching = given["strategy_kwargs"]
    assert searching == {
        "strong": {"cpu_time": True, "budget": 0.3},
        "classic": {"cpu_time": True, "budget": 0.1},
    }
    assert "search budget 0.3 s (CPU) per move, classic 0.1 s" in capsys.readouterr().out
    for wrong in ("greedy=1", "classic=soon"):
        with pytest.raises(SystemExit) as exit_info:
            main(["--games", "1", "--budget-for", wrong, "strong", "classic"])
        assert exit_info.value.code == 2
