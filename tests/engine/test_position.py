"""docs/rules.md section 3 (set-up and turn order), section 1's 100 cards, and section 12 (the position
format: load, dump, and what a loader rejects)."""

from __future__ import annotations

import json
import pickle
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine import (
    InvalidPositionError,
    Options,
    Position,
    dump_position,
    game_over_reason,
    leave,
    legal_moves,
    load_position,
    new_position,
    play,
    position_from_dict,
    position_to_dict,
    random_game,
)

NATION_CODES = ("CF", "CN", "CU", "DE", "ES", "FR", "GB", "IN", "IT", "RU", "TR", "US")


def all_cards(position: Position) -> Counter[str]:
    """Every card of a position: hands, chairs (jokers by their card), bar and deck."""
    cards: Counter[str] = Counter()
    for player in position.players:
        cards.update(c.text for c in player.hand)
    cards.update(g.card.text for g in position.chairs if g is not None)
    cards.update(c.text for c in position.bar)
    cards.update(c.text for c in position.deck)
    return cards


def base(**changes: Any) -> dict[str, Any]:
    """A small valid position in the section 12 format, with ``changes`` applied."""
    data: dict[str, Any] = {
        "board": "classic",
        "options": {"stammtisch": False},
        "players": [
            {"name": "ann", "hand": ["FRf", "DEm", "Jm"], "score": 12, "hand_limit": 5},
            {"name": "bob", "hand": ["ITm", "ITf", "CNm", "GBf", "USm"], "score": 0, "hand_limit": 5},
        ],
        "eliminated": [],
        "to_move": 0,
        "start_player": 1,
        "chairs": {"FR1s": "FRm", "FR1e": "Jf=FR"},
        "bar": ["ITm", "CUf"],
        "deck": ["GBm", "ESf", "CUm", "TRf", "RUm", "INf"],
    }
    data.update(changes)
    return data


def rejection(data: dict[str, Any]) -> str:
    """The loader's message refusing ``data``."""
    with pytest.raises(InvalidPositionError) as info:
        position_from_dict(data)
    return str(info.value)


# --- section 1 and 3: the cards, the deal, the turn order ----------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_deal_holds_the_100_cards(players: int) -> None:
    """A new game holds 100 cards: 4 men and 4 women of each of the 12 nations, 2 male and 2 female jokers."""
    p = new_position(["ann", "bob", "cem", "dora"][:players], seed=11)
    expected = Counter({f"{n}{g}": 4 for n in NATION_CODES for g in "mf"})
    expected.update({"Jm": 2, "Jf": 2})
    assert all_cards(p) == expected
    assert sum(all_cards(p).values()) == 100


@pytest.mark.parametrize("players", [2, 3, 4])
def test_deal_five_cards_each_the_rest_in_the_deck(players: int) -> None:
    """Each player gets 5 cards; the deck keeps 100 - 5n; hand limits start at 5, scores at 0."""
    p = new_position(["ann", "bob", "cem", "dora"][:players], seed=5)
    assert [len(pl.hand) for pl in p.players] == [5] * players
    assert len(p.deck) == 100 - 5 * players
    assert [pl.hand_limit for pl in p.players] == [5] * players
    assert [pl.score for pl in p.players] == [0] * players
    assert p.eliminated == ()
    assert p.bar == ()
    assert all(g is None for g in p.chairs)


def test_deal_same_seed_same_game() -> None:
    """The same seed deals the same hands, deck and start player; a whole random game repeats too."""
    names = ["ann", "bob", "cem"]
    assert new_position(names, seed=42) == new_position(names, seed=42)
    assert dump_position(new_position(names, seed=42)) == dump_position(new_position(names, seed=42))
    assert random_game(names, seed=42) == random_game(names, seed=42)


def test_deal_different_seeds_shuffle_differently() -> None:
    """Different seeds give different deals."""
    decks = {tuple(c.text for c in new_position(["ann", "bob"], seed=s).deck) for s in range(10)}
    assert len(decks) == 10


