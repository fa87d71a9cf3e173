"""What every kind of terminal text shares: the glyphs (Unicode or ASCII), column widths, and the
one cleaning step for text that comes from people."""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Final

from protocol.i18n import _

#: the widest line any function here returns, in terminal columns
WIDTH: Final = 80
#: how a line past 80 columns goes on: its next line starts with this
CONTINUED: Final = "    "

#: columns a player's name takes in a table of players
NAME_COLUMN: Final = 18

#: why a game ended, as a sentence
REASONS: Final = {
    "deck": _("the deck is down to 4 cards"),
    "chairs": _("every chair is taken"),
    "bar": _("the bar is full"),
    "last_player": _("only one player is left"),
    "empty_hand": _("a player has no cards left"),
}


@dataclass(frozen=True, slots=True)
class Glyphs:
    """The characters a picture is drawn with."""

    free: str
    aisle_across: str  # between two tables side by side
    aisle_along: str  # between two tables one above the other
    turn: str
    sep: str
    dash: str
    ellipsis: str
    #: the bar cell's box: top-left, top-right, bottom-left, bottom-right, horizontal, vertical
    box: tuple[str, str, str, str, str, str]


UNICODE: Final = Glyphs("·", "┆", "┄┄┄┄┄", "▶", " · ", " — ", "…", ("┌", "┐", "└", "┘", "─", "│"))
ASCII: Final = Glyphs(".", ":", "- - -", ">", " | ", " - ", "~", ("+", "+", "+", "+", "-", "|"))


def glyphs(ascii_only: bool) -> Glyphs:
    """The ASCII glyphs or the Unicode ones."""
    return ASCII if ascii_only else UNICODE


#: the emoji presentation selector: many terminals draw the character before it two columns wide
_EMOJI_PRESENTATION: Final = "\ufe0f"


# remembered: every line a line client reads is measured (``fold``), and a picture's lines are
# mostly box and dot glyphs, looked up in the Unicode tables a character at a time otherwise;
# bounded, since people's chat may hold any of a million characters
@functools.lru_cache(maxsize=4096)
def char_width(ch: str) -> int:
    """The columns one character takes on a terminal that draws East Asian "ambiguous" characters
    narrow, as terminals do by default: what glibc's ``wcwidth`` (and xterm's) gives it, and where
    such terminals differ, the most any of them gives, so that a line measured to fit never wraps
    on its own (a line cut a little early does no harm; one the terminal wraps starts a row with
    whatever a person wrote there). People's text is measured with ``char_width_cjk``.

    A mark drawn on the character before it (Mn, Me) takes none; a wide or fullwidth East Asian
    character two, and so does a character these tables do not know yet (a newer emoji, mostly), a
    regional indicator (half a flag, two columns on many terminals), the enclosed and Yijing
    signs glibc draws wide and those Unicode 16 made wide; any other character one: spacing marks
    (Mc), the soft hyphen and the other format characters too (people's text holds none:
    ``protocol.sanitize``), and the ambiguous ones (``×``, ``°``, ``ü``, box drawing, Greek,
    Cyrillic).

    >>> [char_width(c) for c in "a渡\u0301\u00ad\U0001f1e9\u2630\U0001d356"]
    [1, 2, 0, 1, 2, 2, 2]
    """
    category = unicodedata.category(ch)
    if category in ("Mn", "Me"):
        return 1 if ch == _EMOJI_PRESENTATION else 0
    if (
        unicodedata.east_asian_width(ch) in ("W", "F")
        or category == "Cn"
        or "\U0001f1e6" <= ch <= "\U0001f1ff"  # regional indicators
        or "\u3248" <= ch <= "\u324f"  # circled numbers on black squares
        or "\u4dc0" <= ch <= "\u4dff"  # Yijing hexagrams
        # drawn wide since Unicode 16 (these tables are older): the trigrams, the digrams and
        # monograms, and the Tai Xuan Jing symbols
        or "\u2630" <= ch <= "\u2637"
        or "\u268a" <= ch <= "\u268f"
        or "\U0001d300" <= ch <= "\U0001d356"
    ):
        return 2
    return 1


