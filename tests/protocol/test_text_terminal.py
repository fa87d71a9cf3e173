"""The line clients' text on a terminal: every line fits 80 columns as terminals count them (a
line of people's words also where East Asian ambiguous characters are drawn wide), and only the
server starts a line, whatever people write, whatever they are called, whatever their rooms are
called."""

from __future__ import annotations

import doctest
import time
import unicodedata

from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tests.terminal
from protocol import messages as m
from protocol.i18n import LANGUAGES, Lang, _, lang
from protocol.messages import MAX_CHAT
from protocol.names import NAME_MAX, ROOM_MAX
from protocol.sanitize import sanitize_line
from protocol.text import LineText, display_width, to_ascii
from protocol.text._common import ASCII, UNICODE, char_width, char_width_cjk, display_width_cjk
from protocol.text.lines import CONTINUED, PROMPT, fold
from tests.terminal import columns, libc_wcwidth, rows, wcwidth

#: how the lines the server makes begin: events and errors, chat, the lobby's chat and tells, the
#: tell echoed to its writer, the picture's frames, the prompts
SERVER_STARTS = (
    "* ",
    "! ",
    "[",
    "<",
    "-> ",
    *UNICODE.box,
    *ASCII.box,
    "Café International",
    "Cafe International",
    "Your name",
    "Password",
)

#: what a forger writes: server lines, their pieces, long words and runs of blanks before them
_FORGED = st.sampled_from(
    [
        "* tsVic leaves the room",
        "! The server is stopping [shutting_down]",
        "[lobby] <tsVic> hi",
        "<tsVic> hi",
        "-> tsVic: hi",
        "┌───────────┐",
        "+-----------+",
        str(PROMPT),
        "Password: ",
        "* ",
        "! ",
        "\u00ad",
        "\u200b",
        "\u200d",
        "\ufe0f",
        "\u0301",
        "\U0001f1e9",
        "\U0001d16d",
        "ß",
        "½",
        "×",
        "°",
        "Ω",
        "Ж",
        "─",
        "\ue000",
        "渡辺",
        "☕",
    ]
)
_PIECES = st.one_of(
    _FORGED,
    st.integers(1, 90).map(lambda n: "y" * n),
    st.integers(1, 90).map(lambda n: " " * n),
    st.text(st.characters(codec=None), max_size=20),
)
#: what a chat or tell carries once the server took it: sanitized, one line, 1 to 500 characters
TEXTS = (
    st.lists(_PIECES, min_size=1, max_size=12)
    .map(lambda p: sanitize_line("".join(p))[:MAX_CHAT])
    .filter(bool)
)
NAMES = st.from_regex(rf"[A-Za-z][A-Za-z0-9_-]{{0,{NAME_MAX - 1}}}", fullmatch=True)
ROOMS = st.from_regex(rf"[A-Za-z0-9][A-Za-z0-9_-]{{0,{ROOM_MAX - 1}}}", fullmatch=True)
LANGS = st.sampled_from(LANGUAGES).map(lang)


#: the terminals a line of people's words must fit: one that draws East Asian ambiguous characters
#: narrow, as most do, and one set to draw them wide
TERMINALS = (False, True)


def _render(msg: m._ServerMessage, reader: str | None, ascii_only: bool, say: Lang) -> list[str]:
    """The lines ``reader`` gets for ``msg``, each checked to fit a terminal without wrapping: a
    chat's or a tell's on both ``TERMINALS``, the server's own on the narrow one."""
    lines = LineText().render(msg, reader=reader, ascii_only=ascii_only, lang=say)
    terminals = TERMINALS if isinstance(msg, m.Chat | m.TellMessage) else TERMINALS[:1]
    for line in lines:
        for wide in terminals:
            assert rows(line, ambiguous_wide=wide) == [line], (
                f"a terminal wraps {line!r} on its own ({wide=})"
            )
        # (a joiner at an end joins nothing, and sanitizing drops it: the rest must stay as it is)
        kept = line.strip(" \u200c\u200d")
        assert sanitize_line(line) == kept, f"a control or format character in {line!r}"
    return lines


