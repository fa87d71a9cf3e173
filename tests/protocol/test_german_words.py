"""A German reader reads German: every translated text of the catalogs, every option refusal and
what a room is told of an option, every help text and usage, every refusal of a command's
arguments, of a message's fields and of a move holds no English word that is not command syntax
(``tests.protocol.english``); texts once built from English pieces are whole German sentences."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from babel.messages.pofile import read_po

from engine import IllegalMoveError
from protocol.commands import COMMANDS, help_text, parse_command
from protocol.errors import ProtocolError
from protocol.i18n import LOCALE_DIR, lang
from protocol.messages import parse_client_message
from protocol.options import KEYS, OptionError, announcement, check_json, check_value, parse_text
from protocol.refusals import refusal
from tests.protocol.english import JSON_WORDS, english_words
from tests.protocol.test_commands import BAD_ARGUMENTS
from tests.protocol.test_refusals import CASES as RULE_CASES

GERMAN = lang("de")


def _translations(domain: str) -> list[tuple[str, str]]:
    """Every (message id, German text) of a domain's catalog, each plural form on its own."""
    with (LOCALE_DIR / "de" / "LC_MESSAGES" / f"{domain}.po").open("rb") as f:
        catalog = read_po(f, locale="de")
    pairs = []
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
        pairs.extend((" ".join(map(str, ids)), str(text)) for text in strings if text)
    return pairs


@pytest.mark.parametrize("domain", ["cafe", "page"])
def test_every_german_text_of_the_catalogs_holds_no_english(domain: str) -> None:
    """Each German text of the server's and the page's catalogs is free of English words but for
    command syntax; JSON's true, false and null only where the English names them too."""
    leftovers = [
        (text, found)
        for msgid, text in _translations(domain)
        if (found := english_words(text, syntax={w for w in JSON_WORDS if w in msgid}))
    ]
    assert leftovers == []


#: for each option, a typed value that is none of its values, and a JSON value it does not take
BAD_VALUES: dict[str, tuple[str, Any]] = {
    "seed": ("soon", -1),
    "stammtisch": ("ja", "on"),
    "clock": ("bald", "60"),
    "absent": ("vielleicht", 3),
    "host": ("ja", 1),
    "private": ("nein", "yes"),
    "drawseat": ("ja", None),
    "start": ("erster", 9),
}


def _refused(check: Callable[[], object]) -> str:
    with pytest.raises(OptionError) as caught:
        check()
    return caught.value.text


@pytest.mark.parametrize("key", KEYS)
def test_each_option_refusal_is_a_german_sentence_for_its_option(key: str) -> None:
    """A typed value that is none of an option's, and a JSON value of another type or out of range,
    are refused in a whole German sentence of that option (its key and words as syntax)."""
    typed, sent = BAD_VALUES[key]
    for text, syntax in (
        (_refused(lambda: parse_text(key, typed)), frozenset[str]()),
        (_refused(lambda: check_json(key, sent)), JSON_WORDS),
    ):
        german = GERMAN(text)
        assert german != text and key in german, german
        assert english_words(german, syntax=syntax) == [], german


def test_an_unknown_option_a_short_clock_and_a_switch_are_refused_in_german() -> None:
    """The refusals the German sessions met in English: an unknown option (typed or sent), a clock
    shorter than the server's least, a switch given another word than on or off."""
    unknown = (
        "Es gibt keine Option 'uhr'; die Optionen sind seed, stammtisch, clock, absent, host, "
        "private, drawseat und start."
    )
    assert GERMAN(_refused(lambda: parse_text("uhr", "5"))) == unknown
    assert GERMAN(_refused(lambda: check_json("uhr", 5))) == unknown
    assert GERMAN(_refused(lambda: check_value("clock", 2, clock_min=5))) == (
        "Die Bedenkzeit (clock) beträgt hier 5 bis 3600 Sekunden je Zug, oder off."
    )
    assert GERMAN(_refused(lambda: parse_text("stammtisch", "ja"))) == (
        "stammtisch wird mit on eingeschaltet und mit off ausgeschaltet."
    )


#: the values each option may be set to, for the sentence the room is told
SET_VALUES: dict[str, tuple[Any, ...]] = {
    "seed": (None, 42),
    "stammtisch": (True, False),
    "clock": (None, 60, 7.5),
    "absent": ("bot", "drop"),
    "host": (True, False),
    "private": (True, False),
    "drawseat": (True, False),
    "start": (None, 2),
}


@pytest.mark.parametrize(("key", "value"), [(k, v) for k, values in SET_VALUES.items() for v in values])
def test_each_option_set_is_told_to_the_room_in_a_german_sentence(key: str, value: Any) -> None:
    """What a room is told when someone sets an option is one German sentence for the option and
    its value: no English word, no True or False."""
    german = GERMAN(announcement("Emil", key, value))
    assert german.startswith("Emil ") and german != announcement("Emil", key, value)
    assert english_words(german, names={"Emil"}) == [], german


