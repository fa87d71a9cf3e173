"""What a player's name and a room's name may be: the one place their limits live.

>>> is_name("ann"), is_name("9lives"), is_name("ann\\n"), is_room_name("café")
(True, False, False, False)
"""

from __future__ import annotations

import re
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


__all__ = ["FIELD_MAX", "NAME_MAX", "NAME_RULE", "ROOM_MAX", "ROOM_RULE", "is_name", "is_room_name"]
