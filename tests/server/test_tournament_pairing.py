"""Tournaments' pure decisions: table sizes, Swiss pairing, arena seating, placing points,
standings and their tie-breaks, and a tournament's course from start to end."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from server.tournament.pairing import arena_tables, pair_key, repeat_pairs, swiss_tables, table_sizes
from server.tournament.standings import GameResult, placing_points, standings
from server.tournament.state import ARENA_LAST, ARENA_PATIENCE, Tournament


@pytest.mark.parametrize("size", [2, 3, 4])
@pytest.mark.parametrize("count", range(1, 41))
def test_table_sizes_are_the_size_or_one_fewer(count: int, size: int) -> None:
    """Every player sits; as few tables as the size allows; sizes differ by one at most, larger first."""
    sizes = table_sizes(count, size)
    assert sum(sizes) == count
    assert len(sizes) == -(-count // size)
    assert max(sizes) <= size and max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)
    if count % size == 0:
        assert set(sizes) == {size}


def test_only_size_two_leaves_a_player_alone() -> None:
    """From two players on, a table of one (a bye) comes only at size 2 with an odd count."""
    for size in (3, 4):
        for count in range(2, 41):
            assert min(table_sizes(count, size)) >= 2
    assert table_sizes(5, 2) == [2, 2, 1]


def test_swiss_avoids_a_repeat_where_it_can() -> None:
    """Players who met sit apart when a table without a repeat is there."""
    assert swiss_tables(["a", "b", "c", "d"], 2, {pair_key("a", "b"): 1}) == [["a", "c"], ["b", "d"]]
    assert swiss_tables(["a", "b", "c", "d"], 2, {}) == [["a", "b"], ["c", "d"]]


def test_swiss_keeps_the_standings_order_without_repeats() -> None:
    """With nobody met before, the tables are the standings cut in order."""
    players = [f"p{i}" for i in range(12)]
    assert swiss_tables(players, 4, {}) == [players[0:4], players[4:8], players[8:12]]


def test_the_bye_goes_to_the_lowest_placed_who_had_none() -> None:
    """An odd count at size 2: the last player without a bye sits alone."""
    tables = swiss_tables(["a", "b", "c", "d", "e"], 2, {}, had_bye=lambda n: n == "e")
    assert ["d"] in tables and all("e" in t for t in tables if len(t) == 2 and "e" in t)
    assert sorted(p for t in tables for p in t) == ["a", "b", "c", "d", "e"]


def test_thirty_two_players_five_rounds_without_a_repeat() -> None:
    """A Swiss of 32 at size 4 over 5 rounds, random results: nobody meets anyone twice."""
    rng = random.Random(7)
    players = [f"p{i}" for i in range(32)]
    met: dict[tuple[str, str], int] = {}
    score = dict.fromkeys(players, 0)
    for _ in range(5):
        tables = swiss_tables(sorted(players, key=lambda p: -score[p]), 4, met)
        assert repeat_pairs(tables, met) == 0
        assert sorted(p for t in tables for p in t) == sorted(players)
        for table in tables:
            rng.shuffle(table)
            for place, p in enumerate(table):
                score[p] += 3 - place
            for a, b in combinations(table, 2):
                met[pair_key(a, b)] = met.get(pair_key(a, b), 0) + 1


def test_arena_seats_a_full_table_and_waits_for_more() -> None:
    """Four waiting at size 4 sit together; three wait, unless nobody else will come."""
    assert arena_tables(["a", "b", "c", "d", "e"], 4, {}, all_in=False) == [["a", "b", "c", "d"]]
    assert arena_tables(["a", "b", "c"], 4, {}, all_in=False) == []
    assert arena_tables(["a", "b", "c"], 4, {}, all_in=True) == [["a", "b", "c"]]
    assert arena_tables(["a"], 4, {}, all_in=True) == []


def test_arena_does_not_seat_last_opponents_together_while_another_waits() -> None:
    """a and b just played each other: with c waiting, a plays c."""
    last = {"a": frozenset({"b"}), "b": frozenset({"a"})}
    assert arena_tables(["a", "b", "c", "d"], 2, last, all_in=False) == [["a", "c"], ["b", "d"]]
    assert arena_tables(["a", "b"], 2, last, all_in=False) == [["a", "b"]]


def test_placing_points_scale_and_shared_ties() -> None:
    """3/2/1/0 at a table of four; ties share; a smaller table is scaled to the tournament's size."""
    assert placing_points({"a": 1, "b": 2, "c": 3, "d": 4}, 4) == {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.0}
    assert placing_points({"a": 1, "b": 1, "c": 3, "d": 4}, 4) == {"a": 2.5, "b": 2.5, "c": 1.0, "d": 0.0}
    assert placing_points({"a": 1, "b": 2, "c": 3}, 4) == {"a": 3.0, "b": 1.5, "c": 0.0}
    assert placing_points({"a": 1, "b": 2}, 2) == {"a": 1.0, "b": 0.0}
    assert placing_points({"a": 1}, 4) == {"a": 3.0}  # a bye counts as a win


def test_standings_tie_breaks_game_points_then_opponents() -> None:
    """Equal points: more game points first; equal again: stronger opponents first; then rating."""
    players = {"a": (1000, True), "b": (1000, True), "c": (1000, True), "d": (1200, True)}
    results = [
        GameResult({"a": 1, "c": 2}, {"a": 50, "c": 40}),
        GameResult({"b": 1, "d": 2}, {"b": 60, "d": 30}),
    ]
    lines = standings(players, results, 2)
    assert [line.name for line in lines] == ["b", "a", "c", "d"]
    assert [line.rank for line in lines] == [1, 2, 3, 4]
    even = standings(players, [GameResult({"a": 1, "c": 2}, {"a": 50, "c": 50})], 2)
    assert [line.name for line in even] == ["a", "c", "d", "b"]  # d's rating before b's
    assert [(line.rank, line.opponents) for line in even][:2] == [(1, 0.0), (2, 1.0)]


