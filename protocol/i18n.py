"""Words for people in their language: gettext catalogs managed with Babel, and texts that wait to
be translated until a reader's language is known.

Every text a person reads is written in English in the code, marked with ``_`` (or ``_n`` when it
counts something), and looked up in the reader's catalog when it is sent. A marked text is a
``Msg``: a ``str`` that reads as English everywhere (logs, tests, English readers) and remembers its
message id and its named placeholders, so that a server message made once for many readers is
translated once per language, never per reader.

Machine-readable parts never pass through here: message types, error codes, the move notation,
chair names and JSON field names stay as they are in every language.

>>> turn = _("{name} is to move.", name="ann")
>>> turn
'ann is to move.'
>>> lang("de")(turn)
'ann ist am Zug.'
>>> lang("de")(_n("{n} move played", "{n} moves played", 2))
'2 Züge gespielt'

The catalogs live in ``protocol/locale/<lang>/LC_MESSAGES/``: ``cafe.po`` (server texts) and
``page.po`` (the web page's, compiled to ``server/static/i18n/<lang>.json``). ``make extract``,
``make update`` and ``make compile`` keep them current; the compiled ``.mo`` files are committed, so
a checkout runs as it is.
"""

from __future__ import annotations

import functools
import gettext
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Final

from pydantic import ValidatorFunctionWrapHandler, WrapValidator

__all__ = [
    "DEFAULT",
    "DOMAIN",
    "LANGUAGES",
    "LOCALE_DIR",
    "Lang",
    "Msg",
    "Words",
    "_",
    "_n",
    "decimal",
    "lang",
    "lazy",
    "localize",
]

#: the gettext domain of the server's texts
DOMAIN: Final = "cafe"
#: where the catalogs live
LOCALE_DIR: Final = Path(__file__).parent / "locale"
#: every language a reader may choose, and the one spoken when none is chosen
LANGUAGES: Final = ("en", "de")
DEFAULT: Final = "en"


class Msg(str):
    """A text for people: reads as its English form, and is translated by ``Lang``.

    ``params`` fill the named ``{placeholders}``; a param that is itself a ``Msg`` is translated
    too. With ``plural`` and ``n`` the text is ``ngettext``'s choice between the two forms."""

    __slots__ = ("msgid", "n", "params", "plural")
    msgid: str
    plural: str | None
    n: int
    params: Mapping[str, object]

    def __new__(
        cls, msgid: str, params: Mapping[str, object] | None = None, plural: str | None = None, n: int = 1
    ) -> Msg:
        # (params may be left out: pickle and copy make a text anew from its string alone, then
        # set its fields)
        params = {} if params is None else params
        chosen = msgid if plural is None or n == 1 else plural
        self = super().__new__(cls, chosen.format_map(params) if params else chosen)
        self.msgid, self.plural, self.n, self.params = msgid, plural, n, params
        return self

    def render(self, language: Lang) -> str:
        """The text in ``language``."""
        tr = language.translations
        text = tr.gettext(self.msgid) if self.plural is None else tr.ngettext(self.msgid, self.plural, self.n)
        if not self.params:
            return text
        return text.format_map({k: language(v) if isinstance(v, str) else v for k, v in self.params.items()})


class _Lazy(Msg):
    """A text made by a function of the language (a picture drawn with the reader's words)."""

    __slots__ = ("_draw",)
    _draw: Callable[[Lang], str]

    def render(self, language: Lang) -> str:
        return self._draw(language)


def _(msgid: str, /, **params: object) -> Msg:
    """Mark ``msgid`` (English, with named ``{placeholders}``) for translation."""
    return Msg(msgid, params)


def _n(singular: str, plural: str, n: int, /, **params: object) -> Msg:
    """Mark a text that counts ``n`` things; ``{n}`` is filled with ``n``."""
    return Msg(singular, {"n": n, **params}, plural, n)


def lazy(draw: Callable[[Lang], str]) -> Msg:
    """A text drawn by ``draw(language)`` for each language that reads it (English at once)."""
    english = draw(lang(DEFAULT))
    text = str.__new__(_Lazy, english)
    text.msgid, text.plural, text.n, text.params = english, None, 1, {}
    text._draw = draw
    return text


@dataclass(frozen=True, slots=True)
class Lang:
    """One language: ``code`` (``en``, ``de``) and its catalog. Calling it translates a text."""

    code: str
    translations: gettext.NullTranslations

    def __call__(self, text: str) -> str:
        """``text`` in this language when it is a ``Msg``; any other text unchanged."""
        if self.code != DEFAULT and isinstance(text, Msg):
            return text.render(self)
        return text

    @property
    def english(self) -> bool:
        return self.code == DEFAULT

    def gettext(self, msgid: str) -> str:
        """``msgid`` translated (for the renderers' own words; ``_`` marks them for extraction)."""
        return self.translations.gettext(msgid)

    def decimal(self, value: float, places: int = 1) -> str:
        """``value`` to ``places`` decimals, with this language's decimal mark (German's comma).

        >>> lang("de").decimal(27.612), lang("en").decimal(8.07, 2)
        ('27,6', '8.07')
        """
        return self._marked(f"{value:.{places}f}")

    def number(self, value: float) -> str:
        """``value`` as short as it goes, with this language's decimal mark.

        >>> lang("de").number(5.25), lang("en").number(60.0)
        ('5,25', '60')
        """
        return self._marked(f"{value:g}")

    def _marked(self, text: str) -> str:
        return text if self.english else text.replace(".", ",")


def number(value: float) -> Msg:
    """``value`` as short as it goes (``5``, ``5.25``), written with the decimal mark of whoever
    reads it."""
    return lazy(lambda say: say.number(value))


def decimal(value: float, places: int = 1) -> Msg:
    """``value`` to ``places`` decimals, written with the decimal mark of whoever reads it."""
    return lazy(lambda say: say.decimal(value, places))


@functools.cache
def lang(code: str) -> Lang:
    """The language ``code`` (one of ``LANGUAGES``); ``ValueError`` for any other."""
    if code not in LANGUAGES:
        raise ValueError(f"no language {code!r}: one of {', '.join(LANGUAGES)}")
    if code == DEFAULT:
        return Lang(code, gettext.NullTranslations())
    return Lang(code, gettext.translation(DOMAIN, LOCALE_DIR, languages=[code]))


def localize(text: str, language: Lang) -> str:
    """``text`` in ``language`` (the same as ``language(text)``)."""
    return language(text)


def _keep_msg(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    # pydantic turns a str subclass into a plain str: a Msg keeps its message id this way
    return value if isinstance(value, Msg) else handler(value)


#: a message field for people's eyes: ``str`` on the wire, a ``Msg`` inside the server
Words = Annotated[str, WrapValidator(_keep_msg)]