def test_the_stammtisch_and_clock_notices_read_as_german_sentences() -> None:
    """Setting stammtisch, the clock or a random seed is told in German words for what happened
    (the Stammtisch switched on, the Bedenkzeit set to 60 seconds, the Startwert to chance), never
    as an option's name set to an English value."""
    assert GERMAN(announcement("Emil", "stammtisch", True)) == (
        "Emil hat den Stammtisch eingeschaltet: drei oder vier Gäste eines Geschlechts dürfen einen "
        "Tisch füllen."
    )
    assert (
        GERMAN(announcement("Emil", "clock", 60))
        == "Emil hat die Bedenkzeit auf 60 Sekunden je Zug gestellt."
    )
    assert GERMAN(announcement("Emil", "seed", None)) == "Emil hat den Startwert auf Zufall gestellt."


@pytest.mark.parametrize("topic", [None, *COMMANDS])
def test_every_help_text_reads_german_with_german_placeholders(topic: str | None) -> None:
    """/help and /help COMMAND hold no English word: placeholders that are words are German."""
    german = GERMAN(help_text(topic))
    assert english_words(german) == [], german


def test_usages_name_their_arguments_in_german() -> None:
    """The usages the issue names: ROOM, KEY VALUE, STRATEGY and the "or" between are German."""
    usages = {name: GERMAN(info.usage) for name, info in COMMANDS.items()}
    assert usages["join"] == "/join [RAUM oder N]"
    assert usages["option"] == "/option OPTION WERT"
    assert usages["addbot"] == "/addbot [STRATEGIE]"
    assert usages["swap"] == "/swap KARTE@STUHL"
    assert [u for u in usages.values() if english_words(u)] == []


@pytest.mark.parametrize(("line", "usage"), BAD_ARGUMENTS, ids=[line[:30] for line, _ in BAD_ARGUMENTS])
def test_every_refusal_of_a_commands_arguments_reads_german(line: str, usage: str) -> None:
    """Each wrong way to type a command is refused in German, the usage included."""
    with pytest.raises(ProtocolError) as caught:
        parse_command(line)
    german = GERMAN(caught.value.message)
    assert "Aufruf: " in german and english_words(german) == [], german


@pytest.mark.parametrize(
    "raw",
    [
        '{"type": "say"}',
        '{"type": "say", "text": 5}',
        '{"type": "say", "text": ""}',
        '{"type": "move", "move": "' + "x" * 201 + '"}',
        '{"type": "option", "key": "colour", "value": 1}',
        '{"type": "add_bot", "strategy": "clever"}',
        '{"type": "hello", "name": "ann", "kind": "robot"}',
        '{"type": "join", "seat": 5}',
        '{"type": "join", "seat": 1.5}',
        '{"type": "ping", "extra": 1}',
        '{"type": "ping", "id": true}',
        '{"type": "lang", "lang": "fr"}',
        '{"type": "say", "text": "\\u001b"}',
        '{"type": "dance"}',
        "[1, 2]",
        "{not json",
    ],
)
def test_every_refusal_of_a_message_reads_german(raw: str) -> None:
    """A frame the server refuses (its JSON, its type, a field pydantic finds wrong, a validator's
    own refusal) is told in German; JSON's words and the message types are syntax there."""
    with pytest.raises(ProtocolError) as caught:
        parse_client_message(raw)
    german = GERMAN(caught.value.message)
    assert german != caught.value.message, german
    assert english_words(german, syntax=JSON_WORDS) == [], german


@pytest.mark.parametrize(
    ("code", "reason", "raise_it", "_"), RULE_CASES, ids=[f"{c}-{r}" for c, r, *_ in RULE_CASES]
)
def test_every_rule_refusal_reads_german(
    code: str, reason: str, raise_it: Callable[[], object], _: str
) -> None:
    """Each sentence a rule refuses a move with is German, the examples of the notation joined
    with "oder"."""
    with pytest.raises(IllegalMoveError) as caught:
        raise_it()
    german = GERMAN(refusal(caught.value))
    assert english_words(german) == [], german


def test_the_check_finds_the_english_the_german_sessions_read() -> None:
    """The words check catches each leftover a German session showed, and passes their German."""
    leftovers = [
        "stammtisch is true or false (on or off).",
        "No option 'uhr'; the options are seed, clock and start.",
        "clock is 5 to 3600 seconds per turn, or off.",
        "The language is one of: en, de.",
        "Wähle einen leuchtenden Stuhl, or die Bar.",
        "Emil hat stammtisch auf True gestellt.",
        "* greedy-bot1 nimmt Platz (greedy-Bot)",
        "/join [ROOM oder N]",
        "tisch  waiting  ann",
        "connected",
        "Der Seed war 5.",
        "Nur der Gastgeber darf hier: set options.",
    ]
    assert [text for text in leftovers if not english_words(text)] == []
    assert english_words("Emil hat den Startwert auf Zufall gestellt (seed random).") == []
    assert english_words("stammtisch ist true (an) oder false (aus).") == ["true", "false"]
    assert english_words("stammtisch ist true (an) oder false (aus).", syntax=JSON_WORDS) == []
