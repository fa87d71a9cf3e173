"""English left in a German text: the words of English sentences, English placeholders and
English compounds, with what is command syntax set aside first.

Set aside as syntax: codes in brackets (``[bad_option]``), what is quoted (a repr of what was
typed, JSON), commands and paths (``/option``, ``/games/ID``), the move notation and any token
with a digit, a dot, ``@``, ``=`` or ``_`` in it (``FRf@FR1s``, ``engine.leave``, ``greedy-bot1``),
``{placeholders}``, and the words of commands and messages written in lower case, as they are
typed (``on``, ``off``, ``seed``, ``random``, ``hello``...). A word of that syntax capitalised
("Seed", "Host") is a German sentence using an English word, and counts. JSON's ``true``,
``false`` and ``null`` are syntax only where the caller says so (a refusal of a JSON message).

>>> english_words("stammtisch is true or false (on or off).")
['is', 'true', 'or', 'false', 'or']
>>> english_words("stammtisch wird mit on eingeschaltet und mit off ausgeschaltet.")
[]
>>> english_words("* greedy-bot1 nimmt Platz (greedy-Bot)")
['greedy-Bot']
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final, get_args

from protocol.messages import ClientMessage
from protocol.options import KEYS

__all__ = ["ENGLISH", "JSON_WORDS", "SYNTAX", "english_words"]

_ENGLISH_WORDS: Final = """
    the a is are were be been being or and to of for from with without by at not no yes you your
    it its this that these those there here which what who when then than only each every some
    any more most least up out over into after before again already yet game games player players
    room rooms seat seats card cards chair chairs table tables turn turns move moves second seconds
    number whole true false none waiting playing connected connection options
    value values field input required integer valid character characters letters digits starting
    usage arguments takes needs password passwords language message strategy guest
    guests score scores points place places rated rating wins won friend friends tell tells vote
    votes away back left gone shuffle deck nobody someone everyone please try later wait
    between frame should must can cannot has have had could would one two three four first
    last next all seed host clock private random absent drop swap leave on off join watch too much
    many slow down now just very do does did done get got make makes see sees shows give gives
    take took put says said ask asks asked answer answers want know like new old same other own
"""
#: English words that are not German words as well, looked for in any case
ENGLISH: Final = frozenset(_ENGLISH_WORDS.split())
#: placeholders of a usage or a help text that are English words
ENGLISH_PLACEHOLDERS: Final = frozenset(
    {"ROOM", "CARD", "CHAIR", "KEY", "VALUE", "STRATEGY", "MOVE", "COMMAND", "SECONDS", "PASSWORD"}
)
#: what a person types or a program sends (commands' words, the message types), written as it is
#: in every language, in lower case
SYNTAX: Final = frozenset(
    {
        *KEYS,
        *("on", "off", "random", "bot", "drop", "greedy", "strong", "en", "de"),
        *("swap", "leave", "bar", "hello", "pong"),
        *("new", "swiss", "arena", "close"),  # /tournament's words
        *("all", "none", "moderator", "admin", "perm"),  # the staff's words (/reports, /role, /ban)
        *("any", "rated", "casual", "bots"),  # /seek's words
        *(str(kind.model_fields["type"].default) for kind in get_args(get_args(ClientMessage)[0])),
    }
)
#: JSON's own words, syntax where a message's JSON is the subject
JSON_WORDS: Final = frozenset({"true", "false", "null"})

_COMPOUND = re.compile(r"\b(?:random|greedy|strong)-Bot\b|\b(?:True|False|None)\b")
_SET_ASIDE = (
    re.compile(r"\[[a-z_]+\]"),  # an error code
    re.compile(r"\{\w*\}"),  # a placeholder left in a catalog's text
    re.compile(r"\"[^\"\n]*\"|'[^'\n]*'"),  # quoted: JSON, or what someone typed
    re.compile(r"(?<![\w/])/[\w/.]+"),  # a command or a path
    re.compile(r"\S*[0-9@=_]\S*|\S*\w\.\w\S*"),  # notation, numbers, names with digits, files
)
_WORD = re.compile(r"[A-Za-zÄÖÜäöüß]+(?:-[A-Za-zÄÖÜäöüß]+)*")


def english_words(text: str, *, syntax: Iterable[str] = (), names: Iterable[str] = ()) -> list[str]:
    """The English words of ``text`` that are not command syntax, in order; ``syntax`` adds words
    that are syntax here (``JSON_WORDS``), ``names`` the names of people and rooms it may name."""
    found = [m.group() for m in _COMPOUND.finditer(text)]
    rest = _COMPOUND.sub(" ", text)
    for pattern in _SET_ASIDE:
        rest = pattern.sub(" ", rest)
    allowed = SYNTAX | set(syntax) | set(names)
    for token in _WORD.findall(rest):
        if token in allowed:
            continue
        if token.isupper() and len(token) > 1:
            if token in ENGLISH_PLACEHOLDERS:
                found.append(token)
            continue
        found.extend(part for part in token.split("-") if part.lower() in ENGLISH and part not in allowed)
    return found