@functools.lru_cache(maxsize=4096)
def char_width_cjk(ch: str) -> int:
    """The columns one character takes on any terminal, those set to draw East Asian "ambiguous"
    characters two columns wide included (xterm's ``-cjk_width``, VTE's "ambiguous: wide",
    PuTTY's CJK setting, a CJK locale): ``char_width``, but two for an ambiguous character that
    takes one there (``×``, ``°``, ``ü``, box drawing, Greek, Cyrillic, private use). What people
    wrote is measured so: no terminal wraps a line of their words on its own.

    >>> [char_width_cjk(c) for c in "a×Ж渡\u0301"]
    [1, 2, 2, 2, 0]
    """
    width = char_width(ch)
    return 2 if width == 1 and unicodedata.east_asian_width(ch) == "A" else width


#: text whose every character takes one column: printable ASCII, Latin-1's letters and signs and
#: the glyphs of the pictures; one match instead of a look-up a character, for the lines of a
#: picture and of words in German
_GLYPHS: Final = (*UNICODE.box, UNICODE.free, UNICODE.aisle_across, UNICODE.aisle_along, UNICODE.turn)
_ONE_COLUMN_EACH: Final = re.compile(
    "[\\x20-\\x7e\\xa0-\\xff"
    + re.escape("".join(sorted(set("".join((*_GLYPHS, UNICODE.dash, UNICODE.ellipsis))))))
    + "]*"
)


def display_width(text: str) -> int:
    """How many terminal columns ``text`` takes (``char_width`` of each character: wide East
    Asian characters take two, combining marks none)."""
    if text.isascii() or _ONE_COLUMN_EACH.fullmatch(text):  # isascii() reads a flag of the string
        return len(text)
    return sum(map(char_width, text))


def display_width_cjk(text: str) -> int:
    """How many columns ``text`` takes on any terminal, one that draws East Asian ambiguous
    characters wide included (``char_width_cjk`` of each character)."""
    if text.isascii():
        return len(text)
    return sum(map(char_width_cjk, text))


def clean(text: str, ascii_only: bool) -> str:
    """``text`` safe to print on a terminal: no control characters, and ASCII only if asked."""
    if text.isascii() and text.isprintable():  # as nearly every name is: nothing to change
        return text
    out = []
    for ch in text:
        # control and format characters (escapes, bidi overrides) would move the cursor or the text
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            out.append("?")
        elif ascii_only and not ch.isascii():
            out.append(_plain(ch))
        else:
            out.append(ch)
    return "".join(out)


def fit(text: str, width: int, g: Glyphs) -> str:
    """``text`` cut to at most ``width`` columns, marking the cut."""
    if display_width(text) <= width:
        return text
    out, used = [], display_width(g.ellipsis)
    for ch in text:
        w = char_width(ch)
        if used + w > width:
            break
        out.append(ch)
        used += w
    return "".join(out) + g.ellipsis


