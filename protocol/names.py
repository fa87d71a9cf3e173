"""What a player's name and a room's name may be, and when two names are one: the one place their
limits live.

>>> is_name("ann"), is_name("9lives"), is_name("ann\\n"), is_room_name("café")
(True, False, False, False)

Names are told apart whatever their capitals, and by how they look: two names with the same
:func:`alike` form are one name to the server (``alice``, ``ALICE`` and ``aIice`` with a capital I).

>>> alike("alice") == alike("aIice") == alike("ALICE"), alike("alice") == alike("alicia")
(True, False)
"""

from __future__ import annotations

import functools
import hashlib
import re
import string
import unicodedata
from collections import Counter
from collections.abc import Iterable
from typing import Final

from protocol.i18n import _

NAME_MAX: Final = 16
ROOM_MAX: Final = 24
#: the longest name, room name or token a message may carry before it is checked (longer is
#: ``bad_field`` at once; between this and the real limit the lobby says what a name may be)
FIELD_MAX: Final = 64

NAME_RULE: Final = _("1 to {n} letters, digits, '_' or '-', starting with a letter", n=NAME_MAX)
ROOM_RULE: Final = _("1 to {n} letters, digits, '_' or '-'", n=ROOM_MAX)

_NAME = re.compile(rf"[A-Za-z][A-Za-z0-9_-]{{0,{NAME_MAX - 1}}}")
_ROOM = re.compile(rf"[A-Za-z0-9][A-Za-z0-9_-]{{0,{ROOM_MAX - 1}}}")


def is_name(text: str) -> bool:
    """Whether ``text`` may be a player's name (ASCII only, so it is safe on any terminal)."""
    return _NAME.fullmatch(text) is not None


def is_room_name(text: str) -> bool:
    """Whether ``text`` may be a room's name."""
    return _ROOM.fullmatch(text) is not None


# --- names that look alike ---------------------------------------------------------------------------
#
# Unicode's confusables (UTS #39) come from confusable-homoglyphs: pure Python, kept (Debian packages
# it too), its data Unicode's confusables.txt as pairs listed both ways, from which the prototypes
# are read below (ICU's spoof checker computes skeletons itself, but PyICU needs ICU built). It is
# loaded on the first comparison, not at import: about 9 MB that a bot or a tool that never
# compares names need not hold.

#: the characters a name is made of (see ``NAME_RULE``)
NAME_CHARACTERS: Final = string.ascii_letters + string.digits + "_-"


def _homoglyphs(char: str) -> list[str]:
    """What the confusables data lists beside ``char``: its prototype, or what looks like it."""
    from confusable_homoglyphs import confusables  # type: ignore[import-untyped]  # (no stubs)

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
    """The UTS #39 skeleton of ``text``: strings that look alike have the same skeleton.

    >>> skeleton("aIice") == skeleton("a1ice") == skeleton("\u0430lice") == "alice", skeleton("m0d")
    (True, 'rnOd')
    """
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


@functools.lru_cache(maxsize=8192)  # (the names of the seats a claim looks through)
def alike(name: str) -> str:
    """The form a name is compared by: names with the same form look alike or differ only in
    case (or both), and the server holds them as one name.

    >>> alike("alice"), alike("aIice"), alike("ALICE"), alike("a1ice"), alike("ALlCE")
    ('allce', 'allce', 'allce', 'allce', 'allce')
    >>> alike("Mod") == alike("rn0d") == alike("MOD"), alike("vick") == alike("nick")
    (True, False)
    """
    folds = _folds()
    return "".join(folds.get(c, c) for c in skeleton(name).casefold())


@functools.cache
def alike_version() -> str:
    """A short digest of the forms of every character a name may hold: stored forms made with
    another version of the confusables data are made again."""
    forms = " ".join(alike(c) for c in NAME_CHARACTERS)
    return hashlib.sha256(forms.encode()).hexdigest()[:12]


#: names kept for the server and its staff (in any case, and any look-alike)
RESERVED: Final = ("server", "system", "admin", "moderator", "mod", "bot")


class ReservedNames:
    """The names nobody may take as a guest or register: :data:`RESERVED` and the names of the
    server's bots (their strategies, and ``STRATEGY-botN`` as the bots are called, with or without
    the dash), in any case and any look-alike.

    >>> reserved = ReservedNames(["greedy", "strong"])
    >>> [n in reserved for n in ("ADMlN", "Server", "m0d", "Greedy", "strong-Bot12", "STRONGBOT")]
    [True, True, True, True, True, True]
    >>> [n in reserved for n in ("modest", "admins", "greedy-bottle", "robot", "strongman")]
    [False, False, False, False, False]
    """

    def __init__(self, strategies: Iterable[str]) -> None:
        strategies = list(strategies)
        self._forms = frozenset(alike(word) for word in (*RESERVED, *strategies))
        bots = "|".join(re.escape(alike(s)) for s in strategies)
        digits = re.escape("".join(sorted({alike(d) for d in string.digits})))
        self._bot = re.compile(rf"(?:{bots})[-_]?{re.escape(alike('bot'))}[{digits}]*")

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        form = alike(name)
        return form in self._forms or self._bot.fullmatch(form) is not None


__all__ = [
    "FIELD_MAX",
    "NAME_CHARACTERS",
    "NAME_MAX",
    "NAME_RULE",
    "RESERVED",
    "ROOM_MAX",
    "ROOM_RULE",
    "ReservedNames",
    "alike",
    "alike_version",
    "is_name",
    "is_room_name",
    "skeleton",
]
