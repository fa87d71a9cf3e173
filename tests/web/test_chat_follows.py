"""The chat pane keeps up: it follows new lines through a game unless the reader scrolled up (then a
marker jumps down to them), its input stays in view however tall the players grow, each line
carries its time, and a wide block of text is reached by keyboard."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from playwright.sync_api import Locator, Page

from tests.web.conftest import DESKTOP, PHONE
from tests.web.live_steps import play_a_move_and_wait_for_the_bot, seat_with_bot
from tests.web.pages import type_line, wait_for_line


def _shown_in(page: Page, line: Locator, box: str) -> bool:
    """Whether ``line`` lies whole inside the element ``box`` as the reader sees it."""
    inner, outer = line.bounding_box(), page.locator(box).bounding_box()
    assert inner is not None and outer is not None
    return inner["y"] >= outer["y"] - 1 and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 1


def _comes_into_view(page: Page, line: Locator, box: str, within: float = 5.0) -> None:
    """Wait until ``line`` lies whole inside ``box``, for ``within`` seconds at most: the pane follows
    a new line on a frame of its own, which a busy machine draws later than a tenth of a second.
    Fails with where the line and the box's scroll stood."""
    deadline = time.monotonic() + within
    while not _shown_in(page, line, box):
        if time.monotonic() > deadline:
            scroll = page.locator(box).evaluate(
                "(el) => ({top: el.scrollTop, height: el.scrollHeight, client: el.clientHeight})"
            )
            marker = page.locator("#new-lines").is_visible()
            where = page.locator(box).bounding_box()
            pytest.fail(
                f"never in view: the line at {line.bounding_box()}, {box} at {where} scrolled {scroll},"
                f" the new-lines marker shown: {marker}"
            )
        page.wait_for_timeout(50)


def test_the_chat_follows_new_lines_through_a_game_at_1280x800(open_page: Callable[..., Page]) -> None:
    """Seat, a bot, /info three times, Start, two moves, a chat line: the line shows at the foot of
    the log, in view, and so does every move after it."""
    page = open_page(DESKTOP)
    seat_with_bot(page, "follower", "follow-room", start=False)
    for _ in range(3):
        type_line(page, "/info")
    page.locator("#log pre.info").nth(2).wait_for()
    page.locator("[data-focus=start]").click()
    page.locator("#app[data-state=playing]").wait_for()
    play_a_move_and_wait_for_the_bot(page)
    play_a_move_and_wait_for_the_bot(page)
    type_line(page, "test")
    line = page.locator("#log .line.chat", has_text="test").last
    line.wait_for()
    _comes_into_view(page, line, "#log")
    assert page.locator("#new-lines").is_hidden()


#: shrinks the log by 150 px right after the next line the pane appends, before the browser draws:
#: as the hand's area does when it appears in the frame that also brings lines
SHRINK_WITH_THE_NEXT_LINE = """() => {
  const log = document.getElementById("log");
  const watch = new MutationObserver(() => {
    watch.disconnect();
    log.style.maxHeight = `${log.clientHeight - 150}px`;
  });
  watch.observe(log, { childList: true });
}"""


def test_the_chat_keeps_following_when_the_log_shrinks_as_a_line_comes(
    open_page: Callable[..., Page],
) -> None:
    """The pane's own scroll to a new line is not the reader's: if the log shrinks in the same
    frame (the hand appears as the game's lines come), the newest line is still followed."""
    page = open_page(DESKTOP)
    seat_with_bot(page, "shrinker", "shrink-room", start=False)
    for _ in range(3):
        type_line(page, "/info")
    page.locator("#log pre.info").nth(2).wait_for()
    page.evaluate(SHRINK_WITH_THE_NEXT_LINE)
    type_line(page, "/info")
    page.locator("#log pre.info").nth(3).wait_for()
    page.wait_for_timeout(200)  # a few frames: the scroll's event has come
    type_line(page, "after the shrink")
    line = page.locator("#log .line.chat", has_text="after the shrink")
    line.wait_for()
    _comes_into_view(page, line, "#log")
    assert page.locator("#new-lines").is_hidden()


def _wheel(page: Page, dy: float) -> None:
    """Turn the mouse wheel over the log, as a reader scrolls it."""
    page.locator("#log").hover()
    page.mouse.wheel(0, dy)
    page.wait_for_timeout(200)


