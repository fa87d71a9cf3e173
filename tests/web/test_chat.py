"""The chat pane: every line goes to the server's command parser, answers and errors show in the
pane, command names complete with Tab, and Up/Down walk the lines typed before."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page

from tests.web.pages import come_in, type_line, wait_for_line

COMMANDS = json.loads((Path(__file__).parents[2] / "server/static/commands.json").read_text("utf-8"))


def _input(page: Page) -> str:
    return page.locator("#input").input_value()


def test_help_board_and_score_answers_show_as_preformatted_text(open_page: Callable[..., Page]) -> None:
    """/help, /board and /score are answered by the server with text shown preformatted."""
    page = open_page()
    come_in(page, "hal")
    type_line(page, "/help")
    page.locator("#log pre.help", has_text="Commands (/help COMMAND for more)").wait_for()
    type_line(page, "/join chat-one")
    page.locator("#app[data-state=waiting]").wait_for()
    type_line(page, "/board")
    page.locator("#log pre.board").wait_for()
    type_line(page, "/score")
    page.locator("#log pre.score").wait_for()
    text = page.locator("#log pre.help").inner_text()
    assert "/join [ROOM or N]" in text and "\n  /play MOVE" in text


def test_chat_errors_and_presence_show_in_the_pane(open_page: Callable[..., Page]) -> None:
    """Plain text is said to the room and shown with its speaker; a mistyped command shows the
    server's error; another person entering shows as presence."""
    ivy = open_page()
    come_in(ivy, "ivy")
    type_line(ivy, "/join chat-two")
    ivy.locator("#app[data-state=waiting]").wait_for()
    jon = open_page()
    come_in(jon, "jon")
    type_line(jon, "/room chat-two")
    wait_for_line(ivy, "jon comes in")
    type_line(jon, "hello <b>all</b>")
    line = ivy.locator("#log .line.chat", has_text="hello")
    line.wait_for()
    assert line.inner_text() == "jon: hello <b>all</b>"  # shown as typed, never as markup
    type_line(ivy, "/jion x")
    error = ivy.locator("#log .line.error", has_text="did you mean /join")
    error.wait_for()
    assert error.get_attribute("title") == "unknown_command"


def test_tab_completes_command_names(open_page: Callable[..., Page]) -> None:
    """Tab completes a command name that fits alone, extends to the longest common start of
    several, then steps through them; the usage of the command typed shows under the input."""
    page = open_page()
    come_in(page, "kim")
    box = page.locator("#input")
    box.fill("/he")
    box.press("Tab")
    assert _input(page) == "/help "
    assert page.locator("#cmd-hint").inner_text().startswith("/help [COMMAND]")
    box.fill("/roo")
    box.press("Tab")
    assert _input(page) == "/room"
    box.press("Tab")
    first = _input(page)
    box.press("Tab")
    assert {first, _input(page)} == {"/room", "/rooms"}
    names = sorted(c["name"] for c in COMMANDS["commands"])
    for name in names:
        box.fill(f"/{name}")
        box.press("Tab")
        assert _input(page).rstrip() in {f"/{n}" for n in names if n.startswith(name)}


def test_up_and_down_walk_the_input_history(open_page: Callable[..., Page]) -> None:
    """Up brings back the lines typed before, newest first; Down goes forward again and ends at
    the line being typed."""
    page = open_page()
    come_in(page, "lea")
    type_line(page, "/who")
    type_line(page, "/ping")
    wait_for_line(page, "pong")
    box = page.locator("#input")
    box.fill("half typed")
    box.press("ArrowUp")
    assert _input(page) == "/ping"
    box.press("ArrowUp")
    assert _input(page) == "/who"
    box.press("ArrowDown")
    assert _input(page) == "/ping"
    box.press("ArrowDown")
    assert _input(page) == "half typed"


def test_tells_invitations_and_friends_show_in_the_pane(open_page: Callable[..., Page]) -> None:
    """A tell shows to both sides with who wrote it, an invitation names the room, and /friends
    lists who is online and where."""
    kit = open_page()
    come_in(kit, "kit")
    lou = open_page()
    come_in(lou, "lou")
    type_line(kit, "/tell lou psst <i>here</i>")
    got = lou.locator("#log .line.tell", has_text="psst")
    got.wait_for()
    assert got.inner_text() == "kit tells you: psst <i>here</i>"
    kit.locator("#log .line.tell", has_text="to lou: psst").wait_for()
    type_line(kit, "/join tell-room")
    kit.locator("#app[data-state=waiting]").wait_for()
    type_line(kit, "/invite lou")
    wait_for_line(lou, "kit invites you to room tell-room")
    type_line(lou, "/friend kit")
    type_line(lou, "/friends")
    lou.locator("#log pre", has_text="kit  tell-room").wait_for()
