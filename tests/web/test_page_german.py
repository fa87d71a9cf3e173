"""The page's German words (``server/static/i18n/de.json``, as the page loads them) read as a German
says them: no English word but for syntax, a guest from each nation with the nation's article, and
the words the options, the players and the results use."""

from __future__ import annotations

import json
import re

import pytest

from protocol.catalogs import PAGE_JSON_DIR
from tests.protocol.english import english_words

GERMAN: dict[str, str | list[str]] = json.loads((PAGE_JSON_DIR / "de.json").read_text(encoding="utf-8"))


def _texts() -> list[str]:
    return [text for value in GERMAN.values() for text in ([value] if isinstance(value, str) else value)]


def test_the_pages_german_holds_no_english_word() -> None:
    """No German text of the page holds an English word that is not command syntax."""
    assert [(text, found) for text in _texts() if (found := english_words(text))] == []


def test_the_pages_german_holds_none_of_the_words_a_german_would_not_say() -> None:
    """Zuguhr, Seed, Verlorene Spieler, weg for a player, Herein: gone from every text."""
    unsaid = re.compile(r"\b(?:Zuguhr|Seed|Verlorene|Herein|weg|Summe)\b")
    assert [text for text in _texts() if unsaid.search(text)] == []


@pytest.mark.parametrize(
    ("nation", "guest", "joker"),
    [
        ("Turkey", "{gender} aus der Türkei", "Joker ({gender}) für die Türkei"),
        ("USA", "{gender} aus den USA", "Joker ({gender}) für die USA"),
        ("France", "{gender} aus Frankreich", "Joker ({gender}) für Frankreich"),
        ("Central Africa", "{gender} aus Zentralafrika", "Joker ({gender}) für Zentralafrika"),
    ],
)
def test_a_guest_comes_from_a_nation_with_its_article(nation: str, guest: str, joker: str) -> None:
    """ "Herr aus der Türkei", "Dame aus den USA": each nation's phrase is whole, with its article."""
    assert GERMAN[f"{nation} {{gender}}"] == guest
    assert GERMAN[f"joker ({{gender}}) as {nation}"] == joker


def test_every_nation_has_its_whole_phrase_in_german() -> None:
    """Each of the twelve nations has its guest's and its joker's phrase, none without an article
    where German needs one."""
    guests = {k: v for k, v in GERMAN.items() if k.endswith(" {gender}") and k != "{nation} {gender}"}
    jokers = {k: v for k, v in GERMAN.items() if k.startswith("joker ({gender}) as ") and "{nation}" not in k}
    assert len(guests) == len(jokers) == 12
    assert not [
        v for v in (*guests.values(), *jokers.values()) if re.search(r"(?:aus|für) (?:Türkei|USA)\b", str(v))
    ]


def test_the_options_players_and_results_use_the_words_a_german_uses() -> None:
    """Bedenkzeit, Startwert, Abwesende Spieler, abwesend, Anmelden, and Punkte / Endstand in the
    results; the room's states and the Friends tab in German."""
    expected = {
        "Turn clock": "Bedenkzeit",
        "Shuffle seed": "Startwert",
        "Lost players": "Abwesende Spieler",
        "away": "abwesend",
        "Come in": "Anmelden",
        "score": "Punkte",
        "final": "Endstand",
        "waiting": "wartet",
        "playing": "im Spiel",
        "over": "vorbei",
        "Friends": "Freunde",
        "connected": "verbunden",
    }
    assert {key: GERMAN.get(key) for key in expected} == expected
    assert GERMAN["Where does {card} go? Choose a lit chair, or the bar."] == (
        "Wohin kommt {card}? Wähle einen leuchtenden Stuhl oder die Bar."
    )