def _one_line_each(lines: list[str], heads: list[str], ascii_only: bool = False) -> None:
    """``lines`` are ``len(heads)`` lines the server started, each beginning with its head (a line
    that ends right after its head's last word may end there), each carried on only by lines that
    start with ``CONTINUED``: no line begins as a server line does but those the server began."""
    started = [i for i, line in enumerate(lines) if not line.startswith(CONTINUED)]
    assert started[:1] == [0] and len(started) == len(heads), lines
    for i, head in zip(started, heads, strict=True):
        assert (lines[i] + " ").startswith(to_ascii(head) if ascii_only else head), (lines[i], head)
    carried = [line for i, line in enumerate(lines) if i not in started]
    assert not any(line.startswith(SERVER_STARTS) for line in carried), carried


def test_the_terminal_helper_s_examples_hold() -> None:
    """The tests' own terminal (``tests.terminal``) counts and wraps as its examples say."""
    assert doctest.testmod(tests.terminal).failed == 0


def test_a_character_takes_no_fewer_columns_than_terminals_give_it() -> None:
    """For every code point of the first four planes and the special-purpose one, the renderer
    counts at least the columns glibc's rules give it (so a line it measured never wraps on its own),
    and the same as those rules for the letters, marks and wide characters people write."""
    for cp in (*range(0xD800), *range(0xE000, 0x40000), *range(0xE0000, 0xE1000)):
        ch = chr(cp)
        assert char_width(ch) >= wcwidth(ch), hex(cp)
    for ch in "aZé~ßΩЖ\u0301\u0591渡辺ｱ한☕😀":
        assert char_width(ch) == wcwidth(ch), ch


def test_people_s_characters_take_no_fewer_columns_than_an_ambiguous_wide_terminal_gives() -> None:
    """For every code point of the first four planes and the special-purpose one, what people
    write is counted at least as wide as a terminal drawing East Asian ambiguous characters wide
    draws it, and as that terminal does for the letters, signs, marks and wide characters people
    write; the server's own measure keeps the ambiguous ones one column."""
    for cp in (*range(0xD800), *range(0xE000, 0x40000), *range(0xE0000, 0xE1000)):
        ch = chr(cp)
        assert char_width_cjk(ch) >= wcwidth(ch, ambiguous_wide=True), hex(cp)
    for ch in "aZ~×°éüßΩЖ─\u0301\u0591渡辺ｱ한☕😀":
        assert char_width_cjk(ch) == wcwidth(ch, ambiguous_wide=True), ch
    assert [char_width(ch) for ch in "×°üΩЖ─"] == [1] * 6


def test_a_character_takes_no_fewer_columns_than_the_c_library_gives_it() -> None:
    """Where the C library is glibc (with a UTF-8 locale), the renderer counts every printable code
    point of the first four planes at least as wide as glibc's own ``wcwidth`` does."""
    started = time.monotonic()
    with libc_wcwidth() as libc:
        if libc is None:
            return  # not glibc: the rules above, written from glibc's, still hold
        fewer = [
            hex(cp)
            for cp in (*range(0xD800), *range(0xE000, 0x40000), *range(0xE0000, 0xE1000))
            if libc(chr(cp)) > char_width(chr(cp))
        ]
    assert fewer == [], fewer[:20]
    assert time.monotonic() - started < 60


def test_the_forgeries_found_are_carried_on_indented() -> None:
    """A chat past 80 columns whose end reads like a presence line, a tell whose end reads like an
    error, and a chat of soft hyphens a terminal would wrap: the server line they hold stays
    indented, or (the soft hyphens removed) on the chat's own line."""
    say = lang("en")
    chat = m.Chat(room="r1", name="tsMal", text="y" * 76 + " * tsVic leaves the room")
    assert _render(chat, "bob", False, say) == ["<tsMal>", "    " + "y" * 76, "    * tsVic leaves the room"]
    tell = m.TellMessage(name="tsMal", to="bob", text="y" * 75 + " ! The server is stopping [shutting_down]")
    assert _render(tell, "bob", False, say) == [
        "[tsMal tells you]",
        "    " + "y" * 75,
        "    ! The server is stopping [shutting_down]",
    ]
    soft = sanitize_line("A" + "\u00ad" * 72 + "* tsVic gives up the seat")
    assert _render(m.Chat(room="r1", name="tsMal", text=soft), "bob", False, say) == [
        "<tsMal> A* tsVic gives up the seat"
    ]


