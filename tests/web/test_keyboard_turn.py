"""A turn by keyboard: a skip link leads to the hand, shortcuts choose a card (1 to 9), the bar
(B) and play (Enter), ? lists them, and the focus never drops to the page's body after Play or
after "Show the café"."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page

from tests.web.conftest import DESKTOP
from tests.web.live_steps import seat_with_bot
from tests.web.pages import move_number, play_by_clicking, type_line, wait_until

FOCUS = """() => { const a = document.activeElement;
  return a === document.body || a === null ? 'body' : a.id || a.className || a.tagName; }"""


def test_shortcuts_and_the_skip_link_play_a_turn(open_page: Callable[..., Page]) -> None:
    """The skip link is the first stop of Tab and puts the focus in the hand; ? opens the
    list of shortcuts; a card's number chooses it, B sends it to the bar, Enter plays."""
    page = open_page(DESKTOP)
    seat_with_bot(page, "keyplayer", "keys-room")
    page.locator("#app[data-turn=mine][data-legal=ready]").wait_for(timeout=30_000)
    first = page.evaluate(
        """() => [...document.querySelectorAll('a[href], button, input, select, [tabindex]')]
             .find((e) => e.tabIndex >= 0 && e.getClientRects().length && !e.disabled)?.id"""
    )
    assert first == "skip-hand"
    page.locator("#skip-hand").focus()
    assert page.locator("#skip-hand").is_visible()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.closest('#hand') !== null")
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("?")
    page.locator("#keys-dialog").wait_for()
    page.keyboard.press("Escape")
    page.locator("#keys-dialog").wait_for(state="hidden")
    cards = page.locator("#hand .card")
    kinds = [(c.get_attribute("class") or "", c.get_attribute("data-card") or "") for c in cards.all()]
    index = next(i for i, (cls, card) in enumerate(kinds) if "playable" in cls and not card.startswith("J"))
    before = move_number(page)
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press(str(index + 1))
    assert "selected" in (cards.nth(index).get_attribute("class") or "")
    page.keyboard.press("b")
    page.locator("#confirm:not([disabled])").wait_for()
    assert (page.locator("#confirm").get_attribute("data-move") or "").endswith("@bar")
    # the page moves the focus to Play in its next animation frame, as a person would see it move;
    # an Enter before that would be the chosen card's
    page.wait_for_function("() => document.activeElement?.id === 'confirm'")
    page.keyboard.press("Enter")
    wait_until(page, lambda: move_number(page) > before)


def test_the_focus_stays_in_the_hand_after_play_and_on_the_results_button(
    open_page: Callable[..., Page],
) -> None:
    """Start pressed at the keyboard leaves the focus in the hand, where the game goes on, not on
    the page's body; so does Play; after "Show the café" it is on "Show the results"."""
    page = open_page(DESKTOP)
    seat_with_bot(page, "focuskeeper", "focus-room", start=False)
    page.locator("#opt-absent").select_option("drop")
    page.locator("[data-focus=start]").focus()
    page.keyboard.press("Enter")
    page.locator("#app[data-state=playing]").wait_for()
    wait_until(page, lambda: page.evaluate("document.activeElement.closest('#hand') !== null"), 5.0)
    page.locator("#app[data-turn=mine][data-legal=ready]").wait_for(timeout=30_000)
    play_by_clicking(page)
    page.wait_for_timeout(200)
    assert page.evaluate("document.activeElement.closest('#hand') !== null"), page.evaluate(FOCUS)
    type_line(page, "/stand")
    page.locator("[data-focus=show-cafe]").click()
    assert page.evaluate("document.activeElement.id") == "results-btn"
