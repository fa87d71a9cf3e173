"""The catalogs of texts for people: complete in every language, placeholders kept, compiled files
current; and the lazy texts (``Msg``) that are translated once per language."""

from __future__ import annotations

import copy
import gettext
import json
import pickle
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

from protocol import messages as m
from protocol.catalogs import PAGE_DOMAIN, PAGE_JSON_DIR, page_catalog
from protocol.i18n import DEFAULT, DOMAIN, LANGUAGES, LOCALE_DIR, Msg, _, _n, lang, lazy
from protocol.options import announcement
from protocol.outgoing import Outgoing

ROOT = Path(__file__).parent.parent.parent
TRANSLATED = [code for code in LANGUAGES if code != DEFAULT]
#: each domain: its Babel configuration and keywords
DOMAINS = {
    DOMAIN: ("babel.cfg", ["-k", "_", "-k", "_n:1,2"]),
    PAGE_DOMAIN: ("babel-page.cfg", ["-k", "t", "-k", "tn:1,2"]),
}
_PLACEHOLDER = re.compile(r"\{(\w*)\}")


def placeholders(text: str) -> set[str]:
    """The named ``{placeholders}`` of ``text`` (python brace format, and the page's own)."""
    return set(_PLACEHOLDER.findall(text))


def read_catalog(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=locale)


@pytest.fixture(scope="module", params=sorted(DOMAINS))
def extracted(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Catalog]:
    """Every message id the code holds now, as Babel extracts it (what ``make extract`` does)."""
    domain = request.param
    config, keywords = DOMAINS[domain]
    out = tmp_path_factory.mktemp("pot") / f"{domain}.pot"
    command = ["extract", "-F", config, "--no-default-keywords", *keywords, "-o", str(out), "."]
    subprocess.run(
        [sys.executable, "-m", "babel.messages.frontend", *command], cwd=ROOT, check=True, capture_output=True
    )
    return domain, read_catalog(out)


def ids(catalog: Catalog) -> Iterator[Message]:
    return (message for message in catalog if message.id)


def key(message: Message) -> str:
    return str(message.id[0] if isinstance(message.id, tuple | list) else message.id)


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_message_id_has_a_translation(extracted: tuple[str, Catalog], code: str) -> None:
    """Every text for people in the code has a translation (every plural form) that is not fuzzy."""
    domain, source = extracted
    catalog = read_catalog(LOCALE_DIR / code / "LC_MESSAGES" / f"{domain}.po", code)
    missing = []
    for message in ids(source):
        found = catalog.get(message.id)
        strings = () if found is None else found.string
        forms = list(strings) if isinstance(strings, tuple | list) else [strings]
        if found is None or found.fuzzy or not all(forms):
            missing.append(key(message))
    assert not missing, f"{domain}/{code} lacks {len(missing)}: {missing[:10]} (make update, then translate)"


@pytest.mark.parametrize("code", TRANSLATED)
@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_translations_keep_the_placeholders(domain: str, code: str) -> None:
    """Each translation has exactly the placeholders of its message id, in every plural form."""
    catalog = read_catalog(LOCALE_DIR / code / "LC_MESSAGES" / f"{domain}.po", code)
    wrong = []
    for message in ids(catalog):
        wanted = [placeholders(str(i)) for i in message.id] if isinstance(message.id, tuple) else []
        wanted = wanted or [placeholders(str(message.id))]
        strings = message.string if isinstance(message.string, tuple | list) else [message.string]
        for i, text in enumerate(strings):
            if text and placeholders(str(text)) != wanted[min(i, len(wanted) - 1)] | (
                {"n"} if isinstance(message.id, tuple) and "n" in wanted[-1] else set()
            ):
                wrong.append((key(message), text))
    assert not wrong, wrong


def test_the_placeholder_check_catches_a_changed_name() -> None:
    """The check above tells ``{name}`` from ``{nom}``: a translation that renames one differs."""
    assert placeholders("Hallo {nom}!") != placeholders("Hello {name}!")
    assert placeholders("{n} Karten, {who}") == placeholders("{who}: {n} cards")