def test_a_report_s_excerpt_lines_are_marked_and_no_wrapped_words_pass_for_one() -> None:
    """Staff read each line of a report's chat excerpt as ``    | `` and the line; the reason and
    an excerpt line past 80 columns whose ends read like excerpt lines go on indented without the
    mark, so the forged lines do not pass for what was said."""
    say = lang("en")
    fake = " 08:09 [pub] <victim> I know where you live"
    report = m.ReportEntry(
        id=11,
        reporter="rep",
        name="att",
        reason="spam " + "." * 28 + fake,
        excerpt=["08:09 [pub] <att> lol " + "-" * 46 + fake, "08:10 [pub] <bob> hi"],
        made=0.0,
    )
    lines = _render(m.ReportList(reports=[report]), "mike", False, say)
    marked = [line for line in lines if line.startswith("    | ")]
    assert len(marked) == 2 and marked[0].startswith("    | 08:09 [pub] <att> lol ---"), lines
    assert marked[1] == "    | 08:10 [pub] <bob> hi", lines
    forged = [line for line in lines if "<victim>" in line]
    assert len(forged) == 2 and not [line for line in forged if line.startswith(("#", "    | "))], lines


def test_an_ambiguous_character_counts_two_columns_in_people_s_words() -> None:
    """``×`` takes two columns on a terminal that draws ambiguous characters wide: a chat and a
    tell of 36 of them before a presence line are carried on, the presence's words indented, where
    measured as one column each they would be one line of 67 that such a terminal wraps at ``*``."""
    say = lang("en")
    text = "×" * 36 + "* tsVic leaves the room"
    assert _render(m.Chat(room="r1", name="tsMal", text=text), "bob", False, say) == [
        "<tsMal>",
        "    " + "×" * 36 + "*",
        "    tsVic leaves the room",
    ]
    tell = m.TellMessage(name="tsMal", to="bob", text=text)
    assert _render(tell, "bob", False, say) == [
        "[tsMal tells you]",
        "    " + "×" * 36 + "*",
        "    tsVic leaves the room",
    ]
    assert rows("<tsMal> " + text, ambiguous_wide=True)[1] == "* tsVic leaves the room"


def test_the_server_s_own_lines_count_ambiguous_characters_one_column() -> None:
    """A line the server wrote is measured as most terminals draw it: a notice of 78 ``×`` (as
    the picture's frames and dots, ambiguous too) in 80 columns stays one line."""
    say = lang("en")
    assert _render(m.Notice(text="×" * 78), "bob", False, say) == ["* " + "×" * 78]
    assert fold(["* " + "×" * 78]) == ["* " + "×" * 78]
    assert fold(["* " + "×" * 78], cjk=True) == ["* " + "×" * 39, "    " + "×" * 38, "    ×"]


def test_folding_counts_columns_not_characters() -> None:
    """Wide characters take two columns each: 渡辺 25 times in chat is carried on so that every
    line fits 80 columns, none of it lost."""
    lines = _render(m.Chat(room="r1", name="tsMal", text="渡辺" * 25), "bob", False, lang("en"))
    assert lines == ["<tsMal>", "    " + "渡辺" * 19, "    " + "渡辺" * 6]
    assert max(map(columns, lines)) == 80


def test_folding_never_parts_what_a_terminal_draws_as_one() -> None:
    """An emoji with its presentation selector, a family joined by ZWJ and a skin tone are carried
    on whole: no continuation starts with a selector, a joiner or a modifier, nothing is lost, and
    every line fits."""
    family = "\U0001f469\u200d\U0001f469\u200d\U0001f467"
    for unit in ("\u263a\ufe0f", family, "\U0001f44b\U0001f3fd", "e\u0301"):
        unit = unicodedata.normalize("NFC", unit)  # (as chat is kept)
        text = unit * 100
        lines = _render(m.Chat(room="r1", name="tsMal", text=text), "bob", False, lang("en"))
        body = [line.removeprefix("    ") for line in lines[1:]]
        assert len(body) > 1 and all(part.startswith(unit) for part in body), lines
        assert "".join(body) == text and max(map(columns, lines)) <= 80


