"""A click in the lobby is not lost when the room list changes between its press and its release
(another person opening a room anywhere rebuilds the list)."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, WebSocket

from tests.web.pages import come_in


def test_a_click_held_while_the_room_list_changes_takes_the_seat(open_page: Callable[..., Page]) -> None:
    """The press on "Take a seat", then a room opened by another person reaches the page, then the
    release: the click goes through, and the person sits in the room typed."""
    ann, bob = open_page(), open_page()
    heard: list[str] = []

    def listen(ws: WebSocket) -> None:
        ws.on("framereceived", lambda payload: heard.append(str(payload)))

    ann.on("websocket", listen)
    come_in(ann, "heldpress")
    come_in(bob, "heldopens")
    ann.locator("#room-input").fill("held-click")
    box = ann.locator(".panel.lobby button.primary").bounding_box()
    assert box is not None
    ann.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    ann.mouse.down()
    bob.locator("#room-input").fill("opened-meanwhile")
    bob.locator(".panel.lobby button.primary").click()
    bob.locator(".panel.waiting").wait_for()
    for _ in range(100):  # until ann's page has been told of bob's room
        if any("opened-meanwhile" in frame for frame in heard):
            break
        ann.wait_for_timeout(50)
    assert any("opened-meanwhile" in frame for frame in heard)
    ann.evaluate("0")  # the page has handled what it was told
    ann.mouse.up()
    ann.locator(".panel.waiting").wait_for()
    ann.locator("#room-name", has_text="held-click").wait_for()
