"""The one sanitizer for person-written text: safe for a terminal, one line."""

from __future__ import annotations

import doctest
import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

import protocol.sanitize
from protocol.sanitize import BIDI_CONTROLS, LINE_BREAKS, VISIBLE, sanitize_line


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
    ],
)
def test_sanitize_line(text: str, clean: str) -> None:
    """Controls and reordering marks go, line breaks become one space, other text stays."""
    assert sanitize_line(text) == clean


_DANGEROUS = set(BIDI_CONTROLS) | set(LINE_BREAKS) | {"\t"}


@given(st.text(alphabet=st.characters(codec=None), max_size=60))
def test_any_text_comes_out_one_safe_line(text: str) -> None:
    """Whatever goes in, what comes out has no control, reordering or line-breaking character,
    is one line, and is its own sanitization."""
    clean = sanitize_line(text)
    assert not any(unicodedata.category(c) in ("Cc", "Cs") or c in _DANGEROUS for c in clean)
    assert len(clean.splitlines()) <= 1
    assert sanitize_line(clean) == clean


@given(st.text(alphabet=st.characters(categories=["L", "N", "P", "S"]), max_size=60))
def test_printable_text_is_unchanged(text: str) -> None:
    """Letters, digits, punctuation and symbols pass as they are."""
    assert sanitize_line(text) == text


@given(st.text(alphabet=st.characters(exclude_categories=["Cs"]) | st.sampled_from(" \t" + LINE_BREAKS)))
def test_the_schema_pattern_holds_exactly_when_something_is_left(text: str) -> None:
    """``VISIBLE`` (the chat text's pattern in schema.json) finds a character exactly when the
    sanitizer leaves something: a client that checks the pattern is never refused empty_message."""
    assert (re.search(VISIBLE, text) is not None) == bool(sanitize_line(text))
