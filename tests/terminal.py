"""What a terminal makes of the text a line client receives: the columns each character takes, as
glibc's ``wcwidth`` gives them (the rules of its generator, ``localedata/unicode-gen``, written
again from the Unicode tables, independent of ``protocol.text``), and the rows an 80-column
terminal shows, wrapping a line that does not fit on its own. A terminal set to draw East Asian
"ambiguous" characters wide (xterm's ``-cjk_width``, VTE's "ambiguous: wide", PuTTY's CJK
setting) gives those two columns: ``ambiguous_wide``.

>>> columns("a渡\\u0301\\u00ad")
4
>>> columns("a×Ж\\u0301", ambiguous_wide=True)
5
>>> rows("<ann> " + "x" * 76)
['<ann> xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'xx']
"""

from __future__ import annotations

import contextlib
import ctypes
import locale
import unicodedata
from collections.abc import Callable, Iterator

#: the format characters glibc draws one column wide (the soft hyphen and the prepended
#: concatenation marks, which stand in the text like a letter)
_FORMAT_DRAWN = set(
    "\u00ad\u0600\u0601\u0602\u0603\u0604\u0605\u06dd\u070f\u0890\u0891\u08e2\U000110bd\U000110cd"
)


def wcwidth(ch: str, ambiguous_wide: bool = False) -> int:
    """The columns glibc's ``wcwidth`` gives one (printable) character; with ``ambiguous_wide``,
    two for an East Asian ambiguous one that is no mark (as Markus Kuhn's ``mk_wcwidth_cjk``,
    which xterm's ``-cjk_width`` uses)."""
    if ch in _FORMAT_DRAWN:
        return 1
    if unicodedata.category(ch) in ("Mn", "Me", "Cf") or "\u1160" <= ch <= "\u11ff" or ch == "\u200b":
        return 0
    wide = ("W", "F", "A") if ambiguous_wide else ("W", "F")
    return 2 if unicodedata.east_asian_width(ch) in wide else 1


def columns(text: str, ambiguous_wide: bool = False) -> int:
    """The columns ``text`` takes on a terminal (one drawing ambiguous characters wide, if so)."""
    return sum(wcwidth(ch, ambiguous_wide) for ch in text)


def rows(line: str, width: int = 80, ambiguous_wide: bool = False) -> list[str]:
    """The rows a terminal ``width`` columns wide shows ``line`` on: it wraps where the next
    character does not fit, and the rest starts a row at column 0."""
    out, row, used = [], "", 0
    for ch in line:
        w = wcwidth(ch, ambiguous_wide)
        if used + w > width:
            out.append(row)
            row, used = "", 0
        row += ch
        used += w
    return [*out, row]


@contextlib.contextmanager
def libc_wcwidth() -> Iterator[Callable[[str], int] | None]:
    """The C library's own ``wcwidth`` under a UTF-8 locale while the block runs, or ``None`` where
    there is no such function or locale (not glibc, or no C.UTF-8)."""
    try:
        function = ctypes.CDLL(None).wcwidth
    except (OSError, AttributeError):
        yield None
        return
    function.argtypes, function.restype = [ctypes.c_wchar], ctypes.c_int
    before = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, "C.UTF-8")
    except locale.Error:
        yield None
        return
    try:
        yield lambda ch: int(function(ch))
    finally:
        locale.setlocale(locale.LC_CTYPE, before)
