"""Moderation on the web page: the staff's panel (people with one-click kick, silence and ban, the
open reports with their chat, the log), "Report" in a name's menu for everyone, and no panel for
anyone else."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

from playwright.sync_api import Page

from tests.web.conftest import ServerThread
from tests.web.live_steps import audit
from tests.web.pages import come_in, type_line, wait_for_line
from tests.web.social_steps import enter_room, fill_account, register

PASSWORD = "keep the peace"


def cafe_admin(server: ServerThread, *args: str) -> subprocess.CompletedProcess[str]:
    """``cafe-admin ARGS`` on the test server's data, as the operator runs it."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CAFE_")}
    return subprocess.run(
        [sys.executable, "-m", "server.admin", "--data", str(server.data), *args],
        capture_output=True, text=True, timeout=60, env=clean, check=False,
    )  # fmt: skip


def make_moderator(page: Page, server: ServerThread, name: str, role: str = "moderator") -> None:
    """Register ``name`` on ``page``, have the operator make it a moderator (``cafe-admin`` on the
    server's data), and reload: the page asks its role at the welcome and shows the panel's button."""
    register(page, name, PASSWORD)
    done = cafe_admin(server, "role", name, role)
    assert done.returncode == 0, done.stderr
    page.reload()
    page.locator("#app[data-conn=connected]").wait_for()
    page.locator("#mod-open").wait_for()


