"""When two names are one: the look-alike form of a name (a table checked against Unicode's
confusables data, UTS #39, joined with case) and the reserved names."""

from __future__ import annotations

import functools
import hashlib
import unicodedata
from collections import Counter

import pytest
from confusable_homoglyphs import confusables  # type: ignore[import-untyped]  # (no stubs)
from hypothesis import given
from hypothesis import strategies as st

import protocol.names
from protocol.names import (
    FORMS,
    NAME_CHARACTERS,
    NAME_MAX,
    RESERVED,
    ReservedNames,
    alike,
    alike_version,
    is_name,
)
from tests.examples import run_examples

# --- the forms from Unicode's data ---------------------------------------------------------------------
#
# Unicode's confusables (UTS #39) as confusable-homoglyphs ships them (a test dependency): its data is
# confusables.txt as pairs listed both ways, from which the prototypes are read. The server carries
# only the table this gives for the characters of names (protocol.names.FORMS).


def _homoglyphs(char: str) -> list[str]:
    """What the confusables data lists beside ``char``: its prototype, or what looks like it."""
    found = confusables.is_confusable(char, greedy=True)
    if not found:
        return []
    # right-to-left characters are listed between marks that keep their lines readable
    return [str(h["c"]).strip("\u200e\u200f") for h in found[0]["homoglyphs"]]


@functools.lru_cache(maxsize=4096)
def _prototype(char: str) -> str:
    """What ``char`` is mapped to in a skeleton: its prototype in UTS #39's confusables data.

    The data lists a character with its one prototype, and a prototype with everything that looks
    like it. Two characters listed only with each other cannot be told apart by it: the lesser
    stands for both, which compares strings exactly as their prototype would."""
    others = _homoglyphs(char)
    if len(others) != 1:
        return char  # nothing looks like it, or it is the prototype of several
    (other,) = others
    if len(other) > 1 or len(_homoglyphs(other)) > 1:
        return other  # it looks like ``other``, a sequence (m: rn) or the prototype of several
    return min(char, other)


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text``: strings that look alike have the same skeleton."""
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(map(_prototype, decomposed)))


@functools.cache
def _folds() -> dict[str, str]:
    """Each character of a name's skeleton, in lower case, to what stands for it in a form.

    Names are compared whatever their capitals, so what a character looks like in either case
    counts: ``i`` is ``I`` in capitals, which looks like ``l``; the three are one in a form. Only
    the characters a name may hold are joined so (through other scripts ``v`` would meet ``n``:
    Greek nu looks like v, and its capital like N)."""
    classes = {c: {c} for c in NAME_CHARACTERS}
    for c in NAME_CHARACTERS:
        for other in (c.casefold(), skeleton(c)):
            if other in classes and classes[other] is not classes[c]:
                joined = classes[c] | classes[other]
                for member in joined:
                    classes[member] = joined
    folds: dict[str, str] = {}
    sequences: dict[str, str] = {}  # a character drawn as several (m: rn) -> those
    for members in {id(m): m for m in classes.values()}.values():
        drawn = [skeleton(c).casefold() for c in sorted(members)]
        sequence = next((d for d in drawn if len(d) > 1), None)
        counts = Counter(drawn)
        stand_in = max(sorted(counts), key=counts.__getitem__)  # the most common, then the first
        for c in members:
            folds[c] = stand_in
            if sequence is not None:
                sequences[c] = sequence
    for c, sequence in sequences.items():  # by what stands for each of its characters
        folds[c] = "".join(folds.get(s, s) for s in sequence)
    return folds


def form_from_unicode(text: str) -> str:
    """The form of any text as Unicode's data gives it: its skeleton in lower case, each
    character a name may hold by what stands for it."""
    folds = _folds()
    return "".join(folds.get(c, c) for c in skeleton(text).casefold())


def test_the_table_of_forms_is_the_one_unicodes_data_gives() -> None:
    """``protocol.names.FORMS`` is, character for character, the form Unicode's confusables data
    (with case) gives each character a name may hold."""
    assert dict(FORMS) == {c: form_from_unicode(c) for c in NAME_CHARACTERS}


NAMES = st.from_regex(rf"[A-Za-z][A-Za-z0-9_-]{{0,{NAME_MAX - 1}}}", fullmatch=True)


@given(NAMES)
def test_a_names_form_is_the_one_unicodes_data_gives_the_whole_name(name: str) -> None:
    """For any name, the table's form is the form of the whole name from Unicode's data (whose
    skeleton could join characters: it does not for names)."""
    assert alike(name) == form_from_unicode(name)


#: names a font draws as ``alice`` or ``admin`` (or nearly), none of them ASCII
UNICODE_LOOK_ALIKES = [
    "\u0430lice",  # Cyrillic a
    "al\u0456ce",  # Cyrillic i
    "ali\u0441e",  # Cyrillic es
    "alic\u0435",  # Cyrillic ie
    "\u0391lice",  # Greek capital alpha
    "a\u0406ice",  # Cyrillic capital I (Byelorussian-Ukrainian)
    "\uff41lice",  # fullwidth a
    "\uff21LICE",  # fullwidth A
    "a\u2113ice",  # script small l
    "a\U0001d425ice",  # mathematical bold l
    "a\u217cice",  # small roman numeral fifty
    "\u0251lice",  # Latin alpha
    "\u0430dm\u0456n",  # Cyrillic a and i
    "adm\u0131n",  # dotless i
]

#: what else people paste to pass for someone: invisible, bidi and combining characters
INVISIBLE_OR_COMBINING = [
    "ali\u200bce",  # zero-width space
    "alice\u200d",  # zero-width joiner
    "\u2060alice",  # word joiner
    "\u202eecila",  # right-to-left override
    "ali\u200fce",  # right-to-left mark
    "\ufeffalice",  # byte order mark
    "ali\u0307ce",  # combining dot above
    "alice\u0301",  # combining acute
    "al\u00edce",  # i with acute (composed)
    "a\u0338lice",  # combining long solidus overlay
]


@pytest.mark.parametrize("name", UNICODE_LOOK_ALIKES)
def test_the_confusables_data_draws_unicode_look_alikes_as_their_latin_names(name: str) -> None:
    """Cyrillic, Greek, fullwidth and mathematical letters have the skeleton of the Latin name
    they pass for; such names are no names at all here (``bad_name``): names are ASCII."""
    latin = "admin" if "d" in name else "alice"
    assert form_from_unicode(name) == alike(latin)
    assert not is_name(name)


@pytest.mark.parametrize("name", INVISIBLE_OR_COMBINING)
def test_invisible_bidi_and_combining_characters_are_no_name(name: str) -> None:
    """Zero-width, bidi and combining characters never make a name."""
    assert not is_name(name) and not is_name(unicodedata.normalize("NFC", name))


def test_the_skeleton_follows_uts39_for_the_characters_of_names() -> None:
    """Of the characters a name may hold, capital I and the digit 1 are drawn as l, 0 as O and m as
    rn, as in Unicode's confusables.txt; every other one is its own prototype."""
    mapped = {c: skeleton(c) for c in NAME_CHARACTERS if skeleton(c) != c}
    assert mapped == {"I": "l", "1": "l", "0": "O", "m": "rn"}