def test_a_reader_who_scrolled_up_gets_a_marker_that_jumps_down(open_page: Callable[..., Page]) -> None:
    """Scrolled up with the wheel, the log stays where the reader is and a "new messages" marker
    shows; it jumps to the newest line and goes. Scrolled back down by hand, the log follows
    again."""
    page = open_page(DESKTOP)
    seat_with_bot(page, "scroller", "scroll-room", start=False)
    for _ in range(4):
        type_line(page, "/help")
    page.locator("#log pre.help").nth(3).wait_for()
    _wheel(page, -100_000)
    type_line(page, "below the fold")
    line = page.locator("#log .line.chat", has_text="below the fold")
    line.wait_for()
    page.locator("#new-lines").wait_for()
    assert page.evaluate("document.getElementById('log').scrollTop") == 0
    assert not _shown_in(page, line, "#log")
    page.locator("#new-lines").click()
    page.locator("#new-lines").wait_for(state="hidden")
    assert _shown_in(page, line, "#log")
    # up again, then back down to the foot by hand: the log follows again
    _wheel(page, -100_000)
    _wheel(page, 100_000)
    type_line(page, "back at the foot")
    again = page.locator("#log .line.chat", has_text="back at the foot")
    again.wait_for()
    _comes_into_view(page, again, "#log")
    assert page.locator("#new-lines").is_hidden()


#: moves the log's scroll as the layout would, with no wheel, touch or key of the reader's: 76 px
#: up from its foot (a line above grew, or the browser kept a line in place)
LAYOUT_SCROLL = """(log => { log.scrollTop = log.scrollHeight - log.clientHeight - 76; })(
  document.getElementById("log"))"""


def test_a_scroll_the_reader_did_not_make_leaves_the_log_following(open_page: Callable[..., Page]) -> None:
    """A scroll of the log that no wheel, touch or key of the reader's made (the layout's) does not
    stop it following, also while they type in the chat's input (a space, the arrow keys of its
    history): it goes back to its foot, shows no marker, and the next line is in view."""
    page = open_page(DESKTOP)
    seat_with_bot(page, "layouter", "layout-room", start=False)
    for _ in range(4):
        type_line(page, "/help")
    page.locator("#log pre.help").nth(3).wait_for()
    for key in ("ArrowUp", "ArrowDown", "Space"):
        page.locator("#input").press(key)
    page.evaluate(LAYOUT_SCROLL)
    page.wait_for_timeout(200)
    assert page.locator("#new-lines").is_hidden()
    type_line(page, "still following")
    line = page.locator("#log .line.chat", has_text="still following")
    line.wait_for()
    _comes_into_view(page, line, "#log")
    assert page.locator("#new-lines").is_hidden()


def test_the_chat_input_stays_in_its_pane_in_a_three_player_game(open_page: Callable[..., Page]) -> None:
    """With three players, two rounds played and a hint shown, the chat's input lies whole inside
    the chat's pane and can be typed in (the page scrolls rather than hiding it)."""
    page = open_page(DESKTOP)
    seat_with_bot(page, "threesome", "three-room", start=False)
    page.locator("[data-focus=add-bot]").click()
    page.locator(".seats li.taken").nth(2).wait_for()
    page.locator("[data-focus=start]").click()
    page.locator("#app[data-state=playing]").wait_for()
    for _ in range(2):  # the moves fill the list of moves
        play_a_move_and_wait_for_the_bot(page)
    page.locator("#app[data-turn=mine][data-legal=ready]").wait_for(timeout=30_000)
    page.locator("#hint-btn").click()
    wait_for_line(page, "Hint: ")
    field, pane = page.locator("#input").bounding_box(), page.locator(".chat-pane").bounding_box()
    assert field is not None and pane is not None
    assert field["y"] + field["height"] <= pane["y"] + pane["height"], (field, pane)
    type_line(page, "still here")
    page.locator("#log .line.chat", has_text="still here").wait_for()


def test_chat_lines_carry_their_time_and_a_wide_block_takes_the_focus(open_page: Callable[..., Page]) -> None:
    """Every line has the time it came, shown small; /help's block, which scrolls sideways, is
    in the Tab order (a keyboard reaches all of it)."""
    page = open_page(PHONE)
    seat_with_bot(page, "stamped", "stamp-room", start=False)
    type_line(page, "/help")
    block = page.locator("#log pre.help").first
    block.wait_for()
    assert block.get_attribute("tabindex") == "0"
    stamp = page.locator("#log .line.presence").first.get_attribute("data-at") or ""
    assert len(stamp) == 5 and stamp[2] == ":", stamp


def test_a_reopened_tab_finds_the_rooms_chat_and_a_reload_shows_it_once(
    open_page: Callable[..., Page],
) -> None:
    """A tab closed during a game and opened again (same browser, its tab's own log gone) shows
    the room's latest chat, which the server keeps; a reload after shows each line once."""
    page = open_page(DESKTOP)
    seat_with_bot(page, "reopener", "reopen-room")  # a game holds the seat, and the room
    type_line(page, "before closing")
    page.locator("#log .line.chat", has_text="before closing").wait_for()
    context = page.context
    page.close()
    again = context.new_page()
    again.goto(page.url)
    line = again.locator("#log .line.chat", has_text="before closing")
    line.wait_for()
    again.reload()
    again.locator("#app[data-state=playing]").wait_for()
    again.locator("#log .line", has_text="Welcome back").last.wait_for()
    again.wait_for_timeout(300)
    assert line.count() == 1