def test_deal_start_player_drawn_in_range() -> None:
    """The start player is drawn among the seats (all of them occur) and is the first to move."""
    seen = set()
    for seed in range(60):
        p = new_position(["ann", "bob", "cem", "dora"], seed=seed)
        assert 0 <= p.start_player < 4
        assert p.to_move == p.start_player
        seen.add(p.start_player)
    assert seen == {0, 1, 2, 3}


def test_deal_start_player_set_by_the_host() -> None:
    """A host may set the start player."""
    p = new_position(["ann", "bob", "cem"], seed=1, start_player=2)
    assert (p.start_player, p.to_move) == (2, 2)
    with pytest.raises(InvalidPositionError):
        new_position(["ann", "bob", "cem"], seed=1, start_player=3)


@pytest.mark.parametrize("names", [["ann"], ["ann", "bob", "cem", "dora", "eve"], [], ["ann", "ann"]])
def test_deal_two_to_four_players_with_distinct_names(names: list[str]) -> None:
    """A game has 2 to 4 players, each with a name of their own."""
    with pytest.raises(InvalidPositionError):
        new_position(names, seed=1)


def test_turn_order_goes_on_in_seating_order() -> None:
    """After the start player's move, the next seat moves, wrapping around."""
    p = new_position(["ann", "bob", "cem"], seed=3, start_player=2)
    after = play(p, legal_moves(p)[0]).position
    assert after.to_move == 0
    after = play(after, legal_moves(after)[0]).position
    assert after.to_move == 1


def test_new_game_starts_in_the_opening() -> None:
    """A new position is in the opening (start player to move, every chair free) and not over."""
    p = new_position(["ann", "bob"], seed=9)
    assert p.is_opening
    assert game_over_reason(p) is None


def test_options_carry_the_stammtisch_switch() -> None:
    """The stammtisch option is off by default and kept when set."""
    assert new_position(["ann", "bob"], seed=1).options.stammtisch is False
    on = new_position(["ann", "bob"], seed=1, options=Options(stammtisch=True))
    assert on.options.stammtisch is True
    assert position_to_dict(on)["options"] == {"stammtisch": True}


# --- section 12: load and dump --------------------------------------------------------------------


def test_format_example_of_section_12_loads() -> None:
    """The example of section 12 loads, field by field."""
    p = position_from_dict(base())
    assert [pl.name for pl in p.players] == ["ann", "bob"]
    assert [c.text for c in p.players[0].hand] == ["DEm", "FRf", "Jm"]
    assert p.players[0].score == 12
    assert (p.to_move, p.start_player) == (0, 1)
    assert p.chairs[p.board.chair("FR1e").index] is not None
    assert [c.text for c in p.bar] == ["ITm", "CUf"]
    assert p.deck[0].text == "GBm"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_format_load_dump_round_trip_new_game(seed: int) -> None:
    """load(dump(p)) == p, and dumping again gives the same bytes."""
    p = new_position(["ann", "bob", "cem"], seed=seed)
    text = dump_position(p)
    assert load_position(text) == p
    assert dump_position(load_position(text)) == text
    assert position_from_dict(position_to_dict(p)) == p


def test_format_load_dump_round_trip_during_a_game() -> None:
    """Positions along a random game round-trip (chairs, bar, scores, hand limits, jokers)."""
    record = random_game(["ann", "bob", "cem", "dora"], seed=8)
    position = record.start()
    for move in record.moves:
        position = play(position, move).position
        assert load_position(dump_position(position)) == position


def test_a_position_pickles_as_it_is_for_the_bots_processes() -> None:
    """Bots think in other processes: a position along a game (options on, a player out) arrives
    equal, on the same board object as that process's own, compiled or not."""
    record = random_game(["ann", "bob", "cem"], seed=4, options=Options(stammtisch=True))
    position = record.start()
    for move in record.moves[:12]:
        position = play(position, move).position
    position = leave(position, "bob").position
    arrived = pickle.loads(pickle.dumps(position))
    assert arrived == position and arrived.board is position.board
    assert arrived.options.stammtisch and arrived.eliminated == (1,)
    assert [p.score for p in arrived.players] == [p.score for p in position.players]
    assert [p.hand_limit for p in arrived.players] == [p.hand_limit for p in position.players]


