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

import hashlib
import re
import string
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Final

from protocol.i18n import _

NAME_MAX: Final = 16
ROOM_MAX: Final = 24
#: the longest name, room name or token a message may carry before it is checked (longer is
#: ``bad_field`` at once; between this and the real limit the lobby says what a name may be)
FIELD_MAX: Final = 64

NAME_RULE: Final = _(
    "1 to {n} letters A to Z (no accents), digits, '_' or '-', starting with a letter", n=NAME_MAX
)
ROOM_RULE: Final = _("1 to {n} letters, digits, '_' or '-', starting with a letter or digit", n=ROOM_MAX)

_NAME = re.compile(rf"[A-Za-z][A-Za-z0-9_-]{{0,{NAME_MAX - 1}}}")
_ROOM = re.compile(rf"[A-Za-z0-9][A-Za-z0-9_-]{{0,{ROOM_MAX - 1}}}")


def is_name(text: str) -> bool:
    """Whether ``text`` may be a player's name (ASCII only, so it is safe on any terminal)."""
    return _NAME.fullmatch(text) is not None


def is_room_name(text: str) -> bool:
    """Whether ``text`` may be a room's name."""
    return _ROOM.fullmatch(text) is not None


# --- names that look alike ---------------------------------------------------------------------------

#: the characters a name is made of (see ``NAME_RULE``)
NAME_CHARACTERS: Final = string.ascii_letters + string.digits + "_-"

#: what each character of a name stands for in its form: its lower case, but where a font draws
#: two alike in either case (Unicode's confusables, UTS #39: capital ``I`` and ``1`` look like
#: ``l``, ``0`` like ``O``, ``m`` like ``rn``), one stands for all: ``i I l L 1`` are ``l``,
#: ``o O 0`` are ``o``, ``m M`` are ``rn``. The tests derive this table from Unicode's data.
FORMS: Final[Mapping[str, str]] = MappingProxyType(
    {c: c.lower() for c in NAME_CHARACTERS}
    | {"i": "l", "I": "l", "L": "l", "1": "l", "0": "o", "O": "o", "m": "rn", "M": "rn"}
)
_FORMS_TABLE: Final = str.maketrans(dict(FORMS))


def alike(name: str) -> str:
    """The form a name is compared by: names with the same form look alike or differ only in
    case (or both), and the server holds them as one name. Characters no name holds are kept.

    >>> alike("alice"), alike("aIice"), alike("ALICE"), alike("a1ice"), alike("ALlCE")
    ('allce', 'allce', 'allce', 'allce', 'allce')
    >>> alike("Mod") == alike("rn0d") == alike("MOD"), alike("vick") == alike("nick")
    (True, False)
    """
    return name.translate(_FORMS_TABLE)


#: (the digest the forms made from Unicode's data had, so logs indexed with those keep them)
_VERSION: Final = hashlib.sha256(" ".join(alike(c) for c in NAME_CHARACTERS).encode()).hexdigest()[:12]


def alike_version() -> str:
    """A short digest of :data:`FORMS` (twelve hex digits): the forms a log stored under another
    table are made again as it opens."""
    return _VERSION


#: names kept for the server and its staff (in any case, and any look-alike)
RESERVED: Final = ("server", "system", "admin", "moderator", "mod", "bot")

#: the words of staff titles: a name made of one of them and digits, ``-`` or ``_`` and other
#: words (``admin2``, ``mod_ann``, ``ann-moderator``) looks like staff, and is kept too
STAFF_WORDS: Final = ("admin", "administrator", "moderator", "mod", "staff", "sysop", "operator")


class ReservedNames:
    """The names nobody may take as a guest or register: :data:`RESERVED` and the names of the
    server's bots (their strategies, and ``STRATEGY-botN`` as the bots are called, with or without
    the dash), in any case and any look-alike.

    >>> reserved = ReservedNames(["greedy", "strong"])
    >>> [n in reserved for n in ("ADMlN", "Server", "m0d", "Greedy", "strong-Bot12", "STRONGBOT")]
    [True, True, True, True, True, True]
    >>> [n in reserved for n in ("modest", "admins", "greedy-bottle", "robot", "strongman")]
    [False, False, False, False, False]

    Names that look like staff are kept as well (:data:`STAFF_WORDS`, standing alone between
    digits, ``-`` and ``_``), so that only staff are marked as staff:

    >>> [n in reserved for n in ("admin2", "Mod_Ann", "ann-m0derator", "STAFF", "sysop1", "ann_0perator")]
    [True, True, True, True, True, True]
    >>> [n in reserved for n in ("model", "ann-modest", "staffan", "badminton")]
    [False, False, False, False]

    And so are the server's own words and its bots' names with only digits, ``-`` or ``_`` around
    them, which read as the server or its bot beside a line's colon:

    >>> [n in reserved for n in ("Server-", "system__", "Bot_", "Greedy-", "greedy-bot-1", "_strong2")]
    [True, True, True, True, True, True]
    >>> [n in reserved for n in ("servant", "ann-bot-fan", "greedyann", "systematic", "Boti", "Lbot")]
    [False, False, False, False, False, False]
    """

    def __init__(self, strategies: Iterable[str]) -> None:
        strategies = list(strategies)
        self._forms = frozenset(alike(word) for word in (*RESERVED, *strategies))
        bots = "|".join(re.escape(alike(s)) for s in strategies)
        digits = re.escape("".join(sorted({alike(d) for d in string.digits})))
        self._bot = re.compile(rf"(?:{bots})[-_]?{re.escape(alike('bot'))}[{digits}]*")
        staff = "|".join(re.escape(alike(word)) for word in STAFF_WORDS)
        # a staff word standing alone: at an end or beside - or _, and digits (which look alike
        # some letters: their forms) on either side of it
        self._staff = re.compile(rf"(?:^|.*[-_])[{digits}]*(?:{staff})[{digits}]*(?:[-_].*|$)")

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        form = alike(name)
        return (
            form in self._forms
            or self._bot.fullmatch(form) is not None
            or self._staff.fullmatch(form) is not None
            or self._padded(name)
        )

    def _padded(self, name: str) -> bool:
        """Whether ``name`` is the server's word or a bot's name with only digits, ``-`` or ``_``
        (as typed: not the letters their look-alike forms are) at either end."""
        core = name.strip("-_" + string.digits)
        if not core or core == name:
            return False
        form = alike(core)
        return form in self._forms or self._bot.fullmatch(form) is not None


__all__ = [
    "FIELD_MAX",
    "FORMS",
    "NAME_CHARACTERS",
    "NAME_MAX",
    "NAME_RULE",
    "RESERVED",
    "ROOM_MAX",
    "ROOM_RULE",
    "STAFF_WORDS",
    "ReservedNames",
    "alike",
    "alike_version",
    "is_name",
    "is_room_name",
]