@pytest.mark.parametrize("code", TRANSLATED)
def test_compiled_catalogs_are_current(code: str) -> None:
    """The committed ``.mo`` says what the ``.po`` says (run ``make compile`` after translating)."""
    catalog = read_catalog(LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.po", code)
    with (LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.mo").open("rb") as f:
        compiled = gettext.GNUTranslations(f)
    for message in ids(catalog):
        if isinstance(message.id, tuple):
            singular, plural = message.id
            assert compiled.ngettext(singular, plural, 1) == message.string[0], singular
            assert compiled.ngettext(singular, plural, 2) == message.string[1], plural
        else:
            assert compiled.gettext(message.id) == message.string, message.id


@pytest.mark.parametrize("code", TRANSLATED)
def test_page_catalogs_are_current(code: str) -> None:
    """The page's ``i18n/<lang>.json`` holds what its ``page.po`` says (``make compile``)."""
    shipped = json.loads((PAGE_JSON_DIR / f"{code}.json").read_text(encoding="utf-8"))
    assert shipped == page_catalog(code)
    assert shipped, "the page's catalog is empty"


# --- lazy texts --------------------------------------------------------------------------------


def test_a_marked_text_reads_as_english() -> None:
    """A ``Msg`` is its English text with the placeholders filled, wherever a str is used."""
    text = _("{who} seats {card} at {chair}", who="ann", card="FRf", chair="FR1s")
    assert text == "ann seats FRf at FR1s" and isinstance(text, str)
    assert lang("en")(text) == "ann seats FRf at FR1s"


def test_german_translates_and_fills_the_placeholders() -> None:
    """The German catalog turns the English id into German, with the same values."""
    text = _("{who} seats {card} at {chair}", who="ann", card="FRf", chair="FR1s")
    assert lang("de")(text) == "ann setzt FRf auf FR1s"


def test_plural_forms_follow_the_count() -> None:
    """``_n`` picks the form for the count in each language: 1 Karte, 2 Karten."""
    de = lang("de")
    assert de(_n("{who} draws {n} card", "{who} draws {n} cards", 1, who="ann")) == "ann zieht 1 Karte"
    assert de(_n("{who} draws {n} card", "{who} draws {n} cards", 2, who="ann")) == "ann zieht 2 Karten"
    assert _n("{who} draws {n} card", "{who} draws {n} cards", 2, who="ann") == "ann draws 2 cards"


def test_a_marked_value_is_translated_inside_its_sentence() -> None:
    """A placeholder whose value is itself a marked text reads in the same language."""
    reason = _("the bar is full")
    assert lang("de")(_("game over ({reason}): {scores}", reason=reason, scores="ann 9")) == (
        "Spielende (die Bar ist voll): ann 9"
    )


def test_a_lazy_text_is_drawn_per_language() -> None:
    """``lazy`` draws English at once and each other language when asked."""
    drawn: list[str] = []

    def draw(language: object) -> str:
        drawn.append(getattr(language, "code", "?"))
        return f"picture in {drawn[-1]}"

    text = lazy(draw)  # type: ignore[arg-type]
    assert text == "picture in en"
    assert lang("de")(text) == "picture in de"
    assert drawn == ["en", "de"]


def test_a_plain_text_passes_unchanged() -> None:
    """Text that is not marked (a person's chat, a name) is never looked up."""
    assert lang("de")("the bar is full") == "the bar is full"


def test_an_unknown_language_is_refused() -> None:
    """Only the languages there are can be asked for."""
    with pytest.raises(ValueError, match="no language 'fr'"):
        lang("fr")


def test_a_message_keeps_its_marked_text_until_it_is_sent() -> None:
    """A server message built with a marked text keeps it (pydantic would make it a plain str)."""
    error = m.Error(code="bad_arguments", message=_("Goodbye!"))
    assert isinstance(error.message, Msg)
    assert m.Error(code="x", message="plain").message == "plain"


def test_a_text_pickles_and_copies_whole() -> None:
    """A marked text made anew by pickle or copy reads and translates as the original: its English,
    its message id, its placeholders (a marked one too) and its count."""
    text = _n("{who} draws {n} card", "{who} draws {n} cards", 2, who=_("{name} wins", name="ann"))
    for copied in (pickle.loads(pickle.dumps(text)), copy.deepcopy(text), copy.copy(text)):
        assert type(copied) is Msg and copied == text == "ann wins draws 2 cards"
        assert (copied.msgid, copied.plural, copied.n) == (text.msgid, text.plural, 2)
        assert lang("de")(copied) == lang("de")(text) == "ann gewinnt zieht 2 Karten"


def test_outgoing_is_translated_once_per_language() -> None:
    """One ``Outgoing`` for many readers: each language's text is made once and shared."""
    out = Outgoing(m.Notice(text=_("You read German from now on.")))
    de = lang("de")
    first, again = out.localized(de), out.localized(de)
    assert first is again and first is not out
    assert json.loads(first.json)["text"] == "Ab jetzt liest du alles auf Deutsch."
    assert json.loads(out.json)["text"] == "You read German from now on."
    assert out.localized(lang("en")) is out


def test_outgoing_without_marked_text_is_shared_as_it_is() -> None:
    """Chat and moves carry no words to translate: every language gets the same object."""
    out = Outgoing(m.Chat(room="cafe", name="ann", text="hallo"))
    assert out.localized(lang("de")) is out


_IN_F_STRING = re.compile(r"""\bf(["'])[^"'\n]*\{[^}\n]*\b_n?\(""")
_IN_TEMPLATE = re.compile(r"\$\{[^}\n]*\btn?\(")


def test_no_marked_text_hides_inside_an_interpolation() -> None:
    """Babel reads no call inside an f-string's or a template literal's braces: a text marked
    there would never reach the catalogs, so none is."""
    hidden = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder, pattern, suffix in (
            ("protocol", _IN_F_STRING, "py"),
            ("server", _IN_F_STRING, "py"),
            ("server/static", _IN_TEMPLATE, "js"),
        )
        for path in sorted((ROOT / folder).rglob(f"*.{suffix}"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not hidden, hidden
    assert _IN_F_STRING.search("""x = f"{say(_('a'))}: b" """) and _IN_TEMPLATE.search("`${t('a')}`")


def test_a_clock_of_a_fraction_of_a_second_reads_the_readers_decimal_mark() -> None:
    """A room's clock may be 5.25 seconds: German readers read ``5,25`` where it is set and told."""
    said = announcement("ann", "clock", 5.25)
    assert said == "ann set the clock to 5.25 seconds per turn."
    assert "5,25 Sekunden" in lang("de")(said)
    assert "45 Sekunden" in lang("de")(announcement("ann", "clock", 45))
