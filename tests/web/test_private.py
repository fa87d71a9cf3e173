"""A private room on the web page: the lobby's Online list and a profile say "in a private room",
and a private game's replay opens for its players (the page sends their token) and for nobody
else. (The game's start shows its shuffle fingerprint in the chat.)"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from tests.web.conftest import ServerThread
from tests.web.pages import come_in, type_line, wait_for_line
from tests.web.social_steps import enter_room, fill_account

if TYPE_CHECKING:
    from playwright.sync_api import Page

PASSWORD = "correct horse battery"


def _register(page: Page, name: str) -> None:
    fill_account(page, name, PASSWORD)
    page.locator("#register-btn").click()
    page.locator("#me", has_text=name).wait_for()
    page.locator("#log .line", has_text=f"{name} is registered").first.wait_for()


def test_a_private_room_is_unnamed_outside_and_its_replay_is_its_players(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """privann and privbob play in a private room (bob leaves: ann wins). privzoe's lobby lists
    privann "in a private room", her profile says so and lists no game; the game's replay opens
    in ann's browser and says there is no such game in zoe's."""
    ann, bob = open_page(), open_page()
    _register(ann, "privann")
    _register(bob, "privbob")
    enter_room(ann, "hideout")
    enter_room(bob, "hideout")
    for line in ("/option private on", "/option absent drop", "/start"):
        type_line(ann, line)
    wait_for_line(bob, "The game starts")
    wait_for_line(bob, "Shuffle fingerprint, sha256(seed): ")
    shown = bob.locator("#log .line", has_text="Shuffle fingerprint").first.inner_text().split()[-1]
    type_line(bob, "/leave")
    wait_for_line(ann, "Game over")
    game = server.call(lambda s: s.store.games_named("privann")[0])  # type: ignore[attr-defined]
    game_id = game.game_id
    # the fingerprint the page showed at the start is that of the seed the game was dealt from
    assert shown == hashlib.sha256(str(game.record.seed).encode()).hexdigest(), shown

    zoe = open_page()
    come_in(zoe, "privzoe")
    online = zoe.locator(".panel.lobby .online")
    online.locator("text=in a private room").wait_for()
    assert "hideout" not in online.inner_text()
    online.locator("[data-profile=privann]").click()
    dialog = zoe.locator("#people-dialog")
    dialog.locator(".profile-facts li", has_text="now in a private room").wait_for()
    assert dialog.locator(f"[data-game='{game_id}']").count() == 0

    replay = ann.context.new_page()
    replay.goto(f"{server.url}games/{game_id}")
    replay.locator("#replay-title", has_text="Room hideout").wait_for()
    outsider = zoe.context.new_page()
    outsider.goto(f"{server.url}games/{game_id}")
    outsider.locator("#replay-status", has_text="No finished game has that address.").wait_for()