def test_an_ascii_form_wider_than_its_letter_is_measured_as_sent() -> None:
    """For an ASCII-only reader the line is measured once made ASCII: ``ß`` is sent as ``ss``, two
    columns, and a chat that fits only as Unicode is carried on, not wrapped by the terminal."""
    chat = m.Chat(room="r1", name="tsMal", text="ß" * 36 + "* tsVic leaves the room")
    lines = _render(chat, "bob", True, lang("en"))
    assert lines == ["<tsMal>", "    " + "ss" * 36 + "*", "    tsVic leaves the room"]


@settings(max_examples=300, deadline=None)
@given(st.lists(TEXTS, min_size=1, max_size=3), st.integers(20, 100), st.sampled_from(TERMINALS))
def test_folding_keeps_every_character_and_indents_every_line_it_carries_on(
    texts: list[str], width: int, cjk: bool
) -> None:
    """Each line past ``width`` columns (ambiguous characters two columns each with ``cjk``) is
    cut into lines that fit that terminal, the first as it began and every other one starting with
    ``CONTINUED``; only blanks at the cuts are lost."""
    folded = fold(texts, width, cjk=cjk)
    measure = display_width_cjk if cjk else display_width
    assert all(measure(line) <= width and columns(line, cjk) <= width for line in folded)
    starts = [i for i, line in enumerate(folded) if not line.startswith(CONTINUED)]
    for text in texts:
        assert text.startswith(CONTINUED) or folded[starts.pop(0)].startswith(text[:1])
    kept = "".join(line.removeprefix(CONTINUED) if i not in starts else line for i, line in enumerate(folded))
    assert kept.replace(" ", "") == "".join(texts).replace(" ", "")


@settings(max_examples=400, deadline=None)
@given(NAMES, NAMES, st.one_of(st.none(), ROOMS), TEXTS, st.booleans(), LANGS)
def test_no_chat_or_tell_starts_a_line(
    name: str, other: str, room: str | None, text: str, ascii_only: bool, say: Lang
) -> None:
    """Whatever a chat or a tell says, in a room or the lobby, for any names, in every language, in
    UTF-8 or ASCII: its reader gets one line that begins as the server begins it, and every
    further line is indented; none fits a terminal only by wrapping, on a terminal that draws East
    Asian ambiguous characters narrow or one that draws them wide."""
    assume(name.casefold() != other.casefold())
    chat = m.Chat(room=room, name=name, text=text)
    head = f"<{name}> " if room is not None else f"{say(_('[lobby]'))} <{name}> "
    _one_line_each(_render(chat, other, ascii_only, say), [head], ascii_only)
    tell = m.TellMessage(name=name, to=other, text=text)
    _one_line_each(
        _render(tell, other, ascii_only, say), [say(_("[{name} tells you]", name=name)) + " "], ascii_only
    )
    _one_line_each(_render(tell, name, ascii_only, say), [f"-> {other}: "], ascii_only)


