"""The one sanitizer for person-written text: safe for a terminal, one line."""

from __future__ import annotations

import doctest
import re
import unicodedata

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import protocol.sanitize
from protocol.sanitize import (
    BIDI_CONTROLS,
    BLANK_LETTERS,
    FORMAT_CHARACTERS,
    LINE_BREAKS,
    SPACES,
    VISIBLE,
    sanitize_line,
)


def test_doctests() -> None:
    """The module's examples hold."""
    assert doctest.testmod(protocol.sanitize).failed == 0


@pytest.mark.parametrize(
    ("text", "clean"),
    [
        ("A\x1b[2JB", "A[2JB"),  # clear screen
        ("\x1b]0;owned\x07x", "]0;ownedx"),  # OSC window title, ended by BEL
        ("\x1b]0;owned\x1b\\x", "]0;owned\\x"),  # OSC ended by ST
        ("\x1bcx", "cx"),  # full reset
        ("a\x07b", "ab"),
        ("abc\x08\x08\x08xyz", "abcxyz"),  # backspaces that would overwrite
        ("a\rb", "a b"),
        ("a\x00b", "ab"),
        ("a\x9b2Jb", "a2Jb"),  # C1 CSI
        ("a\x7fb", "ab"),
        ("\u202egnp.exe", "gnp.exe"),
        ("a\u2066b\u2069c\u200ed\u200fe\u061cf", "abcdef"),
        ("a\u2028b\u2029c", "a b c"),
        ("a\x85b\x0bc\x0cd", "a b c d"),
        ("a\x1cb\x1dc\x1ed", "a b c d"),
        ("G\nH* The game starts", "G H* The game starts"),
        ("G \r\n \r\n H", "G H"),
        ("a\tb", "a b"),
        ("\n  hi  \n", "hi"),
        ("Grüße, 東京 🎲", "Grüße, 東京 🎲"),
        ("a\ud800b", "ab"),
        ("A" + "\u00ad" * 72 + "* tsVic gives up the seat", "A* tsVic gives up the seat"),  # soft hyphens
        ("a\u200bb\u2060c\ufeffd", "abcd"),  # zero-width space, word joiner, byte order mark
        ("\U0001f3f4\U000e0067\U000e0062\U000e007f!", "\U0001f3f4!"),  # tags
        ("\u0600\u0661 \U000110bd", "\u0661"),  # prepended marks, drawn by some terminals only
        ("\U0001f469\u200d\U0001f4bb \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", None),  # joiners stay
    ],
)
def test_sanitize_line(text: str, clean: str | None) -> None:
    """Controls and format characters go (but the joiners), line breaks become one space, other
    text stays (``None``: all of it)."""
    assert sanitize_line(text) == (text if clean is None else clean)


def test_the_format_characters_are_unicode_s_but_the_joiners() -> None:
    """``FORMAT_CHARACTERS`` holds every character this Python's Unicode tables call a format
    character (Cf) but ZWNJ and ZWJ, and nothing those tables call anything else but unassigned
    (the ranges are Unicode 15.1's, a newer version than some Pythons know)."""
    listed = {c for c in map(chr, range(0x110000)) if re.fullmatch(f"[{FORMAT_CHARACTERS}]", c)}
    formats = {c for c in map(chr, range(0x110000)) if unicodedata.category(c) == "Cf"}
    assert formats - listed == {"\u200c", "\u200d"}
    assert {unicodedata.category(c) for c in listed - formats} <= {"Cn"}
    assert set(BIDI_CONTROLS) <= listed


#: the spaces but the plain one, by this Python's Unicode tables
_SPACES = "".join(c for c in map(chr, range(0x110000)) if unicodedata.category(c) == "Zs" and c != " ")


def test_every_space_but_the_plain_one_becomes_plain() -> None:
    """``SPACES`` is every character this Python's Unicode tables call a space separator (Zs) but
    the plain space; each becomes a plain space, which a page shows a run of as one (no run of
    ideographic spaces pads a line out so that what follows starts a line of its own)."""
    listed = {c for c in map(chr, range(0x110000)) if re.fullmatch(f"[{SPACES}]", c)}
    assert listed == set(_SPACES)
    assert sanitize_line("gg" + "\u3000" * 150 + "<bob> hi") == "gg" + " " * 150 + "<bob> hi"
    assert all(sanitize_line(f"a{c}b") == "a b" for c in listed)
    assert sanitize_line("\u3000\u00a0\u2003") == ""


def test_letters_and_symbols_drawn_blank_become_plain_spaces() -> None:
    """The Hangul fillers and the blank Braille pattern are letters and symbols that most fonts
    draw as nothing or a blank: each becomes a plain space, so a message of them alone is empty and
    a run of them pads no line, as a run of spaces does not."""
    assert set(BLANK_LETTERS) == {"\u115f", "\u1160", "\u2800", "\u3164", "\uffa0"}
    assert all(sanitize_line(f"a{c}b") == "a b" and sanitize_line(c * 3) == "" for c in BLANK_LETTERS)
    assert sanitize_line("x " + "\u3164" * 50 + "<admin> hi") == "x " + " " * 50 + "<admin> hi"


_DANGEROUS = set(BIDI_CONTROLS) | set(LINE_BREAKS) | {"\t"} | set(_SPACES) | set(BLANK_LETTERS)


@given(st.text(alphabet=st.characters(codec=None), max_size=60))
def test_any_text_comes_out_one_safe_line(text: str) -> None:
    """Whatever goes in, what comes out has no control, format (but the joiners) or line-breaking
    character, is one line, and is its own sanitization."""
    clean = sanitize_line(text)
    assert not any(unicodedata.category(c) in ("Cc", "Cs") or c in _DANGEROUS for c in clean)
    assert {c for c in clean if unicodedata.category(c) == "Cf"} <= {"\u200c", "\u200d"}
    assert len(clean.splitlines()) <= 1
    assert sanitize_line(clean) == clean


@given(
    st.text(
        alphabet=st.characters(categories=["L", "N", "P", "S"], exclude_characters=BLANK_LETTERS), max_size=60
    )
)
def test_printable_text_is_unchanged(text: str) -> None:
    """Letters, digits, punctuation and symbols pass as they are (but those drawn blank)."""
    assert sanitize_line(text) == text


#: blanks, breaks and the joiners, which a line may hold alone
_BLANKISH = st.sampled_from(" \t\u200c\u200d" + _SPACES + BLANK_LETTERS + LINE_BREAKS)


@given(st.text(alphabet=st.characters(exclude_categories=["Cs"]) | _BLANKISH))
@example("\u200d")
@example(" \u200c\t\u200d ")
@example("\u200da\u200d")
def test_the_schema_pattern_holds_exactly_when_something_is_left(text: str) -> None:
    """``VISIBLE`` (the chat text's pattern in schema.json) finds a character exactly when the
    sanitizer leaves something: a client that checks the pattern is never refused empty_message
    (joiners alone, which join nothing, included)."""
    assert (re.search(VISIBLE, text) is not None) == bool(sanitize_line(text))
