"""The tools behind ``make extract``, ``make update`` and ``make compile`` that Babel has no command
for: reading the page's HTML for its texts, and writing the page's catalogs as JSON. Babel is a
development dependency: nothing here runs in a server.

``python -m protocol.catalogs`` writes ``server/static/i18n/<lang>.json`` from each language's
``page.po``: ``{msgid: text}``, or ``{msgid: [singular, plural]}`` for a text that counts.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import IO, Any

from babel.messages.pofile import read_po

from protocol.i18n import DEFAULT, LANGUAGES, LOCALE_DIR

#: the page's catalogs, as the page loads them
PAGE_JSON_DIR = Path(__file__).parent.parent / "server" / "static" / "i18n"
#: the page's gettext domain
PAGE_DOMAIN = "page"

_ATTRIBUTES = ("title", "placeholder", "aria-label")


class _Texts(HTMLParser):
    """Each ``data-i18n`` element's text, and each ``data-i18n-ATTR`` attribute's value."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self._open: list[tuple[int, str, list[str]]] = []  # line, tag, text so far

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        line = self.getpos()[0]
        for attr in _ATTRIBUTES:
            if f"data-i18n-{attr}" in values:
                text = values.get(f"data-i18n-{attr}") or values.get(attr) or ""
                if text:
                    self.found.append((line, text))
        if "data-i18n" in values:
            named = values["data-i18n"]
            if named:
                self.found.append((line, named))
            else:
                self._open.append((line, tag, []))

    def handle_data(self, data: str) -> None:
        for _, _, parts in self._open:
            parts.append(data)

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1][1] == tag:
            line, _, parts = self._open.pop()
            text = re.sub(r"\s+", " ", "".join(parts)).strip()
            if text:
                self.found.append((line, text))


def extract_html(
    fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any
) -> Iterator[tuple[int, str, str, list[str]]]:
    """Babel's extraction method for the page's HTML (``babel-page.cfg``)."""
    parser = _Texts()
    parser.feed(fileobj.read().decode("utf-8"))
    parser.close()
    for line, text in parser.found:
        yield line, "t", text, []


def page_catalog(lang: str, locale_dir: Path = LOCALE_DIR) -> dict[str, str | list[str]]:
    """The page's translations into ``lang``, as ``i18n.js`` reads them (untranslated ids left out)."""
    with (locale_dir / lang / "LC_MESSAGES" / f"{PAGE_DOMAIN}.po").open("rb") as f:
        catalog = read_po(f, locale=lang)
    table: dict[str, str | list[str]] = {}
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        if isinstance(message.id, tuple):
            forms = [str(s) for s in message.string] if isinstance(message.string, tuple | list) else []
            if len(forms) >= 2 and all(forms):
                table[str(message.id[0])] = forms[:2]
        elif isinstance(message.string, str) and message.string:
            table[str(message.id)] = message.string
    return table


def write_page_json(out_dir: Path = PAGE_JSON_DIR, locale_dir: Path = LOCALE_DIR) -> list[Path]:
    """Write ``<lang>.json`` for every language but English (whose ids are the text)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for lang in LANGUAGES:
        if lang == DEFAULT:
            continue
        path = out_dir / f"{lang}.json"
        text = json.dumps(page_catalog(lang, locale_dir), ensure_ascii=False, indent=0, sort_keys=True)
        path.write_text(text + "\n", encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for written in write_page_json():
        sys.stdout.write(f"wrote {written}\n")