def test_a_pair_listed_only_with_each_other_has_one_prototype() -> None:
    """Two characters the data lists only with each other (Hebrew accents here) get one stand-in,
    so each pair compares equal either way."""
    assert skeleton("\u05ad") == skeleton("\u0596")


def test_names_are_one_when_a_chain_of_case_changes_and_look_alikes_joins_them() -> None:
    """For every string of one or two name characters: the same form exactly when a chain of steps
    (another case, or another string of the same UTS #39 skeleton) leads from one to the other;
    ``iisa`` is ``Iisa`` in another case, which looks like ``lisa``."""
    strings = [*NAME_CHARACTERS, *(a + b for a in NAME_CHARACTERS for b in NAME_CHARACTERS)]
    parent = {s: s for s in strings}

    def root(s: str) -> str:
        while parent[s] != s:
            s = parent[s]
        return s

    for key in (str.casefold, skeleton):
        first: dict[str, str] = {}
        for s in strings:
            other = first.setdefault(key(s), s)
            parent[root(s)] = root(other)
    joined: dict[str, set[str]] = {}
    by_form: dict[str, set[str]] = {}
    for s in strings:
        joined.setdefault(root(s), set()).add(s)
        by_form.setdefault(alike(s), set()).add(s)
    assert all(by_form[alike(s)] == joined[root(s)] for s in strings)
    assert alike("iisa") == alike("lisa") and alike("vick") != alike("nick")


@given(NAMES)
def test_a_form_is_the_forms_of_its_characters_and_ignores_case(name: str) -> None:
    """A name's form is made character by character (so forms of names stored as they are read
    stay right), and is the same in upper and lower case."""
    assert alike(name) == "".join(alike(c) for c in name)
    assert alike(name) == alike(name.upper()) == alike(name.lower()) == alike(name.swapcase())


def test_the_version_of_the_forms_is_a_digest_of_the_table() -> None:
    """Twelve hex digits of the table's digest, the same in every process (the one the forms made
    from Unicode's data had, so logs indexed with those keep them)."""
    forms = " ".join(FORMS[c] for c in NAME_CHARACTERS)
    assert alike_version() == hashlib.sha256(forms.encode()).hexdigest()[:12] == "36fe4320bc04"


@pytest.mark.parametrize("word", RESERVED)
def test_each_reserved_word_is_kept_in_any_case(word: str) -> None:
    """``server``, ``system``, ``admin``, ``moderator``, ``mod`` and ``bot``, also in capitals."""
    reserved = ReservedNames([])
    assert word in reserved and word.upper() in reserved and word.title() in reserved


def test_the_bots_names_are_kept_and_nothing_else() -> None:
    """Each strategy's name and its bots' names (``greedy-bot3``, ``greedybot``, ``greedy_bot``,
    look-alikes too), and those with only digits, ``-`` or ``_`` around them (``bot1``,
    ``Greedy-``, ``greedy-bot-1``); not other names nor things that are no strings."""
    reserved = ReservedNames(["greedy"])
    kept = ("greedy", "GREEDY", "greedy-bot3", "greedybot", "greedy_bot", "Greedy-B0tl0")
    padded = ("bot1", "Greedy-", "greedy-bot-1", "_greedy_bot_", "Server--", "system_")
    assert all(n in reserved for n in (*kept, *padded))
    assert not any(n in reserved for n in ("greedy-bottle", "greedier", "strong", "bots", "robot2", None, 7))


def test_the_modules_examples_hold() -> None:
    """The docstring examples of ``protocol.names`` (``aIice`` and ``alice``, the reserved names)."""
    found = run_examples(protocol.names)
    assert found.attempted >= 7 and found.failed == 0
