"""One sanitizer for everything a person wrote: safe for a terminal, and one line.

Control characters (C0, DEL, C1) are removed, so no escape sequence can form from what is left;
so are the marks that reorder text (bidi embeddings, overrides, isolates and marks) and lone
surrogates. Line and paragraph breaks (CR, LF, VT, FF, the separators FS/GS/RS, NEL, U+2028,
U+2029) become one space together with the blanks around them, and a tab becomes a space.

>>> sanitize_line("A\\x1b[2JB")
'A[2JB'
>>> sanitize_line("G\\nH* The game starts")
'G H* The game starts'
>>> sanitize_line("\\u202egnp.exe")
'gnp.exe'
"""

from __future__ import annotations

import re
from typing import Final

#: characters that end a line somewhere: a terminal, ``str.splitlines``, a browser
LINE_BREAKS: Final = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
#: bidi embeddings and overrides, isolates, the directional marks and the Arabic letter mark
BIDI_CONTROLS: Final = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"

# C0 and C1 controls and DEL, except the tab and the line breaks, which become spaces below
_CONTROLS = "\x00-\x08\x0e-\x1b\x1f\x7f-\x84\x86-\x9f" + BIDI_CONTROLS
_REMOVED = re.compile("[" + _CONTROLS + "\ud800-\udfff]")
#: a character that stays and is not blank: a text holding one is something once sanitized (as a
#: regular expression, for a JSON Schema ``pattern``; lone surrogates, which no UTF-8 text holds,
#: left out)
VISIBLE: Final = "[^ \t" + LINE_BREAKS + _CONTROLS + "]"
_BREAK = re.compile("[ \t]*[" + LINE_BREAKS + "][ \t" + LINE_BREAKS + "]*")


def sanitize_line(text: str) -> str:
    """``text`` without controls or reordering marks, its line breaks turned into single spaces,
    stripped of blanks at both ends. Pure; idempotent."""
    text = _REMOVED.sub("", text)
    text = _BREAK.sub(" ", text)
    return text.replace("\t", " ").strip(" ")
