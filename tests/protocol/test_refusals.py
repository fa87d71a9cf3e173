"""The rules' refusals as texts for people: every rule error code and each of its sentences, the
English equal to the engine's own message, the German a translation with the same values."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine import IllegalMoveError, Position, leave, new_position, play
from engine.errors import LEAVE_ERROR_CODES, RULE_ERROR_CODES
from protocol.i18n import lang
from protocol.refusals import refusal
from tests.engine.rulebook import make

GERMAN = lang("de")
ENGLISH = lang("en")
#: the hands of a plain position: the player to move holds these, the other a bystander's cards
HAND = ["FRf", "FRm", "ESm", "Jf", "Jm"]


def _plain(**kw: object) -> Position:
    return make(hands=[kw.pop("hand", HAND), ["ITm", "ITf"]], **kw)  # type: ignore[arg-type]


def _finished() -> Position:
    return leave(new_position(["ann", "bob"], seed=1), "ann").position


def _left() -> Position:
    return leave(new_position(["ann", "bob", "cem"], seed=1), "ann").position


#: (code, reason, what raises it, what the German says), one row per sentence the engine has
CASES: list[tuple[str, str, Callable[[], object], str]] = [
    ("game_over", "", lambda: play(_finished(), "FRf@FR1s"), "Das Spiel ist vorbei."),
    ("unknown_player", "", lambda: leave(_left(), "zed"), "'zed' spielt in diesem Spiel nicht mit."),
    ("already_out", "", lambda: leave(_left(), "ann"), "ann ist schon aus dem Spiel."),
    ("bad_notation", "empty", lambda: play(_plain(), " "), "' ' ist kein Zug: er ist leer. Schreib z. B."),
    ("bad_notation", "leave", lambda: play(_plain(), "leave ann"), "'leave ann' ist kein Zug: das Spiel"),
    ("bad_notation", "swap_arguments", lambda: play(_plain(), "swap a b"), "swap nimmt eine Karte"),
    ("bad_notation", "swap_form", lambda: play(_plain(), "swap FRf"), "ein Tausch schreibt sich swap"),
    ("bad_notation", "swap_joker", lambda: play(_plain(), "swap Jf=FR@FR1s"), "kein Joker. Schreib"),
    ("bad_notation", "not_a_card", lambda: play(_plain(), "zz@FR1s"), "'zz' ist keine Karte"),
    ("bad_notation", "not_a_joker", lambda: play(_plain(), "FRf=FR@FR1s"), "nur ein Joker nennt"),
    ("bad_notation", "not_a_nation", lambda: play(_plain(), "Jf=XX@FR1s"), "'XX' ist kein Nationenkürzel"),
    ("bad_notation", "not_card_at_chair", lambda: play(_plain(), "FRf"), "'FRf' ist nicht KARTE@STUHL"),
    ("bad_notation", "bar_cards", lambda: play(_plain(), "FRf@bar ESm@bar"), "genau eine Karte an die Bar"),
    ("bad_notation", "bar_nation", lambda: play(_plain(), "Jf=FR@bar"), "ein Joker an der Bar nennt keine"),
    (
        "unknown_chair",
        "",
        lambda: play(_plain(), "FRf@XX9n"),
        "Auf diesem Spielplan gibt es keinen Stuhl 'XX9n'.",
    ),
    (
        "joker_nation",
        "",
        lambda: play(_plain(), "Jf@FR1e"),
        "zwischen FR und IN: sag, welche Nation, z. B. Jf=FR@FR1e.",
    ),
    ("too_many_cards", "", lambda: play(_plain(), "FRf@FR1n FRm@FR1e ESm@ES1s"), "höchstens zwei Karten"),
    (
        "too_many_cards",
        "stammtisch",
        lambda: play(_plain(stammtisch=True), "FRf@FR1n FRm@FR1e ESm@ES1s"),
        "mit vier Herren oder vier Damen zu füllen",
    ),
    ("not_in_hand", "", lambda: play(_plain(), "DEf@DE1s"), "Du hast DEf nicht auf der Hand."),
    (
        "not_in_hand",
        "only",
        lambda: play(_plain(), "FRf@FR1s FRf@FR1n"),
        "nicht oft genug für diesen Zug (nur 1)",
    ),
    ("chair_taken", "", lambda: play(_plain(chairs={"FR1s": "FRm"}), "FRf@FR1s"), "FR1s ist besetzt."),
    (
        "wrong_nation",
        "",
        lambda: play(_plain(), "ESm@FR1e"),
        "ESm kann nicht auf FR1e sitzen, einem Stuhl von FR1 und IN1.",
    ),
    (
        "gender",
        "",
        lambda: play(_plain(chairs={"FR1n": "FRm"}), "FRm@FR1s"),
        "FRm auf FR1s ergäbe an FR1 2 Herren und 0 Damen.",
    ),
    (
        "gender",
        "",
        lambda: play(_plain(chairs={"FR1n": "FRm", "FR1e": "FRf", "FR1s": "FRm"}), "FRm@CN1e"),
        "FRm auf CN1e ergäbe an FR1 3 Herren und 1 Dame.",
    ),
    (
        "gender",
        "stammtisch",
        lambda: play(_plain(hand=["FRm", "FRm", "FRm"], stammtisch=True), "FRm@FR1n FRm@FR1e FRm@FR1s"),
        "müssen FR1 mit vier Herren füllen",
    ),
    ("alone", "", lambda: play(_plain(), "FRf@FR1s"), "FRf auf FR1s säße allein und brächte nichts."),
    (
        "alone",
        "join",
        lambda: play(_plain(), "FRf@FR1n ESm@ES1s"),
        "die zweite Karte muss sich an ihren Tisch",
    ),
    ("joker_to_bar", "", lambda: play(_plain(), "Jf@bar"), "Ein Joker geht nur an die Bar"),
    ("bad_swap", "no_joker", lambda: play(_plain(), "swap FRf@FR1s"), "Auf FR1s sitzt kein Joker."),
    (
        "bad_swap",
        "",
        lambda: play(_plain(chairs={"FR1e": "Jf=FR", "FR1s": "FRm"}), "swap ESm@FR1e"),
        "Der Joker auf FR1e (Jf=FR) lässt sich nur gegen eine Dame aus FR oder IN tauschen.",
    ),
]


def _raised(raise_it: Callable[[], object]) -> IllegalMoveError:
    with pytest.raises(IllegalMoveError) as info:
        raise_it()
    return info.value


@pytest.mark.parametrize(
    ("code", "reason", "raise_it", "german"), CASES, ids=[f"{c}-{r}" for c, r, *_ in CASES]
)
def test_a_refusal_reads_as_the_engine_says_in_english_and_is_german_for_german_readers(
    code: str, reason: str, raise_it: Callable[[], object], german: str
) -> None:
    """Each refusal keeps the engine's English word for word, and a German reader reads German."""
    e = _raised(raise_it)
    assert (e.code, e.reason) == (code, reason)
    text = refusal(e)
    assert ENGLISH(text) == e.message
    assert german in GERMAN(text)


def test_every_rule_error_code_has_a_german_sentence() -> None:
    """The cases reach every code a rule refuses with (not_your_turn is the server's own)."""
    covered = {code for code, *_ in CASES}
    assert covered == (set(RULE_ERROR_CODES) | set(LEAVE_ERROR_CODES)) - {"not_your_turn"}


def test_a_gender_refusal_names_the_mans_gender_too() -> None:
    """A joker of the other gender is exchanged for a man of the chair's nations, said so in German."""
    e = _raised(lambda: play(_plain(chairs={"FR1e": "Jm=FR", "FR1s": "FRf"}), "swap FRf@FR1e"))
    assert GERMAN(refusal(e)).startswith("Der Joker auf FR1e (Jm=FR) lässt sich nur gegen einen Herrn aus")


def test_a_gender_refusal_counts_one_guest_in_the_singular() -> None:
    """One man or one woman is counted so, in the engine's English as in the server's."""
    e = _raised(lambda: play(_plain(chairs={"FR1n": "FRm", "FR1e": "FRf", "FR1s": "FRm"}), "FRm@CN1e"))
    assert e.message == "FRm on CN1e would leave FR1 with 3 men and 1 woman."
    assert ENGLISH(refusal(e)) == e.message