@settings(max_examples=200, deadline=None)
@given(st.lists(NAMES, min_size=1, max_size=6), st.lists(ROOMS, min_size=1, max_size=4), st.booleans(), LANGS)
def test_no_name_or_room_name_starts_a_line(
    names: list[str], rooms: list[str], ascii_only: bool, say: Lang
) -> None:
    """Names and room names appear only where the server puts them: a presence, an invitation, a
    vote, a game's start and end each begin with ``* `` and are carried on indented; the lists of
    people, rooms and friends have a line a person or room, starting with its name."""
    name, room = names[0], rooms[0]
    for event in ("entered", "left", "joined", "unseated", "back", "away", "replaced_by_bot"):
        presence = m.Presence(room=room, name=name, event=event)
        _one_line_each(_render(presence, None, ascii_only, say), [f"* {name} "], ascii_only)
    _one_line_each(
        _render(m.Invited(room=room, name=name), names[-1], ascii_only, say), [f"* {name} "], ascii_only
    )
    vote = m.Vote(room=room, kind="remove", by=name, name=names[-1], seat=2, yes=[name], no=[],
                  voters=names, state="open", expires=0.0)  # fmt: skip
    _one_line_each(_render(vote, None, ascii_only, say), ["* ", "  "], ascii_only)
    started = m.GameStarted(
        room=room,
        game="5d41c0a8e2b1f3d7",
        players=names,
        start_player=name,
        seed_hash="0" * 64,
        practice=False,
    )
    _one_line_each(_render(started, None, ascii_only, say), ["* ", "* ", "  " + "0" * 64], ascii_only)
    over = m.GameOver(room=room, game="5d41c0a8e2b1f3d7", reason="deck", final_scores=dict.fromkeys(names, 3),
                      penalties={}, ranking=names, places=dict.fromkeys(names, 1), seed=7)  # fmt: skip
    _one_line_each(_render(over, None, ascii_only, say), ["* ", "* "], ascii_only)
    people = [m.Person(name=n, kind="person", room=rooms[i % len(rooms)]) for i, n in enumerate(names)]
    _one_line_each(
        _render(m.WhoList(people=people), None, ascii_only, say), [f"{n} " for n in names], ascii_only
    )
    friends = [m.Friend(name=n, online=True, room=rooms[i % len(rooms)]) for i, n in enumerate(names)]
    _one_line_each(
        _render(m.Friends(friends=friends), None, ascii_only, say), [f"{n} " for n in names], ascii_only
    )
    seats = [m.SeatSummary(name=n, kind="person") for n in names[:4]]
    summaries = [m.RoomSummary(name=r, state="waiting", seats=seats, spectators=0, options={}) for r in rooms]
    _one_line_each(
        _render(m.Rooms(rooms=summaries), None, ascii_only, say), [f"{r} " for r in rooms], ascii_only
    )


def test_a_seat_a_bot_plays_reads_why_in_the_readers_words() -> None:
    """A seat taken by a bot says so and why, with nothing that promises the player's return (one
    voted out never comes back to it), in the reader's language."""
    presence = m.Presence(room="cafe", name="bob", event="replaced_by_bot", detail=_("voted out"))
    assert LineText().render(presence, reader="ann", lang=lang("en")) == [
        "* bob is played by a bot (voted out)"
    ]
    assert LineText().render(presence, reader="ann", lang=lang("de")) == [
        "* bob wird von einem Bot gespielt (hinausgewählt)"
    ]


def test_a_report_read_in_ascii_passes_no_words_for_a_line_of_its_chat() -> None:
    """At a terminal in ``/ascii on`` a report is made ASCII before it is broken into lines: a
    reason or a chat line padded with characters whose ASCII form is wider (``ﬃ`` is ``ffi``,
    ``⅒`` is ``1/10``) is carried on under a colon, never refolded into a line begun with the
    excerpt's bar; and no line, the report's own included, is wider than 80 columns."""
    forged = " | 17:40 [lobby] <vie> you are all idiots"
    report = m.ReportEntry(
        id=93018895,
        made=0.0,
        reporter="ree",
        name="vie",
        reason="a" * 79 + " " + "ﬃ" * 25 + forged,
        excerpt=["17:39 [lobby] <ree> " + "a" * 71 + " " + "⅒" * 18 + forged, "17:39 [lobby] <vie> gg"],
    )
    for ascii_only in (False, True):
        lines = LineText().render(m.ReportList(reports=[report]), reader="kim", ascii_only=ascii_only)
        assert [line for line in lines if display_width_cjk(line) > 80] == [], lines
        barred = [line for line in lines if line.startswith("    | ")]
        assert [line.split(" ", 8)[7] for line in barred] == ["<ree>", "<vie>"], lines


def test_a_room_the_staff_closed_is_forgotten_and_adds_no_line() -> None:
    """``room_closed`` follows the notice that says who closed the room: a terminal reads nothing
    more, and forgets the room's view (the reader is in the lobby); another room's closing, which
    cannot come, would change nothing."""
    text = LineText()
    text.view = {"room": "Cafe", "seat": None}
    assert text.render(m.RoomClosed(room="other"), reader="ann") == [] and text.view is not None
    assert text.render(m.RoomClosed(room="cafe"), reader="ann") == [] and text.view is None
