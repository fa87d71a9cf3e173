"""One sanitizer for everything a person wrote: safe for a terminal, and one line.

Control characters (C0, DEL, C1) are removed, so no escape sequence can form from what is left;
so are the format characters (Unicode's category Cf: the marks that reorder text, bidi
embeddings, overrides, isolates and marks; the soft hyphen and the zero-width space, which
terminals measure differently, so that a line measured to fit would wrap on its own; the tags and
other invisible ones), but the two joiners that shape scripts and join emoji (ZWNJ, ZWJ), and lone
surrogates. Line and paragraph breaks (CR, LF, VT, FF, the separators FS/GS/RS, NEL, U+2028,
U+2029) become one space together with the blanks around them; a tab and every other space
(Unicode's category Zs: the no-break space, the typographic spaces, the ideographic space) become
a plain space, as do the letters and symbols drawn blank (the Hangul fillers, the blank Braille
pattern). A page shows a run of plain spaces as one, so no run of blanks can push what
follows it onto a line of its own that reads as another person's (a terminal starts every
continued line indented).

>>> sanitize_line("A\\x1b[2JB")
'A[2JB'
>>> sanitize_line("G\\nH* The game starts")
'G H* The game starts'
>>> sanitize_line("\\u202egnp.exe")
'gnp.exe'
>>> sanitize_line("A\\u00ad\\u00ad* tsVic")
'A* tsVic'
>>> sanitize_line("gg\\u3000\\u3000<bob> hi\\u00a0there")
'gg  <bob> hi there'
>>> sanitize_line("\\u3164\\u2800"), sanitize_line("a\\u3164b")
('', 'a b')
"""

from __future__ import annotations

import re
from typing import Final

#: characters that end a line somewhere: a terminal, ``str.splitlines``, a browser
LINE_BREAKS: Final = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
#: bidi embeddings and overrides, isolates, the directional marks and the Arabic letter mark
BIDI_CONTROLS: Final = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
#: the format characters (category Cf, as of Unicode 15.1) but the zero-width non-joiner and
#: joiner: invisible, measured as no column by some terminals and as one by others (the soft
#: hyphen), or reordering the text (``BIDI_CONTROLS`` are among them); as ranges for a regular
#: expression
FORMAT_CHARACTERS: Final = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b\u200e\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)

#: the spaces but the plain one (category Zs, as of Unicode 15.1), which become plain spaces
SPACES: Final = "\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000"
#: letters and symbols drawn blank, which become plain spaces as the spaces do: the Hangul fillers
#: (default-ignorable, most fonts draw nothing) and the blank Braille pattern (a blank cell)
BLANK_LETTERS: Final = "\u115f\u1160\u2800\u3164\uffa0"

# C0 and C1 controls and DEL, except the tab and the line breaks, which become spaces below; and
# the format characters
_CONTROLS = "\x00-\x08\x0e-\x1b\x1f\x7f-\x84\x86-\x9f" + FORMAT_CHARACTERS
_REMOVED = re.compile("[" + _CONTROLS + "\ud800-\udfff]")
#: a character that stays and is not blank: a text holding one is something once sanitized (as a
#: regular expression, for a JSON Schema ``pattern``; lone surrogates, which no UTF-8 text holds,
#: left out; joiners alone go: see below)
VISIBLE: Final = "[^ \t\u200c\u200d" + SPACES + BLANK_LETTERS + LINE_BREAKS + _CONTROLS + "]"
_BLANKS = " \t" + SPACES + BLANK_LETTERS
_BREAK = re.compile("[" + _BLANKS + "]*[" + LINE_BREAKS + "][" + _BLANKS + LINE_BREAKS + "]*")
_BLANK = re.compile("[\t" + SPACES + BLANK_LETTERS + "]")


def sanitize_line(text: str) -> str:
    """``text`` without controls or format characters, its line breaks turned into single spaces,
    stripped of blanks at both ends, and of the joiners there, which join nothing there (a line of
    joiners alone is empty). Pure; idempotent.

    >>> sanitize_line("\\u200d"), sanitize_line(" f\\u200d ")
    ('', 'f')
    >>> joined = "\\U0001f468\\u200d\\U0001f469"
    >>> sanitize_line(joined) == joined
    True
    """
    text = _REMOVED.sub("", text)
    text = _BREAK.sub(" ", text)
    return _BLANK.sub(" ", text).strip(_ENDS)


#: what a line loses at both ends: blanks, and the joiners, which join nothing there
_ENDS: Final = " \u200c\u200d"