def pad(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` columns."""
    return text + " " * max(0, width - display_width(text))


def name_text(name: str, width: int, g: Glyphs, ascii_only: bool) -> str:
    """A name from a person, safe for a terminal and cut to ``width`` columns."""
    return fit(clean(name, ascii_only), width, g)


def signed(points: int) -> str:
    """Points with their sign: ``+3``, ``-2``."""
    return f"+{points}" if points >= 0 else str(points)  # no format spec to parse


# --- the café ------------------------------------------------------------------------------


#: each Unicode glyph's ASCII stand-in, for text rendered before a client asked for ASCII
_GLYPH_TO_ASCII: Final = {
    ord(u): a
    for u_text, a_text in zip(
        (UNICODE.free, UNICODE.aisle_across, UNICODE.turn, UNICODE.ellipsis, "—┄", "".join(UNICODE.box)),
        (ASCII.free, ASCII.aisle_across, ASCII.turn, ASCII.ellipsis, "--", "".join(ASCII.box)),
        strict=True,
    )
    for u, a in zip(u_text, a_text, strict=True)
}


#: letters with a common ASCII spelling of their own: German's umlauts as German writes them
#: without (``Grüße`` is ``Gruesse``, not ``Grusse``), and those that lose no accent; and the
#: quotation marks and the dashes and hyphens, as ASCII's own
_LETTERS: Final = {
    "ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss", "ẞ": "SS",
    "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "þ": "th",
    "“": '"', "”": '"', "„": '"', "‟": '"', "«": '"', "»": '"',
    "‘": "'", "’": "'", "‚": "'", "‛": "'", "‹": "'", "›": "'",
    "–": "-", "‐": "-", "‑": "-", "‒": "-", "−": "-",
}  # fmt: skip


def _plain(ch: str) -> str:
    """The ASCII form of the character ``ch`` (not ASCII itself): its own spelling, or the letter
    without its accents, a fraction with its slash (``½`` is ``1/2``); else ``?``."""
    if (spelled := _LETTERS.get(ch)) is not None:
        return spelled
    decomposed = unicodedata.normalize("NFKD", ch).replace("\u2044", "/")
    plain = "".join(c for c in decomposed if c.isascii())
    # (a ligature of words, ``ﷺ``, keeps only its spaces: nothing of it is readable)
    return plain if plain.strip() or not decomposed.strip() else "?"


def to_ascii(text: str) -> str:
    """``text`` in ASCII only: the picture's glyphs become their ASCII stand-ins, letters lose their
    accents (``é`` to ``e``; German's umlauts are written as German does without them), and what
    has no ASCII form becomes ``?``.

    An accent written as a mark of its own after its letter (decomposed) goes as the letter's
    own would: the marks are joined to their letters first, and a mark left alone is dropped.

    >>> print(to_ascii("Café ▶ Grüße ☕ ½ „so“ ‘it’s’ \ufdfa\u00a0x"))
    Cafe > Gruesse ? 1/2 "so" 'it's' ? x
    >>> to_ascii("Cafe\u0301 A\u0308rger q\u0303")
    'Cafe Aerger q'
    """
    if text.isascii():
        return text
    text = unicodedata.normalize("NFC", text.translate(_GLYPH_TO_ASCII))
    return "".join(ch if ch.isascii() else "" if unicodedata.combining(ch) else _plain(ch) for ch in text)


def fold(lines: list[str], width: int = WIDTH, *, cjk: bool = False) -> list[str]:
    """``lines`` with each line past ``width`` columns (as terminals count them) broken at spaces,
    every line it is carried on starting with ``CONTINUED``: the last guard that every line a line
    client reads fits its terminal, and that only the server starts a line (a line's start is the
    server's, whatever a person wrote after it; a person's words never begin one). With ``cjk``
    (lines holding what people wrote) East Asian ambiguous characters count two columns, as on a
    terminal that draws them wide (``char_width_cjk``); else one.

    >>> fold(["<ann> " + "ab " * 8 + "* bob leaves the room"], 30)
    ['<ann> ab ab ab ab ab ab ab ab', '    * bob leaves the room']
    >>> fold(["<ann> " + "×" * 12 + " * bob"], 20, cjk=True)
    ['<ann>', '    ××××××××', '    ×××× * bob']
    """
    measure = display_width_cjk if cjk else display_width
    out: list[str] = []
    for line in lines:
        if measure(line) <= width:
            out.append(line)
            continue
        while measure(line) > width:
            fits = _fitting(line, width, cjk)
            cut = line.rfind(" ", 0, fits + 1)
            if cut <= len(line) - len(line.lstrip(" ")) + 4:
                # no space after the line's first few columns: one long word, cut where it reaches the edge
                out.append(line[:fits])
                rest = line[fits:]
            else:
                out.append(line[:cut].rstrip(" "))
                rest = line[cut + 1 :].lstrip(" ")
            line = CONTINUED + rest
        out.append(line)
    return out


def _fitting(line: str, width: int, cjk: bool) -> int:
    """How many characters from the start of ``line`` fit in ``width`` columns (ambiguous
    characters two each with ``cjk``), with the marks drawn on the last of them, and never
    parting what a terminal draws as one (a character and its presentation selector, the parts
    of an emoji joined by ZWJ, a skin tone; at least one character, so that a line always moves
    on).

    >>> _fitting("ab☺️☺️", 5, False), _fitting("a👩‍👧", 4, False)
    (4, 1)
    """
    measure = char_width_cjk if cjk else char_width
    used = 0
    for i, ch in enumerate(line):
        used += measure(ch)
        if used > width:
            start = i
            while start > 0 and (_drawn_with_the_one_before(line[start]) or line[start - 1] == _JOINER):
                start -= 1
            return start or max(i, 1)
    return len(line)


#: the zero-width joiner: an emoji sequence's parts, drawn as one
_JOINER: Final = "\u200d"


def _drawn_with_the_one_before(ch: str) -> bool:
    """Whether a terminal draws ``ch`` as part of the character before it: a mark, a variation
    selector, a skin tone, the joiner."""
    return (
        ch == _JOINER
        or unicodedata.category(ch) in ("Mn", "Me")
        or "\U0001f3fb" <= ch <= "\U0001f3ff"  # skin tones (Fitzpatrick modifiers)
    )