def test_a_player_who_left_keeps_their_points() -> None:
    """Leaving after the start keeps the line, marked as out."""
    t = _swiss(["a", "b"], rounds=2)
    tables = t.due(100.0)
    t.game_over(tables[0].number, {"a": 1, "b": 2}, {"a": 9, "b": 3}, 101.0)
    assert t.leave("a")
    line = next(line for line in t.standings() if line.name == "a")
    assert (line.points, line.active) == (1.0, False)
    assert t.due(102.0) == [] and _status(t) == "finished"  # one player still in: nothing to pair


def _status(t: Tournament) -> str:
    return t.status  # (read again after each step: not narrowed)


def _swiss(names: list[str], *, rounds: int, size: int = 2) -> Tournament:
    t = Tournament(1, "cup", "swiss", size, 60, 100.0, names[0], 0.0, rounds=rounds)
    for i, name in enumerate(names):
        assert t.join(name, 1000 + i, 0.0)
    return t


def test_a_swiss_round_starts_when_the_last_table_has_finished() -> None:
    """Round 2 is seated only after every table of round 1 ended; after the last round it ends."""
    t = _swiss(["a", "b", "c", "d"], rounds=2)
    assert t.due(99.0) == [] and _status(t) == "upcoming"
    first = t.due(100.0)
    assert [len(x.players) for x in first] == [2, 2] and t.round == 1
    t.game_over(first[0].number, {first[0].players[0]: 1, first[0].players[1]: 2}, {}, 110.0)
    assert t.due(111.0) == []
    t.game_over(first[1].number, {first[1].players[0]: 1, first[1].players[1]: 2}, {}, 120.0)
    second = t.due(121.0)
    assert t.round == 2 and len(second) == 2
    assert repeat_pairs([x.players for x in second], {pair_key(*x.players): 1 for x in first}) == 0
    for x in second:
        t.game_over(x.number, {x.players[0]: 1, x.players[1]: 2}, {}, 130.0)
    assert t.due(131.0) == [] and _status(t) == "finished" and t.finished == 131.0


def test_a_swiss_without_two_players_is_cancelled() -> None:
    """One player at the start: no games, cancelled."""
    t = _swiss(["a"], rounds=3)
    assert t.due(100.0) == [] and _status(t) == "cancelled"


def test_a_late_joiner_plays_from_the_next_round() -> None:
    """Joining during round 1 seats the player in round 2."""
    t = _swiss(["a", "b"], rounds=2)
    first = t.due(100.0)
    assert t.open_to_join(101.0) and t.join("c", 1500, 101.0)
    t.game_over(first[0].number, {"a": 1, "b": 2}, {}, 110.0)
    second = t.due(111.0)
    assert sorted(p for x in second for p in x.players) == ["a", "b", "c"]
    assert not t.open_to_join(112.0)  # the last round runs


def test_the_absent_sit_a_round_out() -> None:
    """Only the players present are seated; those away are paired again later."""
    t = _swiss(["a", "b", "c", "d"], rounds=2)
    tables = t.due(100.0, present=["a", "b", "c"])
    assert sorted(p for x in tables for p in x.players) == ["a", "b", "c"]


def test_an_arena_reseats_and_stops_seating_in_its_last_minute() -> None:
    """A player whose game ended waits; a full table sits at once; none in the last minute; ends."""
    t = Tournament(2, "blitz", "arena", 2, 30, 100.0, "a", 0.0, minutes=5)
    for name in ("a", "b", "c"):
        t.join(name, 1000, 0.0)
    first = t.due(100.0)
    assert [len(x.players) for x in first] == [2] and t.ends == 400.0
    alone = next(n for n in ("a", "b", "c") if n not in first[0].players)
    assert t.due(100.0 + ARENA_PATIENCE - 1) == []
    assert t.join("d", 1000, 140.0)  # a late join: d and the one waiting play
    second = t.due(141.0)
    assert sorted(second[0].players) == sorted([alone, "d"])
    t.game_over(first[0].number, dict(zip(first[0].players, (1, 2), strict=True)), {}, 400.0 - ARENA_LAST)
    assert t.due(400.0 - ARENA_LAST) == []  # the last minute: nobody is seated
    assert t.due(401.0) == [] and _status(t) == "running"  # a game still runs
    t.game_over(second[0].number, dict(zip(second[0].players, (1, 2), strict=True)), {}, 402.0)
    assert t.due(403.0) == [] and _status(t) == "finished"


def test_an_arena_seats_fewer_after_waiting() -> None:
    """At size 4 everyone sits at the start; later three waiting players sit together only once one
    waited long enough while a game runs."""
    t = Tournament(3, "big", "arena", 4, 30, 0.0, "a", 0.0, minutes=30)
    for name in "abcdefg":
        t.join(name, 1000, 0.0)
    first = t.due(0.0)
    assert [len(x.players) for x in first] == [4, 3]
    small = first[1]
    t.game_over(small.number, dict(zip(small.players, (1, 2, 3), strict=True)), {}, 100.0)
    assert t.due(100.0 + ARENA_PATIENCE - 1) == []
    assert [sorted(x.players) for x in t.due(100.0 + ARENA_PATIENCE)] == [sorted(small.players)]


def test_the_state_survives_its_json() -> None:
    """What the store keeps gives the same tournament back."""
    t = _swiss(["a", "b", "c"], rounds=3)
    t.due(100.0)
    again = Tournament.from_dict(t.to_dict())
    assert again == t and again.to_dict() == t.to_dict()