def test_format_dump_is_canonical() -> None:
    """The dump sorts its keys, names chairs canonically, sorts hands, and jokers show their nation."""
    data = base(chairs={"ES1n": "FRm", "FR1n": "Jf=FR"})
    data["players"][1]["hand"] = ["USm", "ITf", "GBf", "ITm", "CNm"]
    dumped = json.loads(dump_position(position_from_dict(data)))
    assert list(dumped) == sorted(dumped)
    assert dumped["chairs"] == {"FR1s": "FRm", "FR1n": "Jf=FR"}
    assert dumped["players"][1]["hand"] == ["CNm", "GBf", "ITf", "ITm", "USm"]
    assert all(list(p) == sorted(p) for p in dumped["players"])


def test_format_dump_is_stable_for_equal_positions() -> None:
    """Two spellings of one position (aliases, key order, hand order) dump to the same bytes."""
    one = base(chairs={"FR1s": "FRm", "FR1e": "Jf=FR"})
    two = dict(reversed(list(base(chairs={"IN1w": "jf=fr", "ES1n": "frm"}).items())))
    two["players"][0]["hand"] = ["Jm", "FRf", "DEm"]
    assert position_from_dict(one) == position_from_dict(two)
    assert dump_position(position_from_dict(one)) == dump_position(position_from_dict(two))


def test_format_opening_and_end_follow_from_the_fields() -> None:
    """Whether the opening applies and whether the game is over is read from the fields alone."""
    empty = base(chairs={}, to_move=1, start_player=1)
    assert position_from_dict(empty).is_opening
    assert not position_from_dict(base(chairs={}, to_move=0, start_player=1)).is_opening
    assert not position_from_dict(base(to_move=1, start_player=1)).is_opening
    assert game_over_reason(position_from_dict(base())) is None
    assert game_over_reason(position_from_dict(base(deck=["GBm", "ESf", "CUm", "TRf"]))) == "deck"


def test_format_fewer_than_100_cards_allowed() -> None:
    """A study position may hold only a few of the 100 cards."""
    p = position_from_dict(
        {
            "players": [{"name": "ann", "hand": ["FRf"]}, {"name": "bob", "hand": ["GBm"]}],
            "to_move": 0,
            "deck": [],
        }
    )
    assert sum(all_cards(p).values()) == 2


def test_format_single_guest_at_a_table_is_fine() -> None:
    """A table with one guest loads."""
    p = position_from_dict(base(chairs={"GB1n": "GBm"}))
    assert p.chairs[p.board.chair("GB1n").index] is not None


# --- section 12: what a loader rejects --------------------------------------------------------------


def test_loader_rejects_a_card_more_often_than_the_set_holds_it() -> None:
    """Five French men (4 in the set) spread over hand, chairs and deck are refused, naming the card."""
    data = base(chairs={"FR1s": "FRm", "FR1n": "FRm"}, deck=["FRm", "FRm", "FRm", "GBm"])
    message = rejection(data)
    assert "FRm" in message
    assert "5" in message


def test_loader_rejects_a_third_joker_of_a_gender() -> None:
    """Jokers count like cards: 3 male jokers are refused."""
    message = rejection(base(deck=["Jm", "Jm", "GBm", "ESf", "CUm"]))
    assert "Jm" in message


@pytest.mark.parametrize(
    ("chairs", "names"),
    [
        ({"FR1n": "GBm"}, ["GBm", "FR1n"]),
        ({"FR1s": "GBf"}, ["GBf", "FR1s"]),
        ({"ES1n": "Jf=GB"}, ["Jf=GB", "FR1s"]),
        ({"FR1n": "Jf=ES"}, ["Jf=ES", "FR1n"]),
    ],
)
def test_loader_rejects_a_chair_holding_a_guest_it_cannot_take(
    chairs: dict[str, str], names: list[str]
) -> None:
    """A natural guest or a declared joker of a nation the chair does not take is refused, named."""
    message = rejection(base(chairs=chairs))
    assert all(name in message for name in names)