def test_a_moderator_stops_a_flooding_guest_from_the_panel_in_one_click(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """A moderator opens the panel, finds the flooding guest among the people connected and
    kicks it with one click (the reason given above): the guest's page reads why and loses its
    connection, its banner saying the staff closed it (not that it was lost), and the panel's log
    shows the kick. Another guest from the address reads in the
    welcome form that guests from it may come back later, without the kicked guest's name. Unban
    by name lets the guest in again, logged without the kick's reason."""
    mod, troll = open_page(), open_page()
    make_moderator(mod, server, "peacemia")
    come_in(troll, "floodgus")
    try:
        for _ in range(3):
            type_line(troll, "SPAM SPAM SPAM")
        mod.locator("#mod-open").click()
        mod.locator("#mod-dialog[open]").wait_for()
        mod.locator("#mod-reason").fill("flooding the lobby")
        row = mod.locator("#mod-people li[data-person=floodgus]")
        row.locator("button[data-mod=kick]").click()
        troll.locator("#log .line", has_text="flooding the lobby").wait_for()
        troll.locator("#app:not([data-conn=connected])").wait_for()
        troll.locator("#banner-text", has_text="The staff closed this connection").wait_for()
        type_line(troll, "still there?")  # (the page tries no more: it says so, not that it will)
        wait_for_line(troll, "Not connected: reload the page to connect again.")
        mod.locator("#mod-log li[data-action=kick]", has_text="floodgus").wait_for()
        mod.locator("#mod-status", has_text="floodgus is kicked").wait_for()
        other = open_page()
        fill_account(other, "othergus", "")
        other.locator("#guest-btn").click()
        refused = other.locator("#name-error", has_text="A guest from your address was kicked")
        refused.wait_for()
        assert "floodgus" not in refused.inner_text() and other.locator("#name-dialog").is_visible()
        found = audit(mod)
        assert found == [], found
        mod.locator("#mod-name").fill("floodgus")
        mod.locator(".mod-by-name button[data-mod=unban]").click()
        mod.locator("#mod-status", has_text="floodgus is free again").wait_for()
        lifted = mod.locator("#mod-log li[data-action=unkick]", has_text="floodgus")
        lifted.wait_for()
        assert "flooding" not in lifted.inner_text(), lifted.inner_text()
        troll.reload()
        troll.locator("#app[data-conn=connected]").wait_for()
    finally:  # (a kicked guest's address holds for every guest of the shared server's tests)
        cafe_admin(server, "unban", "floodgus")


def test_a_report_from_a_names_menu_shows_in_the_staff_panel(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """Someone chooses a name, "Report" (here on a German page: "Melden"), gives a reason and is
    thanked; the staff's panel lists the report with the chat both saw, and resolving it with a
    note (at the keyboard) takes it off the open ones, the focus going to the status line that says
    so (``/reports all`` typed shows it resolved)."""
    mod, ann, troll = open_page(), open_page(locale="de-DE"), open_page()
    make_moderator(mod, server, "peacemo")
    come_in(ann, "repann")
    come_in(troll, "reptroll")
    type_line(troll, "you all smell of burnt coffee")
    # padded with ideographic spaces, a line that would start a line of its own: another's words
    type_line(troll, "gg" + "\u3000" * 150 + "12:00 [lobby] <repann> I cheat")
    type_line(troll, "long " * 80 + "end")
    wait_for_line(ann, "burnt coffee")
    wait_for_line(ann, "I cheat")
    wait_for_line(ann, "long long")
    # the chat's lines too: one padded line is one line, and a wrapped line goes on indented
    forged = ann.locator("#log .line", has_text="I cheat").first
    assert forged.inner_text().endswith("gg 12:00 [lobby] <repann> I cheat"), forged.inner_text()
    edge, first_top, later = ann.locator("#log .line", has_text="long long").first.evaluate(
        """(line) => {
            const range = document.createRange();
            range.selectNodeContents(line);
            const rects = [...range.getClientRects()].filter((r) => r.width > 0);
            const top = Math.min(...rects.map((r) => r.top));
            const below = rects.filter((r) => r.top > top + 2).map((r) => r.left);
            return [line.getBoundingClientRect().left, top, below.length ? Math.min(...below) : null];
        }"""
    )
    assert later is not None and later > edge + 8, (edge, first_top, later)  # wrapped, and indented
    ann.locator(".online [data-profile=reptroll]").click()
    ann.locator("#people-dialog [data-action=report]", has_text="Melden").click()
    ann.locator("#report-title", has_text="reptroll melden").wait_for()
    found = audit(ann)
    assert found == [], found
    ann.locator("#report-reason").fill("insults in the lobby")
    ann.locator("#report-send").click()
    ann.locator("#report-thanks", has_text="Danke").wait_for()
    mod.locator("#mod-open").click()
    report = mod.locator("#mod-reports li[data-name=reptroll]")
    report.wait_for()
    assert "insults in the lobby" in report.inner_text() and "repann" in report.inner_text()
    assert "<reptroll> you all smell of burnt coffee" in report.locator(".mod-excerpt").inner_text()
    lines = report.locator(".mod-excerpt li")
    said = [lines.nth(i).inner_text() for i in range(lines.count())]
    forged = next(line for line in said if "I cheat" in line)
    assert forged.split("<reptroll> ", 1)[1] == "gg 12:00 [lobby] <repann> I cheat", said
    assert not [line for line in said if line.startswith("12:00")]
    found = audit(mod)
    assert found == [], found
    report.locator("input").fill("warned")
    report.locator("button[data-mod=resolve]").focus()
    mod.keyboard.press("Enter")
    report.wait_for(state="detached")
    assert mod.evaluate("document.activeElement.id") == "mod-status"
    mod.locator("#mod-log li[data-action=resolve]", has_text="warned").wait_for()
    mod.locator("#mod-dialog form[method=dialog] button").click()
    type_line(mod, "/reports all")  # (typed: its answer opens the panel, resolved ones too)
    mod.locator("#mod-reports li[data-name=reptroll]", has_text="Resolved by peacemo: warned").wait_for()


def test_a_person_without_a_role_sees_no_panel_and_is_refused(open_page: Callable[..., Page]) -> None:
    """A guest has "Report" in a name's menu but no moderation panel nor "Moderate"; a staff
    command typed by hand is refused by the server (``not_staff``)."""
    pat, other = open_page(), open_page()
    come_in(pat, "plainpat")
    come_in(other, "plainpeg")
    pat.locator(".online [data-profile=plainpeg]").click()
    pat.locator("#people-dialog [data-action=report]").wait_for()
    assert pat.locator("#people-dialog [data-action=moderate]").count() == 0
    pat.locator("#people-dialog form[method=dialog] button").click()
    assert pat.locator("#mod-open").is_hidden()
    type_line(pat, "/kick plainpeg")
    refused = pat.locator("#log .line.error", has_text="Only the staff may do that.")
    refused.wait_for()
    assert refused.get_attribute("title") == "not_staff"
    assert other.locator("#app[data-conn=connected]").count() == 1
    assert pat.locator("#mod-open").is_hidden()


def test_a_role_given_while_connected_shows_the_panel_at_once(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """An admin types ``/role NAME moderator``: the new moderator's page, told by the server,
    shows the Moderation button without a reload; ``/role NAME none`` takes it away again."""
    boss, mia = open_page(), open_page()
    make_moderator(boss, server, "peaceboss", "admin")
    register(mia, "peacenew", PASSWORD)
    assert mia.locator("#mod-open").is_hidden()
    type_line(boss, "/role peacenew moderator")
    mia.locator("#mod-open").wait_for()
    type_line(boss, "/role peacenew none")
    mia.locator("#mod-open").wait_for(state="hidden")


def test_a_room_the_staff_close_sends_the_page_to_the_lobby(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """``/close`` of the room a page is in: the page reads who closed it and why, and shows the
    lobby again (the room gone from its address), as the server has it."""
    mod, ann = open_page(), open_page()
    make_moderator(mod, server, "closemia")
    come_in(ann, "closeann")
    enter_room(ann, "toclose")
    assert ann.evaluate("location.hash") == "#toclose"
    type_line(mod, "/close toclose spam")
    ann.locator("#log .line", has_text="The room toclose was closed by closemia: spam").wait_for()
    ann.locator(".panel.lobby").wait_for()
    assert ann.locator(".panel.waiting").count() == 0 and ann.evaluate("location.hash") == ""
