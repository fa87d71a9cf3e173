"""A turn by keyboard: a skip link leads to the hand, shortcuts choose a card (1 to 9), the bar
(B) and play (Enter), ? lists them, and the focus never drops to the page's body after Play or
after "Show the café"."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page

from tests.web.conftest import DESKTOP
from tests.web.live_steps import seat_with_bot
from tests.web.pages import come_in, move_number, play_by_clicking, type_line, wait_until
from tests.web.social_steps import enter_room

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


def test_a_screen_reader_reads_the_hand_and_the_turn_as_the_eye_does(open_page: Callable[..., Page]) -> None:
    """A faded card (placed in the move, or not playable now) is ``aria-disabled``; the header's
    turn, a live region, is written when it changes, not at each render; the cards' names follow
    the language switch at once; and a game that ends with the keyboard on a card takes it to the
    results."""
    page = open_page(DESKTOP)
    seat_with_bot(page, "readerone", "reader-room", start=False)
    page.locator("#opt-absent").select_option("drop")
    page.locator("[data-focus=start]").click()
    page.locator("#app[data-state=playing]").wait_for()
    page.evaluate(
        """() => { window.turnWrites = 0;
             const watch = {childList: true, characterData: true, subtree: true};
             const turn = document.getElementById('turn');
             new MutationObserver(() => window.turnWrites++).observe(turn, watch); }"""
    )
    faded_seen = 0
    for _ in range(2):
        page.locator("#app[data-turn=mine][data-legal=ready]").wait_for(timeout=30_000)
        before = move_number(page)
        page.locator("#hand .card.playable").first.click()
        targets = page.locator("#board .chair.target:not(.swap)")
        if targets.count():
            targets.first.click()  # (the card is placed in the move: faded)
        for card in page.locator("#hand .card").all():
            faded = {"dim", "used"} & set((card.get_attribute("class") or "").split())
            assert bool(faded) == (card.get_attribute("aria-disabled") == "true"), card.get_attribute("class")
            faded_seen += bool(faded)
        page.keyboard.press("Escape")
        play_by_clicking(page)
        wait_until(page, lambda b=before: move_number(page) >= b + 2, 30.0)  # (mine and the bot's)
    assert faded_seen > 0
    # two moves each way change the turn about four times; each render wrote it before
    assert page.evaluate("window.turnWrites") <= 6, page.evaluate("window.turnWrites")
    english = page.locator("#hand .card").first.get_attribute("aria-label") or ""
    page.locator("#lang-select").select_option("de")
    wait_until(page, lambda: (page.locator("#hand .card").first.get_attribute("aria-label") or "") != english)
    assert " aus " in (page.locator("#hand .card").first.get_attribute("aria-label") or "")


def test_a_game_that_ends_with_the_keyboard_on_a_card_takes_it_to_the_results(
    open_page: Callable[..., Page],
) -> None:
    """The keyboard on a hand card as the game ends (the other player left: absent drop): nothing
    there does anything now, and the focus goes to the results panel."""
    ann, bob = open_page(DESKTOP), open_page(DESKTOP)
    come_in(ann, "endann")
    come_in(bob, "endbob")
    enter_room(ann, "end-room")
    enter_room(bob, "end-room")
    for line in ("/option absent drop", "/start"):
        type_line(ann, line)
    ann.locator("#app[data-state=playing]").wait_for()
    bob.locator("#app[data-state=playing]").wait_for()
    ann.locator("#hand .card").first.focus()
    type_line(bob, "/leave")
    ann.locator("#overlay .panel").wait_for()
    in_results = "document.getElementById('overlay').contains(document.activeElement)"
    wait_until(ann, lambda: ann.evaluate(in_results))