@pytest.mark.parametrize(
    ("chairs", "table"),
    [
        ({"FR1n": "FRm", "FR1s": "FRm"}, "FR1"),  # 2 men alone
        ({"FR1n": "FRf", "CN1e": "Jf=FR"}, "FR1"),  # 2 women alone, a joker counted by its gender
        ({"DE1n": "DEf", "DE1w": "DEf", "DE1e": "DEf", "DE1s": "DEm"}, "DE1"),  # 1 man, 3 women
        ({"GB1n": "GBm", "GB1w": "GBm", "GB1e": "CNm", "GB1s": "RUm"}, "GB1"),  # 4 men
        ({"CN1n": "CNm", "GB1e": "CNm"}, "CN1"),  # a shared chair counts at both tables
    ],
)
def test_loader_rejects_a_table_breaking_the_gender_rule(chairs: dict[str, str], table: str) -> None:
    """A table breaking the gender rule is refused, naming the table."""
    message = rejection(base(chairs=chairs))
    assert table in message


def test_loader_four_of_one_gender_only_with_stammtisch() -> None:
    """Four women at a table load only with the stammtisch option (a Kaffeekränzchen)."""
    chairs = {"GB1n": "GBf", "GB1w": "GBf", "GB1e": "CNf", "GB1s": "RUf"}
    assert "GB1" in rejection(base(chairs=chairs))
    p = position_from_dict(base(chairs=chairs, options={"stammtisch": True}))
    assert p.options.stammtisch
    # three of one gender stay wrong even with the option
    three = {"GB1n": "GBf", "GB1w": "GBf", "GB1e": "CNf"}
    assert "GB1" in rejection(base(chairs=three, options={"stammtisch": True}))


@pytest.mark.parametrize(
    ("changes", "word"),
    [
        ({"chairs": {"FR9n": "FRm"}}, "FR9n"),
        ({"chairs": {"FR1n": "Jf"}}, "Jf"),  # a seated joker always names its nation
        ({"chairs": {"FR1s": "FRm", "ES1n": "ESm"}}, "FR1s"),  # one chair given twice
        ({"bar": ["XXm"]}, "XXm"),
        ({"to_move": 2}, "to_move"),
        ({"eliminated": ["ann"]}, "ann"),
        ({"eliminated": ["eve"]}, "eve"),
        ({"board": "hexagonal"}, "hexagonal"),
        ({"extra": 1}, "extra"),
        ({"options": {"speed": True}}, "stammtisch"),
    ],
)
def test_loader_rejects_malformed_positions_with_a_clear_message(changes: dict[str, Any], word: str) -> None:
    """Malformed fields are refused with a message naming what is wrong."""
    assert word in rejection(base(**changes))


def test_loader_rejects_more_than_20_bar_cards_and_more_than_5_in_hand() -> None:
    """The bar has 20 places; a hand holds at most 5 cards."""
    bar = [f"{n}{g}" for n in NATION_CODES[:10] for g in "mf"] + ["USm"]
    assert "bar" in rejection(base(bar=bar, deck=[]))
    data = base()
    data["players"][0]["hand"] = ["GBm", "GBm", "GBf", "GBf", "ESm", "ESm"]
    assert "hand" in rejection(data)


def test_loader_rejects_text_that_is_not_json() -> None:
    """``load_position`` refuses text that is not JSON."""
    with pytest.raises(InvalidPositionError, match="JSON"):
        load_position("{not json")


def test_format_eliminated_players_keep_the_order_they_left() -> None:
    """``eliminated`` lists names in the order the players left, and dumps them in that order."""
    data = base(eliminated=["cem", "ann"], to_move=1)
    data["players"].append({"name": "cem", "hand": ["CUm"], "score": 1, "hand_limit": 5})
    p = position_from_dict(data)
    assert p.eliminated == (2, 0)
    assert json.loads(dump_position(p))["eliminated"] == ["cem", "ann"]


@pytest.mark.parametrize("doc", ["rules.md", "rules.de.md"])
def test_the_docs_example_position_loads_and_is_a_game_going_on(doc: str) -> None:
    """Section 12's example, as either language's rules write it, is a position a program can play
    from: it loads, the game is not over, and it has moves."""
    text = (Path(__file__).parents[2] / "docs" / doc).read_text(encoding="utf-8")
    example = text.split("```json\n", 1)[1].split("```", 1)[0]
    position = load_position(example)
    assert game_over_reason(position) is None
    assert legal_moves(position)
